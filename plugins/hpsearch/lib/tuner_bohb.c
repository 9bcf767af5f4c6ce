/* tuner_bohb.c — BOHB (Falkner et al. 2018): Hyperband's schedule
 * (tuner_hyperband.c) with its new configurations drawn by TPE instead of
 * at random. The model is fitted on the trials of the largest budget that
 * has at least min_points_in_model results (default: parameters + 1),
 * with the best top_n_percent (15) of them as the good ones and
 * num_samples (64) candidates, one joint kernel as BOHB's KDE; a
 * random_fraction (1/3) of new configurations, and all of them while no
 * budget has enough results, are drawn at random. */
#include <math.h>
#include <stdlib.h>

#include "tuner_internal.h"

struct bohb {
    struct hp_hb hb;
    struct hp_tpe_args tpe;
    double random_fraction;
    long long min_points;
    const struct hp_space *space;
};

static const char *const BOHB_ARGS[] = {"R", "eta", "top_n_percent", "num_samples",
                                        "random_fraction", "min_points_in_model", NULL};

static int bohb_init(struct hp_tuner *t, const cJSON *args, struct hp_err *e)
{
    struct bohb *b = calloc(1, sizeof *b);
    if (!b)
        return hp_fail(e, "", "out of memory");
    t->impl = b;
    b->space = t->space;
    hp_tpe_defaults(&b->tpe);
    double top;
    long long samples;
    if (hp_hb_read(args, &b->hb, e) < 0 ||
        hp_arg_num(args, "top_n_percent", 15, 1, 99, &top, e) < 0 ||
        hp_arg_int(args, "num_samples", 64, 1, 10000, &samples, e) < 0 ||
        hp_arg_num(args, "random_fraction", 1.0 / 3, 0, 1, &b->random_fraction, e) < 0 ||
        hp_arg_int(args, "min_points_in_model", t->space->n + 1, 1, 100000, &b->min_points,
                   e) < 0)
        return -1;
    b->tpe.gamma = top / 100;
    b->tpe.n_candidates = (int)samples;
    b->tpe.n_startup = (int)b->min_points;
    b->tpe.multivariate = 1;
    return 0;
}

/* The trials of the largest budget with enough results, into sub. */
static int model_trials(const struct bohb *b, const struct hp_obs *h, int nh,
                        struct hp_obs *sub)
{
    double best = -1;
    for (int i = 0; i < nh; i++) {
        if (!hp_obs_scored(&h[i]) || h[i].budget <= best)
            continue;
        int k = 0;
        for (int j = 0; j < nh; j++)
            k += hp_obs_scored(&h[j]) && h[j].budget == h[i].budget;
        if (k >= b->min_points)
            best = h[i].budget;
    }
    int n = 0;
    for (int i = 0; best > 0 && i < nh; i++)
        if (h[i].budget == best)
            sub[n++] = h[i];
    return n;
}

static void model_config(const void *ctx, const struct hp_obs *h, int nh, struct hp_rng *r,
                         double *x)
{
    const struct bohb *b = ctx;
    struct hp_obs *sub = malloc((size_t)(nh + 1) * sizeof *sub);
    int n = sub ? model_trials(b, h, nh, sub) : 0;
    if (n == 0 || hp_rng_uniform(r) < b->random_fraction ||
        hp_tpe_sample(b->space, &b->tpe, sub, n, r, x) != 0)
        hp_space_sample(b->space, r, x);
    free(sub);
}

static int bohb_suggest(struct hp_tuner *t, const struct hp_obs *h, int nh, int n,
                        struct hp_rng *r, struct hp_suggestion *out)
{
    (void)n;
    const struct bohb *b = t->impl;
    return hp_hb_suggest(&b->hb, t->space, h, nh, r, out, model_config, b);
}

static long long bohb_total(const struct hp_tuner *t)
{
    return hp_hb_total(&((const struct bohb *)t->impl)->hb);
}

const struct hp_tuner_ops hp_tuner_bohb = {
    .name = "bohb", .args = BOHB_ARGS, .init = bohb_init, .suggest = bohb_suggest,
    .total = bohb_total,
};
