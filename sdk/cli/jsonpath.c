/* jsonpath.c — see jsonpath.h. */
#include "jsonpath.h"

#include <stdlib.h>
#include <string.h>

#define MAX_KEY 256

/* Reads a dotted key up to '.', '[' or the end, honouring "\." escapes.
 * Returns the position after it, or NULL when too long or empty. */
static const char *read_key(const char *p, char *key)
{
    size_t n = 0;
    while (*p && *p != '.' && *p != '[') {
        if (*p == '\\' && p[1])
            p++;
        if (n + 1 >= MAX_KEY)
            return NULL;
        key[n++] = *p++;
    }
    key[n] = '\0';
    return n ? p : NULL;
}

/* Reads "[N]" or "['key']" / ["key"]. Sets *index (or key with *index -1).
 * Returns the position after ']' or NULL. */
static const char *read_bracket(const char *p, char *key, long *index)
{
    p++;
    if (*p == '\'' || *p == '"') {
        const char *end = strchr(p + 1, *p);
        size_t n = end ? (size_t)(end - p - 1) : 0;
        if (!end || end[1] != ']' || n >= MAX_KEY)
            return NULL;
        memcpy(key, p + 1, n);
        key[n] = '\0';
        *index = -1;
        return end + 2;
    }
    char *end;
    *index = strtol(p, &end, 10);
    if (end == p || *end != ']' || *index < 0)
        return NULL;
    return end + 1;
}

const cJSON *jsonpath_get(const cJSON *obj, const char *path)
{
    char key[MAX_KEY];
    char inner[512];
    size_t len = strlen(path);
    if (len >= 2 && path[0] == '{' && path[len - 1] == '}') {
        if (len - 2 >= sizeof inner)
            return NULL;
        memcpy(inner, path + 1, len - 2);
        inner[len - 2] = '\0';
        path = inner;
    }
    const char *p = path;
    const cJSON *cur = obj;
    while (*p && cur) {
        long index = -1;
        if (*p == '[') {
            p = read_bracket(p, key, &index);
        } else {
            if (*p == '.')
                p++;
            p = read_key(p, key);
        }
        if (!p)
            return NULL;
        if (index >= 0)
            cur = cJSON_IsArray(cur) ? cJSON_GetArrayItem(cur, (int)index) : NULL;
        else
            cur = cJSON_IsObject(cur) ? cJSON_GetObjectItemCaseSensitive(cur, key)
                                      : NULL;
    }
    return cur;
}

char *jsonpath_cell(const cJSON *v)
{
    if (!v)
        return strdup("<none>");
    if (cJSON_IsString(v))
        return strdup(v->valuestring);
    return cJSON_PrintUnformatted(v);
}
