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

/* One row per project: NAME, AGE. */
static int project_rows(struct table *t, const cJSON *items)
{
    const cJSON *item;
    time_t now = time(NULL);
    cJSON_ArrayForEach(item, items) {
        const cJSON *m = cJSON_GetObjectItemCaseSensitive(item, "metadata");
        char age[32];
        age_of(cJSON_GetObjectItemCaseSensitive(m, "created"), now, age, sizeof age);
        const char *row[] = {api_meta(item, "name"), age};
        if (table_add(t, row))
            return -1;
    }
    return 0;
}

int cmd_projects(struct cli *cli, int argc, char **argv)
{
    static const char *const head[] = {"NAME", "AGE"};
    int rc = cli_parse(cli, argc, argv, NULL, projects_usage);
    if (rc != CLI_GO)
        return rc;
    if (cli->npos)
        return cli_usage_error(cli, "projects takes no arguments");
    cJSON *items = cJSON_CreateArray();
    if (!items)
        return cli_fail("out of memory");
    struct table t;
    if (!(rc = cli_connect(cli)) && !(rc = api_projects(cli, items))) {
        if (table_init(&t, 2, head) || project_rows(&t, items)) {
            table_free(&t);
            rc = cli_fail("out of memory");
        } else {
            rc = print_table(&t);
        }
    }
    cJSON_Delete(items);
    return rc;
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
