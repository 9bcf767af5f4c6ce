/* sim_map.c — a string-keyed chained hash map (FNV-1a), grown at load 1. */
#include <stdlib.h>
#include <string.h>

#include "sim.h"

static uint64_t hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static struct sim_map_entry **slot(const struct sim_map *m, const char *key)
{
    return &m->buckets[hash(key) & (m->n_buckets - 1)];
}

void *sim_map_get(const struct sim_map *m, const char *key)
{
    if (!m->n_buckets)
        return NULL;
    for (struct sim_map_entry *e = *slot(m, key); e; e = e->next)
        if (strcmp(e->key, key) == 0)
            return e->val;
    return NULL;
}

/* Doubles the bucket array (at least 64); 0 or -1. */
static int grow(struct sim_map *m)
{
    size_t n = m->n_buckets ? m->n_buckets * 2 : 64;
    struct sim_map_entry **b = calloc(n, sizeof *b);
    if (!b)
        return -1;
    for (size_t i = 0; i < m->n_buckets; i++)
        for (struct sim_map_entry *e = m->buckets[i], *next; e; e = next) {
            next = e->next;
            struct sim_map_entry **to = &b[hash(e->key) & (n - 1)];
            e->next = *to;
            *to = e;
        }
    free(m->buckets);
    m->buckets = b;
    m->n_buckets = n;
    return 0;
}

void *sim_map_put(struct sim_map *m, const char *key, void *val, int *err)
{
    *err = 0;
    for (struct sim_map_entry *e = m->n_buckets ? *slot(m, key) : NULL; e; e = e->next)
        if (strcmp(e->key, key) == 0) {
            void *old = e->val;
            e->val = val;
            return old;
        }
    struct sim_map_entry *e = NULL;
    if ((m->n >= m->n_buckets && grow(m) < 0) || !(e = malloc(sizeof *e)) ||
        !(e->key = strdup(key))) {
        free(e);
        *err = 1;
        return NULL;
    }
    e->val = val;
    struct sim_map_entry **b = slot(m, key);
    e->next = *b;
    *b = e;
    m->n++;
    return NULL;
}

void *sim_map_del(struct sim_map *m, const char *key)
{
    if (!m->n_buckets)
        return NULL;
    for (struct sim_map_entry **p = slot(m, key); *p; p = &(*p)->next)
        if (strcmp((*p)->key, key) == 0) {
            struct sim_map_entry *e = *p;
            void *val = e->val;
            *p = e->next;
            free(e->key);
            free(e);
            m->n--;
            return val;
        }
    return NULL;
}

void sim_map_each(const struct sim_map *m,
                  void (*fn)(const char *key, void *val, void *arg), void *arg)
{
    for (size_t i = 0; i < m->n_buckets; i++)
        for (struct sim_map_entry *e = m->buckets[i]; e; e = e->next)
            fn(e->key, e->val, arg);
}

void sim_map_free(struct sim_map *m)
{
    for (size_t i = 0; i < m->n_buckets; i++)
        for (struct sim_map_entry *e = m->buckets[i], *next; e; e = next) {
            next = e->next;
            free(e->key);
            free(e);
        }
    free(m->buckets);
    memset(m, 0, sizeof *m);
}
