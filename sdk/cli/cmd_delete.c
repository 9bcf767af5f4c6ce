/* cmd_delete.c — cubectl delete: by kind and names, or every object named
 * in a file. */
#include <stdio.h>

#include "api.h"
#include "manifest.h"

static const char usage[] =
    "Usage: cubectl delete KIND NAME... | -f FILE|-\n"
    "\n"
    "Deletes the named objects, or the objects in FILE.\n"
    "\n"
    "Flags:\n"
    "  -f, --filename FILE     delete the objects this file describes\n"
    "      --ignore-not-found  an object that does not exist is no error\n";

static int delete_one(struct cli *cli, const struct target *t, int ignore_missing)
{
    struct buf path = {0};
    struct api_result r;
    if (manifest_path(t, NULL, &path)) {
        buf_free(&path);
        return cli_fail("out of memory");
    }
    int rc = api_call(cli, "DELETE", buf_str(&path), NULL, NULL, &r);
    buf_free(&path);
    if (rc)
        return rc;
    if (api_ok(&r))
        printf("%s/%s deleted\n", t->kind->label, t->name);
    else if (!(r.status == 404 && ignore_missing))
        rc = api_fail(&r);
    api_result_free(&r);
    fflush(stdout);
    return rc;
}

static int delete_file(struct cli *cli, const char *file, int ignore_missing)
{
    cJSON *objs = manifest_read(file);
    int rc = objs ? cli_connect(cli) : EXIT_FAIL;
    const cJSON *obj;
    const cJSON *todo = rc ? NULL : objs;   /* nothing after a failure */
    cJSON_ArrayForEach(obj, todo) {
        struct target t;
        if (manifest_target(cli, obj, &t) || delete_one(cli, &t, ignore_missing))
            rc = EXIT_FAIL;
    }
    cJSON_Delete(objs);
    return rc;
}

static int delete_names(struct cli *cli, int ignore_missing)
{
    int rc = cli_connect(cli);
    if (rc)
        return rc;
    const struct kind *k = api_kind(cli, cli->pos[0]);
    if (!k)
        return EXIT_FAIL;
    for (int i = 1; i < cli->npos; i++) {
        struct target t = {k, k->cluster ? NULL : cli_project(cli), cli->pos[i]};
        if (delete_one(cli, &t, ignore_missing))
            rc = EXIT_FAIL;
    }
    return rc;
}

int cmd_delete(struct cli *cli, int argc, char **argv)
{
    const char *file = NULL;
    int ignore_missing = 0;
    const struct cli_flag flags[] = {
        {"filename", 'f', &file, NULL},
        {"ignore-not-found", 0, NULL, &ignore_missing},
        {NULL, 0, NULL, NULL},
    };
    int rc = cli_parse(cli, argc, argv, flags, usage);
    if (rc != CLI_GO)
        return rc;
    if (file && cli->npos)
        return cli_usage_error(cli, "give either -f FILE or KIND NAME..., not both");
    if (file)
        return delete_file(cli, file, ignore_missing);
    if (cli->npos < 2)
        return cli_usage_error(cli, "expected KIND NAME... or -f FILE");
    return delete_names(cli, ignore_missing);
}
