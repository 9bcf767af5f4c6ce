/* sort.c — see sort.h. */
#include "sort.h"

#include <stdlib.h>
#include <string.h>

#include "jsonpath.h"

struct keyed {
    cJSON *item;
    const cJSON *key;   /* NULL: no such field */
    size_t at;          /* original position, for a stable order */
};

/* 0 missing, 1 false/true/null, 2 number, 3 string, 4 array/object. */
static int rank(const cJSON *v)
{
    if (!v)
        return 0;
    if (cJSON_IsNumber(v))
        return 2;
    if (cJSON_IsString(v))
        return 3;
    return cJSON_IsArray(v) || cJSON_IsObject(v) ? 4 : 1;
}

static int cmp_values(const cJSON *a, const cJSON *b)
{
    int ra = rank(a), rb = rank(b);
    if (ra != rb)
        return ra < rb ? -1 : 1;
    if (ra == 2)
        return a->valuedouble < b->valuedouble ? -1 : a->valuedouble > b->valuedouble;
    if (ra == 3)
        return strcmp(a->valuestring, b->valuestring);
    if (ra == 1)
        return (a->type > b->type) - (a->type < b->type);
    return 0;
}

static int cmp_keyed(const void *pa, const void *pb)
{
    const struct keyed *a = pa, *b = pb;
    int c = cmp_values(a->key, b->key);
    return c ? c : (a->at > b->at) - (a->at < b->at);
}

int sort_items(cJSON *items, const char *path)
{
    int n = cJSON_GetArraySize(items);
    if (n < 2)
        return 0;
    struct keyed *k = calloc((size_t)n, sizeof *k);
    if (!k)
        return -1;
    for (int i = 0; i < n; i++) {
        k[i].item = cJSON_DetachItemFromArray(items, 0);
        k[i].key = jsonpath_get(k[i].item, path);
        k[i].at = (size_t)i;
    }
    qsort(k, (size_t)n, sizeof *k, cmp_keyed);
    for (int i = 0; i < n; i++)
        cJSON_AddItemToArray(items, k[i].item);
    free(k);
    return 0;
}
