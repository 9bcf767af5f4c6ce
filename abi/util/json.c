/* json.c — small cJSON helpers; see cube/util/json.h. */
#include <cube/util/json.h>

#include <stdlib.h>
#include <string.h>

const char *cu_str(const cJSON *o, const char *key)
{
    return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, key));
}

const char *cu_str_or(const cJSON *o, const char *key, const char *def)
{
    const char *s = cu_str(o, key);
    return s ? s : def;
}

double cu_num(const cJSON *o, const char *key, double def)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : def;
}

int cu_bool(const cJSON *o, const char *key, int def)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsBool(v) ? cJSON_IsTrue(v) : def;
}

const char *cu_meta(const cJSON *obj, const char *key)
{
    return cu_str(cJSON_GetObjectItemCaseSensitive(obj, "metadata"), key);
}

void cu_set_item(cJSON *o, const char *key, cJSON *item)
{
    if (!item)
        return;
    if (cJSON_HasObjectItem(o, key))
        cJSON_ReplaceItemInObjectCaseSensitive(o, key, item);
    else if (!cJSON_AddItemToObject(o, key, item))
        cJSON_Delete(item);
}

void cu_set_str(cJSON *o, const char *key, const char *v)
{
    cu_set_item(o, key, cJSON_CreateString(v ? v : ""));
}

void cu_set_num(cJSON *o, const char *key, double v)
{
    cu_set_item(o, key, cJSON_CreateNumber(v));
}

cJSON *cu_json_take(const struct cube_host *host, char *text)
{
    cJSON *v = text ? cJSON_Parse(text) : NULL;
    if (text)
        host->free(text);
    return v;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A name given twice among obj's own members, or NULL (sorted: a mapping
 * may have many members). */
static const char *dup_here(const cJSON *obj, int *oom)
{
    size_t n = 0, k = 0;
    for (const cJSON *c = obj->child; c; c = c->next)
        n++;
    if (n < 2)
        return NULL;
    const char **names = malloc(n * sizeof *names), *dup = NULL;
    if (!names)
        return *oom = 1, NULL;
    for (const cJSON *c = obj->child; c; c = c->next)
        names[k++] = c->string ? c->string : "";
    qsort(names, n, sizeof *names, by_name);
    for (size_t i = 1; i < n && !dup; i++)
        if (!strcmp(names[i - 1], names[i]))
            dup = names[i];
    free(names);
    return dup;
}

const char *cu_json_dup_key(const cJSON *v, int *oom)
{
    *oom = 0;
    if (!v)
        return NULL;
    const char *d = cJSON_IsObject(v) ? dup_here(v, oom) : NULL;
    for (const cJSON *c = v->child; c && !d && !*oom; c = c->next)
        if (cJSON_IsObject(c) || cJSON_IsArray(c)) {
            int o = 0;
            d = cu_json_dup_key(c, &o);
            *oom = o;
        }
    return d;
}
