/* jwk.c — JSON Web Keys (RFC 7517/7518) to OpenSSL 3 public keys: RSA from
 * n/e and EC P-256 from x/y, built with OSSL_PARAM_BLD + EVP_PKEY_fromdata;
 * and the key set the plugin caches. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/param_build.h>

#include "oidc.h"

#define RSA_MIN_BITS 2048
#define RSA_MAX_BITS 16384

unsigned oidc_alg_parse(const char *name)
{
    if (name && strcmp(name, "RS256") == 0)
        return OIDC_ALG_RS256;
    if (name && strcmp(name, "ES256") == 0)
        return OIDC_ALG_ES256;
    return 0;
}

/* A JSON string member, or NULL. */
static const char *str_member(const cJSON *o, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* Decodes the base64url string member `name`; NULL with err. */
static unsigned char *member_bytes(const cJSON *jwk, const char *name, size_t *len,
                                   char *err, size_t errlen)
{
    const char *s = str_member(jwk, name);
    unsigned char *b = s ? oidc_b64url_decode(s, strlen(s), len) : NULL;
    if (!b)
        snprintf(err, errlen, "\"%s\" is %s", name, s ? "not base64url" : "missing");
    else if (*len == 0) {
        snprintf(err, errlen, "\"%s\" is empty", name);
        free(b);
        b = NULL;
    }
    return b;
}

/* Turns the built parameters into a public key of type `type`; NULL on error. */
static EVP_PKEY *from_params(const char *type, OSSL_PARAM_BLD *bld)
{
    EVP_PKEY *pkey = NULL;
    OSSL_PARAM *params = OSSL_PARAM_BLD_to_param(bld);
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(NULL, type, NULL);
    if (!params || !ctx || EVP_PKEY_fromdata_init(ctx) != 1 ||
        EVP_PKEY_fromdata(ctx, &pkey, EVP_PKEY_PUBLIC_KEY, params) != 1)
        pkey = NULL;
    EVP_PKEY_CTX_free(ctx);
    OSSL_PARAM_free(params);
    return pkey;
}

/* An RSA public key from the JWK's n and e; NULL with err. */
static EVP_PKEY *rsa_key(const cJSON *jwk, char *err, size_t errlen)
{
    size_t nlen = 0, elen = 0;
    EVP_PKEY *pkey = NULL;
    BIGNUM *n = NULL, *e = NULL;
    OSSL_PARAM_BLD *bld = NULL;
    unsigned char *nb = member_bytes(jwk, "n", &nlen, err, errlen);
    unsigned char *eb = nb ? member_bytes(jwk, "e", &elen, err, errlen) : NULL;
    if (!eb)
        goto fail;
    n = BN_bin2bn(nb, (int)nlen, NULL);
    e = BN_bin2bn(eb, (int)elen, NULL);
    if (!n || !e || elen > 8 || !BN_is_odd(e) || BN_is_one(e)) {
        snprintf(err, errlen, "\"e\" is not a valid RSA exponent");
        goto fail;
    }
    if (BN_num_bits(n) < RSA_MIN_BITS || BN_num_bits(n) > RSA_MAX_BITS) {
        snprintf(err, errlen, "RSA modulus of %d bits (%d to %d allowed)",
                 BN_num_bits(n), RSA_MIN_BITS, RSA_MAX_BITS);
        goto fail;
    }
    bld = OSSL_PARAM_BLD_new();
    if (!bld || !OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_N, n) ||
        !OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_E, e) ||
        !(pkey = from_params("RSA", bld)))
        snprintf(err, errlen, "OpenSSL refused the RSA key");
fail:
    OSSL_PARAM_BLD_free(bld);
    BN_free(n);
    BN_free(e);
    free(nb);
    free(eb);
    return pkey;
}

/* Nonzero when OpenSSL confirms the point lies on the key's curve. */
static int ec_point_ok(EVP_PKEY *pkey)
{
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_pkey(NULL, pkey, NULL);
    int ok = ctx && EVP_PKEY_public_check(ctx) == 1;
    EVP_PKEY_CTX_free(ctx);
    return ok;
}

/* An EC P-256 public key from the JWK's x and y; NULL with err. */
static EVP_PKEY *ec_key(const cJSON *jwk, char *err, size_t errlen)
{
    size_t xlen = 0, ylen = 0;
    EVP_PKEY *pkey = NULL;
    OSSL_PARAM_BLD *bld = NULL;
    unsigned char pub[65];
    unsigned char *x = member_bytes(jwk, "x", &xlen, err, errlen);
    unsigned char *y = x ? member_bytes(jwk, "y", &ylen, err, errlen) : NULL;
    if (!y)
        goto fail;
    if (xlen != 32 || ylen != 32) {
        snprintf(err, errlen, "P-256 coordinates must be 32 bytes each");
        goto fail;
    }
    pub[0] = 0x04; /* uncompressed point: 04 || x || y */
    memcpy(pub + 1, x, 32);
    memcpy(pub + 33, y, 32);
    bld = OSSL_PARAM_BLD_new();
    if (!bld ||
        !OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME, "prime256v1", 0) ||
        !OSSL_PARAM_BLD_push_octet_string(bld, OSSL_PKEY_PARAM_PUB_KEY, pub, sizeof pub) ||
        !(pkey = from_params("EC", bld)) || !ec_point_ok(pkey)) {
        snprintf(err, errlen, "the point is not on curve P-256");
        EVP_PKEY_free(pkey);
        pkey = NULL;
    }
fail:
    OSSL_PARAM_BLD_free(bld);
    free(x);
    free(y);
    return pkey;
}

/* The alg a JWK serves (0: a type, curve or alg this plugin does not use). */
static unsigned jwk_alg(const cJSON *jwk)
{
    const char *kty = str_member(jwk, "kty"), *alg = str_member(jwk, "alg");
    const char *crv = str_member(jwk, "crv");
    unsigned a = 0;
    if (kty && strcmp(kty, "RSA") == 0)
        a = OIDC_ALG_RS256;
    else if (kty && strcmp(kty, "EC") == 0 && crv && strcmp(crv, "P-256") == 0)
        a = OIDC_ALG_ES256;
    if (cJSON_GetObjectItemCaseSensitive(jwk, "alg") && oidc_alg_parse(alg) != a)
        return 0;
    return a;
}

EVP_PKEY *oidc_jwk_to_pkey(const cJSON *jwk, unsigned *alg, char *err, size_t errlen)
{
    *alg = cJSON_IsObject(jwk) ? jwk_alg(jwk) : 0;
    if (*alg == OIDC_ALG_RS256)
        return rsa_key(jwk, err, errlen);
    if (*alg == OIDC_ALG_ES256)
        return ec_key(jwk, err, errlen);
    snprintf(err, errlen, "unsupported key (RSA for RS256 or EC P-256 for ES256 only)");
    return NULL;
}

/* Adds one JWK to set: 0 (added or skipped as unsupported) or -1 with err. */
static int add_key(struct oidc_jwks *set, const cJSON *jwk, char *err, size_t errlen)
{
    const char *use = str_member(jwk, "use");
    unsigned alg;
    if (!cJSON_IsObject(jwk)) {
        snprintf(err, errlen, "a key is not an object");
        return -1;
    }
    if ((use && strcmp(use, "sig") != 0) || jwk_alg(jwk) == 0)
        return 0;
    EVP_PKEY *pkey = oidc_jwk_to_pkey(jwk, &alg, err, errlen);
    const char *kid = str_member(jwk, "kid");
    char *kid_copy = kid ? strdup(kid) : NULL;
    if (!pkey || (kid && !kid_copy)) {
        ERR_clear_error();
        EVP_PKEY_free(pkey);
        free(kid_copy);
        return -1;
    }
    struct oidc_jwk *k = &set->keys[set->n++];
    k->kid = kid_copy;
    k->alg = alg;
    k->pkey = pkey;
    return 0;
}

int oidc_jwks_parse(const char *json, struct oidc_jwks *out, char *err, size_t errlen)
{
    char why[OIDC_ERR_LEN];
    memset(out, 0, sizeof *out);
    cJSON *doc = cJSON_Parse(json);
    const cJSON *keys = cJSON_GetObjectItemCaseSensitive(doc, "keys");
    int size = cJSON_GetArraySize(keys);
    if (!cJSON_IsArray(keys)) {
        snprintf(err, errlen, "not a JWK Set (no \"keys\" array)");
        goto fail;
    }
    out->keys = calloc(size ? (size_t)size : 1, sizeof *out->keys);
    if (!out->keys) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    for (int i = 0; i < size; i++) {
        const cJSON *k = cJSON_GetArrayItem(keys, i);
        if (add_key(out, k, why, sizeof why) < 0) {
            const char *kid = str_member(k, "kid");
            snprintf(err, errlen, "key %d (kid \"%.64s\"): %s", i, kid ? kid : "", why);
            goto fail;
        }
    }
    if (out->n == 0) {
        snprintf(err, errlen, "no RS256 or ES256 signing key in the set");
        goto fail;
    }
    cJSON_Delete(doc);
    return 0;
fail:
    cJSON_Delete(doc);
    oidc_jwks_free(out);
    return -1;
}

void oidc_jwks_free(struct oidc_jwks *set)
{
    for (size_t i = 0; i < set->n; i++) {
        free(set->keys[i].kid);
        EVP_PKEY_free(set->keys[i].pkey);
    }
    free(set->keys);
    memset(set, 0, sizeof *set);
}

EVP_PKEY *oidc_jwks_find(const struct oidc_jwks *set, const char *kid, unsigned alg)
{
    const struct oidc_jwk *hit = NULL;
    size_t matches = 0;
    for (size_t i = 0; i < set->n; i++) {
        const struct oidc_jwk *k = &set->keys[i];
        if (k->alg != alg)
            continue;
        if (kid ? (k->kid && strcmp(k->kid, kid) == 0) : 1) {
            hit = hit ? hit : k;
            matches++;
        }
    }
    if (!hit || (!kid && matches != 1) || EVP_PKEY_up_ref(hit->pkey) != 1)
        return NULL;
    return hit->pkey;
}
