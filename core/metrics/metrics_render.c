/* metrics_render.c — Prometheus text exposition (0.0.4) of the registry. */
#include "metrics_priv.h"
#include "base/text.h"

#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Escapes '\\' and newline always, '"' too inside label values: the
 * exposition format's two escaping rules. */
static void buf_escaped(struct cube_text *b, const char *s, bool quote)
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
        cube_text_put(b, run, (size_t)(s - run));
        cube_text_puts(b, esc);
        run = s + 1;
    }
    cube_text_put(b, run, (size_t)(s - run));
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

static void put_value(struct cube_text *b, double v)
{
    char num[40];
    fmt_value(num, sizeof num, v);
    cube_text_puts(b, num);
}

static void put_count(struct cube_text *b, uint64_t v)
{
    char num[24];
    snprintf(num, sizeof num, "%" PRIu64, v);
    cube_text_puts(b, num);
}

/* Writes `{a="x",b="y"[,le="..."]}`, or nothing for an empty set. */
static void put_labels(struct cube_text *b, const struct cube_metric *m,
                       const struct child *c, const char *le)
{
    if (!m->nlabels && !le)
        return;
    cube_text_puts(b, "{");
    for (unsigned i = 0; i < m->nlabels; i++) {
        cube_text_puts(b, i ? "," : "");
        cube_text_puts(b, m->labels[i]);
        cube_text_puts(b, "=\"");
        buf_escaped(b, c->values[i], true);
        cube_text_puts(b, "\"");
    }
    if (le) {
        cube_text_puts(b, m->nlabels ? ",le=\"" : "le=\"");
        cube_text_puts(b, le);
        cube_text_puts(b, "\"");
    }
    cube_text_puts(b, "}");
}

static void put_sample(struct cube_text *b, const struct cube_metric *m,
                       const char *suffix, const struct child *c,
                       const char *le)
{
    cube_text_puts(b, m->name);
    cube_text_puts(b, suffix);
    put_labels(b, m, c, le);
    cube_text_puts(b, " ");
}

static void render_histogram(struct cube_text *b, const struct cube_metric *m,
                             const struct child *c)
{
    uint64_t cum = 0;
    char le[40];
    for (unsigned i = 0; i < m->nbounds; i++) {
        cum += c->buckets[i];
        fmt_value(le, sizeof le, m->bounds[i]);
        put_sample(b, m, "_bucket", c, le);
        put_count(b, cum);
        cube_text_puts(b, "\n");
    }
    put_sample(b, m, "_bucket", c, "+Inf");
    put_count(b, c->count);
    cube_text_puts(b, "\n");
    put_sample(b, m, "_sum", c, NULL);
    put_value(b, c->value);
    cube_text_puts(b, "\n");
    put_sample(b, m, "_count", c, NULL);
    put_count(b, c->count);
}

static void render_child(struct cube_text *b, const struct cube_metric *m,
                         const struct child *c)
{
    if (m->type == CUBE_METRIC_HISTOGRAM) {
        render_histogram(b, m, c);
    } else {
        put_sample(b, m, "", c, NULL);
        put_value(b, c->value);
    }
    cube_text_puts(b, "\n");
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

static void render_children(struct cube_text *b, struct cube_metric *m)
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

static void render_metric(struct cube_text *b, struct cube_metric *m)
{
    cube_text_puts(b, "# HELP ");
    cube_text_puts(b, m->name);
    cube_text_puts(b, " ");
    buf_escaped(b, m->help, false);
    cube_text_puts(b, "\n# TYPE ");
    cube_text_puts(b, m->name);
    cube_text_puts(b, " ");
    cube_text_puts(b, type_name(m->type));
    cube_text_puts(b, "\n");
    render_children(b, m);
}

/* Renders all metrics as Prometheus text 0.0.4; NULL on OOM. */
char *cube_metrics_render(struct cube_metrics *reg, size_t *len)
{
    struct cube_text b = {0};
    cube_text_put(&b, "", 0); /* an empty registry still yields "" */
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
