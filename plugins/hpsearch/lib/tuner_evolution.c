/* tuner_evolution.c — regularized evolution (Real et al. 2019, "aging
 * evolution"): the population is the population_size most recent trials
 * with a result (by trial number: the oldest leave first, whatever their
 * loss); each new trial is a copy of the best of sample_size members drawn
 * from it at random (a tournament), with one active parameter drawn again
 * from its prior (for a choice, another option when there is one; the
 * parameters of a newly taken nested option are drawn too). Until the
 * tuner has suggested population_size trials, and while fewer than two
 * have a result, trials are drawn at random. */
#include <math.h>
#include <stdlib.h>

#include "tuner_internal.h"

struct evolution {
    long long population, sample;
};

static const char *const EVOLUTION_ARGS[] = {"population_size", "sample_size", NULL};

static int evolution_init(struct hp_tuner *t, const cJSON *args, struct hp_err *e)
{
    struct evolution *ev = calloc(1, sizeof *ev);
    if (!ev)
        return hp_fail(e, "", "out of memory");
    t->impl = ev;
    if (hp_arg_int(args, "population_size", 32, 2, 100000, &ev->population, e) < 0)
        return -1;
    long long def = ev->population / 4 < 2 ? 2 : ev->population / 4;
    if (hp_arg_int(args, "sample_size", def, 1, 100000, &ev->sample, e) < 0)
        return -1;
    if (ev->sample > ev->population)
        return hp_fail(e, "args.sample_size", "%lld is more than population_size (%lld)",
                       ev->sample, ev->population);
    return 0;
}

static int cmp_number(const void *a, const void *b)
{
    const struct hp_obs *x = *(const struct hp_obs *const *)a;
    const struct hp_obs *y = *(const struct hp_obs *const *)b;
    return x->n - y->n;
}

/* One active dimension of x drawn again (another value when it can). */
static void mutate(const struct hp_space *s, double *x, struct hp_rng *r)
{
    int active[HP_MAX_DIMS], na = 0;
    for (int d = 0; d < s->n; d++)
        if (!isnan(x[d]))
            active[na++] = d;
    if (na == 0)
        return;
    int d = active[hp_rng_below(r, (uint64_t)na)];
    double old = x[d], v = old;
    for (int tries = 0; tries < 16 && v == old; tries++)
        v = hp_dim_sample(&s->dims[d], r);
    x[d] = v;
    hp_space_settle(s, r, x);
}

static int evolution_suggest(struct hp_tuner *t, const struct hp_obs *h, int nh, int n,
                             struct hp_rng *r, struct hp_suggestion *out)
{
    (void)n;
    const struct evolution *ev = t->impl;
    const struct hp_space *s = t->space;
    const struct hp_obs **pop = malloc((size_t)(nh + 1) * sizeof *pop);
    int k = 0;
    for (int i = 0; pop && i < nh; i++)
        if (hp_obs_scored(&h[i]))
            pop[k++] = &h[i];
    if (!pop || hp_obs_own(h, nh) < ev->population || k < 2) {
        free(pop);
        hp_space_sample(s, r, out->x);
        return HP_SUGGEST_OK;
    }
    qsort(pop, (size_t)k, sizeof *pop, cmp_number);
    int first = k > ev->population ? k - (int)ev->population : 0, size = k - first;
    const struct hp_obs *best = NULL;
    int sample = (int)ev->sample < size ? (int)ev->sample : size;
    for (int j = 0; j < sample; j++) {   /* a partial shuffle: distinct members */
        int pick = first + j + (int)hp_rng_below(r, (uint64_t)(size - j));
        const struct hp_obs *tmp = pop[first + j];
        pop[first + j] = pop[pick];
        pop[pick] = tmp;
        if (!best || pop[first + j]->loss < best->loss ||
            (pop[first + j]->loss == best->loss && pop[first + j]->n < best->n))
            best = pop[first + j];
    }
    for (int d = 0; d < s->n; d++)
        out->x[d] = best->x[d];
    mutate(s, out->x, r);
    free(pop);
    return HP_SUGGEST_OK;
}

const struct hp_tuner_ops hp_tuner_evolution = {
    .name = "evolution", .args = EVOLUTION_ARGS, .init = evolution_init,
    .suggest = evolution_suggest,
};
