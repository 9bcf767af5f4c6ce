/* testkeys.h — test-only keys and tokens: RSA 2048 / EC P-256 keys made
 * with OpenSSL, their JWKs, and JWS compact tokens signed with them. */
#ifndef TESTKEYS_H
#define TESTKEYS_H

#include <stddef.h>

#include <openssl/evp.h>

struct tk_key {
    EVP_PKEY *pkey;
    char kid[32];
    unsigned alg; /* enum oidc_alg */
};

/* Generates a key for alg (OIDC_ALG_RS256 or OIDC_ALG_ES256); 0 or -1. */
int tk_generate(struct tk_key *k, unsigned alg, const char *kid);
void tk_free(struct tk_key *k);
/* The public JWK as JSON text (free()). */
char *tk_jwk(const struct tk_key *k);
/* {"keys":[...]} of n keys (free()). */
char *tk_jwks(const struct tk_key *const *keys, size_t n);
/* A compact JWS of header and payload (JSON texts) signed with k; ES256
 * signatures are raw r||s. free(). */
char *tk_sign(const struct tk_key *k, const char *header, const char *payload);
/* tk_sign with the header {"alg":<k's alg>,"kid":<k's kid>,"typ":"JWT"}. */
char *tk_token(const struct tk_key *k, const char *payload);
/* Standard claims as JSON: iss, aud (a JSON value), nonce, sub "u-1",
 * iat now, exp now + 300, then `extra` members (",\"k\":v..." or ""). */
char *tk_claims(const char *iss, const char *aud_json, const char *nonce,
                long now, const char *extra);

#endif
