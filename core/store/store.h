/* store.h — the object store: one interface, two drivers (SQLite embedded,
 * PostgreSQL through libpq), the same migrations and tests for both.
 *
 * The store keeps objects as JSON text keyed by (kind, project, name), with
 * their resourceVersion (rv) and owner uids, plus the audit events. It does
 * NOT allocate resourceVersions: the resource layer hands every write its rv
 * (one counter per cubed, seeded from cube_store_max_rv at start) so that
 * watch events can be published in rv order while writes run concurrently.
 * Exactly one cubed uses a database at a time.
 *
 * Every call is thread-safe and blocking; connections come from a pool.
 * Return codes: CUBE_OK, CUBE_ENOTFOUND, CUBE_EEXIST, CUBE_ECONFLICT (rv
 * mismatch), CUBE_EUNAVAIL (database unreachable: the caller answers 503;
 * the store reconnects by itself on a later call), CUBE_EINVAL, CUBE_ENOMEM,
 * CUBE_EIO (anything else; details are logged). */
#ifndef CUBE_STORE_H
#define CUBE_STORE_H

#include <stddef.h>
#include <stdint.h>

#include <cube/cube_plugin.h>

struct cube_store;

/* One stored object. Project is "" for cluster-scoped kinds. */
struct cube_store_obj {
    char *kind, *project, *name, *uid;
    int64_t rv;
    char *doc;   /* the whole object as JSON text */
};

/* Called once per row by list calls; return nonzero to stop early. The obj
 * and its strings are valid only during the call. */
typedef int (*cube_store_row_fn)(void *cls, const struct cube_store_obj *obj);
/* Called once per audit event by cube_store_event_list. */
typedef int (*cube_store_event_fn)(void *cls, int64_t id, const char *doc);

/* Opens the database named by url and applies pending migrations (each in a
 * transaction, recorded in the cube_schema table). url: "sqlite" (the file
 * <data_dir>/cube.db), "sqlite:///abs/path.db", "sqlite:rel/path.db"
 * (relative to data_dir), or "postgres://..." / "postgresql://..." (a libpq
 * URI). pool_size: connections kept (PostgreSQL) or opened (SQLite readers).
 * A database whose schema is newer than this binary's is refused. Returns
 * CUBE_OK, or an error with a message in err naming the cause. */
int cube_store_open(const char *url, const char *data_dir, unsigned pool_size,
                    struct cube_store **out, char *err, size_t errlen);
/* Closes every connection and frees the store. NULL is fine. */
void cube_store_close(struct cube_store *s);
/* "sqlite" or "postgres". */
const char *cube_store_driver(const struct cube_store *s);
/* The schema version this binary migrates to. */
int cube_store_schema_version(void);
/* CUBE_OK when a trivial query succeeds, else CUBE_EUNAVAIL. */
int cube_store_ping(struct cube_store *s);
/* The highest rv ever written, including deleted objects' (0 when empty). */
int cube_store_max_rv(struct cube_store *s, int64_t *rv);

/* Inserts obj (all fields set; obj->rv is the new rv) and its owner uids,
 * and, when audit is not NULL, that audit event (JSON text) about it in the
 * same transaction. CUBE_EEXIST when (kind, project, name) exists. */
int cube_store_create(struct cube_store *s, const struct cube_store_obj *obj,
                      const char *const *owner_uids, size_t n_owners,
                      const char *audit);
/* Replaces doc, rv and owner uids of (kind, project, name) when its stored
 * rv equals expected_rv (0: whatever it is), with an optional audit event
 * as for create. obj->uid is ignored. CUBE_ENOTFOUND, CUBE_ECONFLICT. */
int cube_store_update(struct cube_store *s, const struct cube_store_obj *obj,
                      const char *const *owner_uids, size_t n_owners,
                      int64_t expected_rv, const char *audit);
/* Deletes (kind, project, name) when its rv equals expected_rv (0: any),
 * recording new_rv as the high-water mark, with an optional audit event as
 * for create. CUBE_ENOTFOUND, CUBE_ECONFLICT. */
int cube_store_delete(struct cube_store *s, const char *kind,
                      const char *project, const char *name,
                      int64_t expected_rv, int64_t new_rv, const char *audit);
/* Reads one object into *out (fields malloc'd; free with
 * cube_store_obj_clear). CUBE_ENOTFOUND. */
int cube_store_get(struct cube_store *s, const char *kind, const char *project,
                   const char *name, struct cube_store_obj *out);
/* Lists objects of `kind` in `project` (NULL: every project), ordered by
 * (project, name), strictly after (after_project, after_name) when those are
 * given (paging), at most `limit` rows (0: no limit). */
int cube_store_list(struct cube_store *s, const char *kind, const char *project,
                    const char *after_project, const char *after_name,
                    size_t limit, cube_store_row_fn fn, void *cls);
/* Lists the objects that name owner_uid among their owners. */
int cube_store_list_owned(struct cube_store *s, const char *owner_uid,
                          cube_store_row_fn fn, void *cls);
/* Counts objects of a kind in a project (NULL: all). */
int cube_store_count(struct cube_store *s, const char *kind,
                     const char *project, int64_t *count);
/* Frees the fields of an object filled by cube_store_get and zeroes it. */
void cube_store_obj_clear(struct cube_store_obj *obj);

/* Appends an audit event (doc: JSON text) about an object; *id receives its
 * id (increasing). project "" for cluster-level events. */
int cube_store_event_add(struct cube_store *s, const char *project,
                         const char *kind, const char *name, const char *doc,
                         int64_t *id);
/* As cube_store_event_add for an event published to watches with its own
 * resourceVersion rv: recorded as the high-water mark in the same
 * transaction, so a restart never hands out rv again. */
int cube_store_event_add_rv(struct cube_store *s, const char *project, const char *kind,
                            const char *name, const char *doc, int64_t rv);
/* Lists events newest first: of a project (NULL: all), optionally only of
 * one kind/name (NULL: any), with id < before_id (0: no bound), at most
 * limit (0: 100). */
int cube_store_event_list(struct cube_store *s, const char *project,
                          const char *kind, const char *name,
                          int64_t before_id, size_t limit,
                          cube_store_event_fn fn, void *cls);

/* -- secrets: small records the auth layer keeps (store_kv.c) --------
 *
 * A namespaced key-value table for credentials and sessions, outside the
 * object table so that no API lists them: (ns, key) -> doc (JSON text), an
 * owner (the user it belongs to, for "every session of bob") and an expiry
 * (Unix seconds; 0: never). Callers store only hashes of secrets here.
 *
 * ns, key and owner are 1 to 256 bytes, doc at most 64 KiB, expires >= 0;
 * anything else is CUBE_EINVAL. A record whose expiry has passed (expires
 * != 0 && expires <= time(NULL)) counts as absent for get, list, add and
 * delete until cube_store_kv_purge removes it. */

/* One record; strings valid only during the callback. */
struct cube_kv {
    const char *ns, *key, *owner, *doc;
    int64_t expires;
};
/* Called once per record by cube_store_kv_list; nonzero stops early. It
 * may call the store again. */
typedef int (*cube_kv_fn)(void *cls, const struct cube_kv *kv);

/* Inserts or replaces (ns, key). */
int cube_store_kv_put(struct cube_store *s, const char *ns, const char *key,
                      const char *owner, const char *doc, int64_t expires);
/* Inserts (ns, key) only when absent (or expired, which it replaces):
 * CUBE_EEXIST otherwise. */
int cube_store_kv_add(struct cube_store *s, const char *ns, const char *key,
                      const char *owner, const char *doc, int64_t expires);
/* Reads (ns, key): *doc and *owner get malloc'd copies (NULL on failure),
 * *expires its expiry; any of the three may be NULL when not wanted.
 * Records whose expiry has passed (expires != 0 && expires <= now) read
 * as CUBE_ENOTFOUND. */
int cube_store_kv_get(struct cube_store *s, const char *ns, const char *key,
                      char **doc, char **owner, int64_t *expires);
/* Deletes (ns, key): CUBE_OK or CUBE_ENOTFOUND (also when it was expired;
 * it is deleted all the same). */
int cube_store_kv_delete(struct cube_store *s, const char *ns, const char *key);
/* Lists the unexpired records of ns owned by owner (NULL: every owner),
 * ordered by key. */
int cube_store_kv_list(struct cube_store *s, const char *ns, const char *owner,
                       cube_kv_fn fn, void *cls);
/* Deletes every record of ns owned by owner; *n (may be NULL) gets how
 * many (expired ones included). */
int cube_store_kv_delete_owner(struct cube_store *s, const char *ns,
                               const char *owner, int64_t *n);
/* Deletes every record of any namespace whose expiry has passed at `now`
 * (Unix seconds: 0 < expires <= now); *n (may be NULL) gets how many. */
int cube_store_kv_purge(struct cube_store *s, int64_t now, int64_t *n);


/* -- Job metrics (store_points.c) --------------------------------------
 *
 * Points a Job reports (loss at step 10 ...), keyed by the Job's uid and
 * kept in the order they arrived. Callers check names and values; the
 * store keeps what it is given. */

/* One point. name borrowed; value finite. */
struct cube_store_point {
    const char *name;
    int64_t step;
    double value;
    int64_t ts_ms;      /* Unix milliseconds */
};
/* Called once per point by cube_store_points_list (strings valid during
 * the call); nonzero stops early. */
typedef int (*cube_point_fn)(void *cls, const struct cube_store_point *p);

/* Appends p[0..n) to job_uid's points in one transaction, unless the Job
 * would then hold more than max_total: CUBE_ETOOBIG (nothing written).
 * *total (may be NULL) gets how many it holds afterwards. */
int cube_store_points_add(struct cube_store *s, const char *job_uid,
                          const struct cube_store_point *p, size_t n,
                          int64_t max_total, int64_t *total);
/* Lists job_uid's points with step > since_step (-1: all), of one name
 * (NULL: every name), ordered by name, step and arrival. */
int cube_store_points_list(struct cube_store *s, const char *job_uid,
                           const char *name, int64_t since_step,
                           cube_point_fn fn, void *cls);
/* Deletes job_uid's points (none is fine). */
int cube_store_points_delete(struct cube_store *s, const char *job_uid);
/* Deletes the points of Jobs no longer stored (a delete cut short by a
 * crash). */
int cube_store_points_purge(struct cube_store *s);

#endif
