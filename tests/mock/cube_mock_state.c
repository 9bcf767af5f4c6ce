/* cube_mock_state.c — the fake host's ABI 1.5 plugin state: the
 * key-value store, secrets and shared APIs, in memory, with cubed's
 * checks and limits (see cube_mock.h). Test-only code: global state is
 * fine. The log resume slots are with the other log slots
 * (cube_mock_files.c). */
#include "cube_mock.h"
#include "cube_mock_priv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

/* One record: a key or a secret (values are bytes). */
struct mrec { char *key, *value; size_t len; int secret; };
/* One shared API: exported by the plugin under test, or provided by the
 * test in another plugin's name. */
struct mapi { char *plugin, *name; uint32_t version; const void *table; int live; };

static struct {
    struct mrec *recs;
    int n_recs, cap_recs;
    struct mapi *apis;
    int n_apis, cap_apis;
    const struct cube_plugin_desc *desc;  /* the plugin under test, from init */
    int keep;                             /* cube_mock_keep_state */
} S;

/* As cubed: 1 .. CUBE_KV_KEY_MAX bytes of '!' .. '~'. */
static int key_ok(const char *key)
{
    size_t n = 0;
    if (!key || !*key)
        return 0;
    for (const unsigned char *p = (const unsigned char *)key; *p; p++, n++)
        if (*p < 0x21 || *p > 0x7e || n >= CUBE_KV_KEY_MAX)
            return 0;
    return 1;
}

static struct mrec *find_rec(const char *key, int secret)
{
    for (int i = 0; i < S.n_recs; i++)
        if (S.recs[i].secret == secret && !strcmp(S.recs[i].key, key))
            return &S.recs[i];
    return NULL;
}

static char *copy_bytes(const void *data, size_t len)
{
    char *p = malloc(len + 1);
    if (p) {
        if (len)
            memcpy(p, data, len);
        p[len] = '\0';
    }
    return p;
}

static int put(const char *key, const void *value, size_t len, int secret)
{
    char *copy = copy_bytes(value, len);
    if (!copy)
        return CUBE_ENOMEM;
    struct mrec *r = find_rec(key, secret);
    if (r) {
        memset(r->value, 0, r->len);
        free(r->value);
        r->value = copy;
        r->len = len;
        return CUBE_OK;
    }
    struct mrec *grown = mock_grow(S.recs, S.n_recs, &S.cap_recs, sizeof *S.recs);
    char *k = strdup(key);
    if (!grown || !k) {
        free(copy);
        free(k);
        return CUBE_ENOMEM;
    }
    S.recs = grown;
    S.recs[S.n_recs++] = (struct mrec){k, copy, len, secret};
    return CUBE_OK;
}

static char *get(const char *key, int secret, size_t *len, int *rc)
{
    int dummy;
    if (!rc)
        rc = &dummy;
    if (len)
        *len = 0;
    if (!key_ok(key))
        return *rc = CUBE_EINVAL, NULL;
    const struct mrec *r = find_rec(key, secret);
    if (!r)
        return *rc = CUBE_ENOTFOUND, NULL;
    char *out = copy_bytes(r->value, r->len);
    if (!out)
        return *rc = CUBE_ENOMEM, NULL;
    if (len)
        *len = r->len;
    *rc = CUBE_OK;
    return out;
}

static int del(const char *key, int secret)
{
    if (!key_ok(key))
        return CUBE_EINVAL;
    struct mrec *r = find_rec(key, secret);
    if (!r)
        return CUBE_ENOTFOUND;
    memset(r->value, 0, r->len);
    free(r->key);
    free(r->value);
    *r = S.recs[--S.n_recs];
    return CUBE_OK;
}

static int by_key(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *list(const char *prefix, int secret, int *rc)
{
    int dummy;
    if (!rc)
        rc = &dummy;
    prefix = prefix ? prefix : "";
    if (*prefix && !key_ok(prefix))
        return *rc = CUBE_EINVAL, NULL;
    const char **keys = calloc((size_t)S.n_recs + 1, sizeof *keys);
    int n = 0;
    for (int i = 0; keys && i < S.n_recs; i++)
        if (S.recs[i].secret == secret && !strncmp(S.recs[i].key, prefix, strlen(prefix)))
            keys[n++] = S.recs[i].key;
    if (keys)
        qsort(keys, (size_t)n, sizeof *keys, by_key);
    cJSON *arr = keys ? cJSON_CreateStringArray(keys, n) : NULL;
    char *out = arr ? cJSON_PrintUnformatted(arr) : NULL;
    cJSON_Delete(arr);
    free(keys);
    *rc = out ? CUBE_OK : CUBE_ENOMEM;
    return out;
}

/* ---- the slots -------------------------------------------------------- */

static int kv_put(cube_plugin *self, const char *key, const void *value, size_t len)
{
    (void)self;
    if (!key_ok(key) || (!value && len))
        return CUBE_EINVAL;
    if (len > CUBE_KV_VALUE_MAX)
        return CUBE_ETOOBIG;
    return put(key, value, len, 0);
}

static char *kv_get(cube_plugin *self, const char *key, size_t *len, int *rc)
{
    (void)self;
    return get(key, 0, len, rc);
}

static int kv_delete(cube_plugin *self, const char *key)
{
    (void)self;
    return del(key, 0);
}

static char *kv_list(cube_plugin *self, const char *prefix, int *rc)
{
    (void)self;
    return list(prefix, 0, rc);
}

static int secret_put(cube_plugin *self, const char *name, const void *value, size_t len)
{
    (void)self;
    if (!key_ok(name) || !value || len == 0)
        return CUBE_EINVAL;
    if (len > CUBE_SECRET_VALUE_MAX)
        return CUBE_ETOOBIG;
    return put(name, value, len, 1);
}

static char *secret_get(cube_plugin *self, const char *name, size_t *len, int *rc)
{
    (void)self;
    return get(name, 1, len, rc);
}

static int secret_delete(cube_plugin *self, const char *name)
{
    (void)self;
    return del(name, 1);
}

static char *secret_list(cube_plugin *self, const char *prefix, int *rc)
{
    (void)self;
    return list(prefix, 1, rc);
}

/* As cubed: 1 .. CUBE_API_NAME_MAX bytes of [a-z0-9._-]. */
static int api_name_ok(const char *s)
{
    size_t n = 0;
    for (; s && s[n]; n++)
        if (n >= CUBE_API_NAME_MAX || !(strchr("abcdefghijklmnopqrstuvwxyz0123456789._-", s[n])))
            return 0;
    return n > 0;
}

static struct mapi *find_api(const char *name)
{
    for (int i = 0; i < S.n_apis; i++)
        if (!strcmp(S.apis[i].name, name))
            return &S.apis[i];
    return NULL;
}

static int add_api(const char *plugin, const char *name, uint32_t version, const void *table,
                   int live)
{
    if (!api_name_ok(name) || version < 1 || !table || !plugin)
        return CUBE_EINVAL;
    if (find_api(name))
        return CUBE_EEXIST;
    struct mapi *grown = mock_grow(S.apis, S.n_apis, &S.cap_apis, sizeof *S.apis);
    if (!grown)
        return CUBE_ENOMEM;
    S.apis = grown;
    S.apis[S.n_apis] = (struct mapi){strdup(plugin), strdup(name), version, table, live};
    S.n_apis++;
    return CUBE_OK;
}

static int api_export(cube_plugin *self, const char *name, uint32_t version,
                      const void *table)
{
    (void)self;
    if (mock_after_init())
        return CUBE_ESTATE;
    const char *me = mock_actor() + strlen("plugin:");
    int rc = add_api(me, name, version, table, 0);
    if (rc == CUBE_EEXIST)
        mock_logf("api_export: API %s is already exported", name);
    return rc;
}

/* 1 when the plugin's descriptor requires plugin `name` (as cubed reads it). */
static int requires_plugin(const char *name)
{
    const char *const *req = S.desc ? S.desc->dependencies : NULL;
    for (int i = 0; req && req[i] && i < CUBE_DEPENDENCIES_MAX; i++) {
        size_t n = strcspn(req[i], ">");
        if (strlen(name) == n && !strncmp(req[i], name, n))
            return 1;
    }
    return 0;
}

static const void *api_get(cube_plugin *self, const char *name, uint32_t min_version,
                           uint32_t *version, int *rc)
{
    (void)self;
    int dummy;
    if (!rc)
        rc = &dummy;
    if (version)
        *version = 0;
    if (!api_name_ok(name))
        return *rc = CUBE_EINVAL, NULL;
    const char *me = mock_actor() + strlen("plugin:");
    const struct mapi *a = find_api(name);
    int mine = a && !strcmp(a->plugin, me);
    if (!a || (!a->live && !mine))
        return *rc = CUBE_ENOTFOUND, NULL;
    if (!mine && !requires_plugin(a->plugin)) {
        mock_logf("api_get: API %s is plugin %s's: name \"%s\" in the descriptor's "
                  "dependencies to use it", name, a->plugin, a->plugin);
        return *rc = CUBE_EPERM, NULL;
    }
    if (a->version < min_version)
        return *rc = CUBE_EVERSION, NULL;
    if (version)
        *version = a->version;
    *rc = CUBE_OK;
    return a->table;
}

/* ---- the test's side ---------------------------------------------------- */

int cube_mock_api_provide(const char *plugin, const char *name, uint32_t version,
                          const void *table)
{
    return add_api(plugin, name, version, table, 1);
}

const void *cube_mock_api(const char *name, uint32_t *version)
{
    const char *me = mock_actor() + strlen("plugin:");
    const struct mapi *a = find_api(name);
    if (!a || !a->live || strcmp(a->plugin, me))
        return NULL;
    if (version)
        *version = a->version;
    return a->table;
}

void cube_mock_keep_state(int keep)
{
    S.keep = keep;
}

void mock_state_before_init(const struct cube_plugin_desc *desc)
{
    S.desc = desc;
}

void mock_state_after_init(const struct cube_plugin_desc *desc, int rc)
{
    S.desc = desc;
    const char *me = mock_actor() + strlen("plugin:");
    for (int i = 0; i < S.n_apis; i++) {
        if (strcmp(S.apis[i].plugin, me))
            continue;
        if (rc == CUBE_OK) {
            S.apis[i].live = 1;
            continue;
        }
        free(S.apis[i].plugin), free(S.apis[i].name);   /* a failed init exports nothing */
        S.apis[i--] = S.apis[--S.n_apis];
    }
}

void mock_state_install(struct cube_host *h)
{
    h->kv_put = kv_put;
    h->kv_get = kv_get;
    h->kv_delete = kv_delete;
    h->kv_list = kv_list;
    h->secret_put = secret_put;
    h->secret_get = secret_get;
    h->secret_delete = secret_delete;
    h->secret_list = secret_list;
    h->api_export = api_export;
    h->api_get = api_get;
}

void mock_state_reset(void)
{
    for (int i = 0; i < S.n_apis; i++)
        free(S.apis[i].plugin), free(S.apis[i].name);
    free(S.apis);
    S.apis = NULL;
    S.n_apis = S.cap_apis = 0;
    S.desc = NULL;
    if (S.keep)
        return;   /* as cubed keeps them in its database across restarts */
    for (int i = 0; i < S.n_recs; i++) {
        memset(S.recs[i].value, 0, S.recs[i].len);
        free(S.recs[i].key), free(S.recs[i].value);
    }
    free(S.recs);
    memset(&S, 0, sizeof S);
}
