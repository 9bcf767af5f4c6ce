/* flow.c — logins started and not yet finished: state, nonce, PKCE
 * verifier, the browser binding, `next` and the redirect URI, kept in
 * memory for ttl_s, at most `max` of them (the oldest go first), each
 * state usable once. A mutex guards the array; lookups are linear. */
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "oidc.h"

int oidc_flow_init(struct oidc_flow *f, size_t max, long ttl_s)
{
    memset(f, 0, sizeof *f);
    f->items = calloc(max ? max : 1, sizeof *f->items);
    if (!f->items)
        return -1;
    f->max = max ? max : 1;
    f->ttl_s = ttl_s;
    pthread_mutex_init(&f->mu, NULL);
    return 0;
}

void oidc_pending_clear(struct oidc_pending *p)
{
    free(p->next);
    free(p->redirect_uri);
    OPENSSL_cleanse(p, sizeof *p);
}

void oidc_flow_fini(struct oidc_flow *f)
{
    if (!f->items)
        return;
    for (size_t i = 0; i < f->n; i++)
        oidc_pending_clear(&f->items[i]);
    free(f->items);
    pthread_mutex_destroy(&f->mu);
    memset(f, 0, sizeof *f);
}

/* Removes entry i (order is not kept). Called with the mutex held. */
static void drop(struct oidc_flow *f, size_t i)
{
    oidc_pending_clear(&f->items[i]);
    f->items[i] = f->items[--f->n];
    memset(&f->items[f->n], 0, sizeof f->items[f->n]);
}

/* Drops expired entries and, when still full, the oldest. Mutex held. */
static void make_room(struct oidc_flow *f, time_t now)
{
    for (size_t i = f->n; i-- > 0;)
        if (f->items[i].expires <= now)
            drop(f, i);
    if (f->n < f->max)
        return;
    size_t oldest = 0;
    for (size_t i = 1; i < f->n; i++)
        if (f->items[i].expires < f->items[oldest].expires)
            oldest = i;
    drop(f, oldest);
}

/* Fills a new entry's random values and copies; 0 or -1. */
static int fill(struct oidc_pending *p, const char *binding, const char *next,
                const char *redirect_uri, time_t expires)
{
    memset(p, 0, sizeof *p);
    if (oidc_random_token(p->state) < 0 || oidc_random_token(p->nonce) < 0 ||
        oidc_random_token(p->verifier) < 0 || strlen(binding) >= sizeof p->binding)
        return -1;
    memcpy(p->binding, binding, strlen(binding) + 1);
    p->next = strdup(next);
    p->redirect_uri = strdup(redirect_uri);
    p->expires = expires;
    if (!p->next || !p->redirect_uri) {
        oidc_pending_clear(p);
        return -1;
    }
    return 0;
}

/* Copies p into out, duplicating its strings; 0 or -1. */
static int copy_pending(struct oidc_pending *out, const struct oidc_pending *p)
{
    *out = *p;
    out->next = strdup(p->next);
    out->redirect_uri = strdup(p->redirect_uri);
    if (out->next && out->redirect_uri)
        return 0;
    oidc_pending_clear(out);
    return -1;
}

int oidc_flow_begin(struct oidc_flow *f, const char *binding, const char *next,
                    const char *redirect_uri, time_t now, struct oidc_pending *out)
{
    struct oidc_pending p;
    memset(out, 0, sizeof *out);
    if (fill(&p, binding, next, redirect_uri, now + f->ttl_s) < 0)
        return -1;
    if (copy_pending(out, &p) < 0) {
        oidc_pending_clear(&p);
        return -1;
    }
    pthread_mutex_lock(&f->mu);
    if (f->n == f->max || (f->n && f->n % 64 == 0))
        make_room(f, now);
    f->items[f->n++] = p;
    pthread_mutex_unlock(&f->mu);
    return 0;
}

int oidc_flow_take(struct oidc_flow *f, const char *state, time_t now,
                   struct oidc_pending *out)
{
    int rc = -1;
    memset(out, 0, sizeof *out);
    if (!state || strlen(state) != OIDC_TOKEN_LEN - 1)
        return -1;
    pthread_mutex_lock(&f->mu);
    for (size_t i = 0; i < f->n; i++) {
        struct oidc_pending *p = &f->items[i];
        if (CRYPTO_memcmp(p->state, state, OIDC_TOKEN_LEN - 1) != 0)
            continue;
        if (p->expires > now) {
            *out = *p; /* the strings move to the caller */
            memset(p, 0, sizeof *p);
            rc = 0;
        }
        drop(f, i);
        break;
    }
    pthread_mutex_unlock(&f->mu);
    return rc;
}

size_t oidc_flow_count(struct oidc_flow *f)
{
    pthread_mutex_lock(&f->mu);
    size_t n = f->n;
    pthread_mutex_unlock(&f->mu);
    return n;
}
