/* metrics.c — see metrics.h.
 *
 * Each metric owns a mutex and an open-addressing hash table of "children",
 * one per label-value set, so the hot path (an HTTP request bumping a counter
 * and a histogram) costs one hash, one probe and one uncontended lock, and
 * updates to different metrics never contend. The registry mutex only guards
 * the metric list: it is taken by registration and rendering, never by
 * updates. Metrics are never removed before cube_metrics_free, so a handle
 * stays valid for the life of the registry. */
#include "metrics.h"

#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Most label-value sets one metric keeps. Updates that would create more are
 * dropped, so a label fed from request data cannot exhaust memory. */
#define MAX_CHILDREN 10000

/* The 1.0 fields of struct cube_metric_desc end with bucket_count. */
#define DESC_MIN_SIZE \
    (offsetof(struct cube_metric_desc, bucket_count) + sizeof(unsigned))

static const double default_bounds[] = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
                                        0.5,   1,    2.5,   5,    10};

/* One label-value set, allocated as a single block: this struct, the
 * histogram's bucket counts, the value pointers, then the value strings. */
struct child {
    uint64_t hash;
    double value;        /* counter/gauge value; histogram sum */
    uint64_t count;      /* histogram observations */
    const char **values; /* nlabels strings, NULL-terminated (for sorting) */
    uint64_t buckets[];  /* histogram: per-bound counts, not cumulative */
};

struct cube_metric {
    struct cube_metric *next; /* registration order */
    enum cube_metric_type type;
    char *name;
    char *help;
    char *owner;
    char **labels;
    unsigned nlabels;
    double *bounds; /* histogram upper bounds, without +Inf */
    unsigned nbounds;
    pthread_mutex_t mu; /* guards slots, nslots, nchildren and children */
    struct child **slots;
    size_t nslots; /* power of two, at least twice nchildren */
    size_t nchildren;
};

struct cube_metrics {
    pthread_mutex_t mu; /* guards the list; held while rendering */
    struct cube_metric *head;
    struct cube_metric *tail;
};

/* ---- registry lifetime ---- */

/* Creates an empty registry; NULL on OOM. */
struct cube_metrics *cube_metrics_new(void)
{
    struct cube_metrics *reg = calloc(1, sizeof *reg);
    if (!reg)
        return NULL;
    if (pthread_mutex_init(&reg->mu, NULL) != 0) {
        free(reg);
        return NULL;
    }
    return reg;
}

static void metric_free(struct cube_metric *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->nslots; i++)
        free(m->slots[i]);
    free(m->slots);
    for (unsigned i = 0; i < m->nlabels; i++)
        free(m->labels[i]);
    free(m->labels);
    free(m->bounds);
    free(m->name);
    free(m->help);
    free(m->owner);
    pthread_mutex_destroy(&m->mu);
    free(m);
}

/* Frees the registry and every metric handle it returned. */
void cube_metrics_free(struct cube_metrics *reg)
{
    if (!reg)
        return;
    struct cube_metric *m = reg->head;
    while (m) {
        struct cube_metric *next = m->next;
        metric_free(m);
        m = next;
    }
    pthread_mutex_destroy(&reg->mu);
    free(reg);
}

/* ---- descriptor validation ---- */

static void seterr(char *err, size_t errlen, const char *fmt, ...)
    CUBE_PRINTF(3, 4);

static void seterr(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || errlen == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

static bool is_alpha_(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

/* Metric names allow ':' (reserved for recording rules, but legal); label
 * names do not. */
static bool ident_ok(const char *s, bool colon)
{
    if (!s || !(is_alpha_(*s) || (colon && *s == ':')))
        return false;
    for (s++; *s; s++) {
        bool digit = *s >= '0' && *s <= '9';
        if (!(is_alpha_(*s) || digit || (colon && *s == ':')))
            return false;
    }
    return true;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t ls = strlen(s), lx = strlen(suffix);
    return ls >= lx && memcmp(s + ls - lx, suffix, lx) == 0;
}

/* Length of the valid UTF-8 sequence at s (lead byte >= 0x80), 0 if
 * invalid: overlongs, surrogates and code points past U+10FFFF included. */
static size_t utf8_seq(const unsigned char *s)
{
    unsigned char c = s[0], lo = 0x80, hi = 0xbf;
    size_t n = c >= 0xf0 && c <= 0xf4 ? 4 : c >= 0xe0 && c <= 0xef ? 3
             : c >= 0xc2 && c <= 0xdf ? 2 : 0;
    if (c == 0xe0)
        lo = 0xa0;
    else if (c == 0xed)
        hi = 0x9f;
    else if (c == 0xf0)
        lo = 0x90;
    else if (c == 0xf4)
        hi = 0x8f;
    if (n == 0 || s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < n; i++) {
        if (s[i] < 0x80 || s[i] > 0xbf)
            return 0;
    }
    return n;
}

static bool utf8_valid(const char *str)
{
    const unsigned char *s = (const unsigned char *)str;
    while (*s) {
        size_t n = *s < 0x80 ? 1 : utf8_seq(s);
        if (n == 0)
            return false;
        s += n;
    }
    return true;
}

/* A copy of s with every invalid byte replaced by U+FFFD; NULL on OOM. */
static char *utf8_fix(const char *str)
{
    const unsigned char *s = (const unsigned char *)str;
    char *out = malloc(strlen(str) * 3 + 1), *o = out;
    if (!out)
        return NULL;
    while (*s) {
        size_t n = *s < 0x80 ? 1 : utf8_seq(s);
        if (n == 0) {
            memcpy(o, "\xef\xbf\xbd", 3);
            o += 3;
            s++;
            continue;
        }
        memcpy(o, s, n);
        o += n;
        s += n;
    }
    *o = '\0';
    return out;
}

static int check_name(const struct cube_metric_desc *d, char *err,
                      size_t errlen)
{
    if (d->type != CUBE_METRIC_COUNTER && d->type != CUBE_METRIC_GAUGE &&
        d->type != CUBE_METRIC_HISTOGRAM) {
        seterr(err, errlen, "type: unknown metric type %d", (int)d->type);
        return -1;
    }
    if (!d->name || !*d->name) {
        seterr(err, errlen, "name: missing");
        return -1;
    }
    if (!ident_ok(d->name, true)) {
        seterr(err, errlen, "name: \"%s\" is not a valid metric name "
               "([a-zA-Z_:][a-zA-Z0-9_:]*)", d->name);
        return -1;
    }
    if (d->type == CUBE_METRIC_COUNTER && !ends_with(d->name, "_total")) {
        seterr(err, errlen, "name: counter \"%s\" must end in \"_total\"",
               d->name);
        return -1;
    }
    if (!d->help || !*d->help) {
        seterr(err, errlen, "help: missing for \"%s\"", d->name);
        return -1;
    }
    if (!utf8_valid(d->help)) {
        seterr(err, errlen, "help: not valid UTF-8 for \"%s\"", d->name);
        return -1;
    }
    return 0;
}

static int check_label(const struct cube_metric_desc *d, unsigned i,
                       char *err, size_t errlen)
{
    const char *l = d->label_names[i];
    if (!ident_ok(l, false)) {
        seterr(err, errlen, "label_names[%u]: \"%s\" is not a valid label "
               "name ([a-zA-Z_][a-zA-Z0-9_]*)", i, l ? l : "(null)");
        return -1;
    }
    if (l[0] == '_' && l[1] == '_') {
        seterr(err, errlen, "label_names[%u]: \"%s\" is reserved (starts "
               "with \"__\")", i, l);
        return -1;
    }
    if (d->type == CUBE_METRIC_HISTOGRAM && strcmp(l, "le") == 0) {
        seterr(err, errlen, "label_names[%u]: \"le\" is reserved on "
               "histograms", i);
        return -1;
    }
    for (unsigned j = 0; j < i; j++) {
        if (strcmp(d->label_names[j], l) == 0) {
            seterr(err, errlen, "label_names[%u]: duplicate \"%s\"", i, l);
            return -1;
        }
    }
    return 0;
}

static int check_labels(const struct cube_metric_desc *d, char *err,
                        size_t errlen)
{
    if (d->label_count > CUBE_METRIC_MAX_LABELS) {
        seterr(err, errlen, "label_names: %u labels, at most %d allowed",
               d->label_count, CUBE_METRIC_MAX_LABELS);
        return -1;
    }
    if (d->label_count > 0 && !d->label_names) {
        seterr(err, errlen, "label_names: NULL with label_count %u",
               d->label_count);
        return -1;
    }
    for (unsigned i = 0; i < d->label_count; i++) {
        if (check_label(d, i, err, errlen) < 0)
            return -1;
    }
    return 0;
}

static int check_buckets(const struct cube_metric_desc *d, char *err,
                         size_t errlen)
{
    if (d->type != CUBE_METRIC_HISTOGRAM || !d->buckets || !d->bucket_count)
        return 0;
    for (unsigned i = 0; i < d->bucket_count; i++) {
        double b = d->buckets[i];
        /* +Inf is implicit; NaN would make every comparison false. */
        if (!isfinite(b)) {
            seterr(err, errlen, "buckets[%u]: bounds must be finite", i);
            return -1;
        }
        if (i > 0 && !(b > d->buckets[i - 1])) {
            seterr(err, errlen, "buckets[%u]: %g is not greater than %g "
                   "(bounds must be strictly increasing)", i, b,
                   d->buckets[i - 1]);
            return -1;
        }
    }
    return 0;
}

/* ---- metric construction ---- */

static int copy_labels(struct cube_metric *m, const struct cube_metric_desc *d)
{
    m->nlabels = d->label_count;
    if (!m->nlabels)
        return 0;
    m->labels = calloc(m->nlabels, sizeof *m->labels);
    if (!m->labels)
        return -1;
    for (unsigned i = 0; i < m->nlabels; i++) {
        m->labels[i] = strdup(d->label_names[i]);
        if (!m->labels[i])
            return -1;
    }
    return 0;
}

static int copy_bounds(struct cube_metric *m, const struct cube_metric_desc *d)
{
    if (m->type != CUBE_METRIC_HISTOGRAM)
        return 0;
    const double *src = default_bounds;
    unsigned n = sizeof default_bounds / sizeof default_bounds[0];
    if (d->buckets && d->bucket_count) {
        src = d->buckets;
        n = d->bucket_count;
    }
    m->bounds = malloc(n * sizeof *m->bounds);
    if (!m->bounds)
        return -1;
    memcpy(m->bounds, src, n * sizeof *m->bounds);
    m->nbounds = n;
    return 0;
}

/* Builds a metric from a validated descriptor; NULL on OOM. */
static struct cube_metric *metric_new(const struct cube_metric_desc *d,
                                      const char *owner)
{
    struct cube_metric *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    if (pthread_mutex_init(&m->mu, NULL) != 0) {
        free(m);
        return NULL;
    }
    m->type = d->type;
    m->name = strdup(d->name);
    m->help = strdup(d->help);
    m->owner = strdup(owner ? owner : "");
    m->nslots = 8;
    m->slots = calloc(m->nslots, sizeof *m->slots);
    if (!m->name || !m->help || !m->owner || !m->slots)
        goto fail;
    if (copy_labels(m, d) < 0 || copy_bounds(m, d) < 0)
        goto fail;
    return m;
fail:
    metric_free(m);
    return NULL;
}

/* True when a..as equals b..bs (each a concatenation of two strings). */
static bool cat_eq(const char *a, const char *as, const char *b,
                   const char *bs)
{
    for (;;) {
        if (!*a) {
            a = as;
            as = "";
        }
        if (!*b) {
            b = bs;
            bs = "";
        }
        if (*a != *b)
            return false;
        if (!*a)
            return true;
        a++;
        b++;
    }
}

/* Family name plus, for histograms, the series suffixes it renders. */
static const char *const hist_names[] = {"", "_bucket", "_sum", "_count"};

static unsigned names_of(const struct cube_metric *m)
{
    return m->type == CUBE_METRIC_HISTOGRAM ? 4 : 1;
}

/* Rejects a metric whose family or series names collide with one already
 * registered: "x_sum" next to histogram "x" would break the exposition. */
static int check_clash(const struct cube_metrics *reg,
                       const struct cube_metric *m, char *err, size_t errlen)
{
    for (const struct cube_metric *o = reg->head; o; o = o->next) {
        if (strcmp(o->name, m->name) == 0) {
            seterr(err, errlen, "name: \"%s\" already registered%s%s",
                   m->name, *o->owner ? " by " : "", o->owner);
            return -1;
        }
        for (unsigned i = 0; i < names_of(m); i++) {
            for (unsigned j = 0; j < names_of(o); j++) {
                if (!cat_eq(m->name, hist_names[i], o->name, hist_names[j]))
                    continue;
                seterr(err, errlen, "name: \"%s%s\" clashes with a series "
                       "of \"%s\"%s%s", m->name, hist_names[i], o->name,
                       *o->owner ? " registered by " : "", o->owner);
                return -1;
            }
        }
    }
    return 0;
}

/* Copies *desc into a zeroed struct of our size, so fields added after the
 * caller's ABI version read as zero. */
static int desc_copy(struct cube_metric_desc *d,
                     const struct cube_metric_desc *desc, char *err,
                     size_t errlen)
{
    if (!desc) {
        seterr(err, errlen, "descriptor: NULL");
        return -1;
    }
    if (desc->size < DESC_MIN_SIZE) {
        seterr(err, errlen, "descriptor too small (size %zu, need at least "
               "%zu)", desc->size, (size_t)DESC_MIN_SIZE);
        return -1;
    }
    memset(d, 0, sizeof *d);
    memcpy(d, desc, desc->size < sizeof *d ? desc->size : sizeof *d);
    return 0;
}

/* ---- children: label-value sets ---- */

/* A NULL array or NULL entry stands for the empty value. */
static const char *label_value(const char *const *vals, unsigned i)
{
    return vals && vals[i] ? vals[i] : "";
}

/* FNV-1a over the values, each followed by a 0xff separator so that
 * ("ab","c") and ("a","bc") differ. */
static uint64_t hash_values(const struct cube_metric *m,
                            const char *const *vals)
{
    uint64_t h = 14695981039346656037ull;
    for (unsigned i = 0; i < m->nlabels; i++) {
        const unsigned char *p = (const unsigned char *)label_value(vals, i);
        for (; *p; p++)
            h = (h ^ *p) * 1099511628211ull;
        h = (h ^ 0xff) * 1099511628211ull;
    }
    return h;
}

static bool child_matches(const struct cube_metric *m, const struct child *c,
                          uint64_t h, const char *const *vals)
{
    if (c->hash != h)
        return false;
    for (unsigned i = 0; i < m->nlabels; i++) {
        if (strcmp(c->values[i], label_value(vals, i)) != 0)
            return false;
    }
    return true;
}

static struct child *child_new(const struct cube_metric *m,
                               const char *const *vals, uint64_t h)
{
    size_t nb = m->type == CUBE_METRIC_HISTOGRAM ? m->nbounds : 0;
    size_t head = sizeof(struct child) + nb * sizeof(uint64_t);
    size_t ptrs = (m->nlabels + 1) * sizeof(char *);
    size_t lens[CUBE_METRIC_MAX_LABELS];
    size_t size = head + ptrs;
    for (unsigned i = 0; i < m->nlabels; i++) {
        lens[i] = strlen(label_value(vals, i)) + 1;
        size += lens[i];
    }
    struct child *c = calloc(1, size);
    if (!c)
        return NULL;
    c->hash = h;
    c->values = (const char **)((char *)c + head);
    char *p = (char *)c + head + ptrs;
    for (unsigned i = 0; i < m->nlabels; i++) {
        memcpy(p, label_value(vals, i), lens[i]);
        c->values[i] = p;
        p += lens[i];
    }
    c->values[m->nlabels] = NULL;
    return c;
}

static void slot_insert(struct child **slots, size_t nslots, struct child *c)
{
    size_t i = c->hash & (nslots - 1);
    while (slots[i])
        i = (i + 1) & (nslots - 1);
    slots[i] = c;
}

static int slots_grow(struct cube_metric *m)
{
    size_t n = m->nslots * 2;
    struct child **s = calloc(n, sizeof *s);
    if (!s)
        return -1;
    for (size_t i = 0; i < m->nslots; i++) {
        if (m->slots[i])
            slot_insert(s, n, m->slots[i]);
    }
    free(m->slots);
    m->slots = s;
    m->nslots = n;
    return 0;
}

/* Finds or creates the child for vals; NULL on OOM or at MAX_CHILDREN.
 * Caller holds m->mu. */
static struct child *child_get(struct cube_metric *m, const char *const *vals,
                               uint64_t h)
{
    size_t mask = m->nslots - 1;
    for (size_t i = h & mask; m->slots[i]; i = (i + 1) & mask) {
        if (child_matches(m, m->slots[i], h, vals))
            return m->slots[i];
    }
    if (m->nchildren >= MAX_CHILDREN)
        return NULL;
    if ((m->nchildren + 1) * 2 > m->nslots && slots_grow(m) < 0)
        return NULL;
    struct child *c = child_new(m, vals, h);
    if (!c)
        return NULL;
    slot_insert(m->slots, m->nslots, c);
    m->nchildren++;
    return c;
}

/* Validates and adds a metric; NULL with a "field: reason" message in err. */
struct cube_metric *cube_metrics_register(struct cube_metrics *reg,
                                          const struct cube_metric_desc *desc,
                                          const char *owner, char *err,
                                          size_t errlen)
{
    struct cube_metric_desc d;
    if (!reg) {
        seterr(err, errlen, "registry: NULL");
        return NULL;
    }
    if (desc_copy(&d, desc, err, errlen) < 0 ||
        check_name(&d, err, errlen) < 0 || check_labels(&d, err, errlen) < 0 ||
        check_buckets(&d, err, errlen) < 0)
        return NULL;
    struct cube_metric *m = metric_new(&d, owner);
    /* An unlabelled metric gets its one child now, so it renders a zero
     * sample (or an empty histogram) from the first scrape. */
    if (m && !m->nlabels && !child_get(m, NULL, hash_values(m, NULL))) {
        metric_free(m);
        m = NULL;
    }
    if (!m) {
        seterr(err, errlen, "out of memory registering \"%s\"", d.name);
        return NULL;
    }
    pthread_mutex_lock(&reg->mu);
    if (check_clash(reg, m, err, errlen) < 0) {
        pthread_mutex_unlock(&reg->mu);
        metric_free(m);
        return NULL;
    }
    if (reg->tail)
        reg->tail->next = m;
    else
        reg->head = m;
    reg->tail = m;
    pthread_mutex_unlock(&reg->mu);
    return m;
}

/* ---- updates ---- */

enum op { OP_ADD, OP_SET, OP_OBSERVE };

/* Index of the first bound >= v, or nbounds when v exceeds them all. */
static unsigned bucket_index(const struct cube_metric *m, double v)
{
    unsigned lo = 0, hi = m->nbounds;
    while (lo < hi) {
        unsigned mid = lo + (hi - lo) / 2;
        if (v <= m->bounds[mid])
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

static void update_child(struct cube_metric *m, const char *const *vals,
                         enum op op, double v)
{
    uint64_t h = hash_values(m, vals);
    unsigned b = op == OP_OBSERVE ? bucket_index(m, v) : 0;
    pthread_mutex_lock(&m->mu);
    struct child *c = child_get(m, vals, h);
    if (c && op == OP_ADD) {
        c->value += v;
    } else if (c && op == OP_SET) {
        c->value = v;
    } else if (c) {
        if (b < m->nbounds)
            c->buckets[b]++;
        c->count++;
        c->value += v;
    }
    pthread_mutex_unlock(&m->mu);
}

/* Prometheus rejects a whole scrape over one label value that is not UTF-8,
 * so invalid bytes become U+FFFD before the lookup. */
static void update(struct cube_metric *m, const char *const *vals, enum op op,
                   double v)
{
    const char *fixed[CUBE_METRIC_MAX_LABELS + 1];
    char *owned[CUBE_METRIC_MAX_LABELS] = {0};
    for (unsigned i = 0; i < m->nlabels; i++) {
        fixed[i] = label_value(vals, i);
        if (utf8_valid(fixed[i]))
            continue;
        fixed[i] = owned[i] = utf8_fix(fixed[i]);
        if (!owned[i])
            goto out;
    }
    update_child(m, fixed, op, v);
out:
    for (unsigned i = 0; i < m->nlabels; i++)
        free(owned[i]);
}

/* Adds v to a counter (v >= 0) or gauge; other cases are ignored. */
void cube_metric_add(struct cube_metric *m, const char *const *label_values,
                     double v)
{
    if (!m || m->type == CUBE_METRIC_HISTOGRAM)
        return;
    if (m->type == CUBE_METRIC_COUNTER && !(v >= 0)) /* also rejects NaN */
        return;
    update(m, label_values, OP_ADD, v);
}

/* Sets a gauge; ignored on other types. */
void cube_metric_set(struct cube_metric *m, const char *const *label_values,
                     double v)
{
    if (!m || m->type != CUBE_METRIC_GAUGE)
        return;
    update(m, label_values, OP_SET, v);
}

/* Records one histogram observation; ignored on other types and for NaN,
 * which would poison _sum forever. */
void cube_metric_observe(struct cube_metric *m,
                         const char *const *label_values, double v)
{
    if (!m || m->type != CUBE_METRIC_HISTOGRAM || isnan(v))
        return;
    update(m, label_values, OP_OBSERVE, v);
}

/* ---- rendering ---- */

struct buf {
    char *p;
    size_t len;
    size_t cap;
    bool oom;
};

static void buf_put(struct buf *b, const char *s, size_t n)
{
    if (b->oom)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (b->len + n + 1 > cap)
            cap *= 2;
        char *p = realloc(b->p, cap);
        if (!p) {
            b->oom = true;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static void buf_puts(struct buf *b, const char *s)
{
    buf_put(b, s, strlen(s));
}

/* Escapes '\\' and newline always, '"' too inside label values: the
 * exposition format's two escaping rules. */
static void buf_escaped(struct buf *b, const char *s, bool quote)
{
    const char *run = s;
    for (; *s; s++) {
        const char *esc = NULL;
        if (*s == '\\')
            esc = "\\\\";
        else if (*s == '\n')
            esc = "\\n";
        else if (*s == '"' && quote)
            esc = "\\\"";
        if (!esc)
            continue;
        buf_put(b, run, (size_t)(s - run));
        buf_puts(b, esc);
        run = s + 1;
    }
    buf_put(b, run, (size_t)(s - run));
}

/* Formats v so Prometheus parses it back exactly: integers plainly, other
 * values with the shortest %g precision that round-trips. */
static void fmt_value(char *out, size_t n, double v)
{
    if (isnan(v)) {
        snprintf(out, n, "NaN");
    } else if (isinf(v)) {
        snprintf(out, n, v > 0 ? "+Inf" : "-Inf");
    } else if (v == 0) {
        snprintf(out, n, "0"); /* also -0 */
    } else if (fabs(v) < 1e15 && v == trunc(v)) {
        snprintf(out, n, "%.0f", v);
    } else {
        for (int prec = 15; prec <= 17; prec++) {
            snprintf(out, n, "%.*g", prec, v);
            if (strtod(out, NULL) == v)
                break;
        }
    }
}

static void put_value(struct buf *b, double v)
{
    char num[40];
    fmt_value(num, sizeof num, v);
    buf_puts(b, num);
}

static void put_count(struct buf *b, uint64_t v)
{
    char num[24];
    snprintf(num, sizeof num, "%" PRIu64, v);
    buf_puts(b, num);
}

/* Writes `{a="x",b="y"[,le="..."]}`, or nothing for an empty set. */
static void put_labels(struct buf *b, const struct cube_metric *m,
                       const struct child *c, const char *le)
{
    if (!m->nlabels && !le)
        return;
    buf_puts(b, "{");
    for (unsigned i = 0; i < m->nlabels; i++) {
        buf_puts(b, i ? "," : "");
        buf_puts(b, m->labels[i]);
        buf_puts(b, "=\"");
        buf_escaped(b, c->values[i], true);
        buf_puts(b, "\"");
    }
    if (le) {
        buf_puts(b, m->nlabels ? ",le=\"" : "le=\"");
        buf_puts(b, le);
        buf_puts(b, "\"");
    }
    buf_puts(b, "}");
}

static void put_sample(struct buf *b, const struct cube_metric *m,
                       const char *suffix, const struct child *c,
                       const char *le)
{
    buf_puts(b, m->name);
    buf_puts(b, suffix);
    put_labels(b, m, c, le);
    buf_puts(b, " ");
}

static void render_histogram(struct buf *b, const struct cube_metric *m,
                             const struct child *c)
{
    uint64_t cum = 0;
    char le[40];
    for (unsigned i = 0; i < m->nbounds; i++) {
        cum += c->buckets[i];
        fmt_value(le, sizeof le, m->bounds[i]);
        put_sample(b, m, "_bucket", c, le);
        put_count(b, cum);
        buf_puts(b, "\n");
    }
    put_sample(b, m, "_bucket", c, "+Inf");
    put_count(b, c->count);
    buf_puts(b, "\n");
    put_sample(b, m, "_sum", c, NULL);
    put_value(b, c->value);
    buf_puts(b, "\n");
    put_sample(b, m, "_count", c, NULL);
    put_count(b, c->count);
}

static void render_child(struct buf *b, const struct cube_metric *m,
                         const struct child *c)
{
    if (m->type == CUBE_METRIC_HISTOGRAM) {
        render_histogram(b, m, c);
    } else {
        put_sample(b, m, "", c, NULL);
        put_value(b, c->value);
    }
    buf_puts(b, "\n");
}

/* Orders children by their label values, so output is stable between
 * scrapes whatever order requests arrived in. */
static int child_cmp(const void *pa, const void *pb)
{
    const struct child *a = *(const struct child *const *)pa;
    const struct child *b = *(const struct child *const *)pb;
    for (unsigned i = 0; a->values[i]; i++) {
        int r = strcmp(a->values[i], b->values[i]);
        if (r)
            return r;
    }
    return 0;
}

static const char *type_name(enum cube_metric_type t)
{
    return t == CUBE_METRIC_COUNTER ? "counter"
           : t == CUBE_METRIC_GAUGE ? "gauge" : "histogram";
}

static void render_children(struct buf *b, struct cube_metric *m)
{
    pthread_mutex_lock(&m->mu);
    struct child **list = NULL;
    if (m->nchildren) {
        list = malloc(m->nchildren * sizeof *list);
        if (!list) {
            b->oom = true;
            goto out;
        }
    }
    size_t n = 0;
    for (size_t i = 0; i < m->nslots; i++) {
        if (m->slots[i])
            list[n++] = m->slots[i];
    }
    if (n > 1)
        qsort(list, n, sizeof *list, child_cmp);
    for (size_t i = 0; i < n; i++)
        render_child(b, m, list[i]);
out:
    pthread_mutex_unlock(&m->mu);
    free(list);
}

static void render_metric(struct buf *b, struct cube_metric *m)
{
    buf_puts(b, "# HELP ");
    buf_puts(b, m->name);
    buf_puts(b, " ");
    buf_escaped(b, m->help, false);
    buf_puts(b, "\n# TYPE ");
    buf_puts(b, m->name);
    buf_puts(b, " ");
    buf_puts(b, type_name(m->type));
    buf_puts(b, "\n");
    render_children(b, m);
}

/* Renders all metrics as Prometheus text 0.0.4; NULL on OOM. */
char *cube_metrics_render(struct cube_metrics *reg, size_t *len)
{
    struct buf b = {0};
    buf_put(&b, "", 0); /* an empty registry still yields "" */
    if (reg) {
        pthread_mutex_lock(&reg->mu);
        for (struct cube_metric *m = reg->head; m; m = m->next)
            render_metric(&b, m);
        pthread_mutex_unlock(&reg->mu);
    }
    if (b.oom) {
        free(b.p);
        return NULL;
    }
    if (len)
        *len = b.len;
    return b.p;
}
