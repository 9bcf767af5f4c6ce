/* tuner.c — the tuners by name, their arguments, the random stream of each
 * suggestion, and the random tuner (the prior of every dimension). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tuner_internal.h"

const char *const hp_tuner_names[] = {"random", "grid", "batch", "tpe", "anneal",
                                      "evolution", "hyperband", "bohb", NULL};

static const struct hp_tuner_ops *const OPS[] = {
    &hp_tuner_random, &hp_tuner_grid, &hp_tuner_batch, &hp_tuner_tpe, &hp_tuner_anneal,
    &hp_tuner_evolution, &hp_tuner_hyperband, &hp_tuner_bohb,
};

int hp_arg_num(const cJSON *args, const char *key, double def, double lo, double hi,
               double *out, struct hp_err *e)
{
    char f[160];
    snprintf(f, sizeof f, "args.%s", key);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(args, key);
    *out = def;
    if (!v || cJSON_IsNull(v))
        return 0;
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
        return hp_fail(e, f, "must be a number");
    if (v->valuedouble < lo || v->valuedouble > hi)
        return hp_fail(e, f, "%g is out of range: from %g to %g", v->valuedouble, lo, hi);
    *out = v->valuedouble;
    return 0;
}

int hp_arg_int(const cJSON *args, const char *key, long long def, long long lo, long long hi,
               long long *out, struct hp_err *e)
{
    char f[160];
    snprintf(f, sizeof f, "args.%s", key);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(args, key);
    *out = def;
    if (!v || cJSON_IsNull(v))
        return 0;
    if (!cJSON_IsNumber(v) || floor(v->valuedouble) != v->valuedouble)
        return hp_fail(e, f, "must be an integer");
    if (v->valuedouble < (double)lo || v->valuedouble > (double)hi)
        return hp_fail(e, f, "%g is out of range: from %lld to %lld", v->valuedouble, lo, hi);
    *out = (long long)v->valuedouble;
    return 0;
}

int hp_arg_bool(const cJSON *args, const char *key, int def, int *out, struct hp_err *e)
{
    char f[160];
    snprintf(f, sizeof f, "args.%s", key);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(args, key);
    *out = def;
    if (!v || cJSON_IsNull(v))
        return 0;
    if (!cJSON_IsBool(v))
        return hp_fail(e, f, "must be true or false");
    *out = cJSON_IsTrue(v);
    return 0;
}

int hp_obs_own(const struct hp_obs *h, int nh)
{
    int k = 0;
    for (int i = 0; i < nh; i++)
        k += !h[i].foreign;
    return k;
}

/* Unknown argument names are refused: a typo would otherwise do nothing. */
static int known_args(const struct hp_tuner_ops *ops, const cJSON *args, struct hp_err *e)
{
    const cJSON *m;
    cJSON_ArrayForEach(m, args) {
        int ok = !strcmp(m->string, "seed");
        for (int i = 0; !ok && ops->args && ops->args[i]; i++)
            ok = !strcmp(m->string, ops->args[i]);
        if (ok)
            continue;
        char f[200], known[400] = "seed";
        snprintf(f, sizeof f, "args.%.150s", m->string);
        for (int i = 0; ops->args && ops->args[i]; i++) {
            size_t len = strlen(known);
            snprintf(known + len, sizeof known - len, ", %s", ops->args[i]);
        }
        return hp_fail(e, f, "unknown argument of the %s tuner (it takes %s)", ops->name,
                       known);
    }
    return 0;
}

int hp_tuner_new(const char *name, const cJSON *args, const struct hp_space *s,
                 uint64_t default_seed, struct hp_tuner **out, struct hp_err *e)
{
    *out = NULL;
    const struct hp_tuner_ops *ops = NULL;
    for (size_t i = 0; i < sizeof OPS / sizeof OPS[0] && !ops; i++)
        if (name && !strcmp(OPS[i]->name, name))
            ops = OPS[i];
    if (!ops)
        return hp_fail(e, "name", "unknown tuner \"%.64s\" (known: random, grid, batch, tpe, "
                       "anneal, evolution, hyperband, bohb)", name ? name : "");
    if (args && !cJSON_IsObject(args) && !cJSON_IsNull(args))
        return hp_fail(e, "args", "must be an object");
    if (known_args(ops, args, e) < 0)
        return -1;
    long long seed;
    if (hp_arg_int(args, "seed", -1, 0, 9007199254740991LL, &seed, e) < 0)
        return -1;
    struct hp_tuner *t = calloc(1, sizeof *t);
    if (!t)
        return hp_fail(e, "", "out of memory");
    t->ops = ops;
    t->space = s;
    t->seed = seed >= 0 ? (uint64_t)seed : default_seed;
    if (ops->init && ops->init(t, args, e) < 0) {
        hp_tuner_free(t);
        return -1;
    }
    *out = t;
    return 0;
}

void hp_tuner_free(struct hp_tuner *t)
{
    if (!t)
        return;
    if (t->ops->fini)
        t->ops->fini(t);
    else
        free(t->impl);
    free(t);
}

const char *hp_tuner_name(const struct hp_tuner *t)
{
    return t->ops->name;
}

int hp_tuner_suggest(struct hp_tuner *t, const struct hp_obs *hist, int n_hist, int n,
                     struct hp_suggestion *out)
{
    struct hp_rng r;
    hp_rng_seed(&r, t->seed, (uint64_t)n);
    out->bracket = out->rung = -1;
    out->parent = 0;
    out->budget = 0;
    return t->ops->suggest(t, hist, n_hist, n, &r, out);
}

long long hp_tuner_total(const struct hp_tuner *t)
{
    return t->ops->total ? t->ops->total(t) : -1;
}

int hp_tuner_budgeted(const char *name)
{
    return name && (!strcmp(name, "hyperband") || !strcmp(name, "bohb"));
}

cJSON *hp_tuner_params(const struct hp_tuner *t, const double *x)
{
    if (t->ops == &hp_tuner_batch)
        return hp_batch_params(t, x);
    return hp_params_build(t->space, x);
}

/* -- random ------------------------------------------------------------------ */

static int random_suggest(struct hp_tuner *t, const struct hp_obs *h, int nh, int n,
                          struct hp_rng *r, struct hp_suggestion *out)
{
    (void)h, (void)nh, (void)n;
    hp_space_sample(t->space, r, out->x);
    return HP_SUGGEST_OK;
}

const struct hp_tuner_ops hp_tuner_random = {
    .name = "random", .suggest = random_suggest,
};
