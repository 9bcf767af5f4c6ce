/* util.c — see util.h. */
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>

uint64_t cube_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int cube_mkdir_p(const char *path, unsigned mode)
{
    char *copy = strdup(path);
    if (!copy)
        return -1;
    for (char *p = copy + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(copy, mode) < 0 && errno != EEXIST) {
            free(copy);
            return -1;
        }
        *p = '/';
    }
    int rc = mkdir(copy, mode);
    free(copy);
    if (rc < 0 && errno != EEXIST)
        return -1;
    return 0;
}

char *cube_path_join(const char *a, const char *b)
{
    size_t la = strlen(a);
    while (la > 1 && a[la - 1] == '/')
        la--;
    while (*b == '/')
        b++;
    char *out = NULL;
    if (asprintf(&out, "%.*s/%s", (int)la, a, b) < 0)
        return NULL;
    return out;
}

int cube_random_hex(char *buf, size_t nbytes)
{
    unsigned char raw[64];
    if (nbytes > sizeof raw)
        return -1;
    if (getrandom(raw, nbytes, 0) != (ssize_t)nbytes)
        return -1;
    for (size_t i = 0; i < nbytes; i++)
        snprintf(buf + 2 * i, 3, "%02x", raw[i]);
    return 0;
}

/* splitmix64: tiny, fast, and good enough to make ids unique. */
static uint64_t next_id_word(void)
{
    static _Thread_local uint64_t state;
    static _Thread_local int seeded;
    if (!seeded) {
        if (getrandom(&state, sizeof state, 0) != (ssize_t)sizeof state)
            state = cube_now_ns() ^ (uint64_t)(uintptr_t)&state;
        seeded = 1;
    }
    uint64_t z = (state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

void cube_id_hex(char *buf, size_t nbytes)
{
    static const char hex[] = "0123456789abcdef";
    uint64_t word = 0;
    for (size_t i = 0; i < nbytes; i++) {
        if (i % 8 == 0)
            word = next_id_word();
        unsigned char b = (unsigned char)(word >> (8 * (i % 8)));
        buf[2 * i] = hex[b >> 4];
        buf[2 * i + 1] = hex[b & 15];
    }
    buf[2 * nbytes] = '\0';
}

int cube_sha256(const void *data, size_t len, uint8_t out[32])
{
    unsigned int outlen = 0;
    if (!EVP_Digest(data, len, out, &outlen, EVP_sha256(), NULL) || outlen != 32)
        return -1;
    return 0;
}

int cube_ct_compare(const void *a, const void *b, size_t n)
{
    return CRYPTO_memcmp(a, b, n);
}

char *cube_read_file(const char *path, size_t max, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    struct stat st;
    char *buf = NULL;
    if (fstat(fd, &st) < 0)
        goto fail;
    if ((size_t)st.st_size > max) {
        errno = EFBIG;
        goto fail;
    }
    buf = malloc((size_t)st.st_size + 1);
    if (!buf)
        goto fail;
    size_t got = 0;
    while (got < (size_t)st.st_size) {
        ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            goto fail;
        got += (size_t)n;
    }
    buf[got] = '\0';
    if (len)
        *len = got;
    close(fd);
    return buf;
fail:
    free(buf);
    close(fd);
    return NULL;
}
