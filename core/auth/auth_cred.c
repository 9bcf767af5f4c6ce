/* auth_cred.c — local passwords, sessions and API tokens.
 *
 * Secrets are 256-bit random values shown to their owner once (the session
 * cookie, the token); the store keeps only their SHA-256 (secrets table,
 * store.h), passwords only as scrypt hashes (auth_password.h). A request's
 * credential is found in an in-memory cache keyed by that hash, so checking
 * a token costs one SHA-256 and a map lookup, not a database round trip;
 * the store is read on a cache miss (after a restart). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "auth_password.h"
#include "auth_priv.h"
#include "ctx/ctx.h"
#include "base/log.h"
#include "store/store.h"
#include "base/strmap.h"
#include "base/random.h"
#include "base/hash.h"

#define CRED_CACHE_MAX 200000
#define SEEN_PERSIST_S 60   /* write a session's last use at most this often */

static int64_t now_s(void) { return (int64_t)time(NULL); }

int auth_cred_init(struct cube_auth *a)
{
    pthread_mutex_init(&a->cred_mu, NULL);
    return (a->creds = cube_strmap_new()) ? 0 : -1;
}

void auth_cred_free(struct cube_auth *a)
{
    cube_strmap_free(a->creds, free);
    a->creds = NULL;
    pthread_mutex_destroy(&a->cred_mu);
}

/* SHA-256 of a secret, raw and as hex (65 bytes with the NUL). */
static void secret_digest(const char *secret, uint8_t d[32], char hex[65])
{
    cube_sha256(secret, strlen(secret), d);
    cube_hex(d, 32, hex);
}

/* hex SHA-256 of a secret. */
static void secret_hash(const char *secret, char hex[65])
{
    uint8_t d[32];
    secret_digest(secret, d, hex);
}

/* -- passwords ---------------------------------------------------------- */

int auth_password_set(struct cube_auth *a, const char *user, const char *password)
{
    char hash[160], doc[256];
    if (cube_password_hash(password, &cube_scrypt_default, hash, sizeof hash) < 0)
        return CUBE_EINVAL;
    snprintf(doc, sizeof doc, "{\"hash\":\"%s\"}", hash);
    return cube_store_kv_put(a->ctx->store, "password", user, user, doc, 0);
}

int auth_password_check(struct cube_auth *a, const char *user, const char *password)
{
    char *doc = NULL;
    int rc = cube_store_kv_get(a->ctx->store, "password", user, &doc, NULL, NULL);
    if (rc == CUBE_ENOTFOUND) {
        /* Same work as a real check, so timing does not tell who exists. */
        static const char dummy[] = "$scrypt$ln=15,r=8,p=1$AAAAAAAAAAAAAAAAAAAAAA"
                                    "$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
        cube_password_verify(password, dummy);
        return 0;
    }
    if (rc != CUBE_OK)
        return rc;
    cJSON *o = cJSON_Parse(doc);
    const char *hash = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, "hash"));
    int ok = hash ? cube_password_verify(password, hash) : -1;
    if (ok == 1 && cube_password_needs_rehash(hash, &cube_scrypt_default))
        auth_password_set(a, user, password);
    cJSON_Delete(o);
    free(doc);
    return ok == 1;
}

/* -- the cache ---------------------------------------------------------- */

/* Caches a credential under key ("s"/"t" + hash); best effort. */
static void cache_put(struct cube_auth *a, const char *key, const struct auth_cred *c)
{
    struct auth_cred *copy = malloc(sizeof *copy);
    void *old = NULL;
    if (!copy)
        return;
    *copy = *c;
    pthread_mutex_lock(&a->cred_mu);
    if (cube_strmap_size(a->creds) >= CRED_CACHE_MAX ||
        cube_strmap_put(a->creds, key, copy, &old) < 0) {
        free(copy);
        copy = NULL;
    }
    pthread_mutex_unlock(&a->cred_mu);
    free(old);
}

static void cache_drop(struct cube_auth *a, const char *key)
{
    pthread_mutex_lock(&a->cred_mu);
    free(cube_strmap_del(a->creds, key));
    pthread_mutex_unlock(&a->cred_mu);
}

/* Records a session's last use in its cached entry (if still cached). */
static void cache_touch(struct cube_auth *a, const char *key, int64_t seen, int64_t persisted)
{
    pthread_mutex_lock(&a->cred_mu);
    struct auth_cred *c = cube_strmap_get(a->creds, key);
    if (c) {
        c->last_seen = seen;
        c->persisted = persisted;
    }
    pthread_mutex_unlock(&a->cred_mu);
}

/* Looks key up; on a hit copies the entry and returns 1. */
static int cache_get(struct cube_auth *a, const char *key, struct auth_cred *out)
{
    pthread_mutex_lock(&a->cred_mu);
    struct auth_cred *c = cube_strmap_get(a->creds, key);
    if (c)
        *out = *c;
    pthread_mutex_unlock(&a->cred_mu);
    return c != NULL;
}

/* -- sessions ----------------------------------------------------------- */

void auth_session_csrf(const char *cookie, char csrf[72])
{
    char salted[96];
    snprintf(salted, sizeof salted, "csrf:%s", cookie);
    secret_hash(salted, csrf);
}

static void session_doc(const struct auth_cred *c, char *doc, size_t len)
{
    snprintf(doc, len, "{\"lastSeen\":%lld}", (long long)c->last_seen);
}

int auth_session_new(struct cube_auth *a, const char *user, char cookie[72], char csrf[72])
{
    char hex[65], key[72], doc[64];
    if (cube_random_hex(cookie, 32) < 0)
        return CUBE_EUNAVAIL;
    secret_hash(cookie, hex);
    struct auth_cred c = {.expires = now_s() + a->max_s, .last_seen = now_s()};
    c.persisted = c.last_seen;
    snprintf(c.user, sizeof c.user, "%s", user);
    session_doc(&c, doc, sizeof doc);
    int rc = cube_store_kv_add(a->ctx->store, "session", hex, user, doc, c.expires);
    if (rc != CUBE_OK)
        return rc;
    snprintf(key, sizeof key, "s%s", hex);
    cache_put(a, key, &c);
    auth_session_csrf(cookie, csrf);
    return CUBE_OK;
}

/* Reads a session from the store into c; 0 or -1. */
static int session_load(struct cube_auth *a, const char *hex, struct auth_cred *c)
{
    char *doc = NULL, *owner = NULL;
    if (cube_store_kv_get(a->ctx->store, "session", hex, &doc, &owner, &c->expires) != CUBE_OK)
        return -1;
    cJSON *o = cJSON_Parse(doc);
    const cJSON *seen = cJSON_GetObjectItemCaseSensitive(o, "lastSeen");
    c->last_seen = c->persisted = cJSON_IsNumber(seen) ? (int64_t)seen->valuedouble : 0;
    snprintf(c->user, sizeof c->user, "%s", owner);
    cJSON_Delete(o);
    free(doc);
    free(owner);
    return 0;
}

/* Resolves the session whose hex SHA-256 is hex: its user into user (and
 * its last use recorded), 0; -1 unknown or expired (then forgotten). */
static int session_by_hash(struct cube_auth *a, const char *hex, char user[CUBE_USER_MAX])
{
    char key[72], doc[64];
    struct auth_cred c;
    snprintf(key, sizeof key, "s%s", hex);
    int hit = cache_get(a, key, &c);
    if (!hit && session_load(a, hex, &c) < 0)
        return -1;
    int64_t now = now_s();
    if (now >= c.expires || now >= c.last_seen + a->idle_s) {
        cache_drop(a, key);
        cube_store_kv_delete(a->ctx->store, "session", hex);
        return -1;
    }
    c.last_seen = now;
    if (now - c.persisted >= SEEN_PERSIST_S) {
        c.persisted = now;
        session_doc(&c, doc, sizeof doc);
        cube_store_kv_put(a->ctx->store, "session", hex, c.user, doc, c.expires);
    }
    if (hit)
        cache_touch(a, key, c.last_seen, c.persisted);
    else
        cache_put(a, key, &c);
    snprintf(user, CUBE_USER_MAX, "%s", c.user);
    return 0;
}

int auth_session_find(struct cube_auth *a, const char *cookie, struct cube_principal *p)
{
    char hex[65];
    if (strlen(cookie) != 64)
        return -1;
    secret_digest(cookie, p->session, hex);
    return session_by_hash(a, hex, p->user);
}

int auth_session_alive(struct cube_auth *a, const uint8_t hash[32], const char *user)
{
    char hex[65], owner[CUBE_USER_MAX];
    cube_hex(hash, 32, hex);
    return session_by_hash(a, hex, owner) == 0 && strcmp(owner, user) == 0 ? 0 : -1;
}

void auth_session_end(struct cube_auth *a, const struct cube_principal *p)
{
    char hex[65], key[72];
    cube_hex(p->session, 32, hex);
    snprintf(key, sizeof key, "s%s", hex);
    cache_drop(a, key);
    cube_store_kv_delete(a->ctx->store, "session", hex);
}

/* -- tokens ------------------------------------------------------------- */

#define TOKEN_PREFIX "cube_"

/* A new token of user. Work tokens carry what they are for in the stored
 * document: a Job's ("job": uid, "project", "jobName"; the principal is
 * bound to the uid) or a plugin's ("plugin": its name); the user's own
 * tokens carry neither (auth_token_list tells them apart by that). */
static int token_new(struct cube_auth *a, const char *user, const char *name,
                     const struct auth_token_for *work, int64_t ttl_s, cJSON **out,
                     char *secret, size_t secret_len)
{
    char rnd[65], hex[65], key[72], id[17];
    const char *job_uid = work ? work->job_uid : NULL;
    if (cube_random_hex(rnd, 32) < 0 || cube_random_hex(id, 8) < 0 || secret_len < 70 ||
        (job_uid && strlen(job_uid) >= CUBE_JOB_UID_MAX))
        return CUBE_EUNAVAIL;
    snprintf(secret, secret_len, TOKEN_PREFIX "%s", rnd);
    secret_hash(secret, hex);
    struct auth_cred c = {.expires = now_s() + ttl_s};
    snprintf(c.user, sizeof c.user, "%s", user);
    snprintf(c.job_uid, sizeof c.job_uid, "%s", job_uid ? job_uid : "");
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "id", id);
    cJSON_AddStringToObject(o, "name", name);
    cJSON_AddNumberToObject(o, "created", (double)now_s());
    cJSON_AddNumberToObject(o, "expires", (double)c.expires);
    if (job_uid) {
        cJSON_AddStringToObject(o, "job", job_uid);
        cJSON_AddStringToObject(o, "project", work->project ? work->project : "");
        cJSON_AddStringToObject(o, "jobName", work->job_name ? work->job_name : "");
    }
    if (work && work->plugin)
        cJSON_AddStringToObject(o, "plugin", work->plugin);
    char *doc = cJSON_PrintUnformatted(o);
    int rc = doc ? cube_store_kv_add(a->ctx->store, "token", hex, user, doc, c.expires)
                 : CUBE_ENOMEM;
    free(doc);
    if (rc != CUBE_OK) {
        cJSON_Delete(o);
        return rc;
    }
    snprintf(key, sizeof key, "t%s", hex);
    cache_put(a, key, &c);
    *out = o;
    return CUBE_OK;
}

int auth_token_new(struct cube_auth *a, const char *user, const char *name,
                   int64_t ttl_s, cJSON **out, char *secret, size_t secret_len)
{
    return token_new(a, user, name, NULL, ttl_s, out, secret, secret_len);
}

int auth_job_token_new(struct cube_auth *a, const char *user, const char *job_uid,
                       const char *project, const char *job_name, int64_t ttl_s,
                       cJSON **out, char *secret, size_t secret_len)
{
    const struct auth_token_for w = {.job_uid = job_uid ? job_uid : "", .project = project,
                                     .job_name = job_name};
    return token_new(a, user, "job", &w, ttl_s, out, secret, secret_len);
}

int auth_plugin_token_new(struct cube_auth *a, const char *user, const char *name,
                          const char *plugin, int64_t ttl_s, cJSON **out, char *secret,
                          size_t secret_len)
{
    const struct auth_token_for w = {.plugin = plugin};
    return token_new(a, user, name, &w, ttl_s, out, secret, secret_len);
}

int auth_token_find(struct cube_auth *a, const char *token, struct cube_principal *p)
{
    char hex[65], key[72];
    struct auth_cred c = {0};
    if (strncmp(token, TOKEN_PREFIX, strlen(TOKEN_PREFIX)) != 0 || strlen(token) != 69)
        return -1;
    secret_hash(token, hex);
    snprintf(key, sizeof key, "t%s", hex);
    if (!cache_get(a, key, &c)) {
        char *owner = NULL, *doc = NULL;
        if (cube_store_kv_get(a->ctx->store, "token", hex, &doc, &owner, &c.expires) !=
            CUBE_OK)
            return -1;
        snprintf(c.user, sizeof c.user, "%s", owner);
        cJSON *d = cJSON_Parse(doc ? doc : "{}");
        const char *job = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(d, "job"));
        snprintf(c.job_uid, sizeof c.job_uid, "%s", job ? job : "");
        cJSON_Delete(d);
        free(owner);
        free(doc);
        cache_put(a, key, &c);
    }
    if (now_s() >= c.expires) {
        cache_drop(a, key);
        return -1;
    }
    snprintf(p->user, sizeof p->user, "%s", c.user);
    snprintf(p->job_uid, sizeof p->job_uid, "%s", c.job_uid);
    return 0;
}

struct token_listing {
    cJSON *arr;
    const struct auth_token_for *only;
};

static const char *doc_str(const cJSON *o, const char *k)
{
    return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, k));
}

/* Does the stored token o belong in the listing `only`? */
static int token_wanted(const cJSON *o, const struct auth_token_for *only)
{
    const char *job = doc_str(o, "job"), *plugin = doc_str(o, "plugin");
    if (!only)
        return !job && !plugin;
    if (only->plugin)
        return plugin && strcmp(plugin, only->plugin) == 0;
    if (!job)
        return 0;
    if (only->job_uid && strcmp(job, only->job_uid) == 0)
        return 1;
    const char *proj = doc_str(o, "project"), *name = doc_str(o, "jobName");
    return only->project && only->job_name && proj && name && strcmp(proj, only->project) == 0 &&
           strcmp(name, only->job_name) == 0;
}

static int list_token(void *cls, const struct cube_kv *kv)
{
    struct token_listing *l = cls;
    cJSON *o = cJSON_Parse(kv->doc);
    if (o && token_wanted(o, l->only))
        cJSON_AddItemToArray(l->arr, o);
    else
        cJSON_Delete(o);
    return 0;
}

cJSON *auth_token_list(struct cube_auth *a, const char *user, const struct auth_token_for *only)
{
    struct token_listing l = {cJSON_CreateArray(), only};
    if (l.arr && cube_store_kv_list(a->ctx->store, "token", user, list_token, &l) != CUBE_OK) {
        cJSON_Delete(l.arr);
        return NULL;
    }
    return l.arr;
}

struct find_id {
    const char *id;
    char key[72];
};

static int match_id(void *cls, const struct cube_kv *kv)
{
    struct find_id *f = cls;
    cJSON *o = cJSON_Parse(kv->doc);
    const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, "id"));
    int hit = id && strcmp(id, f->id) == 0;
    if (hit)
        snprintf(f->key, sizeof f->key, "%s", kv->key);
    cJSON_Delete(o);
    return hit;
}

int auth_token_revoke(struct cube_auth *a, const char *user, const char *id)
{
    struct find_id f = {id, ""};
    int rc = cube_store_kv_list(a->ctx->store, "token", user, match_id, &f);
    if (rc != CUBE_OK)
        return rc;
    if (!f.key[0])
        return CUBE_ENOTFOUND;
    char key[80];
    snprintf(key, sizeof key, "t%s", f.key);
    cache_drop(a, key);
    return cube_store_kv_delete(a->ctx->store, "token", f.key);
}

struct forget {
    const char *user;
    int what;
    char **keys;
    size_t n, cap;
};

static int collect_user(void *cls, const char *key, void *value)
{
    struct forget *f = cls;
    const struct auth_cred *c = value;
    if (strcmp(c->user, f->user) != 0 || (key[0] == 't' && !(f->what & AUTH_FORGET_TOKENS)))
        return 0;
    if (f->n == f->cap) {
        size_t cap = f->cap ? f->cap * 2 : 16;
        char **k = realloc(f->keys, cap * sizeof *k);
        if (!k)
            return 1;
        f->keys = k;
        f->cap = cap;
    }
    f->keys[f->n] = strdup(key);
    f->n += f->keys[f->n] != NULL;
    return 0;
}

void auth_cred_forget_user(struct cube_auth *a, const char *user, int what)
{
    struct forget f = {user, what, NULL, 0, 0};
    pthread_mutex_lock(&a->cred_mu);
    cube_strmap_each(a->creds, collect_user, &f);
    for (size_t i = 0; i < f.n; i++)
        free(cube_strmap_del(a->creds, f.keys[i]));
    pthread_mutex_unlock(&a->cred_mu);
    for (size_t i = 0; i < f.n; i++)
        free(f.keys[i]);
    free(f.keys);
    cube_store_kv_delete_owner(a->ctx->store, "session", user, NULL);
    if (what & AUTH_FORGET_TOKENS)
        cube_store_kv_delete_owner(a->ctx->store, "token", user, NULL);
    if (what & AUTH_FORGET_PASSWORD)
        cube_store_kv_delete(a->ctx->store, "password", user);
}
