/* cmd_metrics.c — cubectl metrics: a Job's metrics (loss, accuracy ...) as
 * its replicas reported them (GET .../jobs/{name}/metrics), and `push` to
 * report points from a shell (POST, as a replica's CUBE_TOKEN may). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cube/util/json.h>

#include "api.h"
#include "json_pretty.h"
#include "table.h"
#include "url.h"

static const char usage[] =
    "Usage: cubectl metrics JOB [--name NAME] [--since-step N] [--last] [-o json]\n"
    "       cubectl metrics push JOB NAME=VALUE... [--step N]\n"
    "\n"
    "Shows the metrics a Job's replicas reported (JOB: NAME or job/NAME), one\n"
    "row per point, or with --last the latest point of each metric; push\n"
    "reports points (a replica finds its Job in $CUBE_JOB).\n"
    "\n"
    "Flags:\n"
    "      --name NAME      only this metric\n"
    "      --since-step N   only points after step N\n"
    "      --last           the latest point of each metric\n"
    "      --step N         push: the points' step (default 0)\n"
    "  -o, --output json    the server's document as it is\n";

/* ".../jobs/NAME/metrics" for "NAME" or "job/NAME" (jobs/NAME too). */
static int metrics_path(struct cli *cli, const char *arg, struct buf *b)
{
    const char *slash = strchr(arg, '/');
    if (slash && strncmp(arg, "jobs/", 5) && strncmp(arg, "job/", 4))
        return cli_usage_error(cli, "JOB: NAME or job/NAME, not %s", arg);
    const char *name = slash ? slash + 1 : arg;
    if (!*name)
        return cli_usage_error(cli, "JOB: the job's name is empty");
    if (buf_puts(b, "/api/v1/projects") || url_add_segment(b, cli_project(cli)) ||
        buf_puts(b, "/jobs") || url_add_segment(b, name) || buf_puts(b, "/metrics"))
        return cli_fail("out of memory");
    return 0;
}

static void when(double ts, char *out, size_t len)
{
    time_t t = (time_t)ts;
    struct tm tm;
    if (!gmtime_r(&t, &tm) || !strftime(out, len, "%Y-%m-%dT%H:%M:%SZ", &tm))
        snprintf(out, len, "%.0f", ts);
}

/* The latest point of each name: points come ordered by name, then step. */
static int is_last(const cJSON *p)
{
    const cJSON *next = p->next;
    return !next || strcmp(cu_str(next, "name"), cu_str(p, "name")) != 0;
}

static int print_points(const cJSON *doc, int last_only)
{
    static const char *const head[] = {"NAME", "STEP", "VALUE", "TIME"};
    struct table t;
    struct buf b = {0};
    if (table_init(&t, 4, head))
        return cli_fail("out of memory");
    const cJSON *p;
    int rc = 0, n = 0;
    cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(doc, "metrics")) {
        if (last_only && !is_last(p))
            continue;
        char step[32], value[48], ts[32];
        snprintf(step, sizeof step, "%.0f", cu_num(p, "step", 0));
        snprintf(value, sizeof value, "%.6g", cu_num(p, "value", NAN));
        when(cu_num(p, "ts", 0), ts, sizeof ts);
        const char *row[] = {cu_str(p, "name"), step, value, ts};
        rc |= table_add(&t, row);
        n++;
    }
    if (!rc && n && !(rc = table_render(&t, 0, &b)))
        fputs(buf_str(&b), stdout);
    else if (!rc)
        fprintf(stderr, "No metrics reported.\n");
    buf_free(&b);
    table_free(&t);
    return rc ? cli_fail("out of memory") : EXIT_OK;
}

static int show(struct cli *cli, const char *job, const char *name, const char *since,
                int last, const char *output)
{
    struct buf path = {0};
    struct api_result r;
    int rc = metrics_path(cli, job, &path);
    if (!rc && ((name && url_add_query(&path, "name", name)) ||
                (since && url_add_query(&path, "sinceStep", since))))
        rc = cli_fail("out of memory");
    if (!rc)
        rc = api_call(cli, "GET", buf_str(&path), NULL, NULL, &r);
    buf_free(&path);
    if (rc)
        return rc;
    if (!api_ok(&r) || !cJSON_IsObject(r.json)) {
        rc = api_ok(&r) ? cli_fail("the server's answer is not JSON") : api_fail(&r);
    } else if (output) {
        struct buf b = {0};
        if (json_pretty(r.json, &b) == 0)
            fputs(buf_str(&b), stdout);
        buf_free(&b);
    } else {
        rc = print_points(r.json, last);
    }
    api_result_free(&r);
    return rc;
}

/* {"metrics":[{"name","value","step"}...]} from NAME=VALUE arguments. */
static int push_body(struct cli *cli, char **args, int n, double step, char **out)
{
    cJSON *doc = cJSON_CreateObject(), *list = cJSON_AddArrayToObject(doc, "metrics");
    for (int i = 0; i < n; i++) {
        const char *eq = strchr(args[i], '=');
        char *end;
        errno = 0;
        double v = eq ? strtod(eq + 1, &end) : 0;
        if (!eq || eq == args[i] || end == eq + 1 || *end || errno || !isfinite(v)) {
            cJSON_Delete(doc);
            return cli_usage_error(cli, "expected NAME=VALUE with a finite number, not %s",
                                   args[i]);
        }
        cJSON *p = cJSON_CreateObject();
        char name[129];
        snprintf(name, sizeof name, "%.*s", (int)(eq - args[i]), args[i]);
        cJSON_AddStringToObject(p, "name", name);
        cJSON_AddNumberToObject(p, "value", v);
        cJSON_AddNumberToObject(p, "step", step);
        cJSON_AddItemToArray(list, p);
    }
    *out = cJSON_PrintUnformatted(doc);
    cJSON_Delete(doc);
    return *out ? 0 : cli_fail("out of memory");
}

static int push(struct cli *cli, const char *step_text)
{
    char *end, *body = NULL;
    double step = step_text ? strtod(step_text, &end) : 0;
    if (step_text && (end == step_text || *end || step < 0 || step != (long long)step))
        return cli_usage_error(cli, "--step needs a whole number >= 0");
    if (cli->npos < 3)
        return cli_usage_error(cli, "push needs JOB and at least one NAME=VALUE");
    struct buf path = {0};
    struct api_result r;
    int rc = push_body(cli, cli->pos + 2, cli->npos - 2, step, &body);
    if (!rc && !(rc = cli_connect(cli)) && !(rc = metrics_path(cli, cli->pos[1], &path)))
        rc = api_call(cli, "POST", buf_str(&path), "application/json", body, &r);
    free(body);
    buf_free(&path);
    if (rc)
        return rc;
    if (api_ok(&r))
        printf("%d point(s) reported to %s\n", cli->npos - 2, cli->pos[1]);
    else
        rc = api_fail(&r);
    api_result_free(&r);
    return rc;
}

int cmd_metrics(struct cli *cli, int argc, char **argv)
{
    const char *name = NULL, *since = NULL, *step = NULL, *output = NULL;
    int last = 0;
    const struct cli_flag flags[] = {
        FLAG_STR("name", 0, &name),   FLAG_STR("since-step", 0, &since),
        FLAG_ON("last", 0, &last),    FLAG_STR("step", 0, &step),
        FLAG_STR("output", 'o', &output), FLAG_END,
    };
    int rc = cli_parse(cli, argc, argv, flags, usage);
    if (rc != CLI_GO)
        return rc;
    if (output && strcmp(output, "json"))
        return cli_usage_error(cli, "-o: only json");
    if (cli->npos >= 1 && !strcmp(cli->pos[0], "push"))
        return push(cli, step);
    if (cli->npos != 1)
        return cli_usage_error(cli, "expected one JOB");
    if (step)
        return cli_usage_error(cli, "--step is for push");
    return (rc = cli_connect(cli)) ? rc : show(cli, cli->pos[0], name, since, last, output);
}
