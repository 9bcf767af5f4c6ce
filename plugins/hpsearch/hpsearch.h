/* hpsearch.h — the hyper-parameter search plugin: the Experiment kind
 * (kinds.c, spec.c), its controller (controller.c), the trials it keeps
 * in memory and rebuilds from their Jobs (memo.c, trials.c, results.c,
 * jobs.c), its status (status.c) and its actions (actions.c). The search
 * itself (spaces, tuners, assessors) is the pure library in lib/ (hp.h).
 *
 * A trial is a Job "<experiment>-<n>" owned by its Experiment (controller
 * ownerReference, so it runs as the Experiment's owner and its changes and
 * metrics bring the Experiment back to its controller), labelled
 * experiment=<name> and trial=<n>, with the annotation cube.dev/trial
 * (what rebuilding needs: parameters, configuration, source, hyperband
 * bookkeeping) and, once an assessor stopped it, cube.dev/early-stopped
 * (why). The trial's results are its Job's metrics: "<metric>" at steps
 * 1, 2 ... (intermediate) and "final/<metric>" (final), as the SDK's nni
 * module reports them. */
#ifndef HPSEARCH_H
#define HPSEARCH_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>
#include <cube/cube.h>
#include <cube/util/json.h>

#include "hp.h"

#define HS_NAME "hpsearch"
#define HS_NAME_MAX 50           /* an Experiment's name: its Jobs are "<name>-<n>" */
#define HS_ANN_TRIAL "cube.dev/trial"
#define HS_ANN_EARLY "cube.dev/early-stopped"
#define HS_FINAL_PREFIX "final/"
#define HS_MAX_REQUESTS 100      /* user-chosen trials waiting in status.requests */

struct hs_exp;

/* The plugin's state. */
struct hs {
    const struct cube_host *host;
    cube_plugin *self;
    int64_t max_trials;          /* config: the largest spec.maxTrials */
    int64_t max_concurrency;     /* config: the largest spec.trialConcurrency */
    int64_t status_write_ms;     /* config: the least time between two status writes */
    pthread_mutex_t mu;          /* guards exps */
    struct hs_exp **exps;
    int n_exps, cap_exps;
    cube_metric *passes;         /* cube_hpsearch_reconcile_seconds */
    cube_metric *trials_made;    /* cube_hpsearch_trials_total */
};

/* -- the spec (spec.c) ------------------------------------------------------ */

/* An Experiment's spec, checked and parsed. */
struct hs_spec {
    struct hp_space *space;
    struct hp_tuner *tuner;
    struct hp_assessor *assessor;   /* NULL: none */
    char metric[128];               /* objective.metric */
    int maximize;
    int concurrency;
    int64_t max_trials, max_duration, max_failed;   /* max_failed -1: no limit */
    cJSON *trial;                   /* spec.trial (owned copy) */
    int budgeted;                   /* the tuner sets TRIAL_BUDGET */
};

/* Parses obj's spec (the whole Experiment) into *sp. Returns 0, or -1 with
 * e->field naming the field ("spec.searchSpace.lr._value"). seed_key (the
 * Experiment's uid) gives the tuner's seed when its args have none. */
int hs_spec_parse(struct hs *p, const cJSON *obj, struct hs_spec *sp, struct hp_err *e);
void hs_spec_free(struct hs_spec *sp);
/* The check callback of the Experiment kind (1.5 error channel). */
int hs_spec_check(void *state, const char *object_json, const char *old_json);

/* -- rendering {{ params.x }} (render.c) ------------------------------------- */

/* The text with every {{ params.<path> }}, {{ trial.number }}, {{ trial.id }}
 * and {{ experiment.name }} replaced (malloc'ed), or NULL with e filled
 * (e->field empty: the caller names the field). params NULL checks the
 * names against space only (a dry run; the result is then a copy). */
char *hs_render(const char *text, const cJSON *params, const struct hp_space *space,
                const char *experiment, const char *trial_id, int trial_n, struct hp_err *e);

/* -- trials (memo.c, trials.c) ------------------------------------------------ */

enum hs_phase {
    HS_PENDING, HS_RUNNING, HS_SUCCEEDED, HS_FAILED, HS_EARLY_STOPPED, HS_STOPPED,
    HS_N_PHASES,
};
extern const char *const hs_phase_names[HS_N_PHASES];

struct hs_trial {
    int n;                       /* 1-based */
    char job[72];
    int phase;                   /* enum hs_phase */
    int job_ended;               /* its Job reached Succeeded, Failed or Cancelled */
    cJSON *params;               /* the parameters it was given (owned) */
    double *x;                   /* its configuration (space->n values, owned) */
    double value;                /* final/<metric>, NAN: none */
    double *curve;               /* intermediate results, index step - 1 (NAN: none) */
    int n_curve, cap_curve;
    int64_t seen_step;           /* intermediate results read up to this step */
    int bracket, rung, parent;
    double budget;
    int foreign;                 /* user-chosen, not the tuner's */
    char request[32];            /* the status.requests id it came from */
    char started[40], finished[40];
    char message[300];
    int stop_sent;               /* its Job was asked to stop */
    int creating;                /* its Job is being made (create.c) */
    int finals_read;             /* results read after its Job ended */
    int64_t assessed_step;       /* the assessor's last look */
};

/* What the controller keeps of one Experiment between passes. */
struct hs_exp {
    char project[64], name[64], uid[64];
    pthread_mutex_t mu;          /* one pass, or one action's read, at a time */
    struct hs_spec spec;
    int64_t generation;          /* of the spec parsed */
    struct hs_trial *trials;     /* by n, ascending */
    int n, cap;
    int last_n;                  /* the highest trial number made */
    int tuner_done;              /* the tuner said DONE */
    double written_at;           /* hs_clock() of the last status write */
    /* the table's bookkeeping (memo.c), under struct hs.mu */
    struct hs *owner;
    int refs, dead, built;
};

/* The kept Experiment of (project, name, uid), locked, made and rebuilt
 * from the store when missing or of another uid. NULL with e filled (a bad
 * spec: e names it) or on a store error (e->field "", rc set). */
struct hs_exp *hs_memo_take(struct hs *p, const cJSON *obj, struct hp_err *e, int *rc);
/* The kept Experiment if there is one (locked), else NULL. */
struct hs_exp *hs_memo_find(struct hs *p, const char *project, const char *name);
void hs_memo_release(struct hs_exp *x);
/* Forgets an Experiment (deleted). */
void hs_memo_forget(struct hs *p, const char *project, const char *name);
void hs_memo_fini(struct hs *p);
/* Adds a trial (copying nothing: *t is moved in); returns it. */
struct hs_trial *hs_exp_add(struct hs_exp *x, struct hs_trial *t);
struct hs_trial *hs_exp_trial(struct hs_exp *x, int n);
void hs_trial_free(struct hs_trial *t);

/* The trial a Job records (trials.c): 0 with *t filled, -1 when the Job is
 * not one of x's trials. */
int hs_trial_from_job(struct hs *p, struct hs_exp *x, const cJSON *job, struct hs_trial *t);
/* Follows t's Job (obj_get): phase, times; job_out (may be NULL) gets the
 * Job (caller frees). Returns 0, or -1 when the Job is gone (t Failed). */
int hs_trial_refresh(struct hs *p, struct hs_exp *x, struct hs_trial *t, cJSON **job_out);
/* The Job of trial t as JSON text (malloc'ed), or NULL with msg (a
 * {{ }} that does not render). */
char *hs_trial_doc(const struct hs_exp *x, const cJSON *exp, const struct hs_trial *t,
                   char *msg, size_t mlen);
/* 1 when job is a trial of x (its controller ownerReference). */
int hs_job_is_trial(const struct hs_exp *x, const cJSON *job);
/* Makes t's Job off the controller's thread (create.c): t->creating until
 * it exists; a refusal marks t Failed and records status.refused, which
 * the controller fails the experiment with. Returns CUBE_OK, or an error
 * with msg when nothing was started. */
int hs_trial_submit(struct hs *p, struct hs_exp *x, const cJSON *exp, struct hs_trial *t,
                    char *msg, size_t mlen);
/* Asks t's Job to stop (its status' stopRequested); early (may be NULL):
 * the assessor's reason, recorded on the Job first. */
int hs_trial_stop(struct hs *p, struct hs_exp *x, struct hs_trial *t, const char *early);
/* 1 when t has not ended (its Job still counts against trialConcurrency). */
int hs_trial_active(const struct hs_trial *t);

/* -- results (results.c) ----------------------------------------------------- */

/* Reads t's new intermediate results and, once its Job ended, its final
 * result (job_metrics). Returns 0 or the host's error. */
int hs_results_read(struct hs *p, struct hs_exp *x, struct hs_trial *t);
/* The names t's Job reported (for a message when the metric is missing):
 * "final/accuracy, loss" into out. */
void hs_results_names(struct hs *p, struct hs_exp *x, struct hs_trial *t, char *out,
                      size_t len);

/* -- the controller and status (controller.c, status.c, assess.c) ------------ */

int hs_reconcile(void *state, const char *kind, const char *project, const char *name,
                 const char *object_json);
/* The history the tuner sees (n of them; caller frees, not the x arrays). */
struct hp_obs *hs_history(const struct hs_exp *x, int *n);
/* The best trial (NULL: none has a value). */
const struct hs_trial *hs_best(const struct hs_exp *x);
/* The status of x as the pass leaves it, from the stored status (kept:
 * requests, stopRequested, activeSince ...) and what the pass decided. */
cJSON *hs_status_build(const struct hs_exp *x, const cJSON *stored, const char *phase,
                       const char *message, const char *now);
/* Writes status if it differs from what was last written: CUBE_OK or
 * CUBE_ECONFLICT / another error. */
int hs_status_write(struct hs *p, struct hs_exp *x, cJSON *status, const char *rv);
/* Runs the assessor over the running trials; stops the bad ones. */
void hs_assess_running(struct hs *p, struct hs_exp *x);
/* The trial as the trials list shows it (new object). */
cJSON *hs_trial_json(const struct hs_exp *x, const struct hs_trial *t, int curves);

/* -- actions (actions.c) ------------------------------------------------------ */

int hs_actions_register(struct hs *p);

/* -- kinds (kinds.c) ------------------------------------------------------------ */

int hs_kinds_register(struct hs *p);

/* -- small helpers (util.c) ------------------------------------------------------ */

/* The current time as RFC 3339 UTC ("2026-01-02T03:04:05Z"), and a parse
 * of one (seconds since the epoch; -1 when not one). */
void hs_now(char *out, size_t len);
int64_t hs_time_parse(const char *s);
double hs_clock(void);
/* A JSON number for v: null when not finite. */
cJSON *hs_number(double v);

#endif
