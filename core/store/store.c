/* store.c — see store.h. The driver-independent part: URL parsing, driver
 * choice, open/close and every operation, written once on top of the driver
 * interface of store_priv.h (pools: store_pool.c, SQL: store_sql.c, schema:
 * store_migrations.c).
 *
 * Rows are copied out and the connection goes back to its pool before the
 * caller's row callbacks run, so a callback may call the store again (even
 * with a pool of one). Writes borrow the writer connection where the driver
 * has one (SQLite), any pooled connection otherwise (PostgreSQL). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "store_priv.h"
#include "base/fs.h"

#define DEFAULT_POOL 4
#define MAX_POOL 256
#define DEFAULT_EVENTS 100

/* ---- URLs ---------------------------------------------------------- */

static int has_prefix(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* A sqlite file path: absolute, or relative to data_dir. */
static int sqlite_path(const char *path, const char *data_dir, char **target,
                       char *err, size_t errlen)
{
    if (!*path) {
        snprintf(err, errlen, "sqlite url names no file");
        return CUBE_EINVAL;
    }
    if (path[0] != '/' && (!data_dir || !*data_dir)) {
        snprintf(err, errlen, "sqlite path '%s' is relative but there is no"
                 " data_dir", path);
        return CUBE_EINVAL;
    }
    *target = path[0] == '/' ? strdup(path) : cube_path_join(data_dir, path);
    return *target ? CUBE_OK : CUBE_ENOMEM;
}

/* Chooses the driver for url and its target (file path or libpq URI). */
static int parse_url(const char *url, const char *data_dir,
                     const struct store_driver **drv, char **target,
                     char *err, size_t errlen)
{
    *drv = &store_sqlite_driver;
    if (strcmp(url, "sqlite") == 0)
        return sqlite_path("cube.db", data_dir, target, err, errlen);
    if (has_prefix(url, "sqlite://")) {
        if (url[9] != '/') {
            snprintf(err, errlen, "sqlite url '%s' has a host; use"
                     " sqlite:///abs/path.db or sqlite:rel/path.db", url);
            return CUBE_EINVAL;
        }
        return sqlite_path(url + 9, data_dir, target, err, errlen);
    }
    if (has_prefix(url, "sqlite:"))
        return sqlite_path(url + 7, data_dir, target, err, errlen);
    if (has_prefix(url, "postgres://") || has_prefix(url, "postgresql://")) {
        *drv = &store_pg_driver;
        *target = strdup(url);
        return *target ? CUBE_OK : CUBE_ENOMEM;
    }
    snprintf(err, errlen, "unknown store url (want sqlite, sqlite:PATH or"
             " postgres://...): %.64s", url);
    return CUBE_EINVAL;
}

/* Removes from s (in place) the value of every "password=" parameter. */
static void strip_password_params(char *s)
{
    char *q = strchr(s, '?');
    while (q) {
        char *p = q + 1;
        char *amp = strchr(p, '&');
        if (has_prefix(p, "password=")) {
            char *v = p + 9;
            char *end = amp ? amp : v + strlen(v);
            memmove(v, end, strlen(end) + 1);
            amp = strchr(v, '&');
        }
        q = amp;
    }
}

/* A malloc'd copy of url without its password (user:PASSWORD@ or
 * password=...), for messages. */
static char *redact_url(const char *url)
{
    char *out = strdup(url);
    if (!out)
        return NULL;
    char *auth = strstr(out, "://");
    if (auth) {
        auth += 3;
        size_t alen = strcspn(auth, "/?#");
        char *at = NULL;
        for (size_t i = 0; i < alen; i++)
            if (auth[i] == '@')
                at = auth + i;
        char *colon = at ? memchr(auth, ':', (size_t)(at - auth)) : NULL;
        if (colon)
            memmove(colon, at, strlen(at) + 1);
    }
    strip_password_params(out);
    return out;
}

/* How messages name the database: the file, or the URL sans password. */
static char *display_name(const struct store_driver *drv, const char *url,
                          const char *target)
{
    char *out = NULL;
    if (drv != &store_sqlite_driver)
        return redact_url(url);
    return asprintf(&out, "sqlite:%s", target) < 0 ? NULL : out;
}

/* ---- open / close ---------------------------------------------------- */

/* Allocates s's statement table and pools. */
static int store_alloc(struct cube_store *s, unsigned pool_size)
{
    if (pool_size == 0)
        pool_size = DEFAULT_POOL;
    if (pool_size > MAX_POOL)
        pool_size = MAX_POOL;
    if (store_sql_build(s) != 0 || store_pool_init(&s->pools[1], pool_size) != 0)
        return CUBE_ENOMEM;
    if (s->drv->separate_writer && store_pool_init(&s->pools[0], 1) != 0)
        return CUBE_ENOMEM;
    return CUBE_OK;
}

int cube_store_open(const char *url, const char *data_dir, unsigned pool_size,
                    struct cube_store **out, char *err, size_t errlen)
{
    char none[1];
    if (!err || errlen == 0) {
        err = none;
        errlen = sizeof none;
    }
    err[0] = '\0';
    if (!out)
        return CUBE_EINVAL;
    *out = NULL;
    url = url && *url ? url : "sqlite";
    const struct store_driver *drv = NULL;
    char *target = NULL;
    int rc = parse_url(url, data_dir, &drv, &target, err, errlen);
    if (rc != CUBE_OK)
        return rc;
    struct cube_store *s = calloc(1, sizeof *s);
    if (!s || !(s->safe_url = display_name(drv, url, target))) {
        rc = CUBE_ENOMEM;
        goto fail;
    }
    s->drv = drv;
    if ((rc = store_alloc(s, pool_size)) != CUBE_OK)
        goto fail;
    if ((rc = drv->init(target, &s->state, err, errlen)) != CUBE_OK)
        goto fail;
    if ((rc = store_migrate(s, err, errlen)) != CUBE_OK)
        goto fail;
    cube_log(CUBE_LOG_INFO, "store", "opened %s (%s, schema version %d)",
             s->safe_url, drv->name, cube_store_schema_version());
    free(target);
    *out = s;
    return CUBE_OK;
fail:
    if (rc == CUBE_ENOMEM && !err[0])
        snprintf(err, errlen, "out of memory");
    free(target);
    cube_store_close(s);
    return rc;
}

void cube_store_close(struct cube_store *s)
{
    if (!s)
        return;
    if (s->drv) {
        store_pool_fini(s, &s->pools[0]);
        store_pool_fini(s, &s->pools[1]);
        if (s->state)
            s->drv->fini(s->state);
    }
    for (int i = 0; i < ST_N; i++)
        free(s->sql[i]);
    free(s->safe_url);
    free(s);
}

const char *cube_store_driver(const struct cube_store *s)
{
    return s ? s->drv->name : NULL;
}

int cube_store_ping(struct cube_store *s)
{
    struct store_conn *c;
    if (!s)
        return CUBE_EINVAL;
    if (store_conn_get(s, 0, &c, NULL, 0) != CUBE_OK)
        return CUBE_EUNAVAIL;
    int rc = store_exec(s, c, ST_PING, NULL, 0);
    store_conn_put(s, 0, c);
    return rc == CUBE_OK ? CUBE_OK : CUBE_EUNAVAIL;
}

/* ---- reads ------------------------------------------------------------ */

struct rows {
    struct cube_store_obj *v;
    size_t n, cap;
};

typedef int (*row_reader)(const struct store_driver *d, struct store_conn *c,
                          struct cube_store_obj *o);

static char *col_dup(const struct store_driver *d, struct store_conn *c, int col)
{
    return strdup(d->col_text(c, col));
}

/* Copies a (kind, project, name, uid, rv, doc) row. */
static int read_obj(const struct store_driver *d, struct store_conn *c,
                    struct cube_store_obj *o)
{
    o->kind = col_dup(d, c, 0);
    o->project = col_dup(d, c, 1);
    o->name = col_dup(d, c, 2);
    o->uid = col_dup(d, c, 3);
    o->rv = d->col_int(c, 4);
    o->doc = col_dup(d, c, 5);
    if (!o->kind || !o->project || !o->name || !o->uid || !o->doc)
        return CUBE_ENOMEM;
    return CUBE_OK;
}

/* Copies an (id, doc) event row: the id goes to rv. */
static int read_event(const struct store_driver *d, struct store_conn *c,
                      struct cube_store_obj *o)
{
    o->rv = d->col_int(c, 0);
    o->doc = col_dup(d, c, 1);
    return o->doc ? CUBE_OK : CUBE_ENOMEM;
}

/* Reads an integer-only row (column 0) into rv. */
static int read_rv(const struct store_driver *d, struct store_conn *c,
                   struct cube_store_obj *o)
{
    o->rv = d->col_int(c, 0);
    return CUBE_OK;
}

static void rows_free(struct rows *r)
{
    for (size_t i = 0; i < r->n; i++)
        cube_store_obj_clear(&r->v[i]);
    free(r->v);
    r->v = NULL;
    r->n = r->cap = 0;
}

/* Appends a zeroed row to r; NULL when out of memory. */
static struct cube_store_obj *rows_add(struct rows *r)
{
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 16;
        struct cube_store_obj *v = realloc(r->v, cap * sizeof *v);
        if (!v)
            return NULL;
        r->v = v;
        r->cap = cap;
    }
    struct cube_store_obj *o = &r->v[r->n++];
    memset(o, 0, sizeof *o);
    return o;
}

/* Runs a read statement and copies all its rows into out. */
static int rows_fetch(struct cube_store *s, int st, const struct store_val *v,
                      int n, row_reader rd, struct rows *out)
{
    struct store_conn *c;
    int rc = store_conn_get(s, 0, &c, NULL, 0);
    if (rc != CUBE_OK)
        return rc;
    rc = s->drv->query(c, st, s->sql[st], v, n);
    if (rc != CUBE_OK)
        goto out;
    while ((rc = s->drv->next(c)) == 1) {
        struct cube_store_obj *o = rows_add(out);
        rc = o ? rd(s->drv, c, o) : CUBE_ENOMEM;
        if (rc != CUBE_OK)
            break;
    }
    s->drv->done(c);
out:
    store_conn_put(s, 0, c);
    if (rc != CUBE_OK)
        rows_free(out);
    return rc;
}

/* Fetches object rows, then hands them to fn (the connection is back). */
static int fetch_objs(struct cube_store *s, int st, const struct store_val *v,
                      int n, cube_store_row_fn fn, void *cls)
{
    struct rows r = {0};
    int rc = rows_fetch(s, st, v, n, read_obj, &r);
    for (size_t i = 0; rc == CUBE_OK && i < r.n; i++)
        if (fn(cls, &r.v[i]))
            break;
    rows_free(&r);
    return rc;
}

int store_valid_key(const char *kind, const char *project, const char *name)
{
    return kind && *kind && project && name && *name;
}

int cube_store_get(struct cube_store *s, const char *kind, const char *project,
                   const char *name, struct cube_store_obj *out)
{
    if (!s || !out || !store_valid_key(kind, project, name))
        return CUBE_EINVAL;
    struct store_val v[] = {SV_T(kind), SV_T(project), SV_T(name)};
    struct rows r = {0};
    int rc = rows_fetch(s, ST_OBJ_GET, v, 3, read_obj, &r);
    if (rc == CUBE_OK && r.n == 0)
        rc = CUBE_ENOTFOUND;
    if (rc == CUBE_OK) {
        *out = r.v[0];
        memset(&r.v[0], 0, sizeof r.v[0]);
    }
    rows_free(&r);
    return rc;
}

/* A NULL after_project or after_name counts as "" (the cursor is given
 * when either is). */
int cube_store_list(struct cube_store *s, const char *kind, const char *project,
                    const char *after_project, const char *after_name,
                    size_t limit, cube_store_row_fn fn, void *cls)
{
    if (!s || !kind || !fn)
        return CUBE_EINVAL;
    struct store_val v[5];
    int n = 0, bits = 0;
    v[n++] = SV_T(kind);
    if (project) {
        bits |= 1;
        v[n++] = SV_T(project);
    }
    if (after_project || after_name) {
        bits |= 2;
        v[n++] = SV_T(after_project ? after_project : "");
        v[n++] = SV_T(after_name ? after_name : "");
    }
    v[n++] = SV_I(limit > 0 && limit < (size_t)INT64_MAX ? (int64_t)limit : INT64_MAX);
    return fetch_objs(s, ST_LIST + bits, v, n, fn, cls);
}

int cube_store_list_owned(struct cube_store *s, const char *owner_uid,
                          cube_store_row_fn fn, void *cls)
{
    if (!s || !owner_uid || !fn)
        return CUBE_EINVAL;
    struct store_val v = SV_T(owner_uid);
    return fetch_objs(s, ST_OWNED, &v, 1, fn, cls);
}

/* Runs a one-integer read on a reader connection. */
static int read_int(struct cube_store *s, int st, const struct store_val *v,
                    int n, int64_t *out)
{
    struct store_conn *c;
    int rc = store_conn_get(s, 0, &c, NULL, 0);
    if (rc != CUBE_OK)
        return rc;
    rc = store_query_int(s, c, st, v, n, out);
    store_conn_put(s, 0, c);
    return rc;
}

int cube_store_count(struct cube_store *s, const char *kind,
                     const char *project, int64_t *count)
{
    if (!s || !kind || !count)
        return CUBE_EINVAL;
    struct store_val v[] = {SV_T(kind), SV_T(project)};
    return read_int(s, project ? ST_COUNT_PROJECT : ST_COUNT_ALL, v,
                    project ? 2 : 1, count);
}

int cube_store_max_rv(struct cube_store *s, int64_t *rv)
{
    if (!s || !rv)
        return CUBE_EINVAL;
    struct rows r = {0};
    int rc = rows_fetch(s, ST_MAX_RV, NULL, 0, read_rv, &r);
    *rv = 0;
    for (size_t i = 0; rc == CUBE_OK && i < r.n; i++)
        if (r.v[i].rv > *rv)
            *rv = r.v[i].rv;
    rows_free(&r);
    return rc;
}

void cube_store_obj_clear(struct cube_store_obj *obj)
{
    if (!obj)
        return;
    free(obj->kind);
    free(obj->project);
    free(obj->name);
    free(obj->uid);
    free(obj->doc);
    memset(obj, 0, sizeof *obj);
}

/* ---- events ----------------------------------------------------------- */

int cube_store_event_add(struct cube_store *s, const char *project,
                         const char *kind, const char *name, const char *doc,
                         int64_t *id)
{
    if (!s || !project || !kind || !name || !doc)
        return CUBE_EINVAL;
    struct store_conn *c;
    int rc = store_conn_get(s, 1, &c, NULL, 0);
    if (rc != CUBE_OK)
        return rc;
    struct store_val v[] = {SV_T(project), SV_T(kind), SV_T(name), SV_T(doc)};
    int64_t got = 0;
    rc = store_query_int(s, c, ST_EVENT_ADD, v, 4, &got);
    store_conn_put(s, 1, c);
    if (rc == CUBE_OK && id)
        *id = got;
    return rc;
}

int cube_store_event_list(struct cube_store *s, const char *project,
                          const char *kind, const char *name,
                          int64_t before_id, size_t limit,
                          cube_store_event_fn fn, void *cls)
{
    if (!s || !fn || before_id < 0)
        return CUBE_EINVAL;
    const char *filters[] = {project, kind, name};
    struct store_val v[5];
    int n = 0, bits = 0;
    for (int i = 0; i < 3; i++) {
        if (filters[i]) {
            bits |= 1 << i;
            v[n++] = SV_T(filters[i]);
        }
    }
    if (before_id > 0) {
        bits |= 8;
        v[n++] = SV_I(before_id);
    }
    v[n++] = SV_I(limit > 0 && limit < (size_t)INT64_MAX ? (int64_t)limit
                                                          : DEFAULT_EVENTS);
    struct rows r = {0};
    int rc = rows_fetch(s, ST_EVENT_LIST + bits, v, n, read_event, &r);
    for (size_t i = 0; rc == CUBE_OK && i < r.n; i++)
        if (fn(cls, r.v[i].rv, r.v[i].doc))
            break;
    rows_free(&r);
    return rc;
}
