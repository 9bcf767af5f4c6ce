/* parzen.c — one dimension's Parzen estimator for TPE (Bergstra et al.
 * 2011), with the bandwidth rules Optuna documents for its TPESampler:
 *
 *  - numeric dimensions: a mixture of normals truncated to the range, in
 *    internal coordinates (log for log types; discrete types widened by
 *    half a step each side and scored by the mass of their bin), one
 *    component per observation plus the prior (centred, as wide as the
 *    range; a normal type's own N(mu, sigma));
 *  - each observation's sigma is the larger distance to its neighbours
 *    (the range's ends count, except next to the first and last), or a
 *    fixed fraction of the range (the multivariate rule), then clipped to
 *    [range / min(100, 1 + components), range] ("magic clip");
 *  - a choice: per component, prior_weight / (n + 1) on every option plus
 *    1 on the observed one, normalised; the prior component is uniform;
 *  - mixture weights: the observations' weights, then prior_weight,
 *    normalised. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tuner_internal.h"

double hp_parzen_to_internal(const struct hp_dim *d, double v)
{
    if (hp_type_log(d->type))
        return log(fmax(v, d->type == HP_QLOGNORMAL ? d->q / 2 : 1e-300));
    return v;
}

double hp_parzen_from_internal(const struct hp_dim *d, double t)
{
    return hp_dim_round(d, hp_type_log(d->type) ? exp(t) : t);
}

/* The range of d in internal coordinates, its width for the bandwidth
 * rules, the prior and the bin width. */
static void internal_range(const struct hp_dim *d, double *lo, double *hi, double *width,
                           double *pmu, double *psigma, double *step)
{
    *step = 0;
    switch (d->type) {
    case HP_RANDINT:
        *lo = d->a - 0.5, *hi = d->b - 0.5, *step = 1;
        break;
    case HP_QUNIFORM:
        *lo = d->a - d->q / 2, *hi = d->b + d->q / 2, *step = d->q;
        break;
    case HP_UNIFORM:
        *lo = d->a, *hi = d->b;
        break;
    case HP_LOGUNIFORM:
    case HP_QLOGUNIFORM:
        *lo = log(d->a), *hi = log(d->b);
        break;
    default:   /* normal-like: unbounded, the prior is the type's own */
        *lo = -INFINITY, *hi = INFINITY;
        *step = d->type == HP_QNORMAL ? d->q : 0;
        *pmu = d->a;
        *psigma = d->b;
        *width = 4 * d->b;
        return;
    }
    *width = *hi - *lo;
    *pmu = 0.5 * (*lo + *hi);
    *psigma = *width;
}

struct centre {
    double mu;
    int i;
};

static int cmp_centre(const void *a, const void *b)
{
    const struct centre *x = a, *y = b;
    return x->mu < y->mu ? -1 : x->mu > y->mu ? 1 : x->i - y->i;
}

/* Neighbour distances of the sorted centres (Optuna's univariate rule). */
static void neighbour_sigmas(const double *mu, int n, double lo, double hi, double *sigma)
{
    struct centre *c = malloc((size_t)n * sizeof *c);
    if (!c) {
        for (int i = 0; i < n; i++)
            sigma[i] = hi - lo;
        return;
    }
    for (int i = 0; i < n; i++)
        c[i] = (struct centre){mu[i], i};
    qsort(c, (size_t)n, sizeof *c, cmp_centre);
    for (int j = 0; j < n; j++) {
        double left = j > 0 ? c[j].mu - c[j - 1].mu : c[j].mu - lo;
        double right = j < n - 1 ? c[j + 1].mu - c[j].mu : hi - c[j].mu;
        if (n >= 2 && j == 0)
            left = right;          /* the ends do not count next to the extremes */
        if (n >= 2 && j == n - 1)
            right = left;
        sigma[c[j].i] = fmax(left, right);
    }
    free(c);
}

static double log_ndiff(double a, double b);

static int build_choice(struct hp_parzen *pe, const double *obs, const double *wobs, int n,
                        double pw)
{
    int k = pe->dim->n_options;
    if (!(pe->p = calloc((size_t)k, sizeof *pe->p)))
        return -1;
    pe->eps = pw / (n + 1);   /* each component's mass on every option */
    double eps = pe->eps, norm = k * eps + 1;
    for (int i = 0; i < n; i++) {
        pe->mu[i] = obs[i];
        for (int c = 0; c < k; c++)
            pe->p[c] += pe->w[i] * (eps + (c == (int)obs[i])) / norm;
    }
    pe->mu[n] = -1;   /* the prior: uniform */
    for (int c = 0; c < k; c++)
        pe->p[c] += pe->w[n] / k;
    (void)wobs;
    return 0;
}

int hp_parzen_build(struct hp_parzen *pe, const struct hp_dim *dim, const double *obs,
                    const double *wobs, int n_obs, const struct hp_parzen_opts *o)
{
    double prior_weight = o->prior_weight, bandwidth = o->bandwidth;
    memset(pe, 0, sizeof *pe);
    pe->dim = dim;
    pe->n = n_obs + 1;
    double *block = malloc((size_t)pe->n * 6 * sizeof *block);
    if (!block)
        return -1;
    pe->mu = block, pe->sigma = block + pe->n, pe->w = block + 2 * pe->n;
    pe->logw = block + 3 * pe->n, pe->c = block + 4 * pe->n, pe->isig = block + 5 * pe->n;
    double sum = prior_weight;
    for (int i = 0; i < n_obs; i++)
        sum += wobs[i];
    for (int i = 0; i < n_obs; i++)
        pe->w[i] = wobs[i] / sum;
    pe->w[n_obs] = prior_weight / sum;
    for (int i = 0; i <= n_obs; i++)
        pe->logw[i] = log(pe->w[i]);
    if (dim->type == HP_CHOICE)
        return build_choice(pe, obs, wobs, n_obs, prior_weight);
    double width, pmu, psigma;
    internal_range(dim, &pe->lo, &pe->hi, &width, &pmu, &psigma, &pe->step);
    for (int i = 0; i < n_obs; i++)
        pe->mu[i] = hp_parzen_to_internal(dim, obs[i]);
    pe->mu[n_obs] = pmu;
    if (bandwidth > 0)
        for (int i = 0; i < pe->n; i++)
            pe->sigma[i] = bandwidth * width;
    else
        neighbour_sigmas(pe->mu, pe->n, isfinite(pe->lo) ? pe->lo : pmu - width,
                         isfinite(pe->hi) ? pe->hi : pmu + width, pe->sigma);
    double smin = width / fmin(100.0, 1.0 + (o->clip_n > 0 ? o->clip_n : pe->n)), smax = width;
    for (int i = 0; i < pe->n; i++)
        pe->sigma[i] = fmin(fmax(pe->sigma[i], smin), smax);
    pe->sigma[n_obs] = psigma;
    for (int i = 0; i < pe->n; i++) {
        double logz = log_ndiff((pe->lo - pe->mu[i]) / pe->sigma[i],
                                (pe->hi - pe->mu[i]) / pe->sigma[i]);
        pe->isig[i] = 1 / pe->sigma[i];
        pe->c[i] = pe->step > 0 ? -logz
                                : -0.91893853320467274178 - log(pe->sigma[i]) - logz;
    }
    return 0;
}

void hp_parzen_free(struct hp_parzen *pe)
{
    free(pe->mu);   /* the block of mu, sigma, w, logw, c, isig */
    free(pe->p);
    memset(pe, 0, sizeof *pe);
}

/* log Phi(x), also far in the left tail. */
static double log_ncdf(double x)
{
    if (x > -30)
        return log(hp_norm_cdf(x));
    return hp_norm_logpdf(x) - log(-x) + log1p(-1 / (x * x));
}

/* log(Phi(b) - Phi(a)) for a < b, with precision in both tails. */
static double log_ndiff(double a, double b)
{
    if (!(a < b))
        return -INFINITY;
    if (a > 0) {
        double t = a;
        a = -b;
        b = -t;
    }
    double d = hp_norm_cdf(b) - hp_norm_cdf(a);
    if (d > 1e-300)
        return log(d);
    double la = log_ncdf(a), lb = log_ncdf(b);
    return lb + log1p(-exp(la - lb));
}

double hp_parzen_point(const struct hp_parzen *pe, double v)
{
    return pe->dim->type == HP_CHOICE ? v : hp_parzen_to_internal(pe->dim, v);
}

double hp_parzen_logpdf_kt(const struct hp_parzen *pe, int k, double t)
{
    if (pe->dim->type == HP_CHOICE) {
        int kk = pe->dim->n_options;
        if (pe->mu[k] < 0)
            return -log((double)kk);
        return log((pe->eps + ((int)t == (int)pe->mu[k])) / (kk * pe->eps + 1));
    }
    double mu = pe->mu[k];
    if (pe->step > 0) {
        double a = fmax(t - pe->step / 2, pe->lo), b = fmin(t + pe->step / 2, pe->hi);
        return log_ndiff((a - mu) * pe->isig[k], (b - mu) * pe->isig[k]) + pe->c[k];
    }
    double z = (t - mu) * pe->isig[k];
    return pe->c[k] - 0.5 * z * z;
}

double hp_parzen_logpdf_k(const struct hp_parzen *pe, int k, double v)
{
    return hp_parzen_logpdf_kt(pe, k, hp_parzen_point(pe, v));
}

/* log sum exp, one term at a time. Terms more than 40 below the largest
 * are dropped (below a double's precision of the sum, and exp's underflow
 * path is slow). */
void hp_lse_add(double *m, double *sum, double l)
{
    if (l <= *m - 40 || l == -INFINITY)
        return;
    if (l > *m) {
        *sum = l - *m >= 40 ? 1 : *sum * exp(*m - l) + 1;
        *m = l;
    } else {
        *sum += exp(l - *m);
    }
}

double hp_parzen_logpdf(const struct hp_parzen *pe, double v)
{
    if (pe->dim->type == HP_CHOICE)
        return log(pe->p[(int)v]);
    double t = hp_parzen_point(pe, v), m = -INFINITY, sum = 0;
    for (int k = 0; k < pe->n; k++)
        hp_lse_add(&m, &sum, pe->logw[k] + hp_parzen_logpdf_kt(pe, k, t));
    return m == -INFINITY ? m : m + log(sum);
}

double hp_parzen_sample_k(const struct hp_parzen *pe, int k, struct hp_rng *r)
{
    if (pe->dim->type == HP_CHOICE) {
        int kk = pe->dim->n_options;
        double eps = pe->eps;
        if (pe->mu[k] >= 0 && hp_rng_uniform(r) * (kk * eps + 1) < 1)
            return pe->mu[k];
        return (double)hp_rng_below(r, (uint64_t)kk);
    }
    double t = hp_rng_truncnorm(r, pe->mu[k], pe->sigma[k], pe->lo, pe->hi);
    return hp_parzen_from_internal(pe->dim, t);
}

double hp_parzen_sample(const struct hp_parzen *pe, struct hp_rng *r)
{
    if (pe->dim->type == HP_CHOICE)
        return hp_rng_weighted(r, pe->p, pe->dim->n_options);
    return hp_parzen_sample_k(pe, hp_rng_weighted(r, pe->w, pe->n), r);
}

void hp_tpe_weights(int n, double *w)
{
    if (n < 25) {
        for (int i = 0; i < n; i++)
            w[i] = 1;
        return;
    }
    int ramp = n - 25;
    for (int i = 0; i < ramp; i++)   /* numpy's linspace(1/n, 1, ramp) */
        w[i] = ramp == 1 ? 1.0 / n : 1.0 / n + (1 - 1.0 / n) * i / (ramp - 1);
    for (int i = ramp; i < n; i++)
        w[i] = 1;
}
