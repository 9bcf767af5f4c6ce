/* apps_priv.h — what the apps_*.c and http_apps.c files share (see apps.h). */
#ifndef CUBE_APPS_PRIV_H
#define CUBE_APPS_PRIV_H

#include <pthread.h>
#include <stdint.h>

#include <microhttpd.h>

#include "apps.h"
#include "auth/auth.h"

#define APPS_CODE_S 60            /* a handshake code lives this long */
#define APPS_IDLE_S 14400         /* a cookie unused this long ends */
#define APPS_UNBOUND_S 43200      /* at most, when not tied to a console session */
#define APPS_BOUND_S 604800       /* at most, when tied to one (which must live) */
#define APPS_MARK_S 43200         /* audit marks of bearer-token users */
#define APPS_MAX 50000            /* codes, cookies and marks held at most */
#define APPS_OBJ_MAX 256
#define APPS_PATH_MAX 256
#define APPS_ORIGIN_MAX 256
#define APPS_COOKIE "cube_app"
#define APPS_CALLBACK "/_cube/apps/callback"

struct cube_config;
struct cube_strmap;

/* The apps origin's state; ctx->proxies->apps. */
struct cube_apps {
    struct cube_ctx *ctx;
    struct cube_http *http;        /* the listener; NULL until started */
    pthread_mutex_t mu;
    struct cube_strmap *creds;     /* "c"/"s" + hex SHA-256 of the secret; "m"... */
    unsigned puts;                 /* since the last purge of expired entries */
};

enum { APPS_CODE = 1, APPS_SESSION, APPS_MARK };

/* A handshake code, an apps cookie's session or an audit mark. */
struct apps_cred {
    int type;
    int64_t expires;               /* Unix seconds; sessions: slides by APPS_IDLE_S */
    int64_t until;                 /* sessions: the latest expires may reach */
    char user[CUBE_USER_MAX];
    int bound;                     /* session[] is the console session's SHA-256 */
    uint8_t session[32];
    int audited;                   /* sessions: their audit event is recorded */
    char obj[APPS_OBJ_MAX];        /* the object: apps_object_key */
    char path[APPS_PATH_MAX];      /* codes: the cookie's Path (the object's prefix path) */
    char host[APPS_ORIGIN_MAX];    /* codes: the Host they are for; "" any */
    char *next;                    /* codes: where the callback lands (owned) */
};

/* -- apps_cred.c (the table; every call locks it) ------------------------------ */
struct cube_apps *apps_new(struct cube_ctx *ctx);
void apps_free(struct cube_apps *a);
/* Stores a copy of c (c->type APPS_CODE or APPS_SESSION) under a fresh
 * secret, written to secret (64 hex digits); takes c->next either way.
 * 0, or -1 (table full, no randomness or memory). */
int apps_cred_add(struct cube_apps *a, const struct apps_cred *c, char secret[65]);
/* Removes the code with this secret into *out (the caller frees
 * out->next): 0, or -1 when unknown or expired. A code is taken once. */
int apps_code_take(struct cube_apps *a, const char *secret, struct apps_cred *out);
/* Copies the live cookie session whose secret's SHA-256 is hash (its
 * expiry slid forward; out->next NULL): 0 or -1. */
int apps_session_get(struct cube_apps *a, const uint8_t hash[32], struct apps_cred *out);
void apps_session_drop(struct cube_apps *a, const uint8_t hash[32]);
/* Sets the session's audited flag; 1 when it was not set before. */
int apps_session_mark(struct cube_apps *a, const uint8_t hash[32]);
/* Adds the mark "user used obj" for APPS_MARK_S; 1 when it was not there. */
int apps_mark_once(struct cube_apps *a, const char *user, const char *obj);

/* -- apps_origin.c ------------------------------------------------------------ */
/* The apps origin (scheme://host[:port], no slash) serving p's object of
 * req (its params in req->match) into out: apps_origin with {project} and
 * {name} filled in, else scheme://<Host's host>:<apps port>. -1 with *why
 * when it cannot be named (a value unfit for a host name, no Host). */
int apps_origin_of(cube_req *req, const struct proxy_prefix *p, char *out, size_t len,
                   const char **why);
/* The console's origin for an apps-listener request: console_origin, else
 * (without apps_origin) scheme://<Host's host>:<main port>. 0, or -1. */
int apps_console_origin(cube_req *req, char *out, size_t len);
/* 1 when apps_origin names a host per object ({project} or {name}). */
int apps_per_object(const struct cube_config *cfg);
/* 1 when the apps origin is https (apps_origin says so, or TLS is on). */
int apps_secure(const struct cube_config *cfg);
/* The identity of p's object of req: its template and parameter values. */
void apps_object_key(cube_req *req, const struct proxy_prefix *p, char *out, size_t len);
/* The authority (host[:port]) part of an origin. */
const char *apps_authority(const char *origin);

#endif
