/* json_pretty.c — see json_pretty.h. Scalars are printed by cJSON itself,
 * so escaping and number formatting match the compact output. */
#include "json_pretty.h"

#include <stdlib.h>

#include "buf.h"

static int scalar(const cJSON *v, struct buf *out)
{
    char *text = cJSON_PrintUnformatted(v);
    int rc = !text || buf_puts(out, text) ? -1 : 0;
    free(text);
    return rc;
}

static int key(const char *k, struct buf *out)
{
    cJSON *s = cJSON_CreateStringReference(k ? k : "");
    int rc = !s || scalar(s, out) || buf_puts(out, ": ") ? -1 : 0;
    cJSON_Delete(s);
    return rc;
}

static int node(const cJSON *v, int depth, struct buf *out)
{
    int map = cJSON_IsObject(v);
    if (!map && !cJSON_IsArray(v))
        return scalar(v, out);
    if (!v->child)
        return buf_puts(out, map ? "{}" : "[]");
    if (buf_puts(out, map ? "{\n" : "[\n"))
        return -1;
    for (const cJSON *c = v->child; c; c = c->next) {
        if (buf_printf(out, "%*s", 2 * (depth + 1), "") ||
            (map && key(c->string, out)) || node(c, depth + 1, out) ||
            buf_puts(out, c->next ? ",\n" : "\n"))
            return -1;
    }
    return buf_printf(out, "%*s%c", 2 * depth, "", map ? '}' : ']');
}

int json_pretty(const cJSON *v, struct buf *out)
{
    return node(v, 0, out) || buf_puts(out, "\n") ? -1 : 0;
}
