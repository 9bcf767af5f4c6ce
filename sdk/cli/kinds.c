/* kinds.c — see kinds.h. */
#include "kinds.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cube/util/json.h>

/* Fills k from one KindList item. Returns 0, or -1 to skip the item. */
static int read_kind(const cJSON *item, struct kind *k)
{
    const char *singular = cu_str(item, "singular");
    const char *scope = cu_str(item, "scope");
    const cJSON *cols = cJSON_GetObjectItemCaseSensitive(item, "printerColumns");
    const cJSON *acts = cJSON_GetObjectItemCaseSensitive(item, "actions");
    memset(k, 0, sizeof *k);
    k->kind = cu_str(item, "kind");
    k->plural = cu_str(item, "plural");
    if (!k->kind || !k->plural || !*k->kind || !*k->plural)
        return -1;
    k->group = cu_str(item, "group");
    if (!k->group)
        k->group = "";
    k->cluster = scope && !strcasecmp(scope, "cluster");
    k->columns = cJSON_IsArray(cols) ? cols : NULL;
    k->actions = cJSON_IsArray(acts) ? acts : NULL;
    /* without a singular, the kind in lower case (as kubectl shows it) */
    snprintf(k->label, sizeof k->label, "%s", singular && *singular ? singular : k->kind);
    for (char *p = k->label; *p; p++)
        *p = (char)tolower((unsigned char)*p);
    return 0;
}

int kinds_load(cJSON *doc, struct kind_list *out)
{
    const cJSON *items = cJSON_GetObjectItemCaseSensitive(doc, "items");
    int n = cJSON_GetArraySize(items);
    memset(out, 0, sizeof *out);
    out->doc = doc;
    out->items = calloc(n > 0 ? (size_t)n : 1, sizeof *out->items);
    if (!out->items) {
        kinds_free(out);
        return -1;
    }
    const cJSON *item;
    cJSON_ArrayForEach(item, items)
        if (cJSON_IsObject(item) && !read_kind(item, &out->items[out->n]))
            out->n++;
    return 0;
}

const struct kind *kinds_find(const struct kind_list *l, const char *name)
{
    for (size_t i = 0; i < l->n; i++) {
        const struct kind *k = &l->items[i];
        if (!strcasecmp(name, k->plural) || !strcasecmp(name, k->label) ||
            !strcasecmp(name, k->kind))
            return k;
    }
    return NULL;
}

const cJSON *kinds_action(const struct kind *k, const char *name)
{
    const cJSON *a;
    cJSON_ArrayForEach(a, k->actions) {
        const char *n = cu_str(a, "name");
        if (n && !strcmp(n, name))
            return a;
    }
    return NULL;
}

void kinds_free(struct kind_list *l)
{
    cJSON_Delete(l->doc);
    free(l->items);
    memset(l, 0, sizeof *l);
}
