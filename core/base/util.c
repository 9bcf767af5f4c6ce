/* util.c — see util.h. */
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
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

/* Length of the valid UTF-8 sequence at s (lead byte >= 0x80), 0 if
 * invalid: overlongs, surrogates and code points past U+10FFFF included. */
size_t cube_utf8_seq_len(const unsigned char *s)
{
    unsigned char c = s[0], lo = 0x80, hi = 0xbf;
    size_t n;
    if (c >= 0xc2 && c <= 0xdf)
        n = 2;
    else if (c >= 0xe0 && c <= 0xef)
        n = 3;
    else if (c >= 0xf0 && c <= 0xf4)
        n = 4;
    else
        return 0;
    if (c == 0xe0)
        lo = 0xa0;
    else if (c == 0xed)
        hi = 0x9f;
    else if (c == 0xf0)
        lo = 0x90;
    else if (c == 0xf4)
        hi = 0x8f;
    if (s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < n; i++) {
        if (s[i] < 0x80 || s[i] > 0xbf)
            return 0;
    }
    return n;
}

/* Writes `s` (length n) into out as a quoted string, escaping quotes and
 * control characters and cutting it short with "..." if out is too small. */
void cube_quote_n(char *out, size_t outlen, const char *s, size_t n)
{
    size_t o = 0;
    out[o++] = '"';
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (o + 10 >= outlen) {
            memcpy(out + o, "...", 3);
            o += 3;
            break;
        }
        if (c == '"' || c == '\\')
            o += (size_t)snprintf(out + o, outlen - o, "\\%c", c);
        else if (c < 0x20 || c == 0x7f)
            o += (size_t)snprintf(out + o, outlen - o, "\\x%02x", c);
        else
            out[o++] = (char)c;
    }
    snprintf(out + o, outlen - o, "\"");
}

int cube_text_reserve(struct cube_text *t, size_t n)
{
    if (t->oom)
        return 0;
    if (t->len + n + 1 <= t->cap)
        return 1;
    size_t cap = t->cap ? t->cap * 2 : 512;
    while (cap < t->len + n + 1)
        cap *= 2;
    char *grown = realloc(t->p, cap);
    if (!grown) {
        t->oom = 1;
        return 0;
    }
    t->p = grown;
    t->cap = cap;
    return 1;
}

void cube_text_put(struct cube_text *t, const char *s, size_t n)
{
    if (!cube_text_reserve(t, n))
        return;
    memcpy(t->p + t->len, s, n);
    t->len += n;
    t->p[t->len] = '\0';
}

void cube_text_puts(struct cube_text *t, const char *s)
{
    cube_text_put(t, s, strlen(s));
}
