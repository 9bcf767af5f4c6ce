/* list.c — api_list and api_project_names (see api.h): lists follow the
 * server's `continue` token until the last page. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "url.h"

struct pager {
    const char *base;       /* collection path */
    const char *selector;
    long limit;
    const char *if_404;     /* message for a 404, or NULL for the server's */
};

/* Moves page's items into items; updates *cont and *rv. */
static int take_page(cJSON *page, cJSON *items, char **cont, char **rv)
{
    cJSON *list = cJSON_GetObjectItemCaseSensitive(page, "items");
    const char *c = api_meta(page, "continue");
    const char *v = api_meta(page, "resourceVersion");
    if (list && !cJSON_IsArray(list))
        return cli_fail("the server's list has no items array");
    while (cJSON_GetArraySize(list) > 0)
        cJSON_AddItemToArray(items, cJSON_DetachItemFromArray(list, 0));
    char *next = c && *c ? strdup(c) : NULL;
    if (c && *c && *cont && !strcmp(*cont, c)) {
        free(next);
        return cli_fail("the server repeated continue token \"%s\"", c);
    }
    free(*cont);
    *cont = next;
    if (v && rv) {
        free(*rv);
        *rv = strdup(v);
    }
    return 0;
}

static int one_page(struct cli *cli, const struct pager *p, cJSON *items,
                    char **cont, char **rv)
{
    struct buf path = {0};
    struct url_list_opts o = {p->selector, p->limit, *cont, NULL};
    struct api_result r;
    if (buf_puts(&path, p->base) || url_list_query(&path, &o)) {
        buf_free(&path);
        return cli_fail("out of memory");
    }
    int rc = api_call(cli, "GET", buf_str(&path), NULL, NULL, &r);
    buf_free(&path);
    if (rc)
        return rc;
    if (r.status == 404 && p->if_404)
        rc = cli_fail("%s", p->if_404);
    else if (!api_ok(&r))
        rc = api_fail(&r);
    else if (!cJSON_IsObject(r.json))
        rc = cli_fail("GET %s: the answer is not a JSON list", p->base);
    else
        rc = take_page(r.json, items, cont, rv);
    api_result_free(&r);
    return rc;
}

static int all_pages(struct cli *cli, const struct pager *p, cJSON *items,
                     char **rv)
{
    char *cont = NULL;
    int rc;
    do
        rc = one_page(cli, p, items, &cont, rv);
    while (!rc && cont);
    free(cont);
    return rc;
}

int api_list(struct cli *cli, const struct kind *k, const char *project,
             const char *selector, long limit, cJSON *items, char **rv)
{
    struct buf base = {0};
    if (url_collection(&base, k->plural, k->cluster, project)) {
        buf_free(&base);
        return cli_fail("out of memory");
    }
    struct pager p = {buf_str(&base), selector, limit, NULL};
    int rc = all_pages(cli, &p, items, rv);
    buf_free(&base);
    return rc;
}

int api_projects(struct cli *cli, cJSON *items)
{
    struct pager p = {"/api/v1/projects", NULL, 0,
                      "this server does not list projects yet "
                      "(GET /api/v1/projects: 404)"};
    return all_pages(cli, &p, items, NULL);
}

int api_project_names(struct cli *cli, cJSON *names)
{
    cJSON *items = cJSON_CreateArray();
    int rc = items ? api_projects(cli, items) : cli_fail("out of memory");
    const cJSON *todo = rc ? NULL : items;   /* nothing after a failure */
    const cJSON *item;
    cJSON_ArrayForEach(item, todo) {
        const char *name = api_meta(item, "name");
        if (name)
            cJSON_AddItemToArray(names, cJSON_CreateString(name));
    }
    cJSON_Delete(items);
    return rc;
}
