/* hash.c — SHA-256, hex and comparing secrets in constant time (see hash.h). */
#include "hash.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>

/* SHA-256 fetched once: EVP_sha256() makes every EVP_Digest look the
 * algorithm up again, which costs more than hashing a token. The fetched
 * method is immutable and never freed (one per process). */
static EVP_MD *sha256_md;
static pthread_once_t sha256_once = PTHREAD_ONCE_INIT;

/* One digest context per thread, reused: EVP_Digest allocates and frees
 * one per call (a token is hashed on every request). Freed when the
 * thread ends. */
static pthread_key_t sha256_ctx_key;
static int sha256_have_key;   /* pthread_key_create succeeded */

static void sha256_ctx_free(void *ctx)
{
    EVP_MD_CTX_free(ctx);
}

static void sha256_fetch(void)
{
    sha256_md = EVP_MD_fetch(NULL, "SHA256", NULL);
    sha256_have_key = pthread_key_create(&sha256_ctx_key, sha256_ctx_free) == 0;
}

static EVP_MD_CTX *sha256_ctx(void)
{
    if (!sha256_have_key)
        return NULL;
    EVP_MD_CTX *ctx = pthread_getspecific(sha256_ctx_key);
    if (!ctx && (ctx = EVP_MD_CTX_new()) && pthread_setspecific(sha256_ctx_key, ctx) != 0) {
        EVP_MD_CTX_free(ctx);
        ctx = NULL;
    }
    return ctx;
}

int cube_sha256(const void *data, size_t len, uint8_t out[32])
{
    unsigned int outlen = 0;
    pthread_once(&sha256_once, sha256_fetch);
    const EVP_MD *md = sha256_md ? sha256_md : EVP_sha256();
    EVP_MD_CTX *ctx = sha256_ctx();   /* NULL: EVP_Digest makes its own */
    int ok = ctx ? EVP_DigestInit_ex(ctx, md, NULL) && EVP_DigestUpdate(ctx, data, len) &&
                       EVP_DigestFinal_ex(ctx, out, &outlen)
                 : EVP_Digest(data, len, out, &outlen, md, NULL);
    return ok && outlen == 32 ? 0 : -1;
}

void cube_hex(const uint8_t *data, size_t n, char *out)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[data[i] >> 4];
        out[2 * i + 1] = digits[data[i] & 15];
    }
    out[2 * n] = '\0';
}

int cube_ct_compare(const void *a, const void *b, size_t n)
{
    return CRYPTO_memcmp(a, b, n);
}
