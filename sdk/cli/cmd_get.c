/* cmd_get.c — cubectl get: one object, a list (all pages), all projects'
 * lists, or a watch. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "print.h"
#include "url.h"
#include "watch.h"

static const char usage[] =
    "Usage: cubectl get KIND [NAME] [flags]\n"
    "\n"
    "Shows objects of a kind (plural, singular or Kind: widgets, widget, Widget).\n"
    "\n"
    "Flags:\n"
    "  -A, --all-projects     list in every project (project kinds)\n"
    "  -l, --selector SEL     label selector, e.g. app=web,tier!=db\n"
    "  -o, --output FORMAT    table (default), json, yaml or name\n"
    "  -w, --watch            after listing, print changes as they happen: table\n"
    "                         rows, or with -o json one {\"type\",\"object\"} line each\n"
    "      --limit N          objects per request; pages are followed to the end\n";

struct get_opts {
    const char *selector, *output, *limit_s;
    int all, watch;
    long limit;
    enum out_fmt fmt;
};

static int get_one(struct cli *cli, const struct kind *k, const char *name,
                   struct printer *p)
{
    struct buf path = {0};
    struct api_result r;
    if (url_object(&path, k->plural, k->cluster, cli_project(cli), name, NULL)) {
        buf_free(&path);
        return cli_fail("out of memory");
    }
    int rc = api_call(cli, "GET", buf_str(&path), NULL, NULL, &r);
    buf_free(&path);
    if (rc)
        return rc;
    if (!api_ok(&r))
        rc = api_fail(&r);
    else if (!cJSON_IsObject(r.json))
        rc = cli_fail("the server's answer is not a JSON object");
    else if (print_object(p, r.json))
        rc = cli_fail("cannot print the object");
    api_result_free(&r);
    return rc;
}

/* Lists k into items: from every project with -A, else from the current
 * one (cluster kinds ignore projects). */
static int list_all(struct cli *cli, const struct kind *k,
                    const struct get_opts *o, cJSON *items, char **rv)
{
    cJSON *projects = cJSON_CreateArray();
    int rc = projects ? 0 : cli_fail("out of memory");
    if (!rc && o->all && !k->cluster)
        rc = api_project_names(cli, projects);
    else if (!rc)
        cJSON_AddItemToArray(projects, cJSON_CreateString(cli_project(cli)));
    const cJSON *proj;
    const cJSON *todo = rc ? NULL : projects;   /* nothing after a failure */
    cJSON_ArrayForEach(proj, todo) {
        rc = api_list(cli, k, proj->valuestring, o->selector, o->limit, items, rv);
        if (rc)
            break;
    }
    cJSON_Delete(projects);
    return rc;
}

static int get_list(struct cli *cli, const struct kind *k,
                    const struct get_opts *o, struct printer *p)
{
    cJSON *items = cJSON_CreateArray();
    char *rv = NULL;
    int rc = items ? list_all(cli, k, o, items, &rv) : cli_fail("out of memory");
    if (!rc && o->fmt == OUT_TABLE && cJSON_GetArraySize(items) == 0) {
        if (k->cluster)
            fprintf(stderr, "No resources found.\n");
        else
            fprintf(stderr, "No resources found in %s.\n",
                    p->with_project ? "any project" : cli_project(cli));
    } else if (!rc && print_list(p, items, p->with_project ? NULL : rv)) {
        rc = cli_fail("cannot print the list");
    }
    cJSON_Delete(items);
    free(rv);
    return rc;
}

static int parse_opts(struct cli *cli, struct get_opts *o)
{
    char *end;
    if (cli->npos < 1 || cli->npos > 2)
        return cli_usage_error(cli, "expected KIND [NAME]");
    if (o->output && print_format(o->output, &o->fmt))
        return cli_usage_error(cli, "unknown output format \"%s\" "
                               "(table, json, yaml or name)", o->output);
    if (o->limit_s) {
        o->limit = strtol(o->limit_s, &end, 10);
        if (*end || end == o->limit_s || o->limit < 1)
            return cli_usage_error(cli, "--limit needs a positive number");
    }
    return 0;
}

int cmd_get(struct cli *cli, int argc, char **argv)
{
    struct get_opts o = {0};
    const struct cli_flag flags[] = {
        {"all-projects", 'A', NULL, &o.all},
        {"selector", 'l', &o.selector, NULL},
        {"output", 'o', &o.output, NULL},
        {"watch", 'w', NULL, &o.watch},
        {"limit", 0, &o.limit_s, NULL},
        {NULL, 0, NULL, NULL},
    };
    int rc = cli_parse(cli, argc, argv, flags, usage);
    if (rc != CLI_GO || (rc = parse_opts(cli, &o)) || (rc = cli_connect(cli)))
        return rc;
    const struct kind *k = api_kind(cli, cli->pos[0]);
    if (!k)
        return EXIT_FAIL;
    const char *name = cli->npos > 1 ? cli->pos[1] : NULL;
    int with_project = o.all && !k->cluster;
    if (o.watch && with_project)
        return cli_usage_error(cli, "--watch cannot follow every project at "
                               "once; pick one with -p");
    struct printer p;
    if (print_init(&p, o.fmt, k, with_project, stdout))
        return cli_fail("out of memory");
    if (o.watch) {
        struct watch_opts w = {k, cli_project(cli), o.selector, name, o.limit};
        rc = watch_run(cli, &w, &p);
    } else {
        rc = name ? get_one(cli, k, name, &p) : get_list(cli, k, &o, &p);
    }
    print_free(&p);
    return rc;
}
