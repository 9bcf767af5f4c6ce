/* hp.h — the hyper-parameter search library of the hpsearch plugin: search
 * spaces in NNI's format, tuners and assessors. Pure C: no host calls, no
 * global state; every function is reentrant. The plugin (and the unit
 * tests and the tuner benchmark) link it as a static library.
 *
 * A search space is flattened into dimensions (struct hp_dim) in
 * depth-first order: a choice whose options are nested spaces (NNI's
 * dicts with "_name") is followed by the dimensions of each option, which
 * are active only when the choice takes that option (conditional
 * dimensions). A configuration is one double per dimension: the value
 * itself (already rounded for q-types, an integer for randint), the option
 * index for a choice, NAN for an inactive dimension.
 *
 * Tuners are stateless between calls: a suggestion is a function of the
 * tuner's arguments, the history of trials (struct hp_obs) and the number
 * of the trial being suggested, which seeds its random stream. A restart
 * rebuilds nothing but the history, and gets the same suggestions.
 *
 * Errors: functions that check input fill a struct hp_err (the field at
 * fault, relative to what was passed: "lr._value", "args.gamma", and a
 * sentence) and return -1. */
#ifndef HP_H
#define HP_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#define HP_MAX_DIMS 256        /* dimensions of one search space, nested ones included */
#define HP_MAX_OPTIONS 10000   /* options of one choice */
#define HP_NAME_MAX 128        /* bytes of a parameter name */
#define HP_BUDGET_PARAM "TRIAL_BUDGET"   /* hyperband's and bohb's resource */

/* -- errors ---------------------------------------------------------------- */

struct hp_err {
    char field[320];   /* "lr._value[1]", "args.gamma"; "" when none */
    char msg[512];
};

/* Fills e (field may be NULL) and returns -1. */
int hp_fail(struct hp_err *e, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* -- random numbers (rng.c) --------------------------------------------------- */

/* xoshiro256** seeded through splitmix64. */
struct hp_rng {
    uint64_t s[4];
};

/* Seeds r for stream `stream` of `seed` (a trial's number): independent
 * streams of one seed. */
void hp_rng_seed(struct hp_rng *r, uint64_t seed, uint64_t stream);
uint64_t hp_rng_u64(struct hp_rng *r);
/* Uniform in [0, 1). */
double hp_rng_uniform(struct hp_rng *r);
/* Uniform integer in [0, n) (n >= 1), unbiased. */
uint64_t hp_rng_below(struct hp_rng *r, uint64_t n);
/* Standard normal. */
double hp_rng_normal(struct hp_rng *r);
/* Normal(mu, sigma) truncated to [lo, hi] (either may be infinite). */
double hp_rng_truncnorm(struct hp_rng *r, double mu, double sigma, double lo, double hi);
/* Index drawn with probability w[i] / sum(w) (w >= 0, sum > 0). */
int hp_rng_weighted(struct hp_rng *r, const double *w, int n);
/* Geometric on {1, 2, ...} with success probability p (0 < p <= 1). */
int hp_rng_geometric(struct hp_rng *r, double p);
/* A 64-bit hash of a string (FNV-1a then splitmix64), for default seeds. */
uint64_t hp_hash64(const char *s);

/* The standard normal CDF and its log density. */
double hp_norm_cdf(double x);
double hp_norm_logpdf(double x);

/* -- search spaces (space.c, space_sample.c, space_params.c) -------------------- */

enum hp_type {
    HP_CHOICE, HP_RANDINT, HP_UNIFORM, HP_QUNIFORM, HP_LOGUNIFORM, HP_QLOGUNIFORM,
    HP_NORMAL, HP_QNORMAL, HP_LOGNORMAL, HP_QLOGNORMAL,
};

struct hp_dim {
    char name[HP_NAME_MAX + 1];  /* its key in its (sub)space */
    char field[320];             /* where it is in the space: "model._value[1].C" */
    enum hp_type type;
    /* uniform-like: [a, b]; randint: integers in [a, b); normal-like: mu a,
     * sigma b; q: the q of q-types (0 otherwise) */
    double a, b, q;
    int n_options;               /* choice */
    const cJSON **options;       /* each option's value (borrowed from the space's doc) */
    int parent, parent_option;   /* the choice this dimension is nested in, -1 at the top */
};

struct hp_space {
    int n;
    struct hp_dim *dims;
    cJSON *doc;                  /* the search space as parsed (owned) */
};

/* Parses and checks a search space (a JSON object). Returns 0 with *out
 * (free with hp_space_free), or -1 with e->field relative to the space
 * ("lr._value"). reserved (may be NULL) is a parameter name the caller
 * sets itself (HP_BUDGET_PARAM) that the space may not use. */
int hp_space_parse(const cJSON *json, const char *reserved, struct hp_space **out,
                   struct hp_err *e);
void hp_space_free(struct hp_space *s);
/* The name of a type ("quniform"), and the type of a name (-1: unknown). */
const char *hp_type_name(enum hp_type t);
int hp_type_of(const char *name);
/* 1 for the types whose values lie in a bounded interval or set. */
int hp_type_bounded(enum hp_type t);
/* 1 for the log-scaled types. */
int hp_type_log(enum hp_type t);

/* 1 when dimension d is active in x (every choice above it takes the
 * option that holds it). */
int hp_dim_active(const struct hp_space *s, const double *x, int d);
/* A value of dimension d drawn from its prior (NNI's semantics). */
double hp_dim_sample(const struct hp_dim *d, struct hp_rng *r);
/* v rounded and clipped as d's type says (q-types: round(v/q)*q, then
 * clipped to [a, b] for the bounded ones; randint: floor, clipped). */
double hp_dim_round(const struct hp_dim *d, double v);
/* Draws a whole configuration from the prior (NAN where inactive). */
void hp_space_sample(const struct hp_space *s, struct hp_rng *r, double *x);
/* After dimensions of x changed (a mutation): NAN for dimensions that
 * became inactive, prior draws for those that became active. */
void hp_space_settle(const struct hp_space *s, struct hp_rng *r, double *x);

/* The parameters of configuration x as the trial sees them (NNI's shape:
 * a nested choice gives {"_name": ..., <its parameters>}). New object. */
cJSON *hp_params_build(const struct hp_space *s, const double *x);
/* The configuration of given parameters, each checked against its
 * dimension (a choice's option, a value within bounds). extra (may be
 * NULL): a name allowed beside the space's (HP_BUDGET_PARAM). Returns 0, or
 * -1 with e->field naming the parameter ("model.C"). */
int hp_params_parse(const struct hp_space *s, const cJSON *params, const char *extra,
                    double *x, struct hp_err *e);

/* -- the history tuners see --------------------------------------------------- */

enum hp_state {
    HP_RUNNING = 0,   /* created, no result yet */
    HP_DONE = 1,      /* ended; loss is its result (NAN: it reported none) */
    HP_FAILED = 2,    /* ended without a result (failed, stopped) */
    HP_PRUNED = 3,    /* stopped early by an assessor; last_loss is its last intermediate */
};

/* One trial. Losses are minimized: the objective's value, negated when the
 * experiment maximizes. */
struct hp_obs {
    int n;                  /* trial number, 1-based */
    const double *x;        /* its configuration (space->n values) */
    int state;              /* enum hp_state */
    double loss;            /* NAN when none */
    double last_loss;       /* the last intermediate result, NAN when none */
    int last_step;          /* its step (0: none) */
    /* hyperband and bohb: the bracket, the rung, the trial whose
     * configuration this one continues (0: a new one) and the budget */
    int bracket, rung, parent;
    double budget;
    int foreign;            /* 1: not the tuner's suggestion (a user-chosen trial) */
};

/* 1 when o is an ended trial with a finite loss. */
int hp_obs_scored(const struct hp_obs *o);

/* -- tuners (tuner.c and tuner_<name>.c) ------------------------------------- */

enum { HP_SUGGEST_OK = 0, HP_SUGGEST_WAIT = 1, HP_SUGGEST_DONE = 2 };

struct hp_suggestion {
    double *x;              /* the caller's array of space->n values */
    int bracket, rung, parent;
    double budget;          /* > 0: passed to the trial as HP_BUDGET_PARAM */
};

struct hp_tuner;

/* The tuners by name: random, grid, batch, tpe, anneal, evolution,
 * hyperband, bohb (NULL-terminated). */
extern const char *const hp_tuner_names[];

/* A tuner for space s (borrowed: it must outlive the tuner) with args (a
 * JSON object or NULL; checked, unknown names refused); default_seed is
 * used when args has no "seed". Returns 0, or -1 with e->field "name",
 * "args" or "args.<name>", or the space's field the tuner cannot use. */
int hp_tuner_new(const char *name, const cJSON *args, const struct hp_space *s,
                 uint64_t default_seed, struct hp_tuner **out, struct hp_err *e);
void hp_tuner_free(struct hp_tuner *t);
const char *hp_tuner_name(const struct hp_tuner *t);
/* The next trial, number n, given every trial so far (hist, any order):
 * HP_SUGGEST_OK with *out filled, HP_SUGGEST_WAIT (nothing until a running
 * trial ends: a rung of hyperband is not complete), HP_SUGGEST_DONE (the
 * tuner has nothing more: a grid enumerated, a batch given). */
int hp_tuner_suggest(struct hp_tuner *t, const struct hp_obs *hist, int n_hist, int n,
                     struct hp_suggestion *out);
/* The parameters of configuration x as the tuner hands them to trials:
 * hp_params_build's, except for batch, whose trials get the chosen entry
 * itself when it is an object (NNI's BatchTuner). New object. */
cJSON *hp_tuner_params(const struct hp_tuner *t, const double *x);
/* How many trials the tuner can give in all (grid, batch, hyperband's
 * brackets), or -1 when unlimited. */
long long hp_tuner_total(const struct hp_tuner *t);
/* 1 when the tuner sets HP_BUDGET_PARAM (hyperband, bohb). */
int hp_tuner_budgeted(const char *name);

/* -- assessors (assess.c, assess_median.c, assess_curve.c) -------------------- */

enum { HP_GOOD = 0, HP_BAD = 1 };

struct hp_assessor;

/* medianstop, curvefitting (NULL-terminated). */
extern const char *const hp_assessor_names[];

/* An assessor; maximize says which way the objective goes. Same error
 * fields as hp_tuner_new. */
int hp_assessor_new(const char *name, const cJSON *args, int maximize,
                    struct hp_assessor **out, struct hp_err *e);
void hp_assessor_free(struct hp_assessor *a);

/* A learning curve: the intermediate results at steps 1..n (values as
 * reported, not losses; NAN where a step is missing). */
struct hp_curve {
    const double *v;
    int n;
};

/* Whether the running trial whose curve is `cur` should go on, given the
 * curves of the trials that completed (Succeeded) and the best final
 * value so far (NAN: none). HP_GOOD or HP_BAD; *why (when BAD) says why. */
int hp_assess(const struct hp_assessor *a, const struct hp_curve *cur,
              const struct hp_curve *done, int n_done, double best_final,
              char *why, size_t why_len);

#endif
