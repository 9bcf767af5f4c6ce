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

static void sha256_fetch(void)
{
    sha256_md = EVP_MD_fetch(NULL, "SHA256", NULL);
}

int cube_sha256(const void *data, size_t len, uint8_t out[32])
{
    unsigned int outlen = 0;
    pthread_once(&sha256_once, sha256_fetch);
    const EVP_MD *md = sha256_md ? sha256_md : EVP_sha256();
    if (!EVP_Digest(data, len, out, &outlen, md, NULL) || outlen != 32)
        return -1;
    return 0;
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
