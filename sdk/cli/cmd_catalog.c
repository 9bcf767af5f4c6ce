/* cmd_catalog.c — what the server offers: cubectl projects (its
 * projects) and cubectl kinds (the kinds get/apply understand). */
#include <stdio.h>
#include <time.h>

#include "api.h"
#include "age.h"
#include "buf.h"
#include "table.h"

static const char projects_usage[] =
    "Usage: cubectl projects\n\nLists the projects (GET /api/v1/projects).\n";
static const char kinds_usage[] =
    "Usage: cubectl kinds\n\nLists the kinds the server serves: the names get,\n"
    "apply and delete accept, and their scope.\n";

static int print_table(struct table *t)
{
    struct buf b = {0};
    int rc = table_render(t, 0, &b) ? cli_fail("out of memory") : 0;
    fputs(buf_str(&b), stdout);
    buf_free(&b);
    table_free(t);
    return rc;
}

int cmd_projects(struct cli *cli, int argc, char **argv)
{
    int rc = cli_parse(cli, argc, argv, NULL, projects_usage);
    if (rc != CLI_GO)
        return rc;
    if (cli->npos)
        return cli_usage_error(cli, "projects takes no arguments");
    if ((rc = cli_connect(cli)))
        return rc;
    struct api_result r;
    if ((rc = api_call(cli, "GET", "/api/v1/projects", NULL, NULL, &r)))
        return rc;
    if (r.status == 404) {
        api_result_free(&r);
        return cli_fail("this server does not list projects yet "
                        "(GET /api/v1/projects: 404)");
    }
    if (!api_ok(&r)) {
        rc = api_fail(&r);
        api_result_free(&r);
        return rc;
    }
    static const char *const head[] = {"NAME", "AGE"};
    struct table t;
    if (table_init(&t, 2, head)) {
        api_result_free(&r);
        return cli_fail("out of memory");
    }
    const cJSON *item;
    time_t now = time(NULL);
    cJSON_ArrayForEach(item, cJSON_GetObjectItemCaseSensitive(r.json, "items")) {
        const cJSON *m = cJSON_GetObjectItemCaseSensitive(item, "metadata");
        char age[32];
        age_of(cJSON_GetObjectItemCaseSensitive(m, "created"), now, age, sizeof age);
        const char *row[] = {api_meta(item, "name"), age};
        rc |= table_add(&t, row);
    }
    api_result_free(&r);
    if (rc) {
        table_free(&t);
        return cli_fail("out of memory");
    }
    return print_table(&t);
}

int cmd_kinds(struct cli *cli, int argc, char **argv)
{
    int rc = cli_parse(cli, argc, argv, NULL, kinds_usage);
    if (rc != CLI_GO)
        return rc;
    if (cli->npos)
        return cli_usage_error(cli, "kinds takes no arguments");
    if ((rc = cli_connect(cli)) || (rc = api_kinds(cli)))
        return rc;
    static const char *const head[] = {"NAME", "SINGULAR", "KIND", "SCOPE", "GROUP"};
    struct table t;
    if (table_init(&t, 5, head))
        return cli_fail("out of memory");
    for (size_t i = 0; i < cli->kinds.n; i++) {
        const struct kind *k = &cli->kinds.items[i];
        const char *row[] = {k->plural, k->label, k->kind,
                             k->cluster ? "cluster" : "project", k->group};
        if (table_add(&t, row)) {
            table_free(&t);
            return cli_fail("out of memory");
        }
    }
    return print_table(&t);
}
