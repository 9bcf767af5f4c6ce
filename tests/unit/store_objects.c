/* store_objects.c — see store_objects.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <cube/cube_plugin.h>

#include "store_objects.h"

int put_owned(struct cube_store *s, const char *kind, const char *project,
              const char *name, int64_t rv, const char *const *owners,
              size_t n)
{
    char uid[512], doc[1024];
    snprintf(uid, sizeof uid, "uid:%s/%s/%s", kind, project, name);
    snprintf(doc, sizeof doc, "{\"kind\":\"%s\",\"name\":\"%s\",\"rv\":%lld}",
             kind, name, (long long)rv);
    struct cube_store_obj o = {(char *)kind, (char *)project, (char *)name,
                               uid, rv, doc};
    return cube_store_create(s, &o, owners, n, NULL);
}

int put(struct cube_store *s, const char *kind, const char *project,
        const char *name, int64_t rv)
{
    return put_owned(s, kind, project, name, rv, NULL, 0);
}

int upd(struct cube_store *s, const char *kind, const char *project,
        const char *name, int64_t rv, const char *doc, int64_t expected,
        const char *const *owners, size_t n)
{
    struct cube_store_obj o = {(char *)kind, (char *)project, (char *)name,
                               NULL, rv, (char *)doc};
    return cube_store_update(s, &o, owners, n, expected, NULL);
}

int collect(void *cls, const struct cube_store_obj *o)
{
    struct coll *c = cls;
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 64;
        c->keys = realloc(c->keys, c->cap * sizeof *c->keys);
        c->rvs = realloc(c->rvs, c->cap * sizeof *c->rvs);
        assert_non_null(c->keys);
        assert_non_null(c->rvs);
    }
    char key[1024];
    snprintf(key, sizeof key, "%s/%s", o->project, o->name);
    c->keys[c->n] = strdup(key);
    c->rvs[c->n++] = o->rv;
    return c->stop_after && c->n >= c->stop_after;
}

void coll_free(struct coll *c)
{
    for (size_t i = 0; i < c->n; i++)
        free(c->keys[i]);
    free(c->keys);
    free(c->rvs);
    memset(c, 0, sizeof *c);
}

size_t count_key(const struct coll *c, const char *key)
{
    size_t n = 0;
    for (size_t i = 0; i < c->n; i++)
        n += strcmp(c->keys[i], key) == 0;
    return n;
}

int collect_event(void *cls, int64_t id, const char *doc)
{
    struct evs *e = cls;
    assert_true(e->n < 256);
    e->ids[e->n] = id;
    snprintf(e->docs[e->n++], sizeof e->docs[0], "%s", doc);
    return e->stop_after && e->n >= e->stop_after;
}

size_t list_events(struct cube_store *s, const char *project,
                   const char *kind, const char *name, int64_t before,
                   size_t limit, struct evs *e)
{
    memset(e, 0, sizeof *e);
    assert_int_equal(cube_store_event_list(s, project, kind, name, before, limit,
                                           collect_event, e),
                     CUBE_OK);
    for (size_t i = 1; i < e->n; i++)
        assert_true(e->ids[i - 1] > e->ids[i]); /* newest first */
    return e->n;
}
