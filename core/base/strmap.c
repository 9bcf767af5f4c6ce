/* strmap.c — see strmap.h. Chained buckets, FNV-1a, doubling at load 1. */
#include "strmap.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct entry {
    struct entry *next;
    uint64_t hash;
    void *value;
    char key[];
};

struct cube_strmap {
    struct entry **buckets;
    size_t n_buckets, n;
};

static uint64_t fnv1a(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

struct cube_strmap *cube_strmap_new(void)
{
    struct cube_strmap *m = calloc(1, sizeof *m);
    if (m && !(m->buckets = calloc(m->n_buckets = 16, sizeof *m->buckets))) {
        free(m);
        return NULL;
    }
    return m;
}

void cube_strmap_free(struct cube_strmap *m, void (*free_value)(void *))
{
    if (!m)
        return;
    for (size_t i = 0; i < m->n_buckets; i++)
        for (struct entry *e = m->buckets[i], *next; e; e = next) {
            next = e->next;
            if (free_value)
                free_value(e->value);
            free(e);
        }
    free(m->buckets);
    free(m);
}

static struct entry **find(const struct cube_strmap *m, const char *key, uint64_t h)
{
    struct entry **p = &m->buckets[h & (m->n_buckets - 1)];
    while (*p && ((*p)->hash != h || strcmp((*p)->key, key) != 0))
        p = &(*p)->next;
    return p;
}

void *cube_strmap_get(const struct cube_strmap *m, const char *key)
{
    struct entry *e = *find(m, key, fnv1a(key));
    return e ? e->value : NULL;
}

/* Doubles the bucket array; keeps the old one when out of memory. */
static void grow(struct cube_strmap *m)
{
    size_t n = m->n_buckets * 2;
    struct entry **b = calloc(n, sizeof *b);
    if (!b)
        return;
    for (size_t i = 0; i < m->n_buckets; i++)
        for (struct entry *e = m->buckets[i], *next; e; e = next) {
            next = e->next;
            e->next = b[e->hash & (n - 1)];
            b[e->hash & (n - 1)] = e;
        }
    free(m->buckets);
    m->buckets = b;
    m->n_buckets = n;
}

int cube_strmap_put(struct cube_strmap *m, const char *key, void *value, void **old)
{
    uint64_t h = fnv1a(key);
    struct entry **p = find(m, key, h);
    if (old)
        *old = *p ? (*p)->value : NULL;
    if (*p) {
        (*p)->value = value;
        return 0;
    }
    size_t len = strlen(key);
    struct entry *e = malloc(sizeof *e + len + 1);
    if (!e)
        return -1;
    memcpy(e->key, key, len + 1);
    e->hash = h;
    e->value = value;
    e->next = NULL;
    *p = e;
    if (++m->n > m->n_buckets)
        grow(m);
    return 0;
}

void *cube_strmap_del(struct cube_strmap *m, const char *key)
{
    struct entry **p = find(m, key, fnv1a(key)), *e = *p;
    if (!e)
        return NULL;
    void *v = e->value;
    *p = e->next;
    free(e);
    m->n--;
    return v;
}

size_t cube_strmap_size(const struct cube_strmap *m) { return m->n; }

int cube_strmap_each(const struct cube_strmap *m,
                     int (*fn)(void *cls, const char *key, void *value), void *cls)
{
    for (size_t i = 0; i < m->n_buckets; i++)
        for (struct entry *e = m->buckets[i]; e; e = e->next) {
            int rc = fn(cls, e->key, e->value);
            if (rc)
                return rc;
        }
    return 0;
}
