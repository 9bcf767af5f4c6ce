/* cmd_catalog.c — what the server offers: cubectl projects (its
 * projects) and cubectl kinds (the kinds get/apply understand). */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "api.h"
#include "age.h"
#include "buf.h"
#include "table.h"

static const char projects_usage[] =
    "Usage: cubectl projects\n\nLists the projects (GET /api/v1/projects).\n";
static const char kinds_usage[] =
    "Usage: cubectl kinds\n\nLists the kinds the server serves: the names get,\n"
    "apply and delete accept, their scope, and their actions ('cubectl ACTION\n"
    "KIND/NAME').\n\nFlags:\n  -o, --output name   only the plurals, one a line\n";

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
    const char *output = NULL;
    const struct cli_flag flags[] = {FLAG_STR("output", 'o', &output), FLAG_END};
    int rc = cli_parse(cli, argc, argv, flags, kinds_usage);
    if (rc != CLI_GO)
        return rc;
    if (cli->npos)
        return cli_usage_error(cli, "kinds takes no arguments");
    if (output && strcmp(output, "name"))
        return cli_usage_error(cli, "-o: only name (the plurals, one a line)");
    if ((rc = cli_connect(cli)) || (rc = api_kinds(cli)))
        return rc;
    for (size_t i = 0; output && i < cli->kinds.n; i++)
        printf("%s\n", cli->kinds.items[i].plural);
    if (output)
        return EXIT_OK;
    static const char *const head[] = {"NAME", "SINGULAR", "KIND", "SCOPE", "GROUP",
                                       "ACTIONS"};
    struct table t;
    if (table_init(&t, 6, head))
        return cli_fail("out of memory");
    for (size_t i = 0; i < cli->kinds.n; i++) {
        const struct kind *k = &cli->kinds.items[i];
        struct buf acts = {0};
        const cJSON *a;
        cJSON_ArrayForEach(a, k->actions) {
            const char *n = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(a, "name"));
            if (n)
                buf_printf(&acts, "%s%s", acts.len ? "," : "", n);
        }
        const char *row[] = {k->plural, k->label, k->kind,
                             k->cluster ? "cluster" : "project", k->group, buf_str(&acts)};
        rc = table_add(&t, row);
        buf_free(&acts);
        if (rc) {
            table_free(&t);
            return cli_fail("out of memory");
        }
    }
    return print_table(&t);
}
