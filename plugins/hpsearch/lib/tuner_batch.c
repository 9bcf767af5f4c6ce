/* tuner_batch.c — the batch tuner (NNI's BatchTuner): the search space is
 * one choice listing the trials to run,
 *   {"combine_params": {"_type": "choice", "_value": [
 *       {"optimizer": "Adam", "lr": 0.0001}, {"optimizer": "SGD", "lr": 0.01}]}}
 * and trial i runs entry i, each once. An entry that is an object is the
 * trial's parameters itself; any other value is given under the choice's
 * name. */
#include <math.h>

#include "tuner_internal.h"

static int batch_init(struct hp_tuner *t, const cJSON *args, struct hp_err *e)
{
    (void)args;
    const struct hp_space *s = t->space;
    if (s->n != 1 || s->dims[0].type != HP_CHOICE)
        return hp_fail(e, "", "the batch tuner takes one choice parameter listing the "
                       "trials' parameters (NNI's combine_params), not %d parameter%s",
                       s->n, s->n == 1 ? " of another type" : "s");
    for (int k = 0; k < s->dims[0].n_options; k++)
        if (cJSON_IsObject(s->dims[0].options[k]) &&
            cJSON_HasObjectItem(s->dims[0].options[k], "_name"))
            return hp_fail(e, s->dims[0].field, "the batch tuner's entries are parameters, "
                           "not nested search spaces (entry %d has _name)", k);
    return 0;
}

static int batch_suggest(struct hp_tuner *t, const struct hp_obs *h, int nh, int n,
                         struct hp_rng *r, struct hp_suggestion *out)
{
    (void)n, (void)r;
    int i = hp_obs_own(h, nh);
    if (i >= t->space->dims[0].n_options)
        return HP_SUGGEST_DONE;
    out->x[0] = i;
    return HP_SUGGEST_OK;
}

static long long batch_total(const struct hp_tuner *t)
{
    return t->space->dims[0].n_options;
}

cJSON *hp_batch_params(const struct hp_tuner *t, const double *x)
{
    const struct hp_dim *d = &t->space->dims[0];
    int k = isnan(x[0]) ? 0 : (int)x[0];
    if (k < 0 || k >= d->n_options)
        k = 0;
    if (cJSON_IsObject(d->options[k]))
        return cJSON_Duplicate(d->options[k], 1);
    return hp_params_build(t->space, x);
}

const struct hp_tuner_ops hp_tuner_batch = {
    .name = "batch", .init = batch_init, .suggest = batch_suggest, .total = batch_total,
};
