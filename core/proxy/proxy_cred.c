/* proxy_cred.c — application credentials of proxied objects (ABI 1.5
 * proxy_credential_set): per prefix, the SHA-256 of one API key per
 * preset key, checked before a login is asked for. Only digests are kept,
 * compared in constant time; the key itself is never stored or logged. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <openssl/crypto.h>
#include <openssl/sha.h>

#include "ctx/ctx.h"
#include "http/http_req.h"
#include "proxy.h"
#include "proxy_priv.h"

#define CRED_BUCKETS 256
#define CRED_MAX 65536

struct proxy_cred {
    char key[128];
    unsigned char digest[SHA256_DIGEST_LENGTH];
    struct proxy_cred *next;
};

struct proxy_creds {
    pthread_mutex_t mu;
    struct proxy_cred *b[CRED_BUCKETS];
    size_t n;
};

static unsigned bucket_of(const char *key)
{
    unsigned h = 2166136261u;
    for (const unsigned char *c = (const unsigned char *)key; *c; c++)
        h = (h ^ *c) * 16777619u;
    return h % CRED_BUCKETS;
}

static int unhex(const char *hex, unsigned char *out)
{
    for (int i = 0; i < SHA256_DIGEST_LENGTH * 2; i++) {
        char c = hex[i];
        int v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (v < 0)
            return -1;
        out[i / 2] = (unsigned char)(i % 2 ? out[i / 2] | v : v << 4);
    }
    return hex[SHA256_DIGEST_LENGTH * 2] ? -1 : 0;
}

static int key_ok(const char *key)
{
    size_t n = strlen(key);
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)key[i] < 0x20 || key[i] == 0x7f)
            return 0;
    return n < 128;
}

/* The prefix's table, made on first use (under the proxies' pool mutex). */
static struct proxy_creds *creds_of(struct cube_proxies *px, struct proxy_prefix *p, int make)
{
    pthread_mutex_lock(&px->pool_mu);
    struct proxy_creds *c = atomic_load(&p->creds);
    if (!c && make && (c = calloc(1, sizeof *c))) {
        pthread_mutex_init(&c->mu, NULL);
        atomic_store(&p->creds, c);
    }
    pthread_mutex_unlock(&px->pool_mu);
    return c;
}

int cube_slot_proxy_credential_set(cube_plugin *self, const char *prefix, const char *key,
                                   const char *sha256_hex)
{
    unsigned char d[SHA256_DIGEST_LENGTH];
    if (!prefix || !key || !key_ok(key) || (sha256_hex && unhex(sha256_hex, d) < 0))
        return CUBE_EINVAL;
    struct proxy_prefix *p = self->ctx->proxies ? proxy_prefix_of(self->ctx->proxies, self, prefix)
                                                : NULL;
    if (!p)
        return CUBE_ENOTFOUND;
    struct proxy_creds *c = creds_of(self->ctx->proxies, p, sha256_hex != NULL);
    if (!c)
        return sha256_hex ? CUBE_ENOMEM : CUBE_OK;
    int rc = CUBE_OK;
    pthread_mutex_lock(&c->mu);
    struct proxy_cred **at = &c->b[bucket_of(key)];
    while (*at && strcmp((*at)->key, key))
        at = &(*at)->next;
    if (!sha256_hex) {
        struct proxy_cred *gone = *at;
        if (gone) {
            *at = gone->next;
            OPENSSL_cleanse(gone, sizeof *gone);
            free(gone);
            c->n--;
        }
    } else if (*at) {
        memcpy((*at)->digest, d, sizeof d);
    } else if (c->n >= CRED_MAX) {
        rc = CUBE_ETOOBIG;
    } else if (!(*at = calloc(1, sizeof **at))) {
        rc = CUBE_ENOMEM;
    } else {
        strcpy((*at)->key, key);
        memcpy((*at)->digest, d, sizeof d);
        c->n++;
    }
    pthread_mutex_unlock(&c->mu);
    return rc;
}

void proxy_creds_free(struct proxy_prefix *p)
{
    struct proxy_creds *c = atomic_load(&p->creds);
    if (!c)
        return;
    for (int i = 0; i < CRED_BUCKETS; i++)
        for (struct proxy_cred *e = c->b[i], *next; e; e = next) {
            next = e->next;
            OPENSSL_cleanse(e, sizeof *e);
            free(e);
        }
    pthread_mutex_destroy(&c->mu);
    free(c);
    atomic_store(&p->creds, NULL);
}

/* The credential the caller presents, and whether it came as X-Api-Key. */
static const char *presented(cube_req *req, int *api_key)
{
    const char *v = cube_req_header(req, "X-Api-Key");
    *api_key = v != NULL;
    if (v)
        return v;
    v = cube_req_header(req, "Authorization");
    if (v && !strncasecmp(v, "Bearer ", 7)) {
        for (v += 7; *v == ' '; v++)
            ;
        return v;
    }
    return NULL;
}

int proxy_cred_admit(struct proxy_call *call)
{
    struct proxy_creds *c = atomic_load(&call->pfx->creds);   /* set once, never freed early */
    int api_key;
    const char *cred;
    if (!c || !call->req->http->apps || !(cred = presented(call->req, &api_key)))
        return 0;
    char key[128];
    proxy_default_key(call, key, sizeof key);
    unsigned char d[SHA256_DIGEST_LENGTH];
    SHA256((const unsigned char *)cred, strlen(cred), d);
    int found = 0, match = 0;
    pthread_mutex_lock(&c->mu);
    for (struct proxy_cred *e = c->b[bucket_of(key)]; e; e = e->next)
        if (!strcmp(e->key, key)) {
            found = 1;
            match = CRYPTO_memcmp(e->digest, d, sizeof d) == 0;
            break;
        }
    pthread_mutex_unlock(&c->mu);
    OPENSSL_cleanse(d, sizeof d);
    if (match) {
        call->credential = 1;
        return 1;
    }
    if (api_key) {
        cube_http_add_header(call->req, "WWW-Authenticate", "ApiKey");
        cube_http_answer_error(call->req, 401, "Unauthorized",
                               found ? "the API key does not match this service's"
                                     : "this object takes no API key");
        return -1;
    }
    return 0;
}
