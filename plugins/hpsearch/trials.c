/* trials.c — a trial and its Job: the Job made for it (the trial template
 * with its parameters rendered in, the CUBE_TRIAL_* environment the SDK's
 * nni module reads, labels, the cube.dev/trial record), the trial read
 * back from a Job (after a restart), its phase followed from the Job's
 * status, and the stop of a trial (its Job's stopRequested; an assessor's
 * reason recorded on the Job first, so a restart still knows it stopped
 * early). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpsearch.h"

const char *const hs_phase_names[HS_N_PHASES] = {
    "Pending", "Running", "Succeeded", "Failed", "EarlyStopped", "Stopped",
};

int hs_trial_active(const struct hs_trial *t)
{
    return !t->job_ended;
}

/* The phase and times from the Job's status. */
static void apply_status(struct hs_trial *t, const cJSON *job)
{
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(job, "status");
    const cJSON *ann = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(job, "metadata"), "annotations");
    const char *phase = cu_str_or(st, "phase", ""), *early = cu_str(ann, HS_ANN_EARLY);
    snprintf(t->started, sizeof t->started, "%s", cu_str_or(st, "started", ""));
    snprintf(t->finished, sizeof t->finished, "%s", cu_str_or(st, "finished", ""));
    t->job_ended = !strcmp(phase, "Succeeded") || !strcmp(phase, "Failed") ||
                   !strcmp(phase, "Cancelled");
    if (!strcmp(phase, "Succeeded")) {
        t->phase = HS_SUCCEEDED;   /* it ended before its stop */
    } else if (early) {
        t->phase = HS_EARLY_STOPPED;
        snprintf(t->message, sizeof t->message, "%s", early);
    } else if (!strcmp(phase, "Failed") || !strcmp(phase, "Cancelled")) {
        t->phase = !strcmp(phase, "Failed") ? HS_FAILED : HS_STOPPED;
        if (!*t->message)
            snprintf(t->message, sizeof t->message, "%s", cu_str_or(st, "message", phase));
    } else {
        t->phase = !strcmp(phase, "Running") ? HS_RUNNING : HS_PENDING;
    }
}

static int owned_by(const cJSON *job, const struct hs_exp *x)
{
    const cJSON *r;
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(
                              cJSON_GetObjectItemCaseSensitive(job, "metadata"),
                              "ownerReferences"))
        if (cu_bool(r, "controller", 0) && !strcmp(cu_str_or(r, "kind", ""), "Experiment") &&
            !strcmp(cu_str_or(r, "name", ""), x->name) &&
            (!*x->uid || !strcmp(cu_str_or(r, "uid", ""), x->uid)))
            return 1;
    return 0;
}

/* The configuration recorded, or parsed from the parameters. */
static void record_config(const struct hs_exp *x, const cJSON *rec, struct hs_trial *t)
{
    const struct hp_space *s = x->spec.space;
    const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(rec, "config");
    struct hp_err e;
    if (cJSON_GetArraySize(cfg) == s->n) {
        int i = 0;
        const cJSON *v;
        cJSON_ArrayForEach(v, cfg)
            t->x[i++] = cJSON_IsNumber(v) ? v->valuedouble : NAN;
        return;
    }
    if (hp_params_parse(s, t->params, HP_BUDGET_PARAM, t->x, &e) < 0)
        for (int i = 0; i < s->n; i++)
            t->x[i] = NAN;
}

int hs_trial_from_job(struct hs *p, struct hs_exp *x, const cJSON *job, struct hs_trial *t)
{
    (void)p;
    memset(t, 0, sizeof *t);
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(job, "metadata");
    const char *num = cu_str(cJSON_GetObjectItemCaseSensitive(meta, "labels"), "trial");
    const char *rec_text = cu_str(cJSON_GetObjectItemCaseSensitive(meta, "annotations"),
                                  HS_ANN_TRIAL);
    int n = num ? atoi(num) : 0;
    if (n < 1 || !owned_by(job, x) || !rec_text)
        return -1;
    cJSON *rec = cJSON_Parse(rec_text);
    t->n = n;
    snprintf(t->job, sizeof t->job, "%s", cu_str_or(meta, "name", ""));
    t->params = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(rec, "parameters"), 1);
    if (!t->params)
        t->params = cJSON_CreateObject();
    t->x = calloc((size_t)x->spec.space->n + 1, sizeof *t->x);
    if (!t->x || !t->params) {
        cJSON_Delete(rec);
        return -1;
    }
    record_config(x, rec, t);
    t->foreign = !strcmp(cu_str_or(rec, "source", "tuner"), "user");
    snprintf(t->request, sizeof t->request, "%s", cu_str_or(rec, "request", ""));
    t->bracket = (int)cu_num(rec, "bracket", -1);
    t->rung = (int)cu_num(rec, "rung", -1);
    t->parent = (int)cu_num(rec, "parent", 0);
    t->budget = cu_num(rec, "budget", 0);
    t->value = NAN;
    cJSON_Delete(rec);
    apply_status(t, job);
    return 0;
}

int hs_trial_refresh(struct hs *p, struct hs_exp *x, struct hs_trial *t, cJSON **job_out)
{
    int rc;
    if (job_out)
        *job_out = NULL;
    cJSON *job = cu_json_take(p->host, p->host->obj_get(p->self, "Job", x->project, t->job, &rc));
    if (!job) {
        if (rc == CUBE_ENOTFOUND && !t->job_ended) {
            t->job_ended = 1;
            t->phase = HS_FAILED;
            snprintf(t->message, sizeof t->message, "its Job %s was deleted", t->job);
        }
        return -1;
    }
    apply_status(t, job);
    if (job_out)
        *job_out = job;
    else
        cJSON_Delete(job);
    return 0;
}

/* The trial's record, the annotation a restart reads back. */
static char *record(const struct hs_exp *x, const struct hs_trial *t)
{
    cJSON *r = cJSON_CreateObject(), *cfg = cJSON_AddArrayToObject(r, "config");
    cJSON_AddItemToObject(r, "parameters", cJSON_Duplicate(t->params, 1));
    for (int i = 0; i < x->spec.space->n; i++)
        cJSON_AddItemToArray(cfg, hs_number(t->x[i]));
    cJSON_AddStringToObject(r, "source", t->foreign ? "user" : "tuner");
    if (*t->request)
        cJSON_AddStringToObject(r, "request", t->request);
    if (t->bracket >= 0) {
        cJSON_AddNumberToObject(r, "bracket", t->bracket);
        cJSON_AddNumberToObject(r, "rung", t->rung);
        cJSON_AddNumberToObject(r, "parent", t->parent);
    }
    if (t->budget > 0)
        cJSON_AddNumberToObject(r, "budget", t->budget);
    char *s = cJSON_PrintUnformatted(r);
    cJSON_Delete(r);
    return s;
}

/* Renders every string of list `key` of the trial template into spec. */
static int render_list(const struct hs_exp *x, const struct hs_trial *t, const char *key,
                       cJSON *spec, char *msg, size_t mlen)
{
    const cJSON *v, *list = cJSON_GetObjectItemCaseSensitive(x->spec.trial, key);
    if (!list)
        return 0;
    cJSON *out = cJSON_AddArrayToObject(spec, key);
    cJSON_ArrayForEach(v, list) {
        struct hp_err e;
        char *r = hs_render(cJSON_IsString(v) ? v->valuestring : "", t->params,
                            x->spec.space, x->name, t->job, t->n, &e);
        if (!r) {
            snprintf(msg, mlen, "spec.trial.%s: %s", key, e.msg);
            return -1;
        }
        cJSON_AddItemToArray(out, cJSON_CreateString(r));
        free(r);
    }
    return 0;
}

static int trial_env(const struct hs_exp *x, const struct hs_trial *t, cJSON *spec, char *msg,
                     size_t mlen)
{
    cJSON *env = cJSON_AddObjectToObject(spec, "env");
    const cJSON *v;
    cJSON_ArrayForEach(v, cJSON_GetObjectItemCaseSensitive(x->spec.trial, "env")) {
        struct hp_err e;
        char *r = cJSON_IsString(v) ? hs_render(v->valuestring, t->params, x->spec.space,
                                                x->name, t->job, t->n, &e) : NULL;
        if (!r) {
            snprintf(msg, mlen, "spec.trial.env.%s: %s", v->string, e.msg);
            return -1;
        }
        cJSON_AddItemToObject(env, v->string, cJSON_CreateString(r));
        free(r);
    }
    char *params = cJSON_PrintUnformatted(t->params), seq[24];
    snprintf(seq, sizeof seq, "%d", t->n - 1);
    cJSON_AddStringToObject(env, "CUBE_TRIAL_PARAMETERS", params ? params : "{}");
    cJSON_AddStringToObject(env, "CUBE_EXPERIMENT", x->name);
    cJSON_AddStringToObject(env, "CUBE_TRIAL_ID", t->job);
    cJSON_AddStringToObject(env, "CUBE_TRIAL_SEQUENCE", seq);
    free(params);
    return 0;
}

static cJSON *job_doc(const struct hs_exp *x, const cJSON *exp, const struct hs_trial *t,
                      char *msg, size_t mlen)
{
    static const char *const COPIED[] = {"resources", "accelerator", "image", "pool",
                                         "retries", "workdir", "timeoutSeconds"};
    char num[24], *rec = record(x, t);
    cJSON *j = cJSON_CreateObject(), *meta = cJSON_AddObjectToObject(j, "metadata");
    cJSON_AddStringToObject(j, "kind", "Job");
    cJSON_AddStringToObject(meta, "name", t->job);
    cJSON_AddStringToObject(meta, "project", x->project);
    cJSON *labels = cJSON_AddObjectToObject(meta, "labels");
    cJSON_AddStringToObject(labels, "experiment", x->name);
    snprintf(num, sizeof num, "%d", t->n);
    cJSON_AddStringToObject(labels, "trial", num);
    cJSON_AddStringToObject(cJSON_AddObjectToObject(meta, "annotations"), HS_ANN_TRIAL,
                            rec ? rec : "{}");
    free(rec);
    cJSON *ref = cJSON_CreateObject();
    cJSON_AddStringToObject(ref, "kind", "Experiment");
    cJSON_AddStringToObject(ref, "name", x->name);
    cJSON_AddStringToObject(ref, "uid", cu_meta(exp, "uid") ? cu_meta(exp, "uid") : x->uid);
    cJSON_AddBoolToObject(ref, "controller", 1);
    cJSON_AddItemToArray(cJSON_AddArrayToObject(meta, "ownerReferences"), ref);
    cJSON *spec = cJSON_AddObjectToObject(j, "spec");
    for (size_t i = 0; i < sizeof COPIED / sizeof COPIED[0]; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(x->spec.trial, COPIED[i]);
        if (v && !(cJSON_IsString(v) && !*v->valuestring))
            cJSON_AddItemToObject(spec, COPIED[i], cJSON_Duplicate(v, 1));
    }
    if (render_list(x, t, "command", spec, msg, mlen) < 0 ||
        render_list(x, t, "args", spec, msg, mlen) < 0 || trial_env(x, t, spec, msg, mlen) < 0) {
        cJSON_Delete(j);
        return NULL;
    }
    return j;
}

char *hs_trial_doc(const struct hs_exp *x, const cJSON *exp, const struct hs_trial *t,
                   char *msg, size_t mlen)
{
    cJSON *j = job_doc(x, exp, t, msg, mlen);
    char *doc = j ? cJSON_PrintUnformatted(j) : NULL;
    cJSON_Delete(j);
    return doc;
}

int hs_job_is_trial(const struct hs_exp *x, const cJSON *job)
{
    return owned_by(job, x);
}

/* The Job, annotated with the assessor's reason (metadata only). */
static cJSON *annotate(struct hs *p, cJSON *job, const char *early)
{
    cJSON *meta = cJSON_GetObjectItemCaseSensitive(job, "metadata");
    cJSON *ann = cJSON_GetObjectItemCaseSensitive(meta, "annotations");
    if (!ann)
        ann = cJSON_AddObjectToObject(meta, "annotations");
    cu_set_str(ann, HS_ANN_EARLY, early);
    cJSON_DeleteItemFromObjectCaseSensitive(job, "status");
    char *doc = cJSON_PrintUnformatted(job);
    int rc;
    cJSON *out = doc ? cu_json_take(p->host, p->host->obj_update(p->self, doc, &rc)) : NULL;
    free(doc);
    cJSON_Delete(job);
    return out;
}

int hs_trial_stop(struct hs *p, struct hs_exp *x, struct hs_trial *t, const char *early)
{
    int rc = CUBE_OK;
    for (int attempt = 0; attempt < 3; attempt++) {
        cJSON *job = NULL;
        if (hs_trial_refresh(p, x, t, &job) < 0)
            return CUBE_ENOTFOUND;
        if (t->job_ended) {
            cJSON_Delete(job);
            return CUBE_OK;
        }
        if (early && !cu_str(cJSON_GetObjectItemCaseSensitive(
                                 cJSON_GetObjectItemCaseSensitive(job, "metadata"),
                                 "annotations"), HS_ANN_EARLY) &&
            !(job = annotate(p, job, early)))
            continue;   /* changed meanwhile: again */
        cJSON *st = cJSON_GetObjectItemCaseSensitive(job, "status");
        cJSON *status = st ? cJSON_Duplicate(st, 1) : cJSON_CreateObject();
        cu_set_item(status, "stopRequested", cJSON_CreateTrue());
        char *doc = cJSON_PrintUnformatted(status);
        char *out = doc ? p->host->obj_update_status(p->self, "Job", x->project, t->job, doc,
                                                     cu_meta(job, "resourceVersion"), &rc)
                        : NULL;
        free(doc);
        cJSON_Delete(status);
        cJSON_Delete(job);
        p->host->free(out);
        if (out) {
            t->stop_sent = 1;
            if (early) {
                t->phase = HS_EARLY_STOPPED;
                snprintf(t->message, sizeof t->message, "%s", early);
            }
            return CUBE_OK;
        }
        if (rc != CUBE_ECONFLICT)
            break;
    }
    return rc;
}
