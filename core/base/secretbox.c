/* secretbox.c — see secretbox.h. OpenSSL's EVP AEAD interface does the
 * cryptography; this file frames the value and keeps the key file. */
#include "secretbox.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include <cube/cube_plugin.h>

#define KEY_BYTES 32
#define NONCE_BYTES 12
#define TAG_BYTES 16
#define PREFIX "v1:"
#define KEY_FILE_MAX 80   /* 64 hex digits, a newline, slack to detect more */

struct cube_secretbox {
    unsigned char key[KEY_BYTES];
};

/* ---- base64 ------------------------------------------------------------ */

char *cube_base64_encode(const void *data, size_t len)
{
    if (len > (SIZE_MAX / 4) * 3 - 3 || len > INT32_MAX)
        return NULL;
    char *out = malloc(4 * ((len + 2) / 3) + 1);
    if (out)
        EVP_EncodeBlock((unsigned char *)out, data, (int)len);
    return out;
}

char *cube_base64_decode(const char *text, size_t *len)
{
    size_t n = strlen(text);
    if (n % 4 != 0 || n > INT32_MAX)
        return NULL;
    unsigned char *out = malloc(n / 4 * 3 + 1);
    if (!out)
        return NULL;
    int got = n ? EVP_DecodeBlock(out, (const unsigned char *)text, (int)n) : 0;
    if (got < 0) {
        free(out);
        return NULL;
    }
    /* EVP_DecodeBlock counts the padding's bytes as data: take them off */
    size_t pad = (n && text[n - 1] == '=') + (n > 1 && text[n - 2] == '=');
    *len = (size_t)got - pad;
    out[*len] = '\0';
    return (char *)out;
}

/* ---- the key file ------------------------------------------------------ */

static int hex_val(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Parses the file's text into key: 64 hex digits, then at most "\n". */
static int parse_key(const char *text, size_t n, unsigned char *key)
{
    if (n == 2 * KEY_BYTES + 1 && text[n - 1] == '\n')
        n--;
    if (n != 2 * KEY_BYTES)
        return -1;
    for (size_t i = 0; i < KEY_BYTES; i++) {
        int hi = hex_val(text[2 * i]), lo = hex_val(text[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return -1;
        key[i] = (unsigned char)(hi << 4 | lo);
    }
    return 0;
}

/* Writes a fresh key to path (which must not exist), mode 0600. */
static int create_key_file(const char *path, char *err, size_t errlen)
{
    unsigned char key[KEY_BYTES];
    char text[2 * KEY_BYTES + 2];
    if (RAND_bytes(key, sizeof key) != 1) {
        snprintf(err, errlen, "%s: no randomness for a new key", path);
        return -1;
    }
    for (size_t i = 0; i < KEY_BYTES; i++)
        snprintf(text + 2 * i, 3, "%02x", key[i]);
    text[2 * KEY_BYTES] = '\n';
    text[2 * KEY_BYTES + 1] = '\0';
    OPENSSL_cleanse(key, sizeof key);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    int rc = -1;
    if (fd < 0) {
        snprintf(err, errlen, "%s: cannot create: %s", path, strerror(errno));
    } else {
        size_t want = 2 * KEY_BYTES + 1;
        ssize_t put = write(fd, text, want);
        if (put == (ssize_t)want && fsync(fd) == 0)
            rc = 0;
        else
            snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno));
        close(fd);
        if (rc != 0)
            unlink(path);
    }
    OPENSSL_cleanse(text, sizeof text);
    return rc;
}

/* Reads the key of an existing file into box. */
static int read_key_file(const char *path, int fd, struct cube_secretbox *box,
                         char *err, size_t errlen)
{
    struct stat sb;
    if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
        snprintf(err, errlen, "%s: not a regular file", path);
        return -1;
    }
    if (sb.st_mode & 077) {
        snprintf(err, errlen, "%s: mode %03o: the secret key file must be readable "
                 "by its owner only (chmod 600)", path, (unsigned)(sb.st_mode & 0777));
        return -1;
    }
    char text[KEY_FILE_MAX];
    size_t n = 0;
    ssize_t got;
    while (n < sizeof text && (got = read(fd, text + n, sizeof text - n)) != 0) {
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
            OPENSSL_cleanse(text, sizeof text);
            return -1;
        }
        n += (size_t)got;
    }
    int rc = parse_key(text, n, box->key);
    OPENSSL_cleanse(text, sizeof text);
    if (rc < 0)
        snprintf(err, errlen, "%s: expected 64 hex digits (32 bytes, e.g. from "
                 "`openssl rand -hex 32`)", path);
    return rc;
}

int cube_secretbox_open(const char *path, struct cube_secretbox **out, char *err,
                        size_t errlen)
{
    *out = NULL;
    struct cube_secretbox *box = calloc(1, sizeof *box);
    if (!box) {
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT) {
        if (create_key_file(path, err, errlen) < 0) {
            free(box);
            return -1;
        }
        fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    }
    if (fd < 0) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        free(box);
        return -1;
    }
    int rc = read_key_file(path, fd, box, err, errlen);
    close(fd);
    if (rc < 0) {
        cube_secretbox_free(box);
        return -1;
    }
    *out = box;
    return 0;
}

void cube_secretbox_free(struct cube_secretbox *box)
{
    if (!box)
        return;
    OPENSSL_cleanse(box->key, sizeof box->key);
    free(box);
}

/* ---- sealing ----------------------------------------------------------- */

size_t cube_secretbox_sealed_len(size_t len)
{
    size_t raw = NONCE_BYTES + len + TAG_BYTES;
    return strlen(PREFIX) + 4 * ((raw + 2) / 3);
}

/* One AES-256-GCM pass over in (n bytes) into out; enc 1 seals (writes
 * the tag), 0 opens (checks it). 0, or -1 when OpenSSL refuses. */
static int gcm(const struct cube_secretbox *box, int enc, const unsigned char *nonce,
               const void *ad, size_t ad_len, const unsigned char *in, size_t n,
               unsigned char *out, unsigned char *tag)
{
    EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
    int len = 0, ok = c && n <= INT32_MAX && ad_len <= INT32_MAX &&
                      EVP_CipherInit_ex(c, EVP_aes_256_gcm(), NULL, box->key, nonce, enc) == 1 &&
                      (ad_len == 0 || EVP_CipherUpdate(c, NULL, &len, ad, (int)ad_len) == 1) &&
                      (n == 0 || EVP_CipherUpdate(c, out, &len, in, (int)n) == 1);
    if (ok && !enc)
        ok = EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_SET_TAG, TAG_BYTES, tag) == 1;
    ok = ok && EVP_CipherFinal_ex(c, out + len, &len) == 1;
    if (ok && enc)
        ok = EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_GET_TAG, TAG_BYTES, tag) == 1;
    EVP_CIPHER_CTX_free(c);
    return ok ? 0 : -1;
}

int cube_secretbox_seal(const struct cube_secretbox *box, const void *ad, size_t ad_len,
                        const void *pt, size_t len, char **out)
{
    *out = NULL;
    if (len > INT32_MAX / 2)
        return CUBE_ETOOBIG;
    size_t raw_len = NONCE_BYTES + len + TAG_BYTES;
    unsigned char *raw = malloc(raw_len);
    if (!raw)
        return CUBE_ENOMEM;
    int rc = CUBE_EINTERNAL;
    if (RAND_bytes(raw, NONCE_BYTES) == 1 &&
        gcm(box, 1, raw, ad, ad_len, pt, len, raw + NONCE_BYTES,
            raw + NONCE_BYTES + len) == 0) {
        char *b64 = cube_base64_encode(raw, raw_len);
        char *text = b64 ? malloc(strlen(PREFIX) + strlen(b64) + 1) : NULL;
        if (text) {
            strcpy(text, PREFIX);
            strcat(text, b64);
            *out = text;
            rc = CUBE_OK;
        } else {
            rc = CUBE_ENOMEM;
        }
        free(b64);
    }
    OPENSSL_cleanse(raw, raw_len);   /* no plaintext here, but no habit either */
    free(raw);
    return rc;
}

int cube_secretbox_open_value(const struct cube_secretbox *box, const void *ad,
                              size_t ad_len, const char *text, char **pt, size_t *len)
{
    *pt = NULL;
    *len = 0;
    if (strncmp(text, PREFIX, strlen(PREFIX)) != 0)
        return CUBE_EIO;
    size_t raw_len = 0;
    unsigned char *raw = (unsigned char *)cube_base64_decode(text + strlen(PREFIX), &raw_len);
    if (!raw)
        return CUBE_EIO;
    int rc = CUBE_EIO;
    if (raw_len >= NONCE_BYTES + TAG_BYTES) {
        size_t n = raw_len - NONCE_BYTES - TAG_BYTES;
        char *out = malloc(n + 1);
        if (!out) {
            rc = CUBE_ENOMEM;
        } else if (gcm(box, 0, raw, ad, ad_len, raw + NONCE_BYTES, n, (unsigned char *)out,
                       raw + NONCE_BYTES + n) == 0) {
            out[n] = '\0';
            *pt = out;
            *len = n;
            rc = CUBE_OK;
        } else {
            OPENSSL_cleanse(out, n + 1);
            free(out);
        }
    }
    free(raw);
    return rc;
}
