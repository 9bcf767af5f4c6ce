/* controller.c — the Experiment controller. A pass, run whenever the
 * Experiment, one of its trial Jobs or their metrics change (and on
 * resync):
 *
 *   1. follows each trial that has not ended (its Job's phase; results:
 *      the final one once it ended, intermediate ones when an assessor
 *      judges them) and lets the assessor stop bad ones (early.c);
 *   2. decides: a stop request stops the running trials (Stopped once they
 *      ended); too many failed trials (maxFailedTrials) fail the
 *      experiment; maxDurationSeconds of running time ends it; otherwise
 *      trials are made while fewer than trialConcurrency run, user-chosen
 *      ones (status.requests) first, then the tuner's until maxTrials (or
 *      the tuner has no more); when nothing runs and nothing is left, the
 *      experiment Succeeded with its best trial, or Failed when no trial
 *      reported the objective's metric;
 *   3. writes the status when it changed (counts, best, times, phase).
 * The trials live in memory between passes (memo.c) and are rebuilt from
 * their Jobs after a restart; the tuner is stateless, so the next trial's
 * parameters are what they would have been. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "controller_internal.h"

static int terminal(const char *phase)
{
    return phase && (!strcmp(phase, "Succeeded") || !strcmp(phase, "Failed") ||
                     !strcmp(phase, "Stopped"));
}

/* Step 1: what the running trials did. */
static void follow(struct hs_pass *ps)
{
    struct hs_exp *x = ps->x;
    for (int i = 0; i < x->n; i++) {
        struct hs_trial *t = &x->trials[i];
        if (t->creating)
            continue;   /* its Job is being made (create.c) */
        if (hs_trial_active(t)) {
            hs_trial_refresh(ps->p, x, t, NULL);
            if (!hs_trial_active(t) || x->spec.assessor)
                hs_results_read(ps->p, x, t);
        } else if (!t->finals_read) {
            hs_results_read(ps->p, x, t);
        }
    }
    if (!terminal(cu_str(ps->st, "phase")))
        hs_assess_running(ps->p, x);
    ps->active = ps->failed = ps->own = 0;
    for (int i = 0; i < x->n; i++) {
        ps->active += hs_trial_active(&x->trials[i]);
        ps->failed += x->trials[i].phase == HS_FAILED;
        ps->own += !x->trials[i].foreign;
    }
}

static void stop_all(struct hs_pass *ps)
{
    for (int i = 0; i < ps->x->n; i++) {
        struct hs_trial *t = &ps->x->trials[i];
        if (hs_trial_active(t) && !t->stop_sent && !t->creating)
            hs_trial_stop(ps->p, ps->x, t, NULL);
    }
}

static double active_seconds(const struct hs_pass *ps)
{
    double acc = cu_num(ps->st, "activeSeconds", 0);
    int64_t since = hs_time_parse(cu_str(ps->st, "activeSince"));
    int64_t now = hs_time_parse(ps->now);
    return acc + (since >= 0 && now >= since ? (double)(now - since) : 0);
}

/* The experiment ends (phase, finished, running time, an event). */
void hs_pass_finish(struct hs_pass *ps, const char *phase, const char *message)
{
    cu_set_num(ps->st, "activeSeconds", active_seconds(ps));
    cJSON_DeleteItemFromObjectCaseSensitive(ps->st, "activeSince");
    cu_set_str(ps->st, "phase", phase);
    cu_set_str(ps->st, "finished", ps->now);
    if (message && *message)
        cu_set_str(ps->st, "message", message);
    const struct hs_trial *b = hs_best(ps->x);
    char msg[512];
    if (b)
        snprintf(msg, sizeof msg, "%s after %d trials; the best is trial %d (%s = %g)%s%s",
                 phase, ps->x->n, b->n, ps->x->spec.metric, b->value,
                 message && *message ? ": " : "", message ? message : "");
    else
        snprintf(msg, sizeof msg, "%s after %d trials%s%s", phase, ps->x->n,
                 message && *message ? ": " : "", message ? message : "");
    ps->p->host->obj_event(ps->p->self, "Experiment", ps->x->project, ps->x->name,
                           strcmp(phase, "Succeeded") ? "Warning" : "Normal", phase, msg);
}

/* Why no trial has a value: the metric is never reported. */
static void no_result_message(struct hs_pass *ps, char *out, size_t len)
{
    char names[200] = "";
    for (int i = ps->x->n - 1, looked = 0; i >= 0 && !*names && looked < 20; i--)
        if (!hs_trial_active(&ps->x->trials[i]) && ++looked)   /* the last few that ended */
            hs_results_names(ps->p, ps->x, &ps->x->trials[i], names, sizeof names);
    snprintf(out, len, "no trial reported final/%s (spec.objective.metric)%s%s",
             ps->x->spec.metric, *names ? "; the trials reported " : "", names);
}

/* The experiment ends once nothing runs: Succeeded with a best trial. */
static void end_when_idle(struct hs_pass *ps, const char *why)
{
    if (ps->active > 0)
        return;
    char msg[400];
    if (hs_best(ps->x)) {
        hs_pass_finish(ps, "Succeeded", why);
        return;
    }
    no_result_message(ps, msg, sizeof msg);
    hs_pass_finish(ps, "Failed", msg);
}

/* The running trials are stopped; the experiment ends in phase once none
 * runs, with why as its message meanwhile too. */
static void stop_then(struct hs_pass *ps, const char *phase, const char *why)
{
    stop_all(ps);
    if (ps->active == 0)
        hs_pass_finish(ps, phase, why);
    else
        cu_set_str(ps->st, "message", why);
}

/* Step 2. */
static void decide(struct hs_pass *ps)
{
    const struct hs_spec *sp = &ps->x->spec;
    char why[300];
    const cJSON *refused = cJSON_GetObjectItemCaseSensitive(ps->st, "refused");
    if (refused) {   /* a trial's Job was refused (create.c) */
        snprintf(why, sizeof why, "%.280s", cu_str_or(refused, "message", "a trial was refused"));
        stop_then(ps, "Failed", why);
        return;
    }
    if (cu_bool(ps->st, "stopRequested", 0)) {
        stop_then(ps, "Stopped", "stopped on request");
        return;
    }
    if (sp->max_failed >= 0 && ps->failed > sp->max_failed) {
        snprintf(why, sizeof why, "%d trials failed, more than maxFailedTrials (%lld)",
                 ps->failed, (long long)sp->max_failed);
        stop_then(ps, "Failed", why);
        return;
    }
    if (sp->max_duration > 0) {
        double left = (double)sp->max_duration - active_seconds(ps);
        if (left <= 0) {
            snprintf(why, sizeof why, "maxDurationSeconds (%lld) reached",
                     (long long)sp->max_duration);
            stop_all(ps);
            end_when_idle(ps, why);
            if (ps->active > 0)
                cu_set_str(ps->st, "message", why);
            return;
        }
        ps->retry_ms = left > 86400 ? 86400000 : (int)(left * 1000) + 50;
    }
    if (hs_make_trials(ps) < 0)
        return;   /* failed, message set */
    if (hs_nothing_left(ps))
        end_when_idle(ps, NULL);
}

static void start(struct hs_pass *ps)
{
    cu_set_str(ps->st, "phase", "Running");
    if (!cu_str(ps->st, "started"))
        cu_set_str(ps->st, "started", ps->now);
    if (!cu_str(ps->st, "activeSince"))
        cu_set_str(ps->st, "activeSince", ps->now);
}

/* Later, not now: the same phase, written less than status_write_ms ago. */
static int put_off(struct hs_pass *ps, const cJSON *stored)
{
    const char *was = cu_str(stored, "phase"), *phase = cu_str(ps->st, "phase");
    double gap = (double)ps->p->status_write_ms / 1000, left = ps->x->written_at + gap - hs_clock();
    if (!was || !phase || strcmp(was, phase) || terminal(phase) || left <= 0)
        return 0;
    int ms = (int)(left * 1000) + 1;
    if (ps->retry_ms <= 0 || ms < ps->retry_ms)
        ps->retry_ms = ms;
    return 1;
}

static int write_status(struct hs_pass *ps, const cJSON *stored)
{
    cJSON *st = hs_status_build(ps->x, ps->st, NULL, NULL, ps->now);
    int rc = CUBE_OK;
    if (!st)
        return CUBE_ENOMEM;
    if ((!stored || !cJSON_Compare(st, stored, 1)) && !put_off(ps, stored)) {
        rc = hs_status_write(ps->p, ps->x, st, cu_meta(ps->obj, "resourceVersion"));
        if (rc == CUBE_OK)
            ps->x->written_at = hs_clock();
    }
    cJSON_Delete(st);
    if (rc == CUBE_ECONFLICT) {   /* an action wrote meanwhile: soon again, with it */
        ps->p->host->retry_after(ps->p->self, 20);
        return CUBE_EAGAIN;
    }
    return rc;
}

static int pass(struct hs_pass *ps, const cJSON *stored)
{
    ps->st = stored ? cJSON_Duplicate(stored, 1) : cJSON_CreateObject();
    if (!ps->st)
        return CUBE_ENOMEM;
    hs_now(ps->now, sizeof ps->now);
    const char *phase = cu_str(ps->st, "phase");
    if (!phase || !strcmp(phase, "Pending"))
        start(ps);
    follow(ps);
    if (!terminal(cu_str(ps->st, "phase")))
        decide(ps);
    int rc = write_status(ps, stored);
    cJSON_Delete(ps->st);
    if (rc == CUBE_OK && ps->retry_ms > 0) {
        ps->p->host->retry_after(ps->p->self, (unsigned)ps->retry_ms);
        return CUBE_EAGAIN;
    }
    return rc;
}

/* A spec that no longer parses (one stored by an older release): Failed. */
static int bad_spec(struct hs *p, const cJSON *obj, const struct hp_err *e)
{
    const cJSON *stored = cJSON_GetObjectItemCaseSensitive(obj, "status");
    if (terminal(cu_str(stored, "phase")))
        return CUBE_OK;
    cJSON *st = stored ? cJSON_Duplicate(stored, 1) : cJSON_CreateObject();
    char msg[900], now[40];
    hs_now(now, sizeof now);
    snprintf(msg, sizeof msg, "%s%s%s", e->field, *e->field ? ": " : "", e->msg);
    cu_set_str(st, "phase", "Failed");
    cu_set_str(st, "message", msg);
    cu_set_str(st, "finished", now);
    char *doc = cJSON_PrintUnformatted(st);
    int rc = CUBE_ENOMEM;
    char *out = doc ? p->host->obj_update_status(p->self, "Experiment", cu_meta(obj, "project"),
                                                 cu_meta(obj, "name"), doc,
                                                 cu_meta(obj, "resourceVersion"), &rc) : NULL;
    free(doc);
    cJSON_Delete(st);
    p->host->free(out);
    return out || rc == CUBE_ECONFLICT ? CUBE_OK : rc;
}

int hs_reconcile(void *state, const char *kind, const char *project, const char *name,
                 const char *object_json)
{
    (void)kind;
    struct hs *p = state;
    if (!object_json) {
        hs_memo_forget(p, project, name);
        return CUBE_OK;
    }
    double t0 = hs_clock();
    cJSON *obj = cJSON_Parse(object_json);
    if (!obj)
        return CUBE_ENOMEM;
    struct hp_err e = {.field = "", .msg = ""};
    int rc;
    struct hs_exp *x = hs_memo_take(p, obj, &e, &rc);
    if (!x) {
        rc = rc == CUBE_EINVAL ? bad_spec(p, obj, &e) : rc;
        if (rc != CUBE_OK)
            p->host->set_error(p->self, "%s", e.msg);
        cJSON_Delete(obj);
        return rc;
    }
    struct hs_pass ps = {.p = p, .x = x, .obj = obj};
    rc = pass(&ps, cJSON_GetObjectItemCaseSensitive(obj, "status"));
    hs_memo_release(x);
    cJSON_Delete(obj);
    if (p->passes)
        p->host->metric_observe(p->passes, NULL, hs_clock() - t0);
    return rc;
}
