/* space_sample.c — values of a search space's dimensions: drawn from their
 * priors (NNI's semantics, hp.h), rounded for the q-types, and whole
 * configurations with their conditional dimensions settled. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "hp.h"

/* k * q without the binary noise of the product (0.1 * 3 is
 * 0.30000000000000004): the shortest decimal that reads back close. */
static double multiple(double k, double q)
{
    double v = k * q;
    char buf[40];
    snprintf(buf, sizeof buf, "%.12g", v);
    double t = strtod(buf, NULL);
    return fabs(t - v) <= 1e-9 * fmax(fabs(v), fabs(q)) ? t : v;
}

static double clip(double v, double lo, double hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

double hp_dim_round(const struct hp_dim *d, double v)
{
    switch (d->type) {
    case HP_CHOICE:
        return clip(round(v), 0, d->n_options - 1);
    case HP_RANDINT:
        return clip(floor(v), d->a, d->b - 1);
    case HP_UNIFORM:
    case HP_LOGUNIFORM:
        return clip(v, d->a, d->b);
    case HP_QUNIFORM:
    case HP_QLOGUNIFORM:
        return clip(multiple(round(v / d->q), d->q), d->a, d->b);
    case HP_QNORMAL:
    case HP_QLOGNORMAL:
        return multiple(round(v / d->q), d->q);
    case HP_NORMAL:
    case HP_LOGNORMAL:
        return v;
    }
    return v;
}

double hp_dim_sample(const struct hp_dim *d, struct hp_rng *r)
{
    double u = hp_rng_uniform(r);
    switch (d->type) {
    case HP_CHOICE:
        return (double)hp_rng_below(r, (uint64_t)d->n_options);
    case HP_RANDINT:
        return d->a + (double)hp_rng_below(r, (uint64_t)(d->b - d->a));
    case HP_UNIFORM:
    case HP_QUNIFORM:
        return hp_dim_round(d, d->a + u * (d->b - d->a));
    case HP_LOGUNIFORM:
    case HP_QLOGUNIFORM: {
        double la = log(d->a), lb = log(d->b);
        return hp_dim_round(d, exp(la + u * (lb - la)));
    }
    case HP_NORMAL:
    case HP_QNORMAL:
        return hp_dim_round(d, d->a + d->b * hp_rng_normal(r));
    case HP_LOGNORMAL:
    case HP_QLOGNORMAL:
        return hp_dim_round(d, exp(d->a + d->b * hp_rng_normal(r)));
    }
    return NAN;
}

void hp_space_sample(const struct hp_space *s, struct hp_rng *r, double *x)
{
    for (int d = 0; d < s->n; d++)
        x[d] = NAN;
    hp_space_settle(s, r, x);
}

/* Parents come before their children, so one pass in order settles all. */
void hp_space_settle(const struct hp_space *s, struct hp_rng *r, double *x)
{
    for (int d = 0; d < s->n; d++) {
        if (!hp_dim_active(s, x, d))
            x[d] = NAN;
        else if (isnan(x[d]))
            x[d] = hp_dim_sample(&s->dims[d], r);
    }
}
