/* jws.c — JWS compact serialization (RFC 7515) for ID tokens: split and
 * decode the three parts, refuse unexpected algorithms, and check RS256
 * (RSASSA-PKCS1-v1_5 SHA-256) and ES256 (ECDSA P-256 SHA-256, raw r||s
 * converted to DER) signatures with EVP_DigestVerify. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/bn.h>
#include <openssl/ecdsa.h>
#include <openssl/err.h>

#include "oidc.h"

#define MAX_TOKEN (64u * 1024u)

/* Decodes one base64url part holding a JSON object; NULL when it is not. */
static cJSON *json_part(const char *s, size_t len)
{
    size_t n = 0;
    unsigned char *raw = oidc_b64url_decode(s, len, &n);
    char *text = raw ? realloc(raw, n + 1) : NULL;
    if (!text) {
        free(raw);
        return NULL;
    }
    text[n] = '\0';
    cJSON *doc = strlen(text) == n ? cJSON_ParseWithOpts(text, NULL, 1) : NULL;
    free(text);
    if (doc && !cJSON_IsObject(doc)) {
        cJSON_Delete(doc);
        doc = NULL;
    }
    return doc;
}

/* Checks the header's alg, crit and kid; fills out->alg and out->kid. */
static int check_header(struct oidc_jws *out, unsigned allowed, char *err, size_t errlen)
{
    const cJSON *alg = cJSON_GetObjectItemCaseSensitive(out->header, "alg");
    const cJSON *kid = cJSON_GetObjectItemCaseSensitive(out->header, "kid");
    if (!cJSON_IsString(alg)) {
        snprintf(err, errlen, "ID token header has no \"alg\"");
        return -1;
    }
    out->alg = oidc_alg_parse(alg->valuestring);
    if (!(out->alg & allowed)) {
        snprintf(err, errlen, "ID token algorithm \"%.32s\" is not allowed", alg->valuestring);
        return -1;
    }
    if (cJSON_GetObjectItemCaseSensitive(out->header, "crit")) {
        snprintf(err, errlen, "ID token header has unsupported \"crit\" extensions");
        return -1;
    }
    if (kid && !cJSON_IsString(kid)) {
        snprintf(err, errlen, "ID token header \"kid\" is not a string");
        return -1;
    }
    out->kid = kid ? kid->valuestring : NULL;
    return 0;
}

int oidc_jws_parse(const char *token, unsigned allowed, struct oidc_jws *out,
                   char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    size_t len = token ? strlen(token) : 0;
    const char *d1 = token ? strchr(token, '.') : NULL;
    const char *d2 = d1 ? strchr(d1 + 1, '.') : NULL;
    if (len == 0 || len > MAX_TOKEN || !d2 || strchr(d2 + 1, '.')) {
        snprintf(err, errlen, "ID token is not a JWS in compact form");
        return -1;
    }
    out->header = json_part(token, (size_t)(d1 - token));
    if (!out->header) {
        snprintf(err, errlen, "ID token header is not a base64url JSON object");
        goto fail;
    }
    if (check_header(out, allowed, err, errlen) < 0)
        goto fail;
    out->payload = json_part(d1 + 1, (size_t)(d2 - d1 - 1));
    if (!out->payload) {
        snprintf(err, errlen, "ID token payload is not a base64url JSON object");
        goto fail;
    }
    out->sig = oidc_b64url_decode(d2 + 1, strlen(d2 + 1), &out->sig_len);
    if (!out->sig || out->sig_len == 0) {
        snprintf(err, errlen, "ID token signature is missing or not base64url");
        goto fail;
    }
    out->input = token;
    out->input_len = (size_t)(d2 - token);
    return 0;
fail:
    oidc_jws_free(out);
    return -1;
}

/* Converts a raw P-256 signature (r || s, 32 bytes each) to DER; the DER
 * (OPENSSL_free) and its length, or NULL. */
static unsigned char *es256_to_der(const unsigned char *raw, size_t len, size_t *der_len)
{
    unsigned char *der = NULL;
    if (len != 64)
        return NULL;
    ECDSA_SIG *sig = ECDSA_SIG_new();
    BIGNUM *r = BN_bin2bn(raw, 32, NULL), *s = BN_bin2bn(raw + 32, 32, NULL);
    if (!sig || !r || !s || ECDSA_SIG_set0(sig, r, s) != 1) {
        BN_free(r);
        BN_free(s);
        goto fail;
    }
    int n = i2d_ECDSA_SIG(sig, &der);
    if (n <= 0) {
        der = NULL;
        goto fail;
    }
    *der_len = (size_t)n;
fail:
    ECDSA_SIG_free(sig);
    return der;
}

/* Nonzero when key is of the type alg needs. */
static int key_suits(EVP_PKEY *key, unsigned alg)
{
    if (alg == OIDC_ALG_RS256)
        return EVP_PKEY_is_a(key, "RSA");
    return alg == OIDC_ALG_ES256 && EVP_PKEY_is_a(key, "EC") && EVP_PKEY_get_bits(key) == 256;
}

int oidc_jws_verify(const struct oidc_jws *jws, EVP_PKEY *key, char *err, size_t errlen)
{
    const unsigned char *sig = jws->sig;
    size_t sig_len = jws->sig_len;
    unsigned char *der = NULL;
    int ok = 0;
    if (!key || !key_suits(key, jws->alg)) {
        snprintf(err, errlen, "ID token signing key does not suit its algorithm");
        return -1;
    }
    if (jws->alg == OIDC_ALG_ES256) {
        der = es256_to_der(jws->sig, jws->sig_len, &sig_len);
        sig = der;
    } else if ((int)jws->sig_len != EVP_PKEY_get_size(key)) {
        sig = NULL;
    }
    EVP_MD_CTX *md = sig ? EVP_MD_CTX_new() : NULL;
    ok = md && EVP_DigestVerifyInit_ex(md, NULL, "SHA256", NULL, NULL, key, NULL) == 1 &&
         EVP_DigestVerify(md, sig, sig_len, (const unsigned char *)jws->input,
                          jws->input_len) == 1;
    EVP_MD_CTX_free(md);
    OPENSSL_free(der);
    if (!ok) {
        ERR_clear_error(); /* leave no OpenSSL errors on this HTTP thread */
        snprintf(err, errlen, "ID token signature is invalid");
        return -1;
    }
    return 0;
}

void oidc_jws_free(struct oidc_jws *jws)
{
    cJSON_Delete(jws->header);
    cJSON_Delete(jws->payload);
    free(jws->sig);
    memset(jws, 0, sizeof *jws);
}
