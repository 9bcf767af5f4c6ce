/* cmd_get.c — cubectl get: one object, a list (all pages), all projects'
 * lists, several kinds or objects (get_many.c), or a watch. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "get.h"
#include "jsonpath_tmpl.h"
#include "sort.h"
#include "url.h"
#include "watch.h"

static const char usage[] =
    "Usage: cubectl get KIND[,KIND...] [NAME...] | KIND/NAME... [flags]\n"
    "\n"
    "Shows objects of a kind (plural, singular or Kind: widgets, widget, Widget).\n"
    "\n"
    "Flags:\n"
    "  -A, --all-projects     list in every project (project kinds)\n"
    "  -l, --selector SEL     label selector, e.g. app=web,tier!=db\n"
    "  -o, --output FORMAT    table (default), json, yaml, name, or\n"
    "                         jsonpath=TEMPLATE, e.g. '{.items[*].metadata.name}'\n"
    "                         or '{range .items[*]}{.metadata.name}{\"\\n\"}{end}'\n"
    "      --sort-by PATH     order lists by a field, e.g. .metadata.name\n"
    "  -w, --watch            after listing, print changes as they happen: table\n"
    "                         rows, or with -o json one {\"type\",\"object\"} line each\n"
    "      --limit N          objects per request; pages are followed to the end\n";

int get_fetch(struct cli *cli, const struct kind *k, const char *name, cJSON **obj)
{
    struct buf path = {0};
    struct api_result r;
    *obj = NULL;
    if (url_object(&path, k->plural, k->cluster, k->cluster ? NULL : cli_project(cli), name,
                   NULL)) {
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
    else
        *obj = r.json, r.json = NULL;
    api_result_free(&r);
    return rc;
}

int get_list_into(struct cli *cli, const struct kind *k, const struct get_opts *o,
                  cJSON *items, char **rv)
{
    cJSON *projects = cJSON_CreateArray();
    int rc = projects ? 0 : cli_fail("out of memory");
    if (!rc && o->all && !k->cluster)
        rc = api_project_names(cli, projects);
    else if (!rc)
        cJSON_AddItemToArray(projects, cJSON_CreateString(k->cluster ? "" : cli_project(cli)));
    const cJSON *proj;
    const cJSON *todo = rc ? NULL : projects;   /* nothing after a failure */
    cJSON_ArrayForEach(proj, todo) {
        rc = api_list(cli, k, proj->valuestring, o->selector, o->limit, items, rv);
        if (rc)
            break;
    }
    cJSON_Delete(projects);
    if (!rc && o->sort_by && sort_items(items, o->sort_by))
        rc = cli_fail("out of memory");
    return rc;
}

static int get_one(struct cli *cli, const struct kind *k, const char *name,
                   struct printer *p)
{
    cJSON *obj;
    int rc = get_fetch(cli, k, name, &obj);
    if (!rc && print_object(p, obj))
        rc = cli_fail("cannot print the object");
    cJSON_Delete(obj);
    return rc;
}

static int get_list(struct cli *cli, const struct kind *k, const struct get_opts *o,
                    struct printer *p)
{
    cJSON *items = cJSON_CreateArray();
    char *rv = NULL;
    int rc = items ? get_list_into(cli, k, o, items, &rv) : cli_fail("out of memory");
    if (!rc && o->fmt == OUT_TABLE && cJSON_GetArraySize(items) == 0) {
        if (k->cluster)
            fprintf(stderr, "No resources found.\n");
        else
            fprintf(stderr, "No resources found in %s.\n",
                    p->with_project ? "any project" : cli_project(cli));
    } else if (!rc && print_list(p, items, p->with_project ? NULL : rv)) {
        rc = EXIT_FAIL;
    }
    cJSON_Delete(items);
    free(rv);
    return rc;
}

static int parse_opts(struct cli *cli, struct get_opts *o)
{
    char *end, err[256];
    int f = o->output ? print_format(o->output, &o->fmt, &o->tmpl) : 0;
    if (cli->npos < 1)
        return cli_usage_error(cli, "expected KIND [NAME...] or KIND/NAME...");
    if (f == -2)
        return cli_usage_error(cli, "-o wide: the kinds show every printer column "
                               "already; use -o yaml, or -o jsonpath=... for other fields");
    if (f)
        return cli_usage_error(cli, "unknown output format \"%s\" (table, json, yaml, "
                               "name or jsonpath=TEMPLATE)", o->output);
    if (o->tmpl && jsonpath_tmpl_check(o->tmpl, err, sizeof err))
        return cli_usage_error(cli, "-o %s", err);
    if (o->sort_by && o->sort_by[0] != '.' && o->sort_by[0] != '{')
        return cli_usage_error(cli, "--sort-by takes a field path such as .metadata.name");
    if (o->limit_s) {
        o->limit = strtol(o->limit_s, &end, 10);
        if (*end || end == o->limit_s || o->limit < 1)
            return cli_usage_error(cli, "--limit needs a positive number");
    }
    return 0;
}

/* Adds a target; kind resolved through the server. */
static int add_target(struct cli *cli, struct get_target *t, size_t *n, const char *kind,
                      const char *name)
{
    if (!*kind || (name && !*name))
        return cli_usage_error(cli, "an empty kind or name in the arguments");
    if (!(t[*n].kind = api_kind(cli, kind)))
        return EXIT_FAIL;
    t[*n].name = name;
    (*n)++;
    return 0;
}

/* Reads the arguments: KIND[,KIND...] [NAME...], or KIND/NAME... (not
 * mixed). Cuts copies in `owned` (freed by the caller). */
static int read_targets(struct cli *cli, char *owned, struct get_target *t, size_t *n)
{
    int slashed = 0, rc = 0;
    for (int i = 0; i < cli->npos; i++)
        slashed += strchr(cli->pos[i], '/') != NULL;
    if (slashed && slashed != cli->npos)
        return cli_usage_error(cli, "there is no need to name a kind on its own when "
                               "passing KIND/NAME arguments");
    for (int i = 0; !rc && slashed && i < cli->npos; i++) {
        char *a = strcpy(owned, cli->pos[i]), *slash = strchr(a, '/');
        owned += strlen(a) + 1;
        *slash = '\0';
        rc = add_target(cli, t, n, a, slash + 1);
    }
    char *save = NULL;
    for (char *k = slashed ? NULL : strtok_r(strcpy(owned, cli->pos[0]), ",", &save);
         !rc && k; k = strtok_r(NULL, ",", &save)) {
        for (int i = 1; !rc && i < cli->npos; i++)
            rc = add_target(cli, t, n, k, cli->pos[i]);
        if (!rc && cli->npos == 1)
            rc = add_target(cli, t, n, k, NULL);
    }
    if (!rc && !*n)
        rc = cli_usage_error(cli, "expected KIND [NAME...] or KIND/NAME...");
    return rc;
}

static int run_get(struct cli *cli, struct get_opts *o, const struct get_target *t, size_t n)
{
    if (n > 1 && o->watch)
        return cli_usage_error(cli, "--watch follows one kind (and at most one name)");
    if (n > 1)
        return get_many(cli, t, n, o);
    const struct kind *k = t[0].kind;
    int with_project = o->all && !k->cluster;
    if (o->watch && with_project)
        return cli_usage_error(cli, "--watch cannot follow every project at "
                               "once; pick one with -p");
    struct printer p;
    if (print_init(&p, o->fmt, k, with_project, stdout))
        return cli_fail("out of memory");
    p.tmpl = o->tmpl;
    int rc;
    if (o->watch) {
        struct watch_opts w = {k, k->cluster ? NULL : cli_project(cli), o->selector,
                               t[0].name, o->limit};
        rc = watch_run(cli, &w, &p);
    } else {
        rc = t[0].name ? get_one(cli, k, t[0].name, &p) : get_list(cli, k, o, &p);
    }
    print_free(&p);
    return rc;
}

int cmd_get(struct cli *cli, int argc, char **argv)
{
    struct get_opts o = {0};
    const struct cli_flag flags[] = {
        FLAG_ON("all-projects", 'A', &o.all),
        FLAG_STR("selector", 'l', &o.selector),
        FLAG_STR("output", 'o', &o.output),
        FLAG_ON("watch", 'w', &o.watch),
        FLAG_STR("limit", 0, &o.limit_s),
        FLAG_STR("sort-by", 0, &o.sort_by),
        FLAG_END,
    };
    int rc = cli_parse(cli, argc, argv, flags, usage);
    if (rc != CLI_GO || (rc = parse_opts(cli, &o)) || (rc = cli_connect(cli)))
        return rc;
    size_t len = 0, n = 0, most = 0;
    for (int i = 0; i < cli->npos; i++)
        len += strlen(cli->pos[i]) + 1;
    most = (size_t)cli->npos * (strlen(cli->pos[0]) / 2 + 1);   /* kinds x names */
    char *owned = malloc(len);
    struct get_target *t = calloc(most, sizeof *t);
    if (!owned || !t)
        rc = cli_fail("out of memory");
    if (!rc && !(rc = read_targets(cli, owned, t, &n)))
        rc = run_get(cli, &o, t, n);
    free(t);
    free(owned);
    return rc;
}
