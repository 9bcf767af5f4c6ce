/* apps_cred.c — the apps origin's credentials, in memory: handshake codes,
 * the sessions behind `cube_app` cookies and the audit marks (apps.h).
 *
 * Entries are keyed by the SHA-256 of their secret (never the secret), so
 * the table holds nothing a reader could present. A cookie's session
 * ends APPS_IDLE_S after its last use. A restart of cubed forgets them
 * all: browsers then come back through the console, which hands over
 * again without asking anything. Expired entries are purged every 1024
 * additions and when the table is full. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "apps_priv.h"
#include "base/strmap.h"
#include "base/random.h"
#include "base/hash.h"

#define PURGE_EVERY 1024

static int64_t now_s(void) { return (int64_t)time(NULL); }

struct cube_apps *apps_new(struct cube_ctx *ctx)
{
    struct cube_apps *a = calloc(1, sizeof *a);
    if (!a || !(a->creds = cube_strmap_new())) {
        free(a);
        return NULL;
    }
    a->ctx = ctx;
    pthread_mutex_init(&a->mu, NULL);
    return a;
}

static void cred_free(void *value)
{
    struct apps_cred *c = value;
    if (c)
        free(c->next);
    free(c);
}

void apps_free(struct cube_apps *a)
{
    if (!a)
        return;
    cube_strmap_free(a->creds, cred_free);
    pthread_mutex_destroy(&a->mu);
    free(a);
}

/* "c"/"s" + the hex SHA-256 of a secret, or of a raw hash. */
static void key_of_hash(int type, const uint8_t hash[32], char key[68])
{
    key[0] = type == APPS_CODE ? 'c' : 's';
    cube_hex(hash, 32, key + 1);
}

static void key_of_secret(int type, const char *secret, char key[68])
{
    uint8_t d[32];
    cube_sha256(secret, strlen(secret), d);
    key_of_hash(type, d, key);
}

struct expired {
    char (*keys)[APPS_OBJ_MAX + CUBE_USER_MAX + 4];
    size_t n, cap;
    int64_t now;
};

static int collect_expired(void *cls, const char *key, void *value)
{
    struct expired *x = cls;
    const struct apps_cred *c = value;
    if (c->expires > x->now || x->n == x->cap)
        return 0;
    snprintf(x->keys[x->n++], sizeof x->keys[0], "%s", key);
    return 0;
}

/* Drops expired entries (up to 4096 a round); call with mu held. */
static void purge(struct cube_apps *a)
{
    struct expired x = {.cap = 4096, .now = now_s()};
    a->puts = 0;
    if (!(x.keys = malloc(x.cap * sizeof *x.keys)))
        return;
    cube_strmap_each(a->creds, collect_expired, &x);
    for (size_t i = 0; i < x.n; i++)
        cred_free(cube_strmap_del(a->creds, x.keys[i]));
    free(x.keys);
}

/* Adds value under key (taken on success); call with mu held. 0 or -1. */
static int put_locked(struct cube_apps *a, const char *key, struct apps_cred *value)
{
    if (++a->puts >= PURGE_EVERY || cube_strmap_size(a->creds) >= APPS_MAX)
        purge(a);
    void *old = NULL;
    if (cube_strmap_size(a->creds) >= APPS_MAX || cube_strmap_put(a->creds, key, value, &old) < 0)
        return -1;
    cred_free(old);
    return 0;
}

int apps_cred_add(struct cube_apps *a, const struct apps_cred *c, char secret[65])
{
    char key[68];
    struct apps_cred *copy = malloc(sizeof *copy);
    if (!copy || cube_random_hex(secret, 32) < 0) {
        free(copy);
        free(c->next);
        return -1;
    }
    *copy = *c;
    key_of_secret(c->type, secret, key);
    pthread_mutex_lock(&a->mu);
    int rc = put_locked(a, key, copy);
    pthread_mutex_unlock(&a->mu);
    if (rc < 0)
        cred_free(copy);
    return rc;
}

int apps_code_take(struct cube_apps *a, const char *secret, struct apps_cred *out)
{
    char key[68];
    if (strlen(secret) != 64)
        return -1;
    key_of_secret(APPS_CODE, secret, key);
    pthread_mutex_lock(&a->mu);
    struct apps_cred *c = cube_strmap_del(a->creds, key);
    pthread_mutex_unlock(&a->mu);
    int ok = c && c->type == APPS_CODE && c->expires > now_s();
    if (ok) {
        *out = *c;
        c->next = NULL;
    }
    cred_free(c);
    return ok ? 0 : -1;
}

int apps_session_get(struct cube_apps *a, const uint8_t hash[32], struct apps_cred *out)
{
    char key[68];
    key_of_hash(APPS_SESSION, hash, key);
    pthread_mutex_lock(&a->mu);
    struct apps_cred *c = cube_strmap_get(a->creds, key);
    int64_t now = now_s();
    int ok = c && c->type == APPS_SESSION && c->expires > now;
    if (ok) {
        c->expires = now + APPS_IDLE_S < c->until ? now + APPS_IDLE_S : c->until;
        *out = *c;
    }
    pthread_mutex_unlock(&a->mu);
    return ok ? 0 : -1;
}

void apps_session_drop(struct cube_apps *a, const uint8_t hash[32])
{
    char key[68];
    key_of_hash(APPS_SESSION, hash, key);
    pthread_mutex_lock(&a->mu);
    cred_free(cube_strmap_del(a->creds, key));
    pthread_mutex_unlock(&a->mu);
}

int apps_session_mark(struct cube_apps *a, const uint8_t hash[32])
{
    char key[68];
    key_of_hash(APPS_SESSION, hash, key);
    pthread_mutex_lock(&a->mu);
    struct apps_cred *c = cube_strmap_get(a->creds, key);
    int first = c && !c->audited;
    if (first)
        c->audited = 1;
    pthread_mutex_unlock(&a->mu);
    return first;
}

int apps_mark_once(struct cube_apps *a, const char *user, const char *obj)
{
    char key[APPS_OBJ_MAX + CUBE_USER_MAX + 4];
    snprintf(key, sizeof key, "m%s\n%s", user, obj);
    pthread_mutex_lock(&a->mu);
    const struct apps_cred *c = cube_strmap_get(a->creds, key);
    int first = !c || c->expires <= now_s();
    struct apps_cred *m = first ? calloc(1, sizeof *m) : NULL;
    if (m) {
        m->type = APPS_MARK;
        m->expires = now_s() + APPS_MARK_S;
        if (put_locked(a, key, m) < 0)
            cred_free(m);   /* full: the event is recorded again next time */
    }
    pthread_mutex_unlock(&a->mu);
    return first;
}
