/* metrics.c — registry lifetime, descriptor validation and registration. */
#include "metrics_priv.h"
#include "base/utf8.h"

#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The 1.0 fields of struct cube_metric_desc end with bucket_count. */
#define DESC_MIN_SIZE \
    (offsetof(struct cube_metric_desc, bucket_count) + sizeof(unsigned))

static const double default_bounds[] = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
                                        0.5,   1,    2.5,   5,    10};

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


/* True when str is valid UTF-8 throughout. */
bool cube_metrics_utf8_valid(const char *str)
{
    const unsigned char *s = (const unsigned char *)str;
    while (*s) {
        size_t n = *s < 0x80 ? 1 : cube_utf8_seq_len(s);
        if (n == 0)
            return false;
        s += n;
    }
    return true;
}

/* A copy of s with every invalid byte replaced by U+FFFD; NULL on OOM. */
char *cube_metrics_utf8_fix(const char *str)
{
    const unsigned char *s = (const unsigned char *)str;
    char *out = malloc(strlen(str) * 3 + 1), *o = out;
    if (!out)
        return NULL;
    while (*s) {
        size_t n = *s < 0x80 ? 1 : cube_utf8_seq_len(s);
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
    if (!cube_metrics_utf8_valid(d->help)) {
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
    if (m && !m->nlabels &&
        !cube_metric_child_get(m, NULL, cube_metric_label_hash(m, NULL))) {
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
