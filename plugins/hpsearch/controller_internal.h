/* controller_internal.h — one pass of the Experiment controller, shared by
 * controller.c (the pass) and make.c (the trials it makes). */
#ifndef HS_CONTROLLER_INTERNAL_H
#define HS_CONTROLLER_INTERNAL_H

#include "hpsearch.h"

struct hs_pass {
    struct hs *p;
    struct hs_exp *x;
    const cJSON *obj;        /* the Experiment as the pass found it */
    cJSON *st;               /* the status being written */
    char now[40];
    int active, failed, own; /* trials not ended, failed, the tuner's */
    int retry_ms;            /* > 0: call again then */
};

/* The experiment ends: phase, finished, its running time, an event. */
void hs_pass_finish(struct hs_pass *ps, const char *phase, const char *message);
/* Makes trials while fewer than trialConcurrency run: user-chosen ones
 * first, then the tuner's. Returns 0, or -1 when the experiment failed
 * (a trial's Job refused: finished, message set). */
int hs_make_trials(struct hs_pass *ps);
/* 1 when no trial is left to make (requests served, the tuner done or
 * maxTrials reached). */
int hs_nothing_left(const struct hs_pass *ps);

#endif
