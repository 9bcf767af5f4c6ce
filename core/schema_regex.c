/* schema_regex.c — ECMA-262 pattern to POSIX ERE; schema_format.h helpers.
 *
 * JSON Schema patterns are ECMA-262 regexes; we translate them to POSIX ERE
 * for regcomp. Supported: literals, `.`, anchors, groups (capturing,
 * `(?:...)`, named), alternation, greedy and lazy quantifiers (laziness
 * cannot change whether a string matches), bracket classes with ranges and
 * negation, the shorthands \d \w \s \D \W \S inside and outside brackets,
 * \b \B, and character escapes (\n \t \xHH \uHHHH \cX, identity escapes).
 * Rejected with a reason: lookaround, backreferences, \p{...}, NUL, and as
 * in ECMA a quantifier with nothing to repeat (a**, ^*, (+)).
 *
 * glibc's regcomp can take seconds and gigabytes on short patterns (stacked
 * or nested repeats, skippable runs, assertions it must re-check), so
 * patterns over the limits in schema_format.h, or dearer than the cost
 * model (schema_regex_priv.h) allows, are refused as "too complex". A
 * repeated piece that matches the empty string is written the cheap way
 * (X+ as X*, X{m,n} as X{n}, X? as X): the same strings match.
 *
 * Matching is by Unicode code point, independent of the process locale:
 * classes and '.' become alternatives of UTF-8 byte sequences (see
 * schema_regex_class.c), and the regex engine runs in the C locale. \d and
 * \w are ASCII as in ECMA; \s includes the Unicode spaces. */
#include "schema_format.h"
#include "schema_regex_priv.h"

#include <ctype.h>
#include <limits.h>
#include <locale.h>
#include <pthread.h>
#include <regex.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Counts the bytes that start a character (so malformed input still ends). */
size_t cube_schema_utf8_length(const char *s)
{
    size_t n = 0;
    for (const unsigned char *u = (const unsigned char *)s; *u; u++)
        n += (*u & 0xC0) != 0x80; /* count every byte that starts a char */
    return n;
}

/* ---- ECMA-262 to ERE translation ---------------------------------------- */

/* Past these the cost model calls a pattern too complex. What they let
 * through costs glibc's regcomp under about 100 MB and half a second. */
#define NODES_MAX 200000.0
#define CLOSURES_MAX 2000000.0
#define ASSERTION_CHAIN_MAX 8
#define PATHS_MAX 10000.0

#define STR_(x) #x
#define STR(x) STR_(x)
#define TOO_COMPLEX "too complex: "

/* One level of group: its finished alternatives and the current one. */
struct frame {
    struct re_cost done;
    struct re_cost seq;
    bool alternated;   /* done holds at least one alternative */
    size_t open_at;    /* where the group's ERE begins in out */
};

struct translation {
    struct re_scan s; /* position, output, failure */
    struct frame frames[CUBE_SCHEMA_PATTERN_MAX_DEPTH + 1];
    int depth;
    struct re_cost atom; /* the last atom, which a quantifier may repeat */
    bool has_atom;
    size_t atom_at;      /* where the atom's ERE begins in out */
    unsigned alternatives;
};

/* ---- structure and cost ---------------------------------------------- */

/* Refuses the pattern once c is dearer than the model allows. */
static void check_cost(struct translation *t, const struct re_cost *c)
{
    if (t->s.failure)
        return;
    if (c->copies > CUBE_SCHEMA_PATTERN_MAX_COPIES)
        t->s.failure = TOO_COMPLEX "nested repeats make more than "
                       STR(CUBE_SCHEMA_PATTERN_MAX_COPIES) " copies";
    else if (c->chain > ASSERTION_CHAIN_MAX)
        t->s.failure = TOO_COMPLEX "more than " STR(ASSERTION_CHAIN_MAX)
                       " assertions with no input between them";
    else if (c->cyclic && c->paths > PATHS_MAX)
        t->s.failure = TOO_COMPLEX "too many ways to match the empty string "
                       "around a loop";
    else if (c->nodes > NODES_MAX || c->closures > CLOSURES_MAX)
        t->s.failure = TOO_COMPLEX "it expands to too many states";
}

/* Moves the pending atom (if any) into the current alternative. */
static void flush_atom(struct translation *t)
{
    if (!t->has_atom)
        return;
    struct re_cost *seq = &t->frames[t->depth].seq;
    cube_re_cost_concat(seq, &t->atom);
    t->has_atom = false;
    check_cost(t, seq);
}

static void begin_atom(struct translation *t)
{
    flush_atom(t);
    t->atom_at = t->s.out.len;
}

/* Makes what was written since begin_atom the atom a quantifier repeats. */
static void end_atom(struct translation *t)
{
    if (t->s.failure || t->s.out.oom)
        return;
    size_t branches = 1;
    for (size_t i = t->atom_at; i < t->s.out.len; i++)
        branches += t->s.out.s[i] == '|';
    cube_re_cost_atom(&t->atom, t->s.out.len - t->atom_at, branches);
    t->has_atom = true;
}

static void add_assertion(struct translation *t, const char *ere)
{
    flush_atom(t);
    struct re_cost a;
    cube_re_cost_assertion(&a);
    cube_re_cost_concat(&t->frames[t->depth].seq, &a);
    check_cost(t, &t->frames[t->depth].seq);
    cube_re_puts(&t->s.out, ere);
}

/* An alternative that matches only "" adds nothing once the group can
 * already match "" (as in "a?|", "a||"): takes it and the '|' before it
 * back out. */
static bool drop_blank_alternative(struct translation *t, struct frame *f)
{
    struct re_buf *out = &t->s.out;
    if (!f->alternated || !f->seq.blank || !f->done.empty || out->oom ||
        out->len == 0 || out->s[out->len - 1] != '|')
        return false;
    out->s[--out->len] = '\0';
    return true;
}

/* The current group's alternatives as one cost. */
static struct re_cost close_alternatives(struct translation *t,
                                         struct frame *f)
{
    if (drop_blank_alternative(t, f))
        return f->done;
    if (!f->alternated)
        return f->seq;
    struct re_cost all = f->done;
    cube_re_cost_alternate(&all, &f->seq);
    return all;
}

/* Takes the pending atom's ERE back out; it now matches only "". */
static void drop_atom_text(struct translation *t)
{
    if (!t->s.out.oom) {
        t->s.out.len = t->atom_at;
        t->s.out.s[t->s.out.len] = '\0';
    }
    cube_re_cost_empty(&t->atom);
}

static void open_group(struct translation *t)
{
    flush_atom(t);
    if (t->depth == CUBE_SCHEMA_PATTERN_MAX_DEPTH) {
        t->s.failure = TOO_COMPLEX "groups nested more than "
                       STR(CUBE_SCHEMA_PATTERN_MAX_DEPTH) " deep";
        return;
    }
    struct frame *f = &t->frames[++t->depth];
    f->alternated = false;
    f->open_at = t->s.out.len;
    cube_re_cost_empty(&f->seq);
    cube_re_putc(&t->s.out, '(');
}

static void close_group(struct translation *t)
{
    flush_atom(t);
    if (t->depth == 0) {
        t->s.failure = "unmatched ')'";
        return;
    }
    struct frame *f = &t->frames[t->depth--];
    struct re_cost inner = close_alternatives(t, f);
    t->atom_at = f->open_at;
    t->has_atom = true;
    if (inner.blank) { /* "()", "(?:|)": nothing to match, leave it out */
        drop_atom_text(t);
        return;
    }
    /* regcomp gives a group an open and a close node */
    cube_re_cost_epsilon(&t->atom);
    cube_re_cost_concat(&t->atom, &inner);
    cube_re_cost_epsilon(&inner);
    cube_re_cost_concat(&t->atom, &inner);
    cube_re_putc(&t->s.out, ')');
}

static void alternate(struct translation *t)
{
    flush_atom(t);
    if (++t->alternatives >= CUBE_SCHEMA_PATTERN_MAX_ALTERNATIVES) {
        t->s.failure = TOO_COMPLEX "more than "
                       STR(CUBE_SCHEMA_PATTERN_MAX_ALTERNATIVES)
                       " alternatives";
        return;
    }
    struct frame *f = &t->frames[t->depth];
    f->done = close_alternatives(t, f);
    f->alternated = true;
    cube_re_cost_empty(&f->seq);
    cube_re_putc(&t->s.out, '|');
}

/* ---- atoms and quantifiers ------------------------------------------- */

static void translate_escape(struct translation *t)
{
    struct char_class cc = {0};
    uint32_t cp;
    begin_atom(t);
    switch (cube_re_parse_escape(&t->s, false, &cp, &cc)) {
    case ESC_CHAR:
        cube_re_emit_literal(&t->s.out, cp);
        end_atom(t);
        break;
    case ESC_CLASS:
        cube_re_emit_class(&t->s.out, &cc);
        end_atom(t);
        break;
    case ESC_BOUNDARY: /* GNU regex operators with the ECMA meaning */
        add_assertion(t, cp == '\b' ? "\\b" : "\\B");
        break;
    case ESC_ERROR:
        break;
    }
}

/* Reads decimal digits at s[*i], saturating below UINT_MAX. */
static unsigned read_count(const char *s, size_t *i)
{
    unsigned long v = 0;
    for (; isdigit((unsigned char)s[*i]); (*i)++)
        if (v < UINT_MAX / 2)
            v = v * 10 + (unsigned)(s[*i] - '0');
    return v < UINT_MAX / 2 ? (unsigned)v : UINT_MAX / 2;
}

/* Parses a "{m}", "{m,}" or "{m,n}" quantifier at s into min and max
 * (UINT_MAX: no bound); its length, else 0 (ECMA then reads the brace as
 * a literal). */
static size_t read_braces(const char *s, unsigned *min, unsigned *max)
{
    size_t i = 1;
    if (!isdigit((unsigned char)s[i]))
        return 0;
    *min = *max = read_count(s, &i);
    if (s[i] == ',') {
        i++;
        *max = isdigit((unsigned char)s[i]) ? read_count(s, &i) : UINT_MAX;
    }
    return s[i] == '}' ? i + 1 : 0;
}

/* Writes the ERE quantifier for min..max ("" for exactly once). */
static void emit_quantifier(struct re_buf *b, unsigned min, unsigned max)
{
    char text[32];
    if (max == UINT_MAX && min <= 1)
        snprintf(text, sizeof text, "%s", min ? "+" : "*");
    else if (max == UINT_MAX)
        snprintf(text, sizeof text, "{%u,}", min);
    else if (min == max && min == 1)
        text[0] = '\0';
    else if (min == max)
        snprintf(text, sizeof text, "{%u}", min);
    else if (min == 0 && max == 1)
        snprintf(text, sizeof text, "?");
    else
        snprintf(text, sizeof text, "{%u,%u}", min, max);
    cube_re_puts(b, text);
}

/* Repeats the pending atom min..max times; a lazy '?' after it is read
 * too (laziness cannot change whether a string matches). */
static void translate_quantifier(struct translation *t, unsigned min,
                                 unsigned max)
{
    struct re_cost *a = &t->atom;
    if (!t->has_atom) {
        t->s.failure = "nothing to repeat";
        return;
    }
    if (min > max) {
        t->s.failure = "numbers out of order in {} quantifier";
        return;
    }
    if (min > CUBE_SCHEMA_PATTERN_MAX_REPEAT ||
        (max != UINT_MAX && max > CUBE_SCHEMA_PATTERN_MAX_REPEAT)) {
        t->s.failure = TOO_COMPLEX "a repeat count above "
                       STR(CUBE_SCHEMA_PATTERN_MAX_REPEAT);
        return;
    }
    if (max > 1 && a->through > 0) {
        t->s.failure = TOO_COMPLEX "a repeated part can match the empty "
                       "string through an assertion";
        return;
    }
    if (a->blank || max == 0) {
        drop_atom_text(t);
    } else {
        if (a->empty) /* X+ X{m,}: X*; X? X{m,n}: X{n} */
            min = max == UINT_MAX ? 0 : max;
        emit_quantifier(&t->s.out, min, max);
        cube_re_cost_repeat(a, min, max);
        check_cost(t, a);
    }
    flush_atom(t);
    t->s.p += *t->s.p == '?';
}

static void translate_brace(struct translation *t)
{
    unsigned min, max;
    size_t q = read_braces(t->s.p - 1, &min, &max);
    if (q == 0) {
        begin_atom(t);
        cube_re_puts(&t->s.out, "\\{");
        end_atom(t);
        return;
    }
    t->s.p += q - 1;
    translate_quantifier(t, min, max);
}

static void translate_group_open(struct translation *t)
{
    if (t->s.p[0] == '?' && t->s.p[1] == ':') {
        t->s.p += 2;
    } else if (t->s.p[0] == '?' && t->s.p[1] == '<' && t->s.p[2] != '=' &&
               t->s.p[2] != '!') {
        const char *end = strchr(t->s.p, '>'); /* named: drop the name */
        if (!end) {
            t->s.failure = "unterminated group name";
            return;
        }
        t->s.p = end + 1;
    } else if (t->s.p[0] == '?') {
        t->s.failure = "lookaround assertions are not supported";
        return;
    }
    open_group(t);
}

/* A literal character taken as is, possibly multi-byte. */
static void translate_literal(struct translation *t)
{
    uint32_t cp;
    size_t n = cube_re_utf8_decode(t->s.p, &cp);
    if (n == 0) {
        t->s.failure = "invalid UTF-8 in pattern";
        return;
    }
    t->s.p += n;
    begin_atom(t);
    cube_re_emit_literal(&t->s.out, cp);
    end_atom(t);
}

static void translate_dot(struct translation *t)
{
    struct char_class dot = {0};
    begin_atom(t);
    cube_re_class_set_dot(&dot);
    cube_re_emit_class(&t->s.out, &dot);
    end_atom(t);
}

static void translate_step(struct translation *t)
{
    char c = *t->s.p++;
    switch (c) {
    case '\\':
        translate_escape(t);
        return;
    case '[':
        begin_atom(t);
        cube_re_translate_class(&t->s);
        end_atom(t);
        return;
    case '.':
        translate_dot(t);
        return;
    case '(':
        translate_group_open(t);
        return;
    case ')':
        close_group(t);
        return;
    case '|':
        alternate(t);
        return;
    case '^': case '$':
        add_assertion(t, c == '^' ? "^" : "$");
        return;
    case '*': case '+': case '?':
        translate_quantifier(t, c == '+', c == '?' ? 1 : UINT_MAX);
        return;
    case '{':
        translate_brace(t);
        return;
    default: /* '}' and ']' too: ECMA reads them as literals */
        t->s.p--;
        translate_literal(t);
        return;
    }
}

/* Returns the ERE text (malloc'd) and its estimated regcomp cost in
 * *weight, or NULL with *failure set. */
static char *translate_pattern(const char *pattern, const char **failure,
                               double *weight)
{
    struct translation t = {.s.p = pattern};
    cube_re_cost_empty(&t.frames[0].seq);
    cube_re_puts(&t.s.out, "");
    if (strnlen(pattern, CUBE_SCHEMA_PATTERN_MAX_BYTES + 1) >
        CUBE_SCHEMA_PATTERN_MAX_BYTES)
        t.s.failure = TOO_COMPLEX "longer than "
                      STR(CUBE_SCHEMA_PATTERN_MAX_BYTES) " bytes";
    while (*t.s.p && !t.s.failure)
        translate_step(&t);
    flush_atom(&t);
    if (!t.s.failure && t.depth > 0)
        t.s.failure = "missing ')'";
    if (!t.s.failure) {
        struct re_cost all = close_alternatives(&t, &t.frames[0]);
        check_cost(&t, &all);
        *weight = all.nodes + all.closures;
    }
    if (!t.s.failure && t.s.out.oom)
        t.s.failure = "out of memory";
    if (t.s.failure) {
        free(t.s.out.s);
        *failure = t.s.failure;
        return NULL;
    }
    return t.s.out.s;
}

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
    char *ere = translate_pattern(pattern, &failure, weight);
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
#define CACHE_WEIGHT (4 * (NODES_MAX + CLOSURES_MAX))
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
