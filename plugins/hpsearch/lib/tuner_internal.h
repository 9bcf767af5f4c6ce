/* tuner_internal.h — what the tuners of hp.h share: the operations each
 * one implements (tuner_<name>.c), argument readers and the TPE core that
 * bohb reuses. Not used outside lib/ but by the unit tests. */
#ifndef HP_TUNER_INTERNAL_H
#define HP_TUNER_INTERNAL_H

#include "hp.h"

struct hp_tuner;

struct hp_tuner_ops {
    const char *name;
    /* the argument names it takes besides "seed" (NULL-terminated) */
    const char *const *args;
    /* reads args (already checked for unknown names) into t->impl */
    int (*init)(struct hp_tuner *t, const cJSON *args, struct hp_err *e);
    int (*suggest)(struct hp_tuner *t, const struct hp_obs *h, int nh, int n,
                   struct hp_rng *r, struct hp_suggestion *out);
    long long (*total)(const struct hp_tuner *t);   /* NULL: unlimited */
    void (*fini)(struct hp_tuner *t);               /* NULL: free(impl) */
};

struct hp_tuner {
    const struct hp_tuner_ops *ops;
    const struct hp_space *space;
    uint64_t seed;
    void *impl;
};

extern const struct hp_tuner_ops hp_tuner_random, hp_tuner_grid, hp_tuner_batch,
    hp_tuner_tpe, hp_tuner_anneal, hp_tuner_evolution, hp_tuner_hyperband, hp_tuner_bohb;

/* Argument readers: the member key of args (absent: def) within [lo, hi],
 * else -1 with e naming "args.<key>". */
int hp_arg_num(const cJSON *args, const char *key, double def, double lo, double hi,
               double *out, struct hp_err *e);
int hp_arg_int(const cJSON *args, const char *key, long long def, long long lo, long long hi,
               long long *out, struct hp_err *e);
int hp_arg_bool(const cJSON *args, const char *key, int def, int *out, struct hp_err *e);

/* batch's hp_tuner_params (tuner_batch.c). */
cJSON *hp_batch_params(const struct hp_tuner *t, const double *x);

/* How many trials of h the tuner suggested itself (not user-added ones). */
int hp_obs_own(const struct hp_obs *h, int nh);

/* -- TPE (tuner_tpe.c, parzen.c) -------------------------------------------- */

struct hp_tpe_args {
    int n_startup;        /* random until this many trials have a result */
    int n_candidates;     /* drawn from l(x), the best kept */
    double gamma;         /* fraction of trials that are "good"; 0: Optuna's rule */
    int gamma_cap;        /* at most this many good ones (0: no cap) */
    double prior_weight;
    int multivariate;     /* one joint kernel over the unconditional dimensions */
    int constant_liar;    /* running trials count as bad ones */
    double bandwidth;     /* multivariate: sigma = bandwidth n^(-1/(d+4)) x range */
    int clip_all;         /* the minimum sigma from every trial seen, not the set's */
};

/* Fills a with the TPE defaults. */
void hp_tpe_defaults(struct hp_tpe_args *a);
/* A configuration drawn by TPE from the trials of h; returns 0, or 1 when h
 * has fewer than a->n_startup trials with a result (x untouched: the
 * caller draws at random). */
int hp_tpe_sample(const struct hp_space *s, const struct hp_tpe_args *a,
                  const struct hp_obs *h, int nh, struct hp_rng *r, double *x);

/* One dimension's Parzen estimator: a mixture of (truncated) normals in the
 * dimension's internal coordinates (log for log types), or, for a choice,
 * one categorical distribution. Made from observations with weights. */
struct hp_parzen {
    const struct hp_dim *dim;
    int n;                /* components (observations, then the prior) */
    double *mu, *sigma, *w;
    double *logw;         /* log w */
    double *c;            /* log of the density's constant: -log(sqrt(2 pi) sigma Z), or
                             -log Z (discrete), Z the mass inside the truncation */
    double *isig;         /* 1 / sigma */
    double lo, hi;        /* the truncation, internal coordinates (may be infinite) */
    double step;          /* the internal bin width of discrete types, 0 otherwise */
    double eps;           /* choice: each component's mass on every option */
    double *p;            /* choice: the probability of each option */
};

/* How an estimator is made: the prior's weight; the bandwidth (> 0: every
 * observation gets sigma = bandwidth x range, the multivariate rule; 0:
 * neighbour distances, Optuna's univariate rule); and clip_n, the count
 * the minimum sigma range / min(100, 1 + clip_n) is taken from (0: the
 * estimator's own components, Optuna's "magic clip"). */
struct hp_parzen_opts {
    double prior_weight;
    double bandwidth;
    int clip_n;
};

/* Builds the estimator of dim from obs values (internal coordinates are
 * computed here) with weights wobs (n_obs of them). Returns 0 or -1 (out
 * of memory). */
int hp_parzen_build(struct hp_parzen *pe, const struct hp_dim *dim, const double *obs,
                    const double *wobs, int n_obs, const struct hp_parzen_opts *o);
void hp_parzen_free(struct hp_parzen *pe);
/* The dimension's internal coordinate of a value, and back (rounded). */
double hp_parzen_to_internal(const struct hp_dim *d, double v);
double hp_parzen_from_internal(const struct hp_dim *d, double t);
/* log density (mass, for discrete types) of value v under component k,
 * and under the whole mixture. */
double hp_parzen_logpdf_k(const struct hp_parzen *pe, int k, double v);
double hp_parzen_logpdf(const struct hp_parzen *pe, double v);
/* The same from the point t = hp_parzen_point(pe, v) (computed once for
 * every component). */
double hp_parzen_point(const struct hp_parzen *pe, double v);
double hp_parzen_logpdf_kt(const struct hp_parzen *pe, int k, double t);
/* A value drawn from component k, and from the mixture. */
double hp_parzen_sample_k(const struct hp_parzen *pe, int k, struct hp_rng *r);
double hp_parzen_sample(const struct hp_parzen *pe, struct hp_rng *r);

/* Adds term l to a log-sum-exp kept as *m (the largest so far; start at
 * -INFINITY) and *sum (start at 0): the total is m + log(sum). */
void hp_lse_add(double *m, double *sum, double l);

/* Optuna's default weights of n observations ordered oldest first: 1 each
 * when n < 25, else a ramp from 1/n up to 1 for the n - 25 oldest. */
void hp_tpe_weights(int n, double *w);

/* -- hyperband (tuner_hyperband.c) ---------------------------------------------- */

#define HP_HB_MAX_BRACKETS 32

/* Bracket s's rung i: n configurations at budget r. */
struct hp_rung {
    long long n;
    double r;
};

/* The brackets of hyperband for max resource R and eta: s_max + 1 of
 * them, bracket s (s_max .. 0) with s + 1 rungs, written to
 * rungs[s][i]. Returns s_max, or -1 for bad arguments. */
int hp_hyperband_plan(double R, double eta, struct hp_rung rungs[][HP_HB_MAX_BRACKETS]);

/* The schedule hyperband and bohb share. */
struct hp_hb {
    double R, eta;
    int s_max;
    struct hp_rung plan[HP_HB_MAX_BRACKETS][HP_HB_MAX_BRACKETS];
};

/* Reads args R (default 81) and eta (default 3) and plans the brackets. */
int hp_hb_read(const cJSON *args, struct hp_hb *hb, struct hp_err *e);
/* The next trial of the schedule; a new configuration (rung 0) comes from
 * fresh_config(ctx, ...), a promoted one is its parent's. */
int hp_hb_suggest(const struct hp_hb *hb, const struct hp_space *s, const struct hp_obs *h,
                  int nh, struct hp_rng *r, struct hp_suggestion *out,
                  void (*fresh_config)(const void *ctx, const struct hp_obs *h, int nh,
                                       struct hp_rng *r, double *x),
                  const void *ctx);
/* The trials of every bracket together. */
long long hp_hb_total(const struct hp_hb *hb);

#endif
