/* files_digest.c — the SHA-256 and the writeback of a pending upload,
 * beside the writes (files_priv.h). Two threads of the upload's own work
 * behind the request's thread, which only receives and writes: one hashes
 * the file's written prefix from the page cache, so commit has little
 * left to hash; one hands written bytes to the disk (sync_file_range) as
 * they come, so commit's fsync has little left to wait for, and a disk
 * that cannot keep up makes that thread wait, never the writer nor the
 * hasher.
 *
 * The prefix is [0, contig): bytes written in order from offset 0. The
 * hasher reads [hashed, contig) a block at a time without the lock and
 * then checks that no write touched what it read: a write below
 * `reading_end` (the end of what is hashed or being read) marks the digest
 * for a restart from 0, and a block never reaches into a write in flight.
 * Only the hasher touches md while it runs; finish stops it first. Neither
 * thread touches the last partial page of the prefix, where the next write
 * lands. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "files_priv.h"
#include "base/hash.h"

#define BLOCK (1u << 20)
#define MIN_BLOCK (256u << 10)   /* woken for less only when finishing */
/* Written bytes are handed to the disk every this many. */
#define FLUSH_EVERY ((uint64_t)8 << 20)
/* Down to a page boundary (64 KiB: the largest page size cubed runs on). */
#define PAGE_DOWN(x) ((x) & ~(uint64_t)0xffff)

struct cube_files_digest {
    int fd;                        /* borrowed from the handle */
    EVP_MD_CTX *md;
    pthread_mutex_t mu;
    pthread_cond_t cv;             /* the hasher's, and finish's */
    pthread_cond_t fcv;            /* the flusher's */
    pthread_t hasher, flusher;
    int hasher_live, flusher_live; /* made and not joined */
    int hashing;                   /* the hasher has not ended */
    int h_waiting, f_waiting, stop, draining, restart, failed;
    uint64_t hashed;               /* [0, hashed) went through md */
    uint64_t reading_end;          /* hashed, or the end of the block being read */
    uint64_t contig;               /* [0, contig) is written */
    uint64_t flushed;              /* [0, flushed) was handed to the disk */
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

static void *hash_run(void *arg)
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
            d->h_waiting = 1;
            pthread_cond_wait(&d->cv, &d->mu);
            d->h_waiting = 0;
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
        if (!d->restart)
            d->hashed = d->reading_end = a + (uint64_t)n;
    }
    d->failed = !d->stop;
    d->restart |= d->failed;   /* md may hold a part of a block: start over */
    d->reading_end = d->hashed;
    d->hashing = 0;
    pthread_cond_broadcast(&d->cv);
    pthread_mutex_unlock(&d->mu);
    free(buf);
    return NULL;
}

static int flush_due(const struct cube_files_digest *d)
{
    return PAGE_DOWN(d->contig) >= d->flushed + FLUSH_EVERY;
}

static void *flush_run(void *arg)
{
    struct cube_files_digest *d = arg;
    pthread_mutex_lock(&d->mu);
    while (!d->stop) {
        if (!flush_due(d)) {
            d->f_waiting = 1;
            pthread_cond_wait(&d->fcv, &d->mu);
            d->f_waiting = 0;
            continue;
        }
        uint64_t from = d->flushed;
        d->flushed = PAGE_DOWN(d->contig);
        pthread_mutex_unlock(&d->mu);
        /* waits only while the disk's queue is full */
        sync_file_range(d->fd, (off_t)from, (off_t)(d->flushed - from), SYNC_FILE_RANGE_WRITE);
        pthread_mutex_lock(&d->mu);
    }
    pthread_mutex_unlock(&d->mu);
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
    pthread_cond_init(&d->fcv, NULL);
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

/* Starts one of the threads (the lock held): 1 when it runs. Without the
 * hasher finish hashes it all, without the flusher fsync writes it all. */
static int start(pthread_t *t, void *(*fn)(void *), struct cube_files_digest *d)
{
    pthread_attr_t attr;
    if (pthread_attr_init(&attr) != 0)
        return 0;
    pthread_attr_setstacksize(&attr, 64 << 10);
    int ok = pthread_create(t, &attr, fn, d) == 0;
    pthread_attr_destroy(&attr);
    return ok;
}

void cube_files_digest_write_end(struct cube_files_digest *d, uint64_t offset, uint64_t len,
                                 int ok)
{
    pthread_mutex_lock(&d->mu);
    d->writing = 0;
    if (ok && offset <= d->contig && offset + len > d->contig)
        d->contig = offset + len;
    int hash_due = d->contig - d->hashed >= MIN_BLOCK;
    if (d->hashing && d->h_waiting && hash_due)
        pthread_cond_broadcast(&d->cv);
    else if (!d->hasher_live && !d->failed && hash_due)
        d->hashing = d->hasher_live = start(&d->hasher, hash_run, d);
    if (d->f_waiting && flush_due(d))
        pthread_cond_signal(&d->fcv);
    else if (!d->flusher_live && flush_due(d))
        d->flusher_live = start(&d->flusher, flush_run, d);
    pthread_mutex_unlock(&d->mu);
}

/* Stops and joins both threads: md is the caller's then. */
static void stop_threads(struct cube_files_digest *d)
{
    pthread_mutex_lock(&d->mu);
    d->stop = 1;
    pthread_cond_broadcast(&d->cv);
    pthread_cond_broadcast(&d->fcv);
    int hasher = d->hasher_live, flusher = d->flusher_live;
    d->hasher_live = d->flusher_live = 0;
    pthread_mutex_unlock(&d->mu);
    if (hasher)
        pthread_join(d->hasher, NULL);
    if (flusher)
        pthread_join(d->flusher, NULL);
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
    while (d->hashing && !d->restart && d->hashed < d->contig)
        pthread_cond_wait(&d->cv, &d->mu);   /* let it catch up first */
    d->draining = 0;
    pthread_mutex_unlock(&d->mu);
    stop_threads(d);
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
    stop_threads(d);
    pthread_mutex_destroy(&d->mu);
    pthread_cond_destroy(&d->cv);
    pthread_cond_destroy(&d->fcv);
    EVP_MD_CTX_free(d->md);
    free(d);
}
