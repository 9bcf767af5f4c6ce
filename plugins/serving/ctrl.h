/* ctrl.h — the controller's working state for one reconcile of one
 * InferenceService (ctrl.c builds it, ctrl_rollout.c steps each predictor
 * with it). Private to the controller. */
#ifndef SERVING_CTRL_H
#define SERVING_CTRL_H

#include <time.h>

#include <cjson/cJSON.h>

#include "serving.h"

struct sv_run {
    struct sv *sv;
    const char *project, *name;
    cJSON *obj;                  /* the service (owned) */
    const cJSON *spec;
    cJSON *jobs;                 /* its Jobs (owned JobList items) */
    cJSON *models;               /* Model objects by predictor index (owned array) */
    int64_t now_ms;
    struct sv_rep serve[SV_MAX_PRED][SV_MAX_REP];
    int n_serve[SV_MAX_PRED];
    char *retire[256];           /* Jobs to stop once drained */
    int n_retire;
};

/* ctrl_rollout.c: one step of predictor pi; pst is its status entry.
 * Returns a poll delay in ms (0: settled). */
int sv_rollout(struct sv_run *run, int pi, cJSON *pst);

/* ctrl.c helpers */
const cJSON *run_pred(struct sv_run *run, int pi);
/* The predictor's Model (NULL with msg when missing or not usable). */
const cJSON *run_model(struct sv_run *run, int pi, char *msg, size_t len);
int run_desired(struct sv_run *run, int pi, const cJSON *pst);
int run_job_is_pred(struct sv_run *run, const cJSON *job, int pi);
void run_retire(struct sv_run *run, const cJSON *job);
void run_retire_template(struct sv_run *run, int pi, const char *tmpl);
int run_was_ready(struct sv_run *run, const char *job);
void run_mark_ready(struct sv_run *run, const char *job);
/* A stopped replica's Job is forgotten: its secret (kv) and its "was
 * ready" mark go, so that a later Job of the same name (a rollback to
 * the same template) registers its own secret and is judged afresh. */
void run_forget_job(struct sv_run *run, const char *job);
void run_start(struct sv_run *run, int pi, const char *tmpl, int idx, char *failed, size_t len);
void run_event(struct sv_run *run, const char *type, const char *reason, const char *fmt, ...)
    CUBE_PRINTF(4, 5);
/* Sets (reason NULL: clears) the predictor's reason and message. */
void run_note(struct sv_run *run, cJSON *pst, const char *reason, const char *msg);
void run_serve(struct sv_run *run, int pi, const struct sv_rep *reps, int n);
time_t sv_parse_time(const char *s);
/* Reads the service's Jobs and Models into run. */
int run_load(struct sv_run *run);
void run_free(struct sv_run *run);
/* Appends a revision to st when the spec's generation is new. */
void run_record_revision(struct sv_run *run, cJSON *st);
/* The predictors' status entries in spec order (a new array). */
cJSON *run_pred_statuses(struct sv_run *run, const cJSON *st);

#endif
