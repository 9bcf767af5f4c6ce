/* objcache.h — an in-memory cache of stored objects (their JSON text and
 * resourceVersion), so reads by name need no database round trip.
 *
 * Correct only because one cubed owns its database (see store.h): every
 * write goes through cube_obj_commit/remove, which update the cache under
 * the object's write stripe after the database commit. A read miss fills
 * the cache under the same stripe, so it never re-inserts a stale version.
 * Bounded by bytes; when full, entries are dropped (clock order). */
#ifndef CUBE_OBJCACHE_H
#define CUBE_OBJCACHE_H

#include <stddef.h>
#include <stdint.h>

/* The longest owner the cache keeps, its NUL included (user names are at
 * most 63 bytes). */
#define OBJCACHE_OWNER_MAX 64

struct cube_objcache;

/* A cache holding at most max_bytes of documents (0: caching disabled). */
struct cube_objcache *cube_objcache_new(size_t max_bytes);
void cube_objcache_free(struct cube_objcache *c);
/* Copies the cached document of (kind, project, name) into a new string
 * (*rv set). NULL when absent. */
char *cube_objcache_get(struct cube_objcache *c, const char *kind,
                        const char *project, const char *name, int64_t *rv);
/* Copies the cached object's metadata.owner ("" when it has none) into
 * out; 1 when it did, 0 when the object is not cached or its owner does
 * not fit len (then read the object). The owner is read from the
 * document once per cached version, so a reader that needs only the
 * owner (the proxy, on every request) parses nothing. */
int cube_objcache_owner(struct cube_objcache *c, const char *kind,
                        const char *project, const char *name, char *out,
                        size_t len);
/* Stores (or replaces) a document; ignored when it would not fit. */
void cube_objcache_put(struct cube_objcache *c, const char *kind,
                       const char *project, const char *name, int64_t rv,
                       const char *doc);
/* Forgets an object. */
void cube_objcache_drop(struct cube_objcache *c, const char *kind,
                        const char *project, const char *name);
/* Hits and misses so far (for metrics and tests). */
void cube_objcache_stats(struct cube_objcache *c, uint64_t *hits,
                         uint64_t *misses, size_t *bytes);

#endif
