/* yaml.c — the YAML of pipeline export (the reader is yaml_read.c). It emits block
 * mappings and sequences with JSON-style double-quoted strings (valid
 * YAML); empty collections are written as {} and []. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline.h"

/* -- writer ------------------------------------------------------------- */

struct buf {
    char *s;
    size_t len, cap;
    int oom;
};

static void put(struct buf *b, const char *s, size_t n)
{
    if (b->oom)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = (b->cap ? b->cap * 2 : 1024) + n;
        char *m = realloc(b->s, cap);
        if (!m) {
            b->oom = 1;
            return;
        }
        b->s = m, b->cap = cap;
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

static void puts_(struct buf *b, const char *s)
{
    put(b, s, strlen(s));
}

static void pad(struct buf *b, int n)
{
    for (int i = 0; i < n; i++)
        put(b, " ", 1);
}

static int plain_key(const char *k)
{
    if (!*k || !(isalpha((unsigned char)*k) || *k == '_'))
        return 0;
    for (; *k; k++)
        if (!(isalnum((unsigned char)*k) || strchr("_-./", *k)))
            return 0;
    return 1;
}

static void scalar(struct buf *b, const cJSON *v)
{
    char *t = cJSON_PrintUnformatted(v);   /* JSON scalars are YAML scalars */
    puts_(b, t ? t : "null");
    free(t);
}

static int is_block(const cJSON *v)
{
    return (cJSON_IsObject(v) || cJSON_IsArray(v)) && v->child;
}

static void node(struct buf *b, const cJSON *v, int ind);

static void key(struct buf *b, const char *k)
{
    if (plain_key(k)) {
        puts_(b, k);
    } else {
        cJSON *s = cJSON_CreateString(k);
        scalar(b, s);
        cJSON_Delete(s);
    }
    puts_(b, ":");
}

/* A value after "key:" or "- ": inline scalar, or a block below. */
static void value(struct buf *b, const cJSON *v, int ind)
{
    if (!is_block(v)) {
        puts_(b, " ");
        scalar(b, v);   /* also {} and [] */
        puts_(b, "\n");
        return;
    }
    puts_(b, "\n");
    node(b, v, ind);
}

static void node(struct buf *b, const cJSON *v, int ind)
{
    const cJSON *c;
    cJSON_ArrayForEach(c, v) {
        pad(b, ind);
        if (cJSON_IsObject(v)) {
            key(b, c->string);
            value(b, c, ind + 2);
        } else if (cJSON_IsObject(c) && c->child) {
            /* "- k: v" then the other members under it */
            puts_(b, "- ");
            key(b, c->child->string);
            value(b, c->child, ind + 4);
            for (const cJSON *m = c->child->next; m; m = m->next) {
                pad(b, ind + 2);
                key(b, m->string);
                value(b, m, ind + 4);
            }
        } else {
            puts_(b, "-");
            value(b, c, ind + 2);
        }
    }
}

char *pl_yaml_write(const cJSON *v)
{
    struct buf b = {0};
    if (is_block(v))
        node(&b, v, 0);
    else
        value(&b, v, 0);
    if (b.oom) {
        free(b.s);
        return NULL;
    }
    return b.s;
}
