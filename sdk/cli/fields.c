/* fields.c — see fields.h. */
#include "fields.h"

#include <stdio.h>
#include <string.h>

#define MAX_KEY 256

/* The value text as JSON: parsed when it is one whole JSON text. */
static cJSON *value_of(const char *text)
{
    const char *end = NULL;
    cJSON *v = *text ? cJSON_ParseWithOpts(text, &end, 1) : NULL;
    return v ? v : cJSON_CreateString(text);
}

/* The object at the dotted prefix of key inside obj, made as needed; *last
 * points at the final segment. NULL with err set. */
static cJSON *parent_of(cJSON *obj, const char *item, char *key, char **last, char *err,
                        size_t errlen)
{
    char *seg = key, *dot;
    while ((dot = strchr(seg, '.'))) {
        *dot = '\0';
        if (!*seg)
            break;
        cJSON *next = cJSON_GetObjectItemCaseSensitive(obj, seg);
        if (!next)
            next = cJSON_AddObjectToObject(obj, seg);
        if (!cJSON_IsObject(next)) {
            snprintf(err, errlen, "--field %s: \"%s\" is already a value", item, seg);
            return NULL;
        }
        obj = next;
        seg = dot + 1;
    }
    if (!*seg) {
        snprintf(err, errlen, "--field %s: the key has an empty part", item);
        return NULL;
    }
    *last = seg;
    return obj;
}

static int add_one(cJSON *obj, const char *item, char *err, size_t errlen)
{
    const char *eq = strchr(item, '=');
    char key[MAX_KEY], *last;
    if (!eq || eq == item) {
        snprintf(err, errlen, "--field \"%s\": expected key=value", item);
        return -1;
    }
    if ((size_t)(eq - item) >= sizeof key) {
        snprintf(err, errlen, "--field: the key is too long");
        return -1;
    }
    memcpy(key, item, (size_t)(eq - item));
    key[eq - item] = '\0';
    cJSON *parent = parent_of(obj, item, key, &last, err, errlen);
    if (!parent)
        return -1;
    cJSON *v = value_of(eq + 1);
    if (!v) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    cJSON_DeleteItemFromObjectCaseSensitive(parent, last);
    cJSON_AddItemToObject(parent, last, v);
    return 0;
}

int fields_add(cJSON *obj, const struct flag_list *l, char *err, size_t errlen)
{
    for (int i = 0; i < l->n; i++)
        if (add_one(obj, l->v[i], err, errlen))
            return -1;
    return 0;
}

int fields_set_str(cJSON *obj, const char *key, const char *text)
{
    if (!text)
        return 0;
    cJSON_DeleteItemFromObjectCaseSensitive(obj, key);
    return cJSON_AddStringToObject(obj, key, text) ? 0 : -1;
}
