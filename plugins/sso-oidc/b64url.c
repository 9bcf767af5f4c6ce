/* b64url.c — base64url (RFC 4648 §5, unpadded, canonical) and the random
 * values of a login: state, nonce, PKCE verifier and challenge. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/rand.h>
#include <openssl/sha.h>

#include "oidc.h"

static const char ALPHABET[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/* The 6-bit value of a base64url character, or -1. */
static int sextet(unsigned char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '-')
        return 62;
    if (c == '_')
        return 63;
    return -1;
}

unsigned char *oidc_b64url_decode(const char *s, size_t len, size_t *out_len)
{
    if (len % 4 == 1 || len > SIZE_MAX / 3)
        return NULL;
    unsigned char *out = malloc(len / 4 * 3 + 3);
    if (!out)
        return NULL;
    uint32_t acc = 0;
    size_t o = 0, bits = 0;
    for (size_t i = 0; i < len; i++) {
        int v = sextet((unsigned char)s[i]);
        if (v < 0)
            goto fail;
        acc = (acc << 6) | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[o++] = (unsigned char)(acc >> bits);
            acc &= (1u << bits) - 1;
        }
    }
    if (acc != 0) /* left-over bits must be zero: one encoding per value */
        goto fail;
    *out_len = o;
    return out;
fail:
    free(out);
    return NULL;
}

char *oidc_b64url_encode(const unsigned char *p, size_t n)
{
    if (n > (SIZE_MAX - 4) / 4 * 3)
        return NULL;
    char *out = malloc((n + 2) / 3 * 4 + 1);
    if (!out)
        return NULL;
    size_t o = 0, i = 0;
    for (; i + 2 < n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
        out[o++] = ALPHABET[v >> 18];
        out[o++] = ALPHABET[(v >> 12) & 63];
        out[o++] = ALPHABET[(v >> 6) & 63];
        out[o++] = ALPHABET[v & 63];
    }
    if (i < n) {
        uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0);
        out[o++] = ALPHABET[v >> 18];
        out[o++] = ALPHABET[(v >> 12) & 63];
        if (i + 1 < n)
            out[o++] = ALPHABET[(v >> 6) & 63];
    }
    out[o] = '\0';
    return out;
}

/* Writes n bytes as base64url into out (room for 4 * ceil(n / 3) + 1). */
static void encode_into(const unsigned char *p, size_t n, char *out, size_t cap)
{
    char *s = oidc_b64url_encode(p, n);
    if (s && strlen(s) < cap)
        memcpy(out, s, strlen(s) + 1);
    else
        out[0] = '\0';
    free(s);
}

int oidc_random_token(char out[OIDC_TOKEN_LEN])
{
    unsigned char raw[32];
    out[0] = '\0';
    if (RAND_bytes(raw, sizeof raw) != 1)
        return -1;
    encode_into(raw, sizeof raw, out, OIDC_TOKEN_LEN);
    return out[0] ? 0 : -1;
}

int oidc_pkce_challenge(const char *verifier, char out[OIDC_TOKEN_LEN])
{
    unsigned char md[SHA256_DIGEST_LENGTH];
    out[0] = '\0';
    if (!SHA256((const unsigned char *)verifier, strlen(verifier), md))
        return -1;
    encode_into(md, sizeof md, out, OIDC_TOKEN_LEN);
    return out[0] ? 0 : -1;
}
