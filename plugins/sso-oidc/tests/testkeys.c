/* testkeys.c — see testkeys.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ecdsa.h>

#include "oidc.h"
#include "testkeys.h"

int tk_generate(struct tk_key *k, unsigned alg, const char *kid)
{
    memset(k, 0, sizeof *k);
    k->alg = alg;
    snprintf(k->kid, sizeof k->kid, "%s", kid ? kid : "");
    k->pkey = alg == OIDC_ALG_RS256 ? EVP_PKEY_Q_keygen(NULL, NULL, "RSA", (size_t)2048)
                                    : EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
    return k->pkey ? 0 : -1;
}

void tk_free(struct tk_key *k)
{
    EVP_PKEY_free(k->pkey);
    memset(k, 0, sizeof *k);
}

/* The base64url of a BIGNUM parameter of pkey (free()). */
static char *bn_param(EVP_PKEY *pkey, const char *name)
{
    BIGNUM *bn = NULL;
    if (EVP_PKEY_get_bn_param(pkey, name, &bn) != 1)
        return NULL;
    unsigned char buf[1024];
    int n = BN_bn2bin(bn, buf);
    BN_free(bn);
    return oidc_b64url_encode(buf, (size_t)n);
}

char *tk_jwk(const struct tk_key *k)
{
    char *out = malloc(2048), kid[64] = "";
    if (k->kid[0])
        snprintf(kid, sizeof kid, "\"kid\":\"%s\",", k->kid);
    if (k->alg == OIDC_ALG_RS256) {
        char *n = bn_param(k->pkey, OSSL_PKEY_PARAM_RSA_N), *e = bn_param(k->pkey, OSSL_PKEY_PARAM_RSA_E);
        snprintf(out, 2048, "{\"kty\":\"RSA\",%s\"use\":\"sig\",\"alg\":\"RS256\",\"n\":\"%s\",\"e\":\"%s\"}",
                 kid, n, e);
        free(n);
        free(e);
    } else {
        unsigned char pub[65];
        size_t len = 0;
        EVP_PKEY_get_octet_string_param(k->pkey, OSSL_PKEY_PARAM_PUB_KEY, pub, sizeof pub, &len);
        char *x = oidc_b64url_encode(pub + 1, 32), *y = oidc_b64url_encode(pub + 33, 32);
        snprintf(out, 2048, "{\"kty\":\"EC\",%s\"use\":\"sig\",\"crv\":\"P-256\",\"x\":\"%s\",\"y\":\"%s\"}",
                 kid, x, y);
        free(x);
        free(y);
    }
    return out;
}

char *tk_jwks(const struct tk_key *const *keys, size_t n)
{
    size_t cap = 64 + n * 2048, o = 0;
    char *out = malloc(cap);
    o += (size_t)snprintf(out, cap, "{\"keys\":[");
    for (size_t i = 0; i < n; i++) {
        char *j = tk_jwk(keys[i]);
        o += (size_t)snprintf(out + o, cap - o, "%s%s", i ? "," : "", j);
        free(j);
    }
    snprintf(out + o, cap - o, "]}");
    return out;
}

/* Signs input with k; raw r||s for EC. Returns base64url (free()). */
static char *signature(const struct tk_key *k, const char *input)
{
    unsigned char sig[1024], raw[64];
    size_t len = sizeof sig;
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    EVP_DigestSignInit_ex(md, NULL, "SHA256", NULL, NULL, k->pkey, NULL);
    EVP_DigestSign(md, sig, &len, (const unsigned char *)input, strlen(input));
    EVP_MD_CTX_free(md);
    if (!EVP_PKEY_is_a(k->pkey, "EC"))
        return oidc_b64url_encode(sig, len);
    const unsigned char *p = sig;
    ECDSA_SIG *es = d2i_ECDSA_SIG(NULL, &p, (long)len);
    BN_bn2binpad(ECDSA_SIG_get0_r(es), raw, 32);
    BN_bn2binpad(ECDSA_SIG_get0_s(es), raw + 32, 32);
    ECDSA_SIG_free(es);
    return oidc_b64url_encode(raw, 64);
}

char *tk_sign(const struct tk_key *k, const char *header, const char *payload)
{
    char *h = oidc_b64url_encode((const unsigned char *)header, strlen(header));
    char *p = oidc_b64url_encode((const unsigned char *)payload, strlen(payload));
    size_t cap = strlen(h) + strlen(p) + 2048;
    char *out = malloc(cap);
    snprintf(out, cap, "%s.%s", h, p);
    char *s = signature(k, out);
    strcat(out, ".");
    strcat(out, s);
    free(h);
    free(p);
    free(s);
    return out;
}

char *tk_token(const struct tk_key *k, const char *payload)
{
    char header[128];
    snprintf(header, sizeof header, "{\"alg\":\"%s\",\"kid\":\"%s\",\"typ\":\"JWT\"}",
             k->alg == OIDC_ALG_RS256 ? "RS256" : "ES256", k->kid);
    return tk_sign(k, header, payload);
}

char *tk_claims(const char *iss, const char *aud_json, const char *nonce, long now,
                const char *extra)
{
    char *out = malloc(4096);
    snprintf(out, 4096, "{\"iss\":\"%s\",\"sub\":\"u-1\",\"aud\":%s,\"nonce\":\"%s\","
             "\"iat\":%ld,\"exp\":%ld%s}", iss, aud_json, nonce, now, now + 300, extra ? extra : "");
    return out;
}
