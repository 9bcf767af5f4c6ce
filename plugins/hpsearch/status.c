/* status.c — what an Experiment's trials add up to: the history its tuner
 * sees, the best trial, the status counts, one trial as the trials list
 * shows it, and the status write (only when it changed). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpsearch.h"

/* The last intermediate result of t and its step (0: none). */
static double last_point(const struct hs_trial *t, int *step)
{
    for (int i = t->n_curve - 1; i >= 0; i--)
        if (isfinite(t->curve[i])) {
            *step = i + 1;
            return t->curve[i];
        }
    *step = 0;
    return NAN;
}

static int usable(const struct hs_exp *x, const struct hs_trial *t)
{
    for (int d = 0; d < x->spec.space->n; d++)
        if (x->spec.space->dims[d].parent < 0 && isnan(t->x[d]))
            return 0;
    return 1;
}

struct hp_obs *hs_history(const struct hs_exp *x, int *n)
{
    struct hp_obs *h = calloc((size_t)x->n + 1, sizeof *h);
    double sign = x->spec.maximize ? -1 : 1;
    *n = 0;
    for (int i = 0; h && i < x->n; i++) {
        const struct hs_trial *t = &x->trials[i];
        struct hp_obs *o = &h[(*n)++];
        *o = (struct hp_obs){.n = t->n, .x = t->x, .loss = NAN, .last_loss = NAN,
                             .bracket = t->bracket, .rung = t->rung, .parent = t->parent,
                             .budget = t->budget, .foreign = t->foreign};
        if (hs_trial_active(t) && t->phase != HS_EARLY_STOPPED)
            o->state = HP_RUNNING;
        else if (t->phase == HS_SUCCEEDED)
            o->state = HP_DONE, o->loss = sign * t->value;
        else if (t->phase == HS_EARLY_STOPPED)
            o->state = HP_PRUNED, o->last_loss = sign * last_point(t, &o->last_step);
        else
            o->state = HP_FAILED;
        if (!usable(x, t) && o->state != HP_RUNNING)
            o->state = HP_FAILED;
    }
    return h;
}

const struct hs_trial *hs_best(const struct hs_exp *x)
{
    const struct hs_trial *best = NULL;
    for (int i = 0; i < x->n; i++) {
        const struct hs_trial *t = &x->trials[i];
        if (t->phase != HS_SUCCEEDED || !isfinite(t->value))
            continue;
        if (!best || (x->spec.maximize ? t->value > best->value : t->value < best->value))
            best = t;
    }
    return best;
}

cJSON *hs_status_build(const struct hs_exp *x, const cJSON *stored, const char *phase,
                       const char *message, const char *now)
{
    (void)now;
    cJSON *st = stored ? cJSON_Duplicate(stored, 1) : cJSON_CreateObject();
    int count[HS_N_PHASES] = {0};
    for (int i = 0; i < x->n; i++)
        count[x->trials[i].phase]++;
    cJSON *tr = cJSON_CreateObject();
    cJSON_AddNumberToObject(tr, "total", x->n);
    for (int k = 0; k < HS_N_PHASES; k++)
        cJSON_AddNumberToObject(tr, hs_phase_names[k], count[k]);
    cu_set_item(st, "trials", tr);
    const struct hs_trial *b = hs_best(x);
    if (b) {
        cJSON *best = cJSON_CreateObject();
        cJSON_AddNumberToObject(best, "trial", b->n);
        cJSON_AddStringToObject(best, "job", b->job);
        cJSON_AddItemToObject(best, "parameters", cJSON_Duplicate(b->params, 1));
        cJSON_AddNumberToObject(best, "value", b->value);
        cu_set_item(st, "best", best);
    } else {
        cJSON_DeleteItemFromObjectCaseSensitive(st, "best");
    }
    cu_set_num(st, "lastTrial", x->last_n);
    if (phase)
        cu_set_str(st, "phase", phase);
    if (message && *message)
        cu_set_str(st, "message", message);
    else if (message)
        cJSON_DeleteItemFromObjectCaseSensitive(st, "message");
    return st;
}

int hs_status_write(struct hs *p, struct hs_exp *x, cJSON *status, const char *rv)
{
    (void)x;
    char *doc = cJSON_PrintUnformatted(status);
    int rc = CUBE_ENOMEM;
    char *out = doc ? p->host->obj_update_status(p->self, "Experiment", x->project, x->name,
                                                 doc, rv, &rc) : NULL;
    free(doc);
    p->host->free(out);
    return out ? CUBE_OK : rc;
}

static double seconds_between(const char *a, const char *b)
{
    int64_t s = hs_time_parse(a), e = hs_time_parse(b);
    return s >= 0 && e >= s ? (double)(e - s) : NAN;
}

cJSON *hs_trial_json(const struct hs_exp *x, const struct hs_trial *t, int curves)
{
    char now[40];
    hs_now(now, sizeof now);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "trial", t->n);
    cJSON_AddStringToObject(o, "job", t->job);
    cJSON_AddStringToObject(o, "phase", hs_phase_names[t->phase]);
    cJSON_AddItemToObject(o, "parameters", cJSON_Duplicate(t->params, 1));
    cJSON_AddItemToObject(o, "value", hs_number(t->value));
    if (curves) {
        cJSON *c = cJSON_AddArrayToObject(o, "intermediate");
        for (int i = 0; i < t->n_curve; i++)
            if (isfinite(t->curve[i])) {
                cJSON *pt = cJSON_CreateArray();
                cJSON_AddItemToArray(pt, cJSON_CreateNumber(i + 1));
                cJSON_AddItemToArray(pt, cJSON_CreateNumber(t->curve[i]));
                cJSON_AddItemToArray(c, pt);
            }
    }
    cJSON_AddNumberToObject(o, "lastStep", t->n_curve);
    cJSON_AddStringToObject(o, "source", t->foreign ? "user" : "tuner");
    if (*t->started)
        cJSON_AddStringToObject(o, "started", t->started);
    if (*t->finished)
        cJSON_AddStringToObject(o, "finished", t->finished);
    if (*t->started)
        cJSON_AddItemToObject(o, "durationSeconds",
                              hs_number(seconds_between(t->started,
                                                        *t->finished ? t->finished : now)));
    if (t->budget > 0)
        cJSON_AddNumberToObject(o, "budget", t->budget);
    if (t->bracket >= 0) {
        cJSON_AddNumberToObject(o, "bracket", t->bracket);
        cJSON_AddNumberToObject(o, "rung", t->rung);
        if (t->parent > 0)
            cJSON_AddNumberToObject(o, "parent", t->parent);
    }
    if (*t->message)
        cJSON_AddStringToObject(o, "message", t->message);
    (void)x;
    return o;
}
