/* early.c — the assessor over an Experiment's running trials: each trial
 * whose curve grew since the last look is judged against the curves of
 * the trials that succeeded and the best final value; a bad one is
 * stopped (its Job's stopRequested, the reason recorded on the Job) and
 * becomes EarlyStopped, with an EarlyStopped event on the Experiment. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "hpsearch.h"

void hs_assess_running(struct hs *p, struct hs_exp *x)
{
    if (!x->spec.assessor)
        return;
    struct hp_curve *done = calloc((size_t)x->n + 1, sizeof *done);
    int nd = 0;
    for (int i = 0; done && i < x->n; i++)
        if (x->trials[i].phase == HS_SUCCEEDED && x->trials[i].n_curve > 0)
            done[nd++] = (struct hp_curve){x->trials[i].curve, x->trials[i].n_curve};
    const struct hs_trial *best = hs_best(x);
    double best_value = best ? best->value : NAN;
    for (int i = 0; done && i < x->n; i++) {
        struct hs_trial *t = &x->trials[i];
        if (!hs_trial_active(t) || t->stop_sent || t->phase == HS_EARLY_STOPPED ||
            t->n_curve <= t->assessed_step)
            continue;
        t->assessed_step = t->n_curve;
        struct hp_curve cur = {t->curve, t->n_curve};
        char why[400];
        if (hp_assess(x->spec.assessor, &cur, done, nd, best_value, why, sizeof why) != HP_BAD)
            continue;
        if (hs_trial_stop(p, x, t, why) != CUBE_OK)
            continue;
        char msg[600];
        snprintf(msg, sizeof msg, "trial %d (Job %s) stopped early: %s", t->n, t->job, why);
        p->host->obj_event(p->self, "Experiment", x->project, x->name, "Normal",
                           "EarlyStopped", msg);
        p->host->obj_event(p->self, "Job", x->project, t->job, "Normal", "EarlyStopped", why);
    }
    free(done);
}
