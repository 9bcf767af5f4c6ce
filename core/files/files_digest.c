/* files_digest.c — the SHA-256 of a pending upload, computed beside the
 * writes (files_priv.h). A thread of its own hashes the file's written
 * prefix from the page cache while the request's thread goes on
 * receiving and writing, so an upload costs the writer no hashing time and
 * commit has little left to hash.
 *
 * The prefix is [0, contig): bytes written in order from offset 0. The
 * thread reads [hashed, contig) a block at a time without the lock and
 * then checks that no write touched what it read: a write below
 * `reading_end` (the end of what is hashed or being read) marks the digest
 * for a restart from 0, and a block never reaches into a write in flight.
 * Only the thread touches md while it runs; finish stops it first. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "files_priv.h"
#include "base/hash.h"

#define BLOCK (1u << 20)
#define MIN_BLOCK (256u << 10)   /* woken for less only when finishing */

struct cube_files_digest {
    int fd;                        /* borrowed from the handle */
    EVP_MD_CTX *md;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pthread_t thread;
    int live;                      /* thread made and not joined */
    int running, waiting, stop, draining, restart, failed;
    uint64_t hashed;               /* [0, hashed) went through md */
    uint64_t reading_end;          /* hashed, or the end of the block being read */
    uint64_t contig;               /* [0, contig) is written */
    int writing;                   /* a write is in flight at [w_off, ...) */
    uint64_t w_off;
};

static int reset_md(struct cube_files_digest *d)
{
    d->hashed = d->reading_end = 0;
    return EVP_DigestInit_ex(d->md, EVP_sha256(), NULL) ? 0 : -1;
}

/* The next block to hash, [*a, *b), under the lock: 0 when there is none
 * worth waking for. */
static int next_block(struct cube_files_digest *d, uint64_t *a, uint64_t *b)
{
    *a = d->hashed;
    *b = d->contig - *a > BLOCK ? *a + BLOCK : d->contig;
    if (d->writing && d->w_off < *b)
        *b = d->w_off;   /* never into a write in flight */
    return *b > *a && (*b - *a >= MIN_BLOCK || d->draining);
}

static void *run(void *arg)
{
    struct cube_files_digest *d = arg;
    char *buf = malloc(BLOCK);
    uint64_t a, b;
    pthread_mutex_lock(&d->mu);
    while (buf && !d->stop) {
        if (d->restart) {
            d->restart = 0;
            if (reset_md(d) < 0)
                break;
            continue;
        }
        if (!next_block(d, &a, &b)) {
            pthread_cond_broadcast(&d->cv);   /* caught up: finish may go on */
            d->waiting = 1;
            pthread_cond_wait(&d->cv, &d->mu);
            d->waiting = 0;
            continue;
        }
        d->reading_end = b;
        pthread_mutex_unlock(&d->mu);
        ssize_t n = pread(d->fd, buf, (size_t)(b - a), (off_t)a);
        int ok = n > 0 && EVP_DigestUpdate(d->md, buf, (size_t)n);
        pthread_mutex_lock(&d->mu);
        if (!ok && n < 0 && errno == EINTR) {
            d->reading_end = d->hashed;
            continue;
        }
        if (!ok)
            break;   /* finish hashes the rest itself */
        if (d->restart)
            continue;
        d->hashed = d->reading_end = a + (uint64_t)n;
    }
    d->failed = !d->stop;
    d->restart |= d->failed;   /* md may hold a part of a block: start over */
    d->reading_end = d->hashed;
    d->running = 0;
    pthread_cond_broadcast(&d->cv);
    pthread_mutex_unlock(&d->mu);
    free(buf);
    return NULL;
}

struct cube_files_digest *cube_files_digest_new(int fd, uint64_t written)
{
    struct cube_files_digest *d = calloc(1, sizeof *d);
    if (!d || !(d->md = EVP_MD_CTX_new()) || reset_md(d) < 0) {
        if (d)
            EVP_MD_CTX_free(d->md);
        free(d);
        return NULL;
    }
    d->fd = fd;
    d->contig = written;
    pthread_mutex_init(&d->mu, NULL);
    pthread_cond_init(&d->cv, NULL);
    return d;
}

void cube_files_digest_write_begin(struct cube_files_digest *d, uint64_t offset)
{
    pthread_mutex_lock(&d->mu);
    if (offset < d->reading_end)
        d->restart = 1;   /* it changes bytes already hashed, or being read */
    d->writing = 1;
    d->w_off = offset;
    pthread_mutex_unlock(&d->mu);
}

/* Starts the thread (the lock held); without one, finish hashes it all. */
static void start_thread(struct cube_files_digest *d)
{
    pthread_attr_t attr;
    if (pthread_attr_init(&attr) != 0)
        return;
    pthread_attr_setstacksize(&attr, 64 << 10);
    d->running = d->live = pthread_create(&d->thread, &attr, run, d) == 0;
    pthread_attr_destroy(&attr);
}

void cube_files_digest_write_end(struct cube_files_digest *d, uint64_t offset, uint64_t len,
                                 int ok)
{
    pthread_mutex_lock(&d->mu);
    d->writing = 0;
    if (ok && offset <= d->contig && offset + len > d->contig)
        d->contig = offset + len;
    if (d->running && d->waiting && d->contig - d->hashed >= MIN_BLOCK)
        pthread_cond_broadcast(&d->cv);
    else if (!d->live && !d->failed && d->contig - d->hashed >= MIN_BLOCK)
        start_thread(d);
    pthread_mutex_unlock(&d->mu);
}

/* Stops and joins the thread: md is the caller's then. */
static void stop_thread(struct cube_files_digest *d)
{
    pthread_mutex_lock(&d->mu);
    d->stop = 1;
    pthread_cond_broadcast(&d->cv);
    int live = d->live;
    d->live = 0;
    pthread_mutex_unlock(&d->mu);
    if (live)
        pthread_join(d->thread, NULL);
    pthread_mutex_lock(&d->mu);
    d->stop = 0;
    pthread_mutex_unlock(&d->mu);
}

/* Hashes [d->hashed, size) of the file on the caller's thread. */
static int hash_rest(struct cube_files_digest *d, uint64_t size)
{
    if (d->hashed >= size)
        return CUBE_OK;
    char *buf = malloc(BLOCK);
    int rc = buf ? CUBE_OK : CUBE_ENOMEM;
    while (rc == CUBE_OK && d->hashed < size) {
        size_t want = size - d->hashed < BLOCK ? (size_t)(size - d->hashed) : BLOCK;
        ssize_t n = pread(d->fd, buf, want, (off_t)d->hashed);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            rc = CUBE_EIO;   /* an error, or shrank underneath */
        else if (!EVP_DigestUpdate(d->md, buf, (size_t)n))
            rc = CUBE_ENOMEM;
        else
            d->hashed += (uint64_t)n;
    }
    free(buf);
    return rc;
}

int cube_files_digest_finish(struct cube_files_digest *d, uint64_t size,
                             char hex[CUBE_SHA256_HEX_SIZE])
{
    pthread_mutex_lock(&d->mu);
    d->draining = 1;   /* the last bytes, however few */
    pthread_cond_broadcast(&d->cv);
    while (d->running && !d->restart && d->hashed < d->contig)
        pthread_cond_wait(&d->cv, &d->mu);   /* let it catch up first */
    d->draining = 0;
    pthread_mutex_unlock(&d->mu);
    stop_thread(d);
    if ((d->restart || d->hashed > size) && reset_md(d) < 0)
        return CUBE_ENOMEM;
    d->restart = 0;
    int rc = hash_rest(d, size);
    d->reading_end = d->hashed;
    EVP_MD_CTX *copy = rc == CUBE_OK ? EVP_MD_CTX_new() : NULL;
    uint8_t digest[32];
    unsigned len = 0;
    /* a copy is finished: md goes on if the upload does (a refused commit) */
    if (rc == CUBE_OK && (!copy || !EVP_MD_CTX_copy_ex(copy, d->md) ||
                          !EVP_DigestFinal_ex(copy, digest, &len) || len != 32))
        rc = CUBE_ENOMEM;
    EVP_MD_CTX_free(copy);
    if (rc == CUBE_OK)
        cube_hex(digest, sizeof digest, hex);
    return rc;
}

void cube_files_digest_free(struct cube_files_digest *d)
{
    if (!d)
        return;
    stop_thread(d);
    pthread_mutex_destroy(&d->mu);
    pthread_cond_destroy(&d->cv);
    EVP_MD_CTX_free(d->md);
    free(d);
}
