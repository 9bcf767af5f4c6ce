/* cmd_logs.c — cubectl logs: an object's log text, copied to stdout as
 * it arrives (and kept open with -f). */
#include <stdio.h>
#include <stdlib.h>

#include "api.h"
#include "manifest.h"
#include "url.h"

static const char usage[] =
    "Usage: cubectl logs KIND/NAME [-f] [--replica N]\n"
    "       cubectl logs pipelinerun/RUN --task TASK [-f]\n"
    "\n"
    "Prints the logs of an object (a job, a service...), or of one task of a\n"
    "pipeline run.\n"
    "\n"
    "Flags:\n"
    "  -f, --follow        keep printing as new lines come\n"
    "      --replica N     the replica to read (default: the server's choice)\n"
    "      --task TASK     a pipeline run's task (its job's log)\n";

static int to_stdout(void *ud, const char *data, size_t n)
{
    (void)ud;
    if (fwrite(data, 1, n, stdout) != n)
        return 1;
    fflush(stdout);   /* a follower wants lines as they come */
    return 0;
}

static int build_path(const struct target *t, int follow, const char *replica,
                      const char *task, struct buf *path)
{
    if (task ? manifest_path(t, "tasks", path) || url_add_segment(path, task) ||
                   url_add_segment(path, "logs")
             : manifest_path(t, "logs", path))
        return -1;
    if (follow && url_add_query(path, "follow", "1"))
        return -1;
    return replica ? url_add_query(path, "replica", replica) : 0;
}

static int check_replica(struct cli *cli, const char *replica, const char *task)
{
    char *end;
    if (replica && task)
        return cli_usage_error(cli, "--replica and --task exclude each other");
    if (task && !*task)
        return cli_usage_error(cli, "--task needs a task name");
    long n = replica ? strtol(replica, &end, 10) : 0;
    if (replica && (end == replica || *end || n < 0))
        return cli_usage_error(cli, "--replica needs a number >= 0");
    return 0;
}

int cmd_logs(struct cli *cli, int argc, char **argv)
{
    char split[512];
    const char *replica = NULL, *task = NULL;
    int follow = 0;
    const struct cli_flag flags[] = {
        FLAG_ON("follow", 'f', &follow),
        FLAG_STR("replica", 0, &replica),
        FLAG_STR("task", 0, &task),
        FLAG_END,
    };
    struct target t;
    int rc = cli_parse(cli, argc, argv, flags, usage);
    if (rc != CLI_GO || (rc = check_replica(cli, replica, task)) ||
        (rc = manifest_target_args(cli, &t, split, sizeof split)))
        return rc;
    struct buf path = {0};
    struct http_resp resp;
    if (build_path(&t, follow, replica, task, &path)) {
        buf_free(&path);
        return cli_fail("out of memory");
    }
    rc = http_stream(&cli->http, buf_str(&path), "text/plain, application/json",
                     0, to_stdout, NULL, &resp);
    buf_free(&path);
    if (rc)
        return rc;
    if (resp.status < 200 || resp.status > 299)
        rc = api_fail_resp(&resp);
    else if (resp.broken[0])
        rc = cli_fail("the log stream broke off: %s", resp.broken);
    http_resp_free(&resp);
    return rc;
}
