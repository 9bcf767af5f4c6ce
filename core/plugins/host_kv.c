/* host_kv.c — the ABI 1.5 key-value store and secrets of plugins
 * (cube_host.h: kv_*, secret_*), over the store's namespaced records
 * (store/store.h, cube_store_kv_*).
 *
 * Each plugin has two namespaces: "plugin:<name>" for its keys and
 * "plugin-secret:<name>" for its secrets, so no slot can reach another
 * plugin's records (the namespace comes from `self`, never from the
 * caller). Values are bytes: a record's doc is their base64; a secret's
 * is the text base/secretbox.h seals, with "<plugin>\0<name>" as the
 * associated data. Values are never logged. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "base/log.h"
#include "base/secretbox.h"
#include "ctx/ctx.h"
#include "host_slots.h"
#include "store/store.h"

#define NS_KV "plugin:"
#define NS_SECRET "plugin-secret:"

/* A key or secret name: 1 .. CUBE_KV_KEY_MAX bytes of '!' .. '~'. */
static int key_ok(const char *key)
{
    if (!key || !*key)
        return 0;
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)key; *p; p++, n++)
        if (*p < 0x21 || *p > 0x7e || n >= CUBE_KV_KEY_MAX)
            return 0;
    return 1;
}

/* The plugin's namespace: ns_prefix + its name, into buf. */
static const char *ns_of(const cube_plugin *self, const char *prefix, char *buf,
                         size_t len)
{
    snprintf(buf, len, "%s%s", prefix, self->name);
    return buf;
}

static int store_ready(const cube_plugin *self)
{
    return self && self->ctx && self->ctx->store;
}

/* ---- one record of bytes ------------------------------------------------ */

/* Writes doc (text) under key in the plugin's namespace `prefix`. */
static int put_doc(cube_plugin *self, const char *prefix, const char *key, const char *doc)
{
    char ns[160];
    return cube_store_kv_put(self->ctx->store, ns_of(self, prefix, ns, sizeof ns), key,
                             self->name, doc, 0);
}

static int get_doc(cube_plugin *self, const char *prefix, const char *key, char **doc)
{
    char ns[160];
    return cube_store_kv_get(self->ctx->store, ns_of(self, prefix, ns, sizeof ns), key, doc,
                             NULL, NULL);
}

static int delete_doc(cube_plugin *self, const char *prefix, const char *key)
{
    if (!store_ready(self))
        return CUBE_EUNAVAIL;
    if (!key_ok(key))
        return CUBE_EINVAL;
    char ns[160];
    return cube_store_kv_delete(self->ctx->store, ns_of(self, prefix, ns, sizeof ns), key);
}

/* ---- listing ---------------------------------------------------------- */

struct key_list {
    const char *prefix;
    size_t prefix_len;
    char **keys;
    size_t n, cap;
    int rc;
};

static int collect_key(void *cls, const struct cube_kv *kv)
{
    struct key_list *l = cls;
    if (strncmp(kv->key, l->prefix, l->prefix_len) != 0)
        return 0;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 32;
        char **grown = realloc(l->keys, cap * sizeof *grown);
        if (!grown)
            return l->rc = CUBE_ENOMEM, 1;
        l->keys = grown;
        l->cap = cap;
    }
    if (!(l->keys[l->n] = strdup(kv->key)))
        return l->rc = CUBE_ENOMEM, 1;
    l->n++;
    return 0;
}

static int by_bytes(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The keys of namespace prefix starting with key_prefix, as a JSON array. */
static char *list_keys(cube_plugin *self, const char *prefix, const char *key_prefix,
                       int *rc)
{
    int dummy;
    if (!rc)
        rc = &dummy;
    if (!store_ready(self))
        return *rc = CUBE_EUNAVAIL, NULL;
    if (!key_prefix)
        key_prefix = "";
    if (*key_prefix && !key_ok(key_prefix))
        return *rc = CUBE_EINVAL, NULL;
    char ns[160];
    struct key_list l = {key_prefix, strlen(key_prefix), NULL, 0, 0, CUBE_OK};
    *rc = cube_store_kv_list(self->ctx->store, ns_of(self, prefix, ns, sizeof ns), NULL,
                             collect_key, &l);
    if (*rc == CUBE_OK)
        *rc = l.rc;
    char *out = NULL;
    if (*rc == CUBE_OK) {
        /* the database's collation need not be byte order: sort here */
        if (l.n)   /* qsort of an empty list: l.keys is NULL */
            qsort(l.keys, l.n, sizeof *l.keys, by_bytes);
        cJSON *arr = cJSON_CreateArray();
        for (size_t i = 0; arr && i < l.n; i++)
            if (!cJSON_AddItemToArray(arr, cJSON_CreateString(l.keys[i]))) {
                cJSON_Delete(arr);
                arr = NULL;
            }
        out = arr ? cJSON_PrintUnformatted(arr) : NULL;
        cJSON_Delete(arr);
        if (!out)
            *rc = CUBE_ENOMEM;
    }
    for (size_t i = 0; i < l.n; i++)
        free(l.keys[i]);
    free(l.keys);
    return out;
}

/* ---- the key-value slots ---------------------------------------------- */

int cube_slot_kv_put(cube_plugin *self, const char *key, const void *value, size_t len)
{
    if (!store_ready(self))
        return CUBE_EUNAVAIL;
    if (!key_ok(key) || (!value && len))
        return CUBE_EINVAL;
    if (len > CUBE_KV_VALUE_MAX)
        return CUBE_ETOOBIG;
    char *doc = cube_base64_encode(value ? value : "", len);
    if (!doc)
        return CUBE_ENOMEM;
    int rc = put_doc(self, NS_KV, key, doc);
    free(doc);
    return rc;
}

char *cube_slot_kv_get(cube_plugin *self, const char *key, size_t *len, int *rc)
{
    int dummy;
    size_t n = 0;
    if (!rc)
        rc = &dummy;
    if (len)
        *len = 0;
    if (!store_ready(self))
        return *rc = CUBE_EUNAVAIL, NULL;
    if (!key_ok(key))
        return *rc = CUBE_EINVAL, NULL;
    char *doc = NULL;
    if ((*rc = get_doc(self, NS_KV, key, &doc)) != CUBE_OK)
        return NULL;
    char *value = cube_base64_decode(doc, &n);
    free(doc);
    if (!value) {
        cube_log(CUBE_LOG_ERROR, self->log_component, "kv_get: key %s: stored value is "
                 "not base64 (damaged row)", key);
        return *rc = CUBE_EIO, NULL;
    }
    if (len)
        *len = n;
    return value;
}

int cube_slot_kv_delete(cube_plugin *self, const char *key)
{
    return delete_doc(self, NS_KV, key);
}

char *cube_slot_kv_list(cube_plugin *self, const char *prefix, int *rc)
{
    return list_keys(self, NS_KV, prefix, rc);
}

/* ---- secrets ------------------------------------------------------------ */

/* "<plugin>\0<name>": the associated data a secret is sealed with. */
static char *secret_ad(const cube_plugin *self, const char *name, size_t *len)
{
    size_t a = strlen(self->name), b = strlen(name);
    char *ad = malloc(a + 1 + b);
    if (ad) {
        memcpy(ad, self->name, a + 1);
        memcpy(ad + a + 1, name, b);
        *len = a + 1 + b;
    }
    return ad;
}

int cube_slot_secret_put(cube_plugin *self, const char *name, const void *value, size_t len)
{
    if (!store_ready(self) || !self->ctx->secrets)
        return CUBE_EUNAVAIL;
    if (!key_ok(name) || !value || len == 0)
        return CUBE_EINVAL;
    if (len > CUBE_SECRET_VALUE_MAX)
        return CUBE_ETOOBIG;
    size_t ad_len = 0;
    char *ad = secret_ad(self, name, &ad_len), *doc = NULL;
    int rc = ad ? cube_secretbox_seal(self->ctx->secrets, ad, ad_len, value, len, &doc)
                : CUBE_ENOMEM;
    if (rc == CUBE_OK)
        rc = put_doc(self, NS_SECRET, name, doc);
    free(ad);
    free(doc);
    return rc;
}

char *cube_slot_secret_get(cube_plugin *self, const char *name, size_t *len, int *rc)
{
    int dummy;
    if (!rc)
        rc = &dummy;
    if (len)
        *len = 0;
    if (!store_ready(self) || !self->ctx->secrets)
        return *rc = CUBE_EUNAVAIL, NULL;
    if (!key_ok(name))
        return *rc = CUBE_EINVAL, NULL;
    char *doc = NULL, *value = NULL;
    if ((*rc = get_doc(self, NS_SECRET, name, &doc)) != CUBE_OK)
        return NULL;
    size_t ad_len = 0, n = 0;
    char *ad = secret_ad(self, name, &ad_len);
    *rc = ad ? cube_secretbox_open_value(self->ctx->secrets, ad, ad_len, doc, &value, &n)
             : CUBE_ENOMEM;
    free(ad);
    free(doc);
    if (*rc == CUBE_EIO)
        cube_log(CUBE_LOG_ERROR, self->log_component, "secret_get: secret %s does not "
                 "open with this platform key (another secret_key_file, or a damaged "
                 "row)", name);
    if (*rc != CUBE_OK)
        return NULL;
    if (len)
        *len = n;
    return value;
}

int cube_slot_secret_delete(cube_plugin *self, const char *name)
{
    return delete_doc(self, NS_SECRET, name);
}

char *cube_slot_secret_list(cube_plugin *self, const char *prefix, int *rc)
{
    return list_keys(self, NS_SECRET, prefix, rc);
}
