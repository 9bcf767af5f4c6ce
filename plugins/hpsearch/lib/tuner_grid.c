/* tuner_grid.c — grid search: every combination of the values of choice,
 * randint, quniform and qloguniform dimensions, each exactly once, in
 * mixed-radix order (the last parameter changes fastest). A nested choice
 * contributes the grids of its options one after the other. A continuous
 * (or unbounded) dimension has no grid: refused, naming it. The i-th point
 * is computed from i alone, so nothing is kept between suggestions; the
 * tuner's own trials so far say which point is next. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "tuner_internal.h"

#define GRID_MAX 1000000000000000LL   /* 10^15 points */

struct grid {
    long long total;
    long long *count;      /* per dimension: its points (a choice: over its options) */
    long long **opt_count; /* per choice dimension, per option: points of the option */
};

/* The multiples k * q strictly inside (low, high): k from *k0 to *k1. */
static void inner_multiples(const struct hp_dim *d, double *k0, double *k1)
{
    *k0 = floor(d->a / d->q + 1e-9) + 1;
    *k1 = ceil(d->b / d->q - 1e-9) - 1;
}

/* The grid values of a numeric dimension: randint's integers; for q-types
 * the distinct values of clip(round(v / q) * q, low, high): low, the
 * multiples of q inside, high. */
static long long numeric_points(const struct hp_dim *d)
{
    if (d->type == HP_RANDINT)
        return (long long)(d->b - d->a);
    double k0, k1;
    inner_multiples(d, &k0, &k1);
    double inner = k1 >= k0 ? k1 - k0 + 1 : 0;
    return inner > (double)GRID_MAX ? GRID_MAX + 1 : (long long)inner + 2;
}

static double numeric_value(const struct hp_dim *d, long long i, long long count)
{
    if (d->type == HP_RANDINT)
        return d->a + (double)i;
    if (i == 0)
        return d->a;
    if (i == count - 1)
        return d->b;
    double k0, k1;
    inner_multiples(d, &k0, &k1);
    return hp_dim_round(d, (k0 + (double)(i - 1)) * d->q);
}

static long long mul(long long a, long long b)
{
    return a && b > GRID_MAX / a ? GRID_MAX + 1 : a * b;
}

/* Points of the level under (parent, option): the product over its dims. */
static long long level_count(struct grid *g, const struct hp_space *s, int parent, int option)
{
    long long c = 1;
    for (int i = 0; i < s->n; i++) {
        const struct hp_dim *d = &s->dims[i];
        if (d->parent == parent && (parent < 0 || d->parent_option == option))
            c = mul(c, g->count[i]);
    }
    return c;
}

static int grid_init(struct hp_tuner *t, const cJSON *args, struct hp_err *e)
{
    (void)args;
    const struct hp_space *s = t->space;
    struct grid *g = calloc(1, sizeof *g);
    if (!g || !(g->count = calloc((size_t)s->n, sizeof *g->count)) ||
        !(g->opt_count = calloc((size_t)s->n, sizeof *g->opt_count))) {
        t->impl = g;
        return hp_fail(e, "", "out of memory");
    }
    t->impl = g;
    for (int i = s->n - 1; i >= 0; i--) {   /* children before their choice */
        const struct hp_dim *d = &s->dims[i];
        if (d->type == HP_CHOICE) {
            if (!(g->opt_count[i] = calloc((size_t)d->n_options, sizeof **g->opt_count)))
                return hp_fail(e, "", "out of memory");
            long long c = 0;
            for (int k = 0; k < d->n_options; k++) {
                g->opt_count[i][k] = level_count(g, s, i, k);
                c = c + g->opt_count[i][k] > GRID_MAX ? GRID_MAX + 1 : c + g->opt_count[i][k];
            }
            g->count[i] = c;
        } else if (d->type == HP_RANDINT || d->type == HP_QUNIFORM ||
                   d->type == HP_QLOGUNIFORM) {
            g->count[i] = numeric_points(d);
        } else {
            char f[400];
            snprintf(f, sizeof f, "%s._type", d->field);
            return hp_fail(e, f, "the grid tuner enumerates choice, randint, quniform and "
                           "qloguniform; %s is %s (give it a q: q%s, or use another tuner)",
                           d->name, hp_type_log(d->type) || d->type == HP_UNIFORM
                                        ? "continuous" : "unbounded",
                           hp_type_name(d->type));
        }
    }
    g->total = level_count(g, s, -1, -1);
    if (g->total > GRID_MAX)
        return hp_fail(e, "", "the grid has more than 10^15 points");
    return 0;
}

static void decode_level(const struct grid *g, const struct hp_space *s, int parent,
                         int option, long long idx, double *x)
{
    for (int i = s->n - 1; i >= 0; i--) {   /* the last dimension fastest */
        const struct hp_dim *d = &s->dims[i];
        if (d->parent != parent || (parent >= 0 && d->parent_option != option))
            continue;
        long long r = idx % g->count[i];
        idx /= g->count[i];
        if (d->type != HP_CHOICE) {
            x[i] = numeric_value(d, r, g->count[i]);
            continue;
        }
        int k = 0;
        while (r >= g->opt_count[i][k])
            r -= g->opt_count[i][k++];
        x[i] = k;
        decode_level(g, s, i, k, r, x);
    }
}

static int grid_suggest(struct hp_tuner *t, const struct hp_obs *h, int nh, int n,
                        struct hp_rng *r, struct hp_suggestion *out)
{
    (void)n, (void)r;
    const struct grid *g = t->impl;
    long long idx = hp_obs_own(h, nh);
    if (idx >= g->total)
        return HP_SUGGEST_DONE;
    for (int i = 0; i < t->space->n; i++)
        out->x[i] = NAN;
    decode_level(g, t->space, -1, -1, idx, out->x);
    return HP_SUGGEST_OK;
}

static long long grid_total(const struct hp_tuner *t)
{
    return ((const struct grid *)t->impl)->total;
}

static void grid_fini(struct hp_tuner *t)
{
    struct grid *g = t->impl;
    if (!g)
        return;
    for (int i = 0; g->opt_count && i < t->space->n; i++)
        free(g->opt_count[i]);
    free(g->opt_count);
    free(g->count);
    free(g);
}

const struct hp_tuner_ops hp_tuner_grid = {
    .name = "grid", .init = grid_init, .suggest = grid_suggest, .total = grid_total,
    .fini = grid_fini,
};
