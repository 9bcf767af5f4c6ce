/* auth_throttle.c — see auth_throttle.h. A chained hash table of entries,
 * also threaded on a list ordered by last failure (most recent at the head),
 * all under one mutex. Idle entries are dropped lazily: when looked up, and
 * from the old end of the list whenever a new key is added; when the table
 * is full the least recently failed entry goes. */
#include "auth_throttle.h"

#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define DEF_FREE 5
#define DEF_BASE_MS 1000u
#define DEF_MAX_MS (15u * 60u * 1000u)
#define DEF_FORGET_MS (60u * 60u * 1000u)
#define DEF_CAPACITY 65536u
#define MIN_BUCKETS 16u
#define MAX_BUCKETS ((size_t)1 << 20)

struct th_entry {
    struct th_entry *chain;             /* next in the bucket */
    struct th_entry *newer, *older;     /* the recency list */
    uint64_t hash;
    uint64_t last_ms;                   /* last failure */
    uint64_t locked_until;              /* ms; 0 when never locked */
    unsigned failures;
    char key[];
};

struct cube_throttle {
    pthread_mutex_t mu;
    struct cube_throttle_cfg cfg;
    struct th_entry **buckets;
    size_t nbuckets, count;
    struct th_entry *newest, *oldest;
};

/* FNV-1a of s. */
static uint64_t hash_key(const char *s)
{
    uint64_t h = 0xcbf29ce484222325u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3u;
    return h;
}

/* cfg with every zero field replaced by its default. */
static struct cube_throttle_cfg fill_cfg(const struct cube_throttle_cfg *cfg)
{
    struct cube_throttle_cfg c = {0};
    if (cfg)
        c = *cfg;
    c.free_failures = c.free_failures ? c.free_failures : DEF_FREE;
    c.base_ms = c.base_ms ? c.base_ms : DEF_BASE_MS;
    c.max_ms = c.max_ms ? c.max_ms : DEF_MAX_MS;
    c.forget_ms = c.forget_ms ? c.forget_ms : DEF_FORGET_MS;
    c.capacity = c.capacity ? c.capacity : DEF_CAPACITY;
    return c;
}

/* A new empty table configured by cfg (NULL: defaults), or NULL on OOM. */
struct cube_throttle *cube_throttle_new(const struct cube_throttle_cfg *cfg)
{
    struct cube_throttle *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->cfg = fill_cfg(cfg);
    t->nbuckets = MIN_BUCKETS;
    while (t->nbuckets < t->cfg.capacity && t->nbuckets < MAX_BUCKETS)
        t->nbuckets <<= 1;
    t->buckets = calloc(t->nbuckets, sizeof *t->buckets);
    if (!t->buckets || pthread_mutex_init(&t->mu, NULL) != 0) {
        free(t->buckets);
        free(t);
        return NULL;
    }
    return t;
}

/* Frees t and every entry; NULL is fine. */
void cube_throttle_free(struct cube_throttle *t)
{
    if (!t)
        return;
    for (struct th_entry *e = t->newest, *next; e; e = next) {
        next = e->older;
        free(e);
    }
    free(t->buckets);
    pthread_mutex_destroy(&t->mu);
    free(t);
}

/* The bucket slot for hash h. */
static struct th_entry **bucket(struct cube_throttle *t, uint64_t h)
{
    return &t->buckets[h & (t->nbuckets - 1)];
}

/* Takes e off the recency list. */
static void list_unlink(struct cube_throttle *t, struct th_entry *e)
{
    if (e->newer)
        e->newer->older = e->older;
    else
        t->newest = e->older;
    if (e->older)
        e->older->newer = e->newer;
    else
        t->oldest = e->newer;
    e->newer = e->older = NULL;
}

/* Puts e at the newest end of the recency list. */
static void list_push(struct cube_throttle *t, struct th_entry *e)
{
    e->newer = NULL;
    e->older = t->newest;
    if (t->newest)
        t->newest->newer = e;
    else
        t->oldest = e;
    t->newest = e;
}

/* Unlinks e from its bucket and the list, and frees it. */
static void remove_entry(struct cube_throttle *t, struct th_entry *e)
{
    struct th_entry **pp = bucket(t, e->hash);
    while (*pp != e)
        pp = &(*pp)->chain;
    *pp = e->chain;
    list_unlink(t, e);
    t->count--;
    free(e);
}

/* The entry for key (hash h), or NULL. */
static struct th_entry *find(struct cube_throttle *t, const char *key, uint64_t h)
{
    for (struct th_entry *e = *bucket(t, h); e; e = e->chain)
        if (e->hash == h && strcmp(e->key, key) == 0)
            return e;
    return NULL;
}

/* 1 when e has had no failure for forget_ms and is not locked at now. */
static int idle(const struct cube_throttle *t, const struct th_entry *e, uint64_t now)
{
    return now >= e->locked_until && now >= e->last_ms &&
           now - e->last_ms >= t->cfg.forget_ms;
}

/* Drops idle entries from the old end, then the oldest while full. */
static void make_room(struct cube_throttle *t, uint64_t now)
{
    while (t->oldest && idle(t, t->oldest, now))
        remove_entry(t, t->oldest);
    while (t->oldest && t->count >= t->cfg.capacity)
        remove_entry(t, t->oldest);
}

/* Adds a fresh entry for key (hash h); NULL when out of memory. */
static struct th_entry *add(struct cube_throttle *t, const char *key, uint64_t h,
                            uint64_t now)
{
    make_room(t, now);
    size_t len = strlen(key);
    struct th_entry *e = calloc(1, sizeof *e + len + 1);
    if (!e)
        return NULL;
    memcpy(e->key, key, len + 1);
    e->hash = h;
    struct th_entry **b = bucket(t, h);
    e->chain = *b;
    *b = e;
    list_push(t, e);
    t->count++;
    return e;
}

/* base_ms * 2^(failures - free - 1), at most max_ms; 0 while still free. */
static uint64_t lock_ms(const struct cube_throttle_cfg *c, unsigned failures)
{
    if (failures <= c->free_failures)
        return 0;
    unsigned shift = failures - c->free_failures - 1;
    if (shift >= 63 || c->base_ms > (c->max_ms >> shift))
        return c->max_ms;
    return c->base_ms << shift;
}

/* Milliseconds key must still wait at now_ms (0: may try); drops it if idle. */
uint64_t cube_throttle_wait(struct cube_throttle *t, const char *key,
                            uint64_t now_ms)
{
    if (!t || !key)
        return 0;
    uint64_t left = 0, h = hash_key(key);
    pthread_mutex_lock(&t->mu);
    struct th_entry *e = find(t, key, h);
    if (e && idle(t, e, now_ms))
        remove_entry(t, e);
    else if (e && e->locked_until > now_ms)
        left = e->locked_until - now_ms;
    pthread_mutex_unlock(&t->mu);
    return left;
}

/* Counts one more failure of e at now and sets its lock. */
static void record_failure(struct cube_throttle *t, struct th_entry *e, uint64_t now)
{
    if (e->failures < UINT_MAX)
        e->failures++;
    e->last_ms = now;
    uint64_t lock = lock_ms(&t->cfg, e->failures);
    if (lock)
        e->locked_until = now > UINT64_MAX - lock ? UINT64_MAX : now + lock;
}

/* Counts a failure of key at now_ms, locking it past the free failures. */
void cube_throttle_fail(struct cube_throttle *t, const char *key, uint64_t now_ms)
{
    if (!t || !key)
        return;
    uint64_t h = hash_key(key);
    pthread_mutex_lock(&t->mu);
    struct th_entry *e = find(t, key, h);
    if (e && idle(t, e, now_ms))
        e->failures = 0;
    if (e) {
        list_unlink(t, e);
        list_push(t, e);
    } else {
        e = add(t, key, h, now_ms);
    }
    if (e)
        record_failure(t, e, now_ms);
    pthread_mutex_unlock(&t->mu);
}

/* Drops key's entry, forgetting its failures. */
void cube_throttle_clear(struct cube_throttle *t, const char *key)
{
    if (!t || !key)
        return;
    uint64_t h = hash_key(key);
    pthread_mutex_lock(&t->mu);
    struct th_entry *e = find(t, key, h);
    if (e)
        remove_entry(t, e);
    pthread_mutex_unlock(&t->mu);
}
