/* objcache.c — see objcache.h. A hash table split into shards, each with
 * its own lock, chained buckets and a clock hand for eviction. */
#include "objcache.h"

#include <cjson/cJSON.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define SHARDS 64
#define BUCKETS_PER_SHARD 4096

enum { OWNER_UNREAD, OWNER_KNOWN, OWNER_UNFIT };   /* UNFIT: too long, or no JSON */

struct entry {
    struct entry *next;      /* bucket chain */
    int64_t rv;
    size_t doc_len;
    int referenced;          /* clock bit */
    int owner_state;         /* OWNER_*: whether owner[] was read from doc */
    char owner[OBJCACHE_OWNER_MAX];  /* metadata.owner, "" when none */
    char *doc;
    char key[];              /* "kind\0project\0name\0" */
};

struct shard {
    pthread_mutex_t mu;
    struct entry *buckets[BUCKETS_PER_SHARD];
    size_t bytes;
    size_t hand;             /* clock position (bucket index) */
};

struct cube_objcache {
    size_t max_shard_bytes;
    atomic_uint_fast64_t hits, misses;
    struct shard shards[SHARDS];
};

static uint64_t hash_key(const char *kind, const char *project, const char *name)
{
    uint64_t h = 1469598103934665603ull;
    const char *parts[3] = {kind, project ? project : "", name};
    for (int i = 0; i < 3; i++) {
        for (const char *p = parts[i]; *p; p++)
            h = (h ^ (unsigned char)*p) * 1099511628211ull;
        h = (h ^ 0xff) * 1099511628211ull;
    }
    return h;
}

static size_t key_len(const char *kind, const char *project, const char *name)
{
    return strlen(kind) + strlen(project ? project : "") + strlen(name) + 3;
}

static int key_eq(const struct entry *e, const char *kind, const char *project,
                  const char *name)
{
    const char *k = e->key;
    if (strcmp(k, kind) != 0)
        return 0;
    k += strlen(k) + 1;
    if (strcmp(k, project ? project : "") != 0)
        return 0;
    k += strlen(k) + 1;
    return strcmp(k, name) == 0;
}

struct cube_objcache *cube_objcache_new(size_t max_bytes)
{
    struct cube_objcache *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->max_shard_bytes = max_bytes / SHARDS;
    for (int i = 0; i < SHARDS; i++)
        pthread_mutex_init(&c->shards[i].mu, NULL);
    return c;
}

/* Bytes an entry holds: the record, its key and its document. */
static size_t entry_cost(const struct entry *e)
{
    const char *k = e->key;
    size_t klen = 0;
    for (int part = 0; part < 3; part++) {
        size_t n = strlen(k) + 1;
        klen += n;
        k += n;
    }
    return sizeof *e + klen + e->doc_len + 1;
}

void cube_objcache_free(struct cube_objcache *c)
{
    if (!c)
        return;
    for (int i = 0; i < SHARDS; i++) {
        for (size_t b = 0; b < BUCKETS_PER_SHARD; b++)
            for (struct entry *e = c->shards[i].buckets[b], *n; e; e = n) {
                n = e->next;
                free(e->doc);
                free(e);
            }
        pthread_mutex_destroy(&c->shards[i].mu);
    }
    free(c);
}

/* Locates the shard and the bucket slot of a key. */
static struct shard *locate(struct cube_objcache *c, const char *kind, const char *project,
                            const char *name, struct entry ***slot)
{
    uint64_t h = hash_key(kind, project, name);
    struct shard *s = &c->shards[h % SHARDS];
    *slot = &s->buckets[(h / SHARDS) % BUCKETS_PER_SHARD];
    return s;
}

char *cube_objcache_get(struct cube_objcache *c, const char *kind,
                        const char *project, const char *name, int64_t *rv)
{
    struct entry **slot;
    char *out = NULL;
    if (!c || !c->max_shard_bytes)
        return NULL;
    struct shard *s = locate(c, kind, project, name, &slot);
    pthread_mutex_lock(&s->mu);
    for (struct entry *e = *slot; e; e = e->next)
        if (key_eq(e, kind, project, name)) {
            e->referenced = 1;
            out = malloc(e->doc_len + 1);
            if (out) {
                memcpy(out, e->doc, e->doc_len + 1);
                *rv = e->rv;
            }
            break;
        }
    pthread_mutex_unlock(&s->mu);
    atomic_fetch_add(out ? &c->hits : &c->misses, 1);
    return out;
}

/* Reads metadata.owner from the entry's document into owner[] (once per
 * cached version: a write replaces the entry). Caller holds the shard lock. */
static void read_owner(struct entry *e)
{
    cJSON *doc = cJSON_ParseWithLength(e->doc, e->doc_len);
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(doc, "metadata");
    const cJSON *owner = cJSON_GetObjectItemCaseSensitive(meta, "owner");
    const char *o = cJSON_IsString(owner) ? owner->valuestring : "";
    e->owner_state = !doc || strlen(o) >= sizeof e->owner ? OWNER_UNFIT : OWNER_KNOWN;
    if (e->owner_state == OWNER_KNOWN)
        strcpy(e->owner, o);
    cJSON_Delete(doc);
}

int cube_objcache_owner(struct cube_objcache *c, const char *kind, const char *project,
                        const char *name, char *out, size_t len)
{
    struct entry **slot;
    int found = 0;
    if (!c || !c->max_shard_bytes)
        return 0;
    struct shard *s = locate(c, kind, project, name, &slot);
    pthread_mutex_lock(&s->mu);
    for (struct entry *e = *slot; e; e = e->next)
        if (key_eq(e, kind, project, name)) {
            e->referenced = 1;
            if (e->owner_state == OWNER_UNREAD)
                read_owner(e);
            found = e->owner_state == OWNER_KNOWN && strlen(e->owner) < len;
            if (found)
                strcpy(out, e->owner);
            break;
        }
    pthread_mutex_unlock(&s->mu);
    atomic_fetch_add(found ? &c->hits : &c->misses, 1);
    return found;
}

/* Unlinks and frees the entry at *pp. Caller holds the shard lock. */
static void unlink_entry(struct shard *s, struct entry **pp)
{
    struct entry *e = *pp;
    *pp = e->next;
    s->bytes -= entry_cost(e);
    free(e->doc);
    free(e);
}

/* Drops entries not used since the hand last passed, until `need` more
 * bytes fit. Caller holds the shard lock. */
static void make_room(struct cube_objcache *c, struct shard *s, size_t need)
{
    for (size_t scanned = 0; s->bytes + need > c->max_shard_bytes &&
                             scanned < 2 * BUCKETS_PER_SHARD; scanned++) {
        struct entry **pp = &s->buckets[s->hand];
        while (*pp && s->bytes + need > c->max_shard_bytes) {
            if ((*pp)->referenced) {
                (*pp)->referenced = 0;
                pp = &(*pp)->next;
            } else {
                unlink_entry(s, pp);
            }
        }
        s->hand = (s->hand + 1) % BUCKETS_PER_SHARD;
    }
}

void cube_objcache_put(struct cube_objcache *c, const char *kind,
                       const char *project, const char *name, int64_t rv,
                       const char *doc)
{
    struct entry **slot;
    if (!c || !c->max_shard_bytes)
        return;
    size_t klen = key_len(kind, project, name), dlen = strlen(doc);
    struct entry *e = malloc(sizeof *e + klen);
    char *copy = malloc(dlen + 1);
    if (!e || !copy) {
        free(e);
        free(copy);
        cube_objcache_drop(c, kind, project, name); /* never keep a stale one */
        return;
    }
    memcpy(copy, doc, dlen + 1);
    e->next = NULL;
    e->rv = rv;
    e->doc_len = dlen;
    e->referenced = 0;
    e->owner_state = OWNER_UNREAD;
    e->doc = copy;
    char *k = stpcpy(e->key, kind) + 1;
    k = stpcpy(k, project ? project : "") + 1;
    strcpy(k, name);
    struct shard *s = locate(c, kind, project, name, &slot);
    pthread_mutex_lock(&s->mu);
    for (struct entry **pp = slot; *pp; pp = &(*pp)->next)
        if (key_eq(*pp, kind, project, name)) {
            unlink_entry(s, pp);
            break;
        }
    size_t cost = entry_cost(e);
    make_room(c, s, cost);
    if (s->bytes + cost <= c->max_shard_bytes) {
        e->next = *slot;
        *slot = e;
        s->bytes += cost;
        e = NULL;
    }
    pthread_mutex_unlock(&s->mu);
    if (e) {
        free(e->doc);
        free(e);
    }
}

void cube_objcache_drop(struct cube_objcache *c, const char *kind,
                        const char *project, const char *name)
{
    struct entry **slot;
    if (!c || !c->max_shard_bytes)
        return;
    struct shard *s = locate(c, kind, project, name, &slot);
    pthread_mutex_lock(&s->mu);
    for (struct entry **pp = slot; *pp; pp = &(*pp)->next)
        if (key_eq(*pp, kind, project, name)) {
            unlink_entry(s, pp);
            break;
        }
    pthread_mutex_unlock(&s->mu);
}

void cube_objcache_stats(struct cube_objcache *c, uint64_t *hits, uint64_t *misses,
                         size_t *bytes)
{
    size_t total = 0;
    for (int i = 0; c && i < SHARDS; i++) {
        pthread_mutex_lock(&c->shards[i].mu);
        total += c->shards[i].bytes;
        pthread_mutex_unlock(&c->shards[i].mu);
    }
    *hits = c ? atomic_load(&c->hits) : 0;
    *misses = c ? atomic_load(&c->misses) : 0;
    *bytes = total;
}
