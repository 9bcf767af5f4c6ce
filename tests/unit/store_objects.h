/* store_objects.h — objects as the store's unit tests write and list
 * them: a generated uid and document per kind/project/name, and listed rows
 * collected as "project/name" keys. Test-only. */
#ifndef CUBE_STORE_OBJECTS_H
#define CUBE_STORE_OBJECTS_H

#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

/* Creates kind/project/name at rv with uid "uid:kind/project/name", a small
 * JSON document and the n owners; returns cube_store_create's code. */
int put_owned(struct cube_store *s, const char *kind, const char *project,
              const char *name, int64_t rv, const char *const *owners,
              size_t n);
/* put_owned without owners. */
int put(struct cube_store *s, const char *kind, const char *project,
        const char *name, int64_t rv);
/* Updates kind/project/name to rv and doc if its rv is `expected`; returns
 * cube_store_update's code. */
int upd(struct cube_store *s, const char *kind, const char *project,
        const char *name, int64_t rv, const char *doc, int64_t expected,
        const char *const *owners, size_t n);

/* Collected "project/name" keys of listed rows. */
struct coll {
    char **keys;
    int64_t *rvs;
    size_t n, cap, stop_after;
};

/* A cube_store_list callback (cls: a struct coll) that adds each row's key
 * and rv; it stops the listing after stop_after rows when that is set. */
int collect(void *cls, const struct cube_store_obj *o);
/* Frees what c holds and empties it. */
void coll_free(struct coll *c);
/* How many times key was collected. */
size_t count_key(const struct coll *c, const char *key);

/* Collected events, newest first. */
struct evs {
    int64_t ids[256];
    char docs[256][64];
    size_t n, stop_after;
};

/* A cube_store_event_list callback (cls: a struct evs) that adds each event;
 * it stops the listing after stop_after events when that is set. */
int collect_event(void *cls, int64_t id, const char *doc);
/* Lists the events matching the filters into e (emptied first), checks they
 * come newest first and returns how many there are. */
size_t list_events(struct cube_store *s, const char *project,
                   const char *kind, const char *name, int64_t before,
                   size_t limit, struct evs *e);

#endif
