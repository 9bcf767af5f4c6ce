/* ctrl_rollout.c — one predictor's replicas, one reconcile step at a time.
 *
 * A predictor's "template" is the hash of what its replicas run (model
 * version and its digest, runtime, command, env, resources: job.c). The
 * status keeps the template that serves ("template") and, during an
 * upgrade, the one on its way ("next"). Replica Jobs carry their template
 * in a label and are named <service>-<predictor>-<template>-<index>.
 *
 * Steady: the serving template's Jobs are kept at the desired count (the
 * autoscaler's, within replicas.min/max); ready ones (their health path
 * answers 200 with the replica's secret) are in the rotation. A change of
 * template starts a rolling upgrade: the new template's replicas start
 * beside the old; once as many are ready as serve now, traffic moves to
 * them, then the old are stopped when their requests have ended. A new
 * replica that ends or is not ready within health.timeout fails the
 * upgrade: its Jobs go, the old keep serving, and the template is marked
 * failed until the spec changes again. Every step is an event. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>
#include <cube/util/http.h>
#include <cube/util/json.h>

#include "ctrl.h"

#define POLL_MS 500

static const char *job_phase(const cJSON *job)
{
    return cu_str_or(cJSON_GetObjectItemCaseSensitive(job, "status"), "phase", "Pending");
}

static int ended(const cJSON *job)
{
    const char *ph = job_phase(job);
    return !strcmp(ph, "Succeeded") || !strcmp(ph, "Failed") || !strcmp(ph, "Cancelled");
}

static int job_index(const cJSON *job)
{
    const char *n = cu_meta(job, "name"), *dash = n ? strrchr(n, '-') : NULL;
    return dash ? atoi(dash + 1) : -1;
}

static const char *job_template(const cJSON *job)
{
    return cu_str(cJSON_GetObjectItemCaseSensitive(
                      cJSON_GetObjectItemCaseSensitive(job, "metadata"), "labels"),
                  "cube.dev/template");
}

/* The reason a replica ended or is stuck, for events: the runtime's last
 * "cube-serving:" line in its log, else its last line (a Python
 * traceback's names the error), else the Job's message. */
static void why_failed(struct sv_run *run, const cJSON *job, char *out, size_t len)
{
    const char *name = cu_meta(job, "name");
    uint64_t size = 0;
    int rc;
    size_t got = 0;
    snprintf(out, len, "%s", cu_str_or(cJSON_GetObjectItemCaseSensitive(job, "status"),
                                       "message", "the replica ended"));
    if (run->sv->host->log_stat(run->sv->self, "Job", run->project, name, "replica-0", &size,
                                NULL) != CUBE_OK || !size)
        return;
    uint64_t off = size > 4096 ? size - 4096 : 0;
    char *text = run->sv->host->log_read(run->sv->self, "Job", run->project, name, "replica-0",
                                         off, 4096, &got, &rc);
    if (!text)
        return;
    char *mark = NULL, *last = NULL, *save = NULL;   /* a traceback's last line says why */
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (strstr(line, "cube-serving: "))
            mark = strstr(line, "cube-serving: ") + 14;
        else if (*line)
            last = line;
    }
    if (mark || last)
        snprintf(out, len, "%s", mark ? mark : last);
    run->sv->host->free(text);
}

/* Probes a running replica; 1 ready (its entry filled), 0 not yet. */
static int probe(struct sv_run *run, const cJSON *job, const cJSON *pred, struct sv_rep *rep)
{
    const cJSON *health = cJSON_GetObjectItemCaseSensitive(pred, "health");
    const char *name = cu_meta(job, "name");
    memset(rep, 0, sizeof *rep);
    snprintf(rep->job, sizeof rep->job, "%s", name);
    if (strcmp(job_phase(job), "Running") || cu_replica_endpoint(job, 0, SV_PORT, rep->host,
                                                                 sizeof rep->host, &rep->port) != 0)
        return 0;
    if (!run->sv->conf.allow_remote && !cu_is_loopback(rep->host))
        return 0;
    const char *rt = cu_str(pred, "runtime");
    int custom = rt && !strcmp(rt, "custom");
    if (!custom && sv_token_get(run->sv, run->project, name, rep->token, sizeof rep->token) < 0)
        return 0;       /* the runtime has not said its secret yet */
    char hdr[128];
    snprintf(hdr, sizeof hdr, "%s: %s", SV_TOKEN_HEADER, rep->token);
    int status = 0;
    char *body = cu_http_request("GET", rep->host, rep->port,
                                 cu_str_or(health, "path", "/v2/health/ready"),
                                 custom ? NULL : hdr, NULL, SV_REPLICA_MAX_BODY, 1000, &status);
    free(body);
    return status == 200;
}

static int64_t started_ms(const cJSON *job)
{
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(job, "status");
    time_t t = sv_parse_time(cu_str(st, "started"));
    if (t < 0)
        t = sv_parse_time(cu_meta(job, "created"));
    return t < 0 ? 0 : (int64_t)t * 1000;
}

/* Follows the Jobs of one template: creates the missing indices below
 * want, marks those at or above it retiring; fills reps with the ready
 * ones. Returns the count ready; *failed gets a reason when a replica
 * that never got ready ended or timed out. */
static int follow(struct sv_run *run, int pi, const char *tmpl, int want, int fresh,
                  struct sv_rep *reps, char *failed, size_t flen)
{
    const cJSON *pred = run_pred(run, pi), *job;
    const cJSON *health = cJSON_GetObjectItemCaseSensitive(pred, "health");
    int have[SV_MAX_REP] = {0}, ready = 0;
    int64_t timeout_ms = (int64_t)cu_num(health, "timeout", 120) * 1000;
    int64_t delay_ms = (int64_t)cu_num(health, "initialDelay", 0) * 1000;
    cJSON_ArrayForEach(job, run->jobs) {
        const char *t = job_template(job);
        int idx = job_index(job);
        if (!t || strcmp(t, tmpl) || !run_job_is_pred(run, job, pi))
            continue;
        if (idx < 0 || idx >= SV_MAX_REP || idx >= want) {
            run_retire(run, job);
            continue;
        }
        have[idx] = 1;
        if (ended(job)) {
            if (fresh || !run_was_ready(run, cu_meta(job, "name"))) {
                why_failed(run, job, failed, flen);
                run_retire(run, job);
            } else {        /* a serving replica died: it is replaced */
                run_event(run, "Warning", "ReplicaRestarted", "replica %s ended (%s); "
                          "starting it again", cu_meta(job, "name"), job_phase(job));
                run_retire(run, job);
                have[idx] = 0;
            }
            continue;
        }
        int64_t since = started_ms(job);
        if (since && run->now_ms - since < delay_ms)
            continue;
        if (probe(run, job, pred, &reps[ready])) {
            run_mark_ready(run, cu_meta(job, "name"));
            ready++;
        } else if (since && run->now_ms - since > timeout_ms &&
                   !run_was_ready(run, cu_meta(job, "name"))) {
            snprintf(failed, flen, "replica %s did not get ready within %lld s (its health "
                     "path %s did not answer 200)", cu_meta(job, "name"),
                     (long long)(timeout_ms / 1000), cu_str_or(health, "path", "/v2/health/ready"));
        }
    }
    for (int i = 0; i < want && i < SV_MAX_REP && !failed[0]; i++)
        if (!have[i])
            run_start(run, pi, tmpl, i, failed, flen);
    return ready;
}

int sv_rollout(struct sv_run *run, int pi, cJSON *pst)
{
    char hash[16], failed[400] = "", msg[600];
    struct sv_rep reps[SV_MAX_REP], next_reps[SV_MAX_REP];
    const cJSON *pred = run_pred(run, pi);
    const char *pname = cu_str(pred, "name");
    const cJSON *model = run_model(run, pi, msg, sizeof msg);
    const char *rt = cu_str(pred, "runtime");
    int custom = rt && !strcmp(rt, "custom");
    char *active = cu_str(pst, "template") ? strdup(cu_str(pst, "template")) : NULL;
    int want = run_desired(run, pi, pst), n_ready = 0, more = 0;
    if (!model && !custom) {
        /* no such Model: the old template (if any) keeps serving */
        run_note(run, pst, "ModelNotReady", msg);
        run_event(run, "Warning", "ModelNotReady", "%s", msg);
        n_ready = active ? follow(run, pi, active, want, 0, reps, failed, sizeof failed) : 0;
        more = 4;           /* look again soon: the Model may get ready */
        goto out;
    }
    sv_template_hash(pred, model, hash, sizeof hash);
    const char *bad = cu_str(pst, "failedTemplate");
    if (bad && !strcmp(bad, hash)) {                  /* failed before: the old serves on */
        run_retire_template(run, pi, hash);
        n_ready = active ? follow(run, pi, active, want, 0, reps, failed, sizeof failed) : 0;
        more = active && n_ready < want;
    } else if (!active || !strcmp(active, hash)) {    /* steady, or the first start */
        n_ready = follow(run, pi, hash, want, !active, reps, failed, sizeof failed);
        if (failed[0] && !active) {
            snprintf(msg, sizeof msg, "predictor %s cannot start: %s", pname, failed);
            run_event(run, "Warning", "PredictorFailed", "%s", msg);
            cu_set_str(pst, "failedTemplate", hash);
            run_note(run, pst, "PredictorFailed", msg);
            run_retire_template(run, pi, hash);
            n_ready = 0;
            failed[0] = '\0';
        } else if (!active && n_ready) {
            run_event(run, "Normal", "PredictorReady", "predictor %s serves (template %s, "
                      "%d ready)", pname, hash, n_ready);
            cu_set_str(pst, "template", hash);
            run_note(run, pst, NULL, NULL);
        }
        more = n_ready < want && (active || !cu_str(pst, "failedTemplate"));
    } else {                                          /* rolling upgrade active -> hash */
        n_ready = follow(run, pi, active, want, 0, reps, failed, sizeof failed);
        char nfail[400] = "";
        int need = want > 0 ? want : 1;
        if (!cu_str(pst, "next") || strcmp(cu_str(pst, "next"), hash)) {
            run_event(run, "Normal", "UpgradeStarted", "predictor %s: starting %d replica(s) "
                      "of template %s beside %s", pname, need, hash, active);
            cu_set_str(pst, "next", hash);
        }
        int nready = follow(run, pi, hash, need, 1, next_reps, nfail, sizeof nfail);
        if (nfail[0]) {
            snprintf(msg, sizeof msg, "predictor %s: upgrade to template %s failed, template "
                     "%s keeps serving: %s", pname, hash, active, nfail);
            run_event(run, "Warning", "UpgradeFailed", "%s", msg);
            run_retire_template(run, pi, hash);
            cu_set_str(pst, "failedTemplate", hash);
            cJSON_DeleteItemFromObjectCaseSensitive(pst, "next");
            run_note(run, pst, "UpgradeFailed", msg);
        } else if (nready >= need) {
            run_event(run, "Normal", "TrafficMoved", "predictor %s: traffic moved to template "
                      "%s (%d ready)", pname, hash, nready);
            run_retire_template(run, pi, active);
            cu_set_str(pst, "template", hash);
            cJSON_DeleteItemFromObjectCaseSensitive(pst, "next");
            cJSON_DeleteItemFromObjectCaseSensitive(pst, "failedTemplate");
            run_note(run, pst, NULL, NULL);
            memcpy(reps, next_reps, sizeof reps[0] * (size_t)nready);
            n_ready = nready;
        } else {
            more = 1;
        }
    }
    if (failed[0] && active)
        run_event(run, "Warning", "ReplicaFailed", "predictor %s: %s", pname, failed);
out:
    cu_set_num(pst, "ready", n_ready);
    cu_set_num(pst, "desired", want);
    run_serve(run, pi, reps, n_ready);
    free(active);
    return more == 4 ? 2000 : more ? POLL_MS : 0;
}
