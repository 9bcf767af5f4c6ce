/* auth_password.c — see auth_password.h. scrypt comes from OpenSSL's
 * EVP_PBE_scrypt; the base64 codec is local so that decoding can be strict
 * (standard alphabet, no padding, no whitespace, canonical trailing bits).
 * Parameters accepted in hashes: ln 10..20, r 1..32, p 1..16, and at most
 * PW_MAXMEM bytes of scrypt memory (128*r*(N+2) + 128*r*p). */
#include "auth_password.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#define PW_MAX_LEN 1024
#define PW_MIN_LEN 8
#define SALT_LEN 16
#define KEY_LEN 32
#define SALT_B64_LEN 22 /* 16 bytes, unpadded */
#define KEY_B64_LEN 43  /* 32 bytes, unpadded */
#define LN_MIN 10
#define LN_MAX 20
#define R_MAX 32
#define P_MAX 16
#define PW_MAXMEM ((uint64_t)256 * 1024 * 1024)
#define PW_MEM_MARGIN ((uint64_t)64 * 1024)
#define PREFIX "$scrypt$"

const struct cube_scrypt_params cube_scrypt_default = {15, 8, 1};

static const char b64_chars[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* A parsed encoded hash. */
struct pw_hash {
    struct cube_scrypt_params prm;
    unsigned char salt[SALT_LEN];
    unsigned char key[KEY_LEN];
};

/* Bytes EVP_PBE_scrypt allocates for prm (OpenSSL 3: B plus V). */
static uint64_t scrypt_mem(const struct cube_scrypt_params *prm)
{
    uint64_t n = (uint64_t)1 << prm->log2_n;
    return 128u * (uint64_t)prm->r * (n + 2) + 128u * (uint64_t)prm->r * prm->p;
}

/* 1 when prm is within the accepted ranges and the memory cap. */
static int params_ok(const struct cube_scrypt_params *prm)
{
    if (!prm || prm->log2_n < LN_MIN || prm->log2_n > LN_MAX)
        return 0;
    if (prm->r < 1 || prm->r > R_MAX || prm->p < 1 || prm->p > P_MAX)
        return 0;
    return scrypt_mem(prm) + PW_MEM_MARGIN <= PW_MAXMEM;
}

/* Derives KEY_LEN bytes of key from password and salt; 0 or -1. */
static int derive(const char *pw, size_t pwlen, const unsigned char *salt,
                  const struct cube_scrypt_params *prm, unsigned char *key)
{
    uint64_t maxmem = scrypt_mem(prm) + PW_MEM_MARGIN;
    int ok = EVP_PBE_scrypt(pw, pwlen, salt, SALT_LEN, (uint64_t)1 << prm->log2_n,
                            prm->r, prm->p, maxmem, key, KEY_LEN);
    return ok == 1 ? 0 : -1;
}

/* Writes n bytes as unpadded base64 plus a NUL into out (4*n/3+2 bytes). */
static void b64_encode(const unsigned char *in, size_t n, char *out)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16;
        if (i + 1 < n)
            v |= (uint32_t)in[i + 1] << 8;
        if (i + 2 < n)
            v |= in[i + 2];
        size_t chars = n - i >= 3 ? 4 : n - i + 1;
        for (size_t k = 0; k < chars; k++)
            out[o++] = b64_chars[(v >> (18 - 6 * k)) & 63];
    }
    out[o] = '\0';
}

/* Value of base64 character c, or -1. */
static int b64_val(char c)
{
    const char *p = c ? strchr(b64_chars, c) : NULL;
    return p ? (int)(p - b64_chars) : -1;
}

/* Decodes exactly len chars of unpadded base64 into exactly n bytes;
 * rejects bad characters and non-zero trailing bits. 0 or -1. */
static int b64_decode(const char *in, size_t len, unsigned char *out, size_t n)
{
    if (len != (n * 4 + 2) / 3)
        return -1;
    uint32_t acc = 0;
    unsigned bits = 0;
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        int v = b64_val(in[i]);
        if (v < 0)
            return -1;
        acc = (acc << 6) | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[o++] = (unsigned char)(acc >> bits);
            acc &= (1u << bits) - 1;
        }
    }
    return (o == n && acc == 0) ? 0 : -1;
}

/* Parses "<name>=<decimal>" followed by `end` at *s, advancing *s past end.
 * Digits only, no leading zero, at most 2 digits. 0 or -1. */
static int parse_field(const char **s, const char *name, char end, unsigned *out)
{
    size_t nl = strlen(name);
    const char *p = *s;
    if (strncmp(p, name, nl) != 0 || p[nl] != '=')
        return -1;
    const char *start = p + nl + 1;
    unsigned v = 0;
    for (p = start; *p >= '0' && *p <= '9' && p - start < 3; p++)
        v = v * 10 + (unsigned)(*p - '0');
    size_t digits = (size_t)(p - start);
    if (digits == 0 || digits > 2 || (digits > 1 && *start == '0') || *p != end)
        return -1;
    *out = v;
    *s = p + 1;
    return 0;
}

/* Parses an encoded hash strictly into h (parameters range-checked). */
static int parse_hash(const char *enc, struct pw_hash *h)
{
    if (!enc || strncmp(enc, PREFIX, strlen(PREFIX)) != 0)
        return -1;
    const char *p = enc + strlen(PREFIX);
    if (parse_field(&p, "ln", ',', &h->prm.log2_n) < 0 ||
        parse_field(&p, "r", ',', &h->prm.r) < 0 ||
        parse_field(&p, "p", '$', &h->prm.p) < 0 || !params_ok(&h->prm))
        return -1;
    const char *dollar = strchr(p, '$');
    if (!dollar || b64_decode(p, (size_t)(dollar - p), h->salt, SALT_LEN) < 0)
        return -1;
    p = dollar + 1;
    return b64_decode(p, strlen(p), h->key, KEY_LEN);
}

/* Length of password, or SIZE_MAX when NULL or longer than PW_MAX_LEN. */
static size_t pw_len(const char *password)
{
    if (!password)
        return SIZE_MAX;
    size_t n = strnlen(password, PW_MAX_LEN + 1);
    return n > PW_MAX_LEN ? SIZE_MAX : n;
}

/* Formats the encoded hash into out; 0 or -1 when it does not fit. */
static int format_hash(const struct pw_hash *h, char *out, size_t outlen)
{
    char salt[SALT_B64_LEN + 1], key[KEY_B64_LEN + 1];
    b64_encode(h->salt, SALT_LEN, salt);
    b64_encode(h->key, KEY_LEN, key);
    int n = snprintf(out, outlen, PREFIX "ln=%u,r=%u,p=%u$%s$%s", h->prm.log2_n,
                     h->prm.r, h->prm.p, salt, key);
    OPENSSL_cleanse(key, sizeof key);
    if (n < 0 || (size_t)n >= outlen) {
        OPENSSL_cleanse(out, outlen);
        return -1;
    }
    return 0;
}

/* Hashes password with prm and a fresh salt into out; 0 or -1. */
int cube_password_hash(const char *password, const struct cube_scrypt_params *prm,
                       char *out, size_t outlen)
{
    size_t n = pw_len(password);
    if (!out || n == SIZE_MAX || !params_ok(prm))
        return -1;
    struct pw_hash h = {.prm = *prm};
    int rc = -1;
    if (RAND_bytes(h.salt, SALT_LEN) == 1 && derive(password, n, h.salt, prm, h.key) == 0)
        rc = format_hash(&h, out, outlen);
    OPENSSL_cleanse(&h, sizeof h);
    return rc;
}

/* 1 match, 0 no match, -1 encoded malformed or out of range. */
int cube_password_verify(const char *password, const char *encoded)
{
    struct pw_hash h;
    if (parse_hash(encoded, &h) < 0) {
        OPENSSL_cleanse(&h, sizeof h);
        return -1;
    }
    size_t n = pw_len(password);
    unsigned char key[KEY_LEN];
    int rc = 0; /* a password hash refuses (too long) matches nothing */
    if (n == SIZE_MAX)
        rc = 0;
    else if (derive(password, n, h.salt, &h.prm, key) < 0)
        rc = -1;
    else
        rc = CRYPTO_memcmp(key, h.key, KEY_LEN) == 0;
    OPENSSL_cleanse(key, sizeof key);
    OPENSSL_cleanse(&h, sizeof h);
    return rc;
}

/* 1 when encoded is weaker than prm (default when NULL) or unparseable. */
int cube_password_needs_rehash(const char *encoded,
                               const struct cube_scrypt_params *prm)
{
    struct pw_hash h;
    if (!prm)
        prm = &cube_scrypt_default;
    int rc = parse_hash(encoded, &h) < 0 || h.prm.log2_n < prm->log2_n ||
             h.prm.r < prm->r || h.prm.p < prm->p;
    OPENSSL_cleanse(&h, sizeof h);
    return rc;
}

/* NULL when password meets the policy, else a static message. */
const char *cube_password_policy(const char *password)
{
    if (!password)
        return "password is required";
    size_t n = strnlen(password, PW_MAX_LEN + 1);
    if (n < PW_MIN_LEN)
        return "password must be at least 8 characters";
    if (n > PW_MAX_LEN)
        return "password must be at most 1024 characters";
    size_t i = 1;
    while (i < n && password[i] == password[0])
        i++;
    if (i == n)
        return "password must not be one character repeated";
    return NULL;
}
