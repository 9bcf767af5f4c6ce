/* tuner_tpe.c — the Tree-structured Parzen Estimator (Bergstra et al.
 * 2011), with the ranking, split and weights Optuna documents for its
 * TPESampler:
 *
 *  - random draws until n_startup_trials (10) trials have a result;
 *  - trials are ranked: those with a result by loss, then early-stopped
 *    ones by their last step (later first) and last intermediate loss,
 *    then (constant_liar) running ones; failed ones and ones without a
 *    result are left out;
 *  - the first gamma(n) are "good": min(ceil(0.1 n), 25), or ceil(gamma n)
 *    when the gamma argument is given; l(x) is their Parzen estimator,
 *    g(x) the others' (parzen.c), each observation weighted oldest first
 *    by Optuna's default ramp;
 *  - n_ei_candidates (24) draws from l, the one with the largest
 *    log l(x) - log g(x) is suggested.
 *
 * Two kinds of estimator. Multivariate (Cube's default): one product
 * kernel over the unconditional dimensions, every observation with sigma
 * = bandwidth n^(-1/(d+4)) of the range (Scott's rule; bandwidth 0.03,
 * Optuna's multivariate mode uses 0.2), and the minimum sigma, range /
 * min(100, n + 1), taken from all n trials seen (clip_all) rather than
 * from the estimator's own observations (Optuna's "magic clip", which
 * keeps l(x), made of the few good trials, wider than the search has
 * earned). On Branin and Hartmann6 (tests/bench/hpsearch.sh) this finds
 * better values in the same number of trials. Univariate (multivariate:
 * false; clip_all then defaults to false: Optuna's default sampler): each
 * dimension on its own, with neighbour-distance sigmas. In both, a nested
 * choice's dimensions are conditional ones, estimated univariately from
 * the trials that took their option. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tuner_internal.h"

#define MAX_CANDIDATES 10000

void hp_tpe_defaults(struct hp_tpe_args *a)
{
    *a = (struct hp_tpe_args){.n_startup = 10, .n_candidates = 24, .gamma = 0, .gamma_cap = 0,
                              .prior_weight = 1.0, .multivariate = 1, .constant_liar = 0,
                              .bandwidth = 0.03, .clip_all = 1};
}

struct ranked {
    int i;          /* index in h */
    int cls;        /* 0 result, 1 early-stopped, 2 running (liar) */
    int step;
    double loss;
    int n;
};

static int cmp_rank(const void *a, const void *b)
{
    const struct ranked *x = a, *y = b;
    if (x->cls != y->cls)
        return x->cls - y->cls;
    if (x->step != y->step)
        return y->step - x->step;
    if (x->loss != y->loss)
        return x->loss < y->loss ? -1 : 1;
    return x->n - y->n;
}

static int cmp_number(const void *a, const void *b)
{
    return ((const struct ranked *)a)->n - ((const struct ranked *)b)->n;
}

/* The trials TPE learns from, ranked best first; dim >= 0 keeps only
 * those where that dimension is active. */
static int rank(const struct hp_obs *h, int nh, const struct hp_tpe_args *a, int dim,
                struct ranked *out)
{
    int n = 0;
    for (int i = 0; i < nh; i++) {
        const struct hp_obs *o = &h[i];
        if (dim >= 0 && isnan(o->x[dim]))
            continue;
        struct ranked r = {.i = i, .n = o->n};
        if (hp_obs_scored(o))
            r.cls = 0, r.loss = o->loss;
        else if (o->state == HP_PRUNED && isfinite(o->last_loss))
            r.cls = 1, r.loss = o->last_loss, r.step = o->last_step;
        else if (a->constant_liar && o->state == HP_RUNNING)
            r.cls = 2;
        else
            continue;
        out[n++] = r;
    }
    qsort(out, (size_t)n, sizeof *out, cmp_rank);
    return n;
}

static int n_good(const struct hp_tpe_args *a, int n)
{
    int k;
    if (a->gamma > 0) {
        k = (int)ceil(a->gamma * n);
        if (a->gamma_cap > 0 && k > a->gamma_cap)
            k = a->gamma_cap;
    } else {
        k = (int)ceil(0.1 * n);
        if (k > 25)
            k = 25;
    }
    return k < 1 && n > 0 ? 1 : k > n ? n : k;
}

/* The values of dimension d of ranked set r (oldest first) and their
 * weights. */
static void set_values(const struct hp_obs *h, const struct ranked *r, int n, int d,
                       double *v, double *w)
{
    for (int j = 0; j < n; j++)
        v[j] = h[r[j].i].x[d];
    hp_tpe_weights(n, w);
}

/* One dimension on its own: l and g from the trials where it is active. */
static int univariate(const struct hp_space *s, const struct hp_tpe_args *a,
                      const struct hp_obs *h, int nh, int d, struct ranked *rk, double *buf,
                      struct hp_rng *r, double *out)
{
    int n = rank(h, nh, a, d, rk), nb = n_good(a, n);
    double *v = buf, *w = buf + nh;
    struct hp_parzen l, g;
    qsort(rk, (size_t)nb, sizeof *rk, cmp_number);
    qsort(rk + nb, (size_t)(n - nb), sizeof *rk, cmp_number);
    set_values(h, rk, nb, d, v, w);
    struct hp_parzen_opts o = {a->prior_weight, 0, a->clip_all ? n + 1 : 0};
    int rc = hp_parzen_build(&l, &s->dims[d], v, w, nb, &o);
    set_values(h, rk + nb, n - nb, d, v, w);
    rc |= hp_parzen_build(&g, &s->dims[d], v, w, n - nb, &o);
    if (rc == 0) {
        double best = -INFINITY;
        for (int c = 0; c < a->n_candidates; c++) {
            double x = hp_parzen_sample(&l, r);
            double score = hp_parzen_logpdf(&l, x) - hp_parzen_logpdf(&g, x);
            if (c == 0 || score > best)
                best = score, *out = x;
        }
    } else {
        *out = hp_dim_sample(&s->dims[d], r);
    }
    hp_parzen_free(&l);
    hp_parzen_free(&g);
    return 0;
}

/* log sum_k w_k prod_d k_kd(x_d) over the joint dimensions (continuous
 * kernels inline: this loop is most of a suggestion's time). */
static double joint_logpdf(const struct hp_parzen *pe, const int *dims, int nd, const double *x)
{
    double t[HP_MAX_DIMS], m = -INFINITY, sum = 0;
    int plain[HP_MAX_DIMS];
    for (int j = 0; j < nd; j++) {
        t[j] = hp_parzen_point(&pe[j], x[dims[j]]);
        plain[j] = pe[j].dim->type != HP_CHOICE && pe[j].step == 0;
    }
    for (int k = 0; k < pe[0].n; k++) {
        double l = pe[0].logw[k];
        for (int j = 0; j < nd; j++) {
            if (plain[j]) {
                double z = (t[j] - pe[j].mu[k]) * pe[j].isig[k];
                l += pe[j].c[k] - 0.5 * z * z;
            } else {
                l += hp_parzen_logpdf_kt(&pe[j], k, t[j]);
            }
        }
        hp_lse_add(&m, &sum, l);
    }
    return m == -INFINITY ? m : m + log(sum);
}

static int build_set(const struct hp_space *s, const struct hp_tpe_args *a,
                     const struct hp_obs *h, const struct ranked *rk, int n, int n_all,
                     const int *dims, int nd, double *buf, struct hp_parzen *pe)
{
    struct hp_parzen_opts o = {a->prior_weight,
                               a->bandwidth * pow(n > 1 ? n : 1, -1.0 / (nd + 4)),
                               a->clip_all ? n_all + 1 : 0};
    double *v = buf, *w = buf + (n + 1);
    int rc = 0;
    for (int j = 0; j < nd; j++) {
        set_values(h, rk, n, dims[j], v, w);
        rc |= hp_parzen_build(&pe[j], &s->dims[dims[j]], v, w, n, &o);
    }
    return rc;
}

/* The unconditional dimensions together (one product kernel). */
static int multivariate(const struct hp_space *s, const struct hp_tpe_args *a,
                        const struct hp_obs *h, int nh, struct ranked *rk, double *buf,
                        struct hp_rng *r, double *x)
{
    int dims[HP_MAX_DIMS], nd = 0;
    for (int d = 0; d < s->n; d++)
        if (s->dims[d].parent < 0)
            dims[nd++] = d;
    int n = rank(h, nh, a, -1, rk), nb = n_good(a, n);
    qsort(rk, (size_t)nb, sizeof *rk, cmp_number);
    qsort(rk + nb, (size_t)(n - nb), sizeof *rk, cmp_number);
    struct hp_parzen *l = calloc((size_t)nd, sizeof *l), *g = calloc((size_t)nd, sizeof *g);
    double *cand = malloc((size_t)s->n * sizeof *cand);
    int rc = -1;
    if (l && g && cand && build_set(s, a, h, rk, nb, n, dims, nd, buf, l) == 0 &&
        build_set(s, a, h, rk + nb, n - nb, n, dims, nd, buf, g) == 0) {
        double best = -INFINITY;
        for (int c = 0; c < a->n_candidates; c++) {
            int k = hp_rng_weighted(r, l[0].w, l[0].n);
            for (int j = 0; j < nd; j++)
                cand[dims[j]] = hp_parzen_sample_k(&l[j], k, r);
            double score = joint_logpdf(l, dims, nd, cand) - joint_logpdf(g, dims, nd, cand);
            if (c == 0 || score > best) {
                best = score;
                for (int j = 0; j < nd; j++)
                    x[dims[j]] = cand[dims[j]];
            }
        }
        rc = 0;
    }
    for (int j = 0; j < nd; j++) {
        if (l)
            hp_parzen_free(&l[j]);
        if (g)
            hp_parzen_free(&g[j]);
    }
    free(l), free(g), free(cand);
    return rc;
}

int hp_tpe_sample(const struct hp_space *s, const struct hp_tpe_args *a,
                  const struct hp_obs *h, int nh, struct hp_rng *r, double *x)
{
    int scored = 0;
    for (int i = 0; i < nh; i++)
        scored += hp_obs_scored(&h[i]) || (h[i].state == HP_PRUNED && isfinite(h[i].last_loss));
    if (scored < a->n_startup || scored == 0)
        return 1;
    struct ranked *rk = malloc((size_t)(nh + 1) * sizeof *rk);
    double *buf = malloc((size_t)(nh + 1) * 2 * sizeof *buf);
    if (!rk || !buf) {
        free(rk), free(buf);
        return 1;
    }
    for (int d = 0; d < s->n; d++)
        x[d] = NAN;
    int joint = a->multivariate && multivariate(s, a, h, nh, rk, buf, r, x) == 0;
    for (int d = 0; d < s->n; d++) {   /* in order: a choice before its options' dimensions */
        if (joint && s->dims[d].parent < 0)
            continue;
        if (hp_dim_active(s, x, d))
            univariate(s, a, h, nh, d, rk, buf, r, &x[d]);
    }
    free(rk);
    free(buf);
    return 0;
}

/* -- the tuner ---------------------------------------------------------------- */

static const char *const TPE_ARGS[] = {"n_startup_trials", "n_ei_candidates", "gamma",
                                       "prior_weight", "multivariate", "constant_liar", "bandwidth",
                                       "clip_all", NULL};

static int tpe_read(const cJSON *args, struct hp_tpe_args *a, struct hp_err *e)
{
    long long startup, cand;
    hp_tpe_defaults(a);
    if (hp_arg_int(args, "n_startup_trials", a->n_startup, 0, 100000, &startup, e) < 0 ||
        hp_arg_int(args, "n_ei_candidates", a->n_candidates, 1, MAX_CANDIDATES, &cand, e) < 0 ||
        hp_arg_num(args, "gamma", 0, 1e-9, 1, &a->gamma, e) < 0 ||
        hp_arg_num(args, "prior_weight", a->prior_weight, 1e-9, 1e6, &a->prior_weight, e) < 0 ||
        hp_arg_bool(args, "multivariate", a->multivariate, &a->multivariate, e) < 0 ||
        hp_arg_bool(args, "constant_liar", a->constant_liar, &a->constant_liar, e) < 0 ||
        hp_arg_num(args, "bandwidth", a->bandwidth, 1e-4, 1, &a->bandwidth, e) < 0 ||
        hp_arg_bool(args, "clip_all", a->multivariate, &a->clip_all, e) < 0)
        return -1;
    a->n_startup = (int)startup;
    a->n_candidates = (int)cand;
    return 0;
}

static int tpe_init(struct hp_tuner *t, const cJSON *args, struct hp_err *e)
{
    struct hp_tpe_args *a = calloc(1, sizeof *a);
    if (!a)
        return hp_fail(e, "", "out of memory");
    t->impl = a;
    return tpe_read(args, a, e);
}

static int tpe_suggest(struct hp_tuner *t, const struct hp_obs *h, int nh, int n,
                       struct hp_rng *r, struct hp_suggestion *out)
{
    (void)n;
    if (hp_tpe_sample(t->space, t->impl, h, nh, r, out->x) != 0)
        hp_space_sample(t->space, r, out->x);
    return HP_SUGGEST_OK;
}

const struct hp_tuner_ops hp_tuner_tpe = {
    .name = "tpe", .args = TPE_ARGS, .init = tpe_init, .suggest = tpe_suggest,
};
