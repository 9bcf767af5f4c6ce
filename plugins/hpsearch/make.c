/* make.c — the trials a pass makes, while fewer than trialConcurrency
 * run: first the user-chosen ones waiting in status.requests (POST
 * .../trials; each once: a request whose trial exists, made before a
 * restart cut the pass short, is dropped), then the tuner's, numbered on
 * from the highest trial so far, until the tuner has made maxTrials or
 * has nothing more (a grid enumerated) or must wait (a hyperband rung
 * still running). Their Jobs are made off this thread (create.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "controller_internal.h"

static int new_trial(struct hs_pass *ps, struct hs_trial *t)
{
    memset(t, 0, sizeof *t);
    t->x = calloc((size_t)ps->x->spec.space->n + 1, sizeof *t->x);
    t->value = NAN;
    t->bracket = t->rung = -1;
    return t->x ? 0 : -1;
}

static int has_request(const struct hs_exp *x, const char *id)
{
    for (int i = 0; i < x->n; i++)
        if (!strcmp(x->trials[i].request, id))
            return 1;
    return 0;
}

/* The next user-chosen trial into t (1), none waiting (0). */
static int from_request(struct hs_pass *ps, struct hs_trial *t)
{
    cJSON *reqs = cJSON_GetObjectItemCaseSensitive(ps->st, "requests");
    memset(t, 0, sizeof *t);
    while (cJSON_GetArraySize(reqs) > 0) {
        cJSON *r = cJSON_DetachItemFromArray(reqs, 0);
        const char *id = cu_str_or(r, "id", "");
        struct hp_err e;
        if (has_request(ps->x, id) || new_trial(ps, t) < 0 ||
            hp_params_parse(ps->x->spec.space, cJSON_GetObjectItemCaseSensitive(r, "parameters"),
                            HP_BUDGET_PARAM, t->x, &e) < 0) {
            hs_trial_free(t);
            cJSON_Delete(r);
            continue;
        }
        t->params = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(r, "parameters"), 1);
        t->foreign = 1;
        snprintf(t->request, sizeof t->request, "%s", id);
        cJSON_Delete(r);
        return 1;
    }
    if (reqs && !cJSON_GetArraySize(reqs))
        cJSON_DeleteItemFromObjectCaseSensitive(ps->st, "requests");
    return 0;
}

/* The tuner's next trial into t (1), or none now (0: wait or done). */
static int from_tuner(struct hs_pass *ps, struct hs_trial *t)
{
    struct hs_exp *x = ps->x;
    if (x->tuner_done || ps->own >= x->spec.max_trials || new_trial(ps, t) < 0)
        return 0;
    int nh;
    struct hp_obs *h = hs_history(x, &nh);
    struct hp_suggestion sg = {.x = t->x};
    int rc = h ? hp_tuner_suggest(x->spec.tuner, h, nh, x->last_n + 1, &sg) : HP_SUGGEST_WAIT;
    free(h);
    if (rc != HP_SUGGEST_OK) {
        x->tuner_done = rc == HP_SUGGEST_DONE;
        hs_trial_free(t);
        return 0;
    }
    t->params = hp_tuner_params(x->spec.tuner, t->x);
    t->bracket = sg.bracket, t->rung = sg.rung, t->parent = sg.parent, t->budget = sg.budget;
    if (sg.budget > 0)
        cJSON_AddNumberToObject(t->params, HP_BUDGET_PARAM, sg.budget);
    return 1;
}

int hs_make_trials(struct hs_pass *ps)
{
    struct hs_exp *x = ps->x;
    while (ps->active < x->spec.concurrency) {
        struct hs_trial t;
        if (!from_request(ps, &t) && !from_tuner(ps, &t))
            break;
        t.n = x->last_n + 1;
        snprintf(t.job, sizeof t.job, "%.50s-%d", x->name, t.n);
        char msg[400] = "";
        int rc = hs_trial_submit(ps->p, x, ps->obj, &t, msg, sizeof msg);
        if (rc != CUBE_OK) {
            hs_trial_free(&t);
            if (rc == CUBE_EINVAL) {
                hs_pass_finish(ps, "Failed", msg);
                return -1;
            }
            break;
        }
        int own = !t.foreign;
        if (!hs_exp_add(x, &t)) {
            hs_trial_free(&t);
            break;
        }
        ps->active++;
        ps->own += own;
        if (ps->p->trials_made)
            ps->p->host->metric_add(ps->p->trials_made, NULL, 1);
    }
    return 0;
}

int hs_nothing_left(const struct hs_pass *ps)
{
    const struct hs_exp *x = ps->x;
    if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(ps->st, "requests")) > 0)
        return 0;
    return x->tuner_done || ps->own >= x->spec.max_trials;
}
