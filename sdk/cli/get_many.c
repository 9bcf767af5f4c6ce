/* get_many.c — get_many (get.h): several kinds, or several objects, in
 * one cubectl get. Objects are gathered per kind in the order the kinds
 * were first named. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "get.h"
#include "sort.h"

struct group {
    const struct kind *kind;
    cJSON *items;
};

static struct group *group_of(struct group *g, size_t *ng, const struct kind *k)
{
    for (size_t i = 0; i < *ng; i++)
        if (g[i].kind == k)
            return &g[i];
    g[*ng].kind = k;
    g[*ng].items = cJSON_CreateArray();
    return g[*ng].items ? &g[(*ng)++] : NULL;
}

/* Fetches every target into its kind's group. A missing object is
 * reported and the rest still fetched (EXIT_FAIL); a list that fails
 * stops everything (*broken set). */
static int gather(struct cli *cli, const struct get_target *t, size_t n,
                  const struct get_opts *o, struct group *g, size_t *ng, int *broken)
{
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        struct group *grp = group_of(g, ng, t[i].kind);
        cJSON *obj = NULL;
        if (!grp || (!t[i].name && get_list_into(cli, t[i].kind, o, grp->items, NULL))) {
            *broken = 1;
            return grp ? EXIT_FAIL : cli_fail("out of memory");
        }
        if (t[i].name && get_fetch(cli, t[i].kind, t[i].name, &obj))
            rc = EXIT_FAIL;
        else if (t[i].name)
            cJSON_AddItemToArray(grp->items, obj);
    }
    return rc;
}

/* One table per kind, a blank line between them. */
static int print_tables(const struct get_opts *o, struct group *g, size_t ng)
{
    int printed = 0;
    for (size_t i = 0; i < ng; i++) {
        struct printer p;
        if (cJSON_GetArraySize(g[i].items) == 0)
            continue;
        if ((o->sort_by && sort_items(g[i].items, o->sort_by)) ||
            print_init(&p, o->fmt, g[i].kind, o->all && !g[i].kind->cluster, stdout))
            return cli_fail("out of memory");
        p.kind_prefix = ng > 1;
        if (o->fmt == OUT_TABLE && printed++)
            putchar('\n');
        int rc = print_list(&p, g[i].items, NULL);
        print_free(&p);
        if (rc)
            return EXIT_FAIL;
    }
    if (!printed && o->fmt == OUT_TABLE)
        fprintf(stderr, "No resources found.\n");
    return 0;
}

/* Everything in one {"kind": "List", "items": [...]} document. */
static int print_as_list(const struct get_opts *o, struct group *g, size_t ng)
{
    cJSON *list = cJSON_CreateObject(), *items = cJSON_AddArrayToObject(list, "items");
    struct printer p;
    if (!items || print_init(&p, o->fmt, g[0].kind, 0, stdout)) {
        cJSON_Delete(list);
        return cli_fail("out of memory");
    }
    p.tmpl = o->tmpl;
    cJSON_AddStringToObject(list, "apiVersion", "cube/v1");
    cJSON_AddStringToObject(list, "kind", "List");
    for (size_t i = 0; i < ng; i++)
        while (cJSON_GetArraySize(g[i].items) > 0)
            cJSON_AddItemToArray(items, cJSON_DetachItemFromArray(g[i].items, 0));
    int rc = o->sort_by && sort_items(items, o->sort_by) ? cli_fail("out of memory") : 0;
    if (!rc && print_doc(&p, list))
        rc = EXIT_FAIL;
    print_free(&p);
    cJSON_Delete(list);
    return rc;
}

int get_many(struct cli *cli, const struct get_target *t, size_t n,
             const struct get_opts *o)
{
    struct group *g = calloc(n, sizeof *g);
    size_t ng = 0;
    if (!g)
        return cli_fail("out of memory");
    int broken = 0, shown = 0;
    int rc = gather(cli, t, n, o, g, &ng, &broken);
    fflush(stderr);
    if (ng && !broken)
        shown = o->fmt == OUT_TABLE || o->fmt == OUT_NAME ? print_tables(o, g, ng)
                                                          : print_as_list(o, g, ng);
    for (size_t i = 0; i < ng; i++)
        cJSON_Delete(g[i].items);
    free(g);
    return rc ? rc : shown;
}
