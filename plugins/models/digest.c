/* digest.c — SHA-256 and MD5 of a file of the store, read in 1 MiB
 * pieces through its handle (OpenSSL EVP; MD5 rides along for Cube
 * Studio's md5 column, at little extra cost). */
#include <stdio.h>
#include <stdlib.h>

#include <openssl/evp.h>

#include "models.h"

#define PIECE (1u << 20)

static void hex(const unsigned char *d, unsigned n, char *out)
{
    for (unsigned i = 0; i < n; i++)
        snprintf(out + 2 * i, 3, "%02x", d[i]);
}

int mdl_digest_file(const struct mdl_reader *r, char *sha256, char *md5)
{
    EVP_MD_CTX *s = EVP_MD_CTX_new(), *m = EVP_MD_CTX_new();
    char *buf = malloc(PIECE);
    int rc = CUBE_ENOMEM;
    if (!s || !m || !buf || EVP_DigestInit_ex(s, EVP_sha256(), NULL) != 1 ||
        EVP_DigestInit_ex(m, EVP_md5(), NULL) != 1)
        goto done;
    for (uint64_t off = 0;;) {
        size_t got = 0;
        if ((rc = r->host->file_pread(r->f, off, buf, PIECE, &got)) != CUBE_OK)
            goto done;
        if (!got)
            break;
        EVP_DigestUpdate(s, buf, got);
        EVP_DigestUpdate(m, buf, got);
        off += got;
    }
    unsigned char d[EVP_MAX_MD_SIZE];
    unsigned n = 0;
    EVP_DigestFinal_ex(s, d, &n);
    hex(d, n, sha256);
    EVP_DigestFinal_ex(m, d, &n);
    hex(d, n, md5);
    rc = CUBE_OK;
done:
    EVP_MD_CTX_free(s);
    EVP_MD_CTX_free(m);
    free(buf);
    return rc;
}
