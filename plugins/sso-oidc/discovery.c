/* discovery.c — OpenID Connect Discovery 1.0 at init, and the JWK Set
 * cache: fetched at init, refetched when an ID token names an unknown kid
 * (at most once per jwks_refetch_s) so key rotation is followed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oidc.h"

/* A copy of the http(s) URL member `key` of the document; NULL with err. */
static char *endpoint(const cJSON *doc, const char *key, const char *url,
                      char *err, size_t errlen)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(doc, key);
    if (!cJSON_IsString(v) || (strncmp(v->valuestring, "https://", 8) != 0 &&
                               strncmp(v->valuestring, "http://", 7) != 0)) {
        snprintf(err, errlen, "issuer: discovery document at %.300s lacks an http(s) \"%s\"",
                 url, key);
        return NULL;
    }
    char *s = strdup(v->valuestring);
    if (!s)
        snprintf(err, errlen, "out of memory");
    return s;
}

/* Nonzero when the array member `key` is absent or holds `value`. */
static int lists_or_absent(const cJSON *doc, const char *key, const char *value)
{
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(doc, key), *v;
    if (!cJSON_IsArray(arr))
        return 1;
    cJSON_ArrayForEach(v, arr)
        if (cJSON_IsString(v) && strcmp(v->valuestring, value) == 0)
            return 1;
    return 0;
}

/* Checks the document's issuer and reads its endpoints; 0 or -1 + err. */
static int read_document(struct oidc *o, const cJSON *doc, const char *url,
                         char *err, size_t errlen)
{
    const cJSON *iss = cJSON_GetObjectItemCaseSensitive(doc, "issuer");
    char shown[160];
    if (!cJSON_IsString(iss) || strcmp(iss->valuestring, o->cfg.issuer) != 0) {
        oidc_printable(shown, sizeof shown, cJSON_IsString(iss) ? iss->valuestring : "");
        snprintf(err, errlen, "issuer: the discovery document at %.300s names issuer "
                 "\"%s\", not the configured one", url, shown);
        return -1;
    }
    if (!(o->authorization_endpoint = endpoint(doc, "authorization_endpoint", url, err, errlen)) ||
        !(o->token_endpoint = endpoint(doc, "token_endpoint", url, err, errlen)) ||
        !(o->jwks_uri = endpoint(doc, "jwks_uri", url, err, errlen)))
        return -1;
    if (!lists_or_absent(doc, "code_challenge_methods_supported", "S256"))
        o->host->log(o->self, CUBE_LOG_WARN, "the provider does not list PKCE S256 "
                     "(code_challenge_methods_supported); sending it anyway");
    return 0;
}

int oidc_discover(struct oidc *o, char *err, size_t errlen)
{
    char url[600], why[OIDC_ERR_LEN];
    struct oidc_http_resp r;
    size_t len = strlen(o->cfg.issuer);
    int trim = len && o->cfg.issuer[len - 1] == '/';
    snprintf(url, sizeof url, "%.*s/.well-known/openid-configuration",
             (int)(len - (size_t)trim), o->cfg.issuer);
    if (oidc_http_get(&o->http, url, &r, why, sizeof why) < 0) {
        snprintf(err, errlen, "issuer: cannot fetch discovery document from %s: %s", url, why);
        return -1;
    }
    cJSON *doc = r.status == 200 ? cJSON_Parse(r.body) : NULL;
    int rc = -1;
    if (r.status != 200)
        snprintf(err, errlen, "issuer: cannot fetch discovery document from %s: HTTP %ld",
                 url, r.status);
    else if (!cJSON_IsObject(doc))
        snprintf(err, errlen, "issuer: the discovery document at %s is not a JSON object", url);
    else
        rc = read_document(o, doc, url, err, errlen);
    cJSON_Delete(doc);
    oidc_http_resp_free(&r);
    return rc;
}

int oidc_jwks_refresh(struct oidc *o, char *err, size_t errlen)
{
    char why[OIDC_ERR_LEN];
    struct oidc_http_resp r;
    struct oidc_jwks fresh, old;
    if (oidc_http_get(&o->http, o->jwks_uri, &r, why, sizeof why) < 0) {
        snprintf(err, errlen, "cannot fetch the JWK Set from %.300s: %s", o->jwks_uri, why);
        return -1;
    }
    int rc = -1;
    if (r.status != 200)
        snprintf(err, errlen, "cannot fetch the JWK Set from %.300s: HTTP %ld",
                 o->jwks_uri, r.status);
    else if (oidc_jwks_parse(r.body, &fresh, why, sizeof why) < 0)
        snprintf(err, errlen, "bad JWK Set at %.300s: %s", o->jwks_uri, why);
    else
        rc = 0;
    oidc_http_resp_free(&r);
    if (rc < 0)
        return -1;
    pthread_mutex_lock(&o->keys_mu);
    old = o->jwks;
    o->jwks = fresh;
    pthread_mutex_unlock(&o->keys_mu);
    oidc_jwks_free(&old);
    o->host->log(o->self, CUBE_LOG_INFO, "loaded %zu signing key(s) from %s", fresh.n,
                 o->jwks_uri);
    return 0;
}

/* Looks the key up under the mutex; *refetch is set (and the fetch time
 * stamped) when the key is missing and a refetch is allowed now. */
static EVP_PKEY *lookup(struct oidc *o, const char *kid, unsigned alg, int *refetch)
{
    time_t now = time(NULL);
    pthread_mutex_lock(&o->keys_mu);
    EVP_PKEY *key = oidc_jwks_find(&o->jwks, kid, alg);
    if (refetch) {
        *refetch = !key && now - o->jwks_fetched >= o->cfg.jwks_refetch_s;
        if (*refetch)
            o->jwks_fetched = now;
    }
    pthread_mutex_unlock(&o->keys_mu);
    return key;
}

EVP_PKEY *oidc_signing_key(struct oidc *o, const char *kid, unsigned alg,
                           char *err, size_t errlen)
{
    char why[OIDC_ERR_LEN], shown[72];
    int refetch = 0;
    EVP_PKEY *key = lookup(o, kid, alg, &refetch);
    if (key)
        return key;
    if (refetch) {
        if (oidc_jwks_refresh(o, why, sizeof why) == 0)
            key = lookup(o, kid, alg, NULL);
        else
            o->host->log(o->self, CUBE_LOG_WARN, "key rotation: %s", why);
    }
    if (!key) {
        oidc_printable(shown, sizeof shown, kid ? kid : "(none)");
        snprintf(err, errlen, "ID token signing key (kid \"%s\") is unknown", shown);
    }
    return key;
}
