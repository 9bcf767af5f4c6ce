/* schema_regex_cache.c — compiling translated patterns and the
 * process-wide cache of compiled ones: the cube_schema_regex_* functions of
 * schema_format.h. Apart from the translator (schema_regex.c) because it
 * deals in regcomp, locales, locking and eviction, not in pattern syntax. */
#include "schema_format.h"
#include "schema_regex_priv.h"

#include <locale.h>
#include <pthread.h>
#include <regex.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The translation speaks in UTF-8 bytes, so regcomp and regexec must see
 * single-byte characters: run them in the C locale, switched per thread. */
struct c_locale {
    locale_t c, previous;
};

static void c_locale_enter(struct c_locale *l)
{
    l->c = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    l->previous = l->c ? uselocale(l->c) : (locale_t)0;
}

static void c_locale_leave(struct c_locale *l)
{
    if (!l->c)
        return;
    uselocale(l->previous);
    freelocale(l->c);
}

/* Translates, then regcomp()s as REG_EXTENDED|REG_NOSUB in the C locale;
 * -1 with a reason in err. The estimated cost lands in *weight. */
static int compile_pattern(regex_t *re, const char *pattern, char *err,
                           size_t errlen, double *weight)
{
    const char *failure = NULL;
    char *ere = cube_re_translate(pattern, &failure, weight);
    if (!ere) {
        if (errlen)
            snprintf(err, errlen, "%s", failure);
        return -1;
    }
    struct c_locale loc;
    c_locale_enter(&loc);
    int rc = regcomp(re, ere, REG_EXTENDED | REG_NOSUB);
    c_locale_leave(&loc);
    free(ere);
    if (rc != 0) {
        if (errlen)
            regerror(rc, re, err, errlen);
        return -1;
    }
    return 0;
}

/* ---- the compiled-pattern cache ------------------------------------------
 *
 * The one exception to "no global mutable state" in the core: schemas are
 * plain cJSON, with nowhere to hang what a pattern compiles to, and
 * compiling on every validation is dear. So compiled patterns are shared
 * through this process-wide cache, guarded by cache_mu and bounded: at most
 * CACHE_ENTRIES patterns and CACHE_WEIGHT of estimated regcomp cost, the
 * least recently used dropped first. An entry is freed once it has left
 * the cache and its last user has released it. Several threads may regexec
 * one REG_NOSUB regex_t at once (glibc locks what it shares). regexec keeps
 * every DFA state it meets, a pile that grows with the text searched: an
 * entry is compiled afresh once that text, weighed by the pattern's cost,
 * passes MATCH_BUDGET (a cheap pattern after megabytes, a dear one after
 * each validation, as if it were not cached). */

#define CACHE_ENTRIES 256
#define CACHE_WEIGHT (4 * (CUBE_RE_NODES_MAX + CUBE_RE_CLOSURES_MAX))
#define MATCH_BUDGET 1e7

struct cube_schema_regex {
    char *pattern;
    unsigned hash;
    double weight;
    unsigned long used; /* cache.clock when last found */
    int refs;           /* users, plus one while in the cache */
    atomic_ulong searched; /* bytes regexec went through */
    regex_t re;
};

static pthread_mutex_t cache_mu = PTHREAD_MUTEX_INITIALIZER;
static struct {
    struct cube_schema_regex *slot[CACHE_ENTRIES];
    size_t count;
    double weight;
    unsigned long clock;
} cache; /* cache_mu */

static unsigned hash_pattern(const char *s)
{
    unsigned h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

static void unref_locked(struct cube_schema_regex *r)
{
    if (--r->refs > 0)
        return;
    regfree(&r->re);
    free(r->pattern);
    free(r);
}

static void evict_locked(size_t i)
{
    struct cube_schema_regex *r = cache.slot[i];
    cache.slot[i] = cache.slot[--cache.count];
    cache.weight -= r->weight;
    unref_locked(r);
}

/* The cached entry for pattern, marked as just used; NULL if none. */
static struct cube_schema_regex *find_locked(const char *pattern,
                                             unsigned hash)
{
    for (size_t i = 0; i < cache.count; i++) {
        struct cube_schema_regex *r = cache.slot[i];
        if (r->hash != hash || strcmp(r->pattern, pattern) != 0)
            continue;
        if ((double)atomic_load(&r->searched) * r->weight > MATCH_BUDGET) {
            evict_locked(i); /* its DFA states have piled up */
            return NULL;
        }
        r->used = ++cache.clock;
        return r;
    }
    return NULL;
}

/* Caches fresh (unless another thread got there first), dropping the least
 * recently used entries to make room; returns the entry to use, with a
 * reference for the caller. */
static struct cube_schema_regex *insert(struct cube_schema_regex *fresh)
{
    pthread_mutex_lock(&cache_mu);
    struct cube_schema_regex *r = find_locked(fresh->pattern, fresh->hash);
    if (r) {
        unref_locked(fresh);
    } else {
        while (cache.count == CACHE_ENTRIES ||
               (cache.count && cache.weight + fresh->weight > CACHE_WEIGHT)) {
            size_t oldest = 0;
            for (size_t i = 1; i < cache.count; i++)
                if (cache.slot[i]->used < cache.slot[oldest]->used)
                    oldest = i;
            evict_locked(oldest);
        }
        r = cache.slot[cache.count++] = fresh;
        r->used = ++cache.clock;
        cache.weight += r->weight;
    }
    r->refs++;
    pthread_mutex_unlock(&cache_mu);
    return r;
}

/* From the cache, else compiled now (outside the lock) and cached. */
struct cube_schema_regex *cube_schema_regex_get(const char *pattern,
                                                char *err, size_t errlen)
{
    unsigned hash = hash_pattern(pattern);
    pthread_mutex_lock(&cache_mu);
    struct cube_schema_regex *r = find_locked(pattern, hash);
    if (r)
        r->refs++;
    pthread_mutex_unlock(&cache_mu);
    if (r)
        return r;
    r = calloc(1, sizeof *r);
    if (!r || !(r->pattern = strdup(pattern))) {
        free(r);
        if (errlen)
            snprintf(err, errlen, "out of memory");
        return NULL;
    }
    r->hash = hash;
    r->refs = 1; /* the cache's */
    atomic_init(&r->searched, 0);
    if (compile_pattern(&r->re, pattern, err, errlen, &r->weight) < 0) {
        free(r->pattern);
        free(r);
        return NULL;
    }
    return insert(r);
}

/* regexec() in the C locale; true on a match anywhere in s. */
bool cube_schema_regex_test(struct cube_schema_regex *r, const char *s)
{
    struct c_locale loc;
    c_locale_enter(&loc);
    bool matched = regexec(&r->re, s, 0, NULL, 0) == 0;
    c_locale_leave(&loc);
    atomic_fetch_add_explicit(&r->searched, strlen(s) + 1,
                              memory_order_relaxed);
    return matched;
}

/* Drops the caller's reference. */
void cube_schema_regex_release(struct cube_schema_regex *r)
{
    if (!r)
        return;
    pthread_mutex_lock(&cache_mu);
    unref_locked(r);
    pthread_mutex_unlock(&cache_mu);
}

/* Entries cached now. */
size_t cube_schema_regex_cache_count(void)
{
    pthread_mutex_lock(&cache_mu);
    size_t n = cache.count;
    pthread_mutex_unlock(&cache_mu);
    return n;
}

/* Drops every entry from the cache (users keep theirs until released). */
void cube_schema_regex_cache_clear(void)
{
    pthread_mutex_lock(&cache_mu);
    while (cache.count)
        evict_locked(cache.count - 1);
    pthread_mutex_unlock(&cache_mu);
}
