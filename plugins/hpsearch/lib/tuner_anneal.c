/* tuner_anneal.c — the anneal tuner NNI ships (hyperopt's annealing
 * algorithm): each parameter starts from the value of a good trial, chosen
 * among the trials with a result sorted by loss at index geometric(1 /
 * avg_best_idx) - 1, and is drawn from a neighbourhood of it that shrinks
 * as results come in: a window of shrink = 1 / (1 + T * shrink_coef) of
 * the range for bounded types (T: the trials with a result where the
 * parameter is active; the window kept inside the range), a normal of
 * sigma * shrink around it for normal types, and for a choice the chosen
 * option with probability 1 - shrink (else the prior). Without results a
 * parameter comes from its prior. */
#include <math.h>
#include <stdlib.h>

#include "tuner_internal.h"

struct anneal {
    double avg_best_idx, shrink_coef;
};

static const char *const ANNEAL_ARGS[] = {"avg_best_idx", "shrink_coef", NULL};

static int anneal_init(struct hp_tuner *t, const cJSON *args, struct hp_err *e)
{
    struct anneal *a = calloc(1, sizeof *a);
    if (!a)
        return hp_fail(e, "", "out of memory");
    t->impl = a;
    if (hp_arg_num(args, "avg_best_idx", 2.0, 1.0, 1e6, &a->avg_best_idx, e) < 0 ||
        hp_arg_num(args, "shrink_coef", 0.1, 1e-9, 1e6, &a->shrink_coef, e) < 0)
        return -1;
    return 0;
}

struct scored {
    double loss, v;
    int n;
};

static int cmp_scored(const void *a, const void *b)
{
    const struct scored *x = a, *y = b;
    if (x->loss != y->loss)
        return x->loss < y->loss ? -1 : 1;
    return x->n - y->n;
}

/* A value of dimension d near v, in a window of `shrink` of its range. */
static double near(const struct hp_dim *d, double v, double shrink, struct hp_rng *r)
{
    double lo, hi, t;
    switch (d->type) {
    case HP_CHOICE:
        if (hp_rng_uniform(r) >= shrink)
            return v;
        return (double)hp_rng_below(r, (uint64_t)d->n_options);
    case HP_NORMAL:
    case HP_QNORMAL:
        return hp_dim_round(d, v + d->b * shrink * hp_rng_normal(r));
    case HP_LOGNORMAL:
    case HP_QLOGNORMAL:
        return hp_dim_round(d, exp(log(fmax(v, 1e-300)) + d->b * shrink * hp_rng_normal(r)));
    case HP_RANDINT:
        lo = d->a - 0.5, hi = d->b - 0.5, t = v;
        break;
    case HP_LOGUNIFORM:
    case HP_QLOGUNIFORM:
        lo = log(d->a), hi = log(d->b), t = log(v);
        break;
    default:
        lo = d->a, hi = d->b, t = v;
        break;
    }
    double half = 0.5 * (hi - lo) * shrink;
    double mid = fmin(fmax(t, lo + half), hi - half);
    double u = mid - half + 2 * half * hp_rng_uniform(r);
    if (d->type == HP_RANDINT)
        return hp_dim_round(d, round(u));
    return hp_dim_round(d, hp_type_log(d->type) ? exp(u) : u);
}

static int anneal_suggest(struct hp_tuner *t, const struct hp_obs *h, int nh, int n,
                          struct hp_rng *r, struct hp_suggestion *out)
{
    (void)n;
    const struct anneal *a = t->impl;
    const struct hp_space *s = t->space;
    struct scored *sc = malloc((size_t)(nh + 1) * sizeof *sc);
    if (!sc) {
        hp_space_sample(s, r, out->x);
        return HP_SUGGEST_OK;
    }
    for (int d = 0; d < s->n; d++)
        out->x[d] = NAN;
    for (int d = 0; d < s->n; d++) {
        if (!hp_dim_active(s, out->x, d))
            continue;
        int k = 0;
        for (int i = 0; i < nh; i++)
            if (hp_obs_scored(&h[i]) && !isnan(h[i].x[d]))
                sc[k++] = (struct scored){h[i].loss, h[i].x[d], h[i].n};
        if (k == 0) {
            out->x[d] = hp_dim_sample(&s->dims[d], r);
            continue;
        }
        qsort(sc, (size_t)k, sizeof *sc, cmp_scored);
        int best = hp_rng_geometric(r, 1.0 / a->avg_best_idx) - 1;
        if (best > k - 1)
            best = k - 1;
        out->x[d] = near(&s->dims[d], sc[best].v, 1.0 / (1.0 + k * a->shrink_coef), r);
    }
    free(sc);
    return HP_SUGGEST_OK;
}

const struct hp_tuner_ops hp_tuner_anneal = {
    .name = "anneal", .args = ANNEAL_ARGS, .init = anneal_init, .suggest = anneal_suggest,
};
