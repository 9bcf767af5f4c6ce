/* create.c — trial Jobs made off the controller's thread. Making a Job is
 * most of the time a pass would spend on a new trial (the host checks,
 * stores and audits it); the pass decides the trial (number, parameters)
 * and keeps it in memory as creating, and a host worker makes its Job, so
 * several trials' Jobs are made at once while the pass goes on. The Job's
 * creation brings the Experiment back to its controller (it owns the Job).
 * A refused Job (its reason, as the API would answer it, from obj_error) (or a Job of that name that is not this experiment's)
 * marks the trial Failed and records status.refused {trial, message} on
 * the Experiment, which the next pass fails the experiment with. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpsearch.h"

struct make_task {
    struct hs *p;
    char project[64], name[64], uid[64], job[72];
    int n;
    char *doc;
};

/* status.refused, again when another write came first. */
static void record_refusal(struct hs *p, const struct make_task *m, const char *msg)
{
    for (int attempt = 0; attempt < 8; attempt++) {
        int rc;
        cJSON *obj = cu_json_take(p->host, p->host->obj_get(p->self, "Experiment", m->project,
                                                            m->name, &rc));
        if (!obj || strcmp(cu_str_or(cJSON_GetObjectItemCaseSensitive(obj, "metadata"), "uid",
                                     ""), m->uid)) {
            cJSON_Delete(obj);
            return;
        }
        const cJSON *stored = cJSON_GetObjectItemCaseSensitive(obj, "status");
        if (cJSON_GetObjectItemCaseSensitive(stored, "refused")) {   /* the first one says it */
            cJSON_Delete(obj);
            return;
        }
        cJSON *st = stored ? cJSON_Duplicate(stored, 1) : cJSON_CreateObject();
        cJSON *r = cJSON_CreateObject();
        cJSON_AddNumberToObject(r, "trial", m->n);
        cJSON_AddStringToObject(r, "message", msg);
        cu_set_item(st, "refused", r);
        char *doc = cJSON_PrintUnformatted(st);
        char *out = doc ? p->host->obj_update_status(p->self, "Experiment", m->project, m->name,
                                                     doc, cu_meta(obj, "resourceVersion"), &rc)
                        : NULL;
        free(doc);
        cJSON_Delete(st);
        cJSON_Delete(obj);
        p->host->free(out);
        if (out || rc != CUBE_ECONFLICT)
            return;
    }
}

/* An existing Job of the trial's name: this experiment's (made before a
 * restart cut a pass short), or not. */
static int existing_is_ours(struct hs *p, struct hs_exp *x, const struct make_task *m)
{
    int rc;
    cJSON *job = cu_json_take(p->host, p->host->obj_get(p->self, "Job", m->project, m->job,
                                                        &rc));
    int ours = job && hs_job_is_trial(x, job);
    cJSON_Delete(job);
    return ours;
}

static void finish_task(struct hs *p, const struct make_task *m, int rc, const char *why)
{
    char msg[700] = "";
    struct hs_exp *x = hs_memo_find(p, m->project, m->name);
    if (x && !strcmp(x->uid, m->uid)) {
        if (rc == CUBE_EEXIST && !existing_is_ours(p, x, m)) {
            snprintf(msg, sizeof msg, "a Job named %s exists and is not this experiment's trial",
                     m->job);
        } else if (rc != CUBE_OK && rc != CUBE_EEXIST) {
            snprintf(msg, sizeof msg, "the Job of trial %d was refused: %.600s", m->n,
                     why && *why ? why : "(see the cubed log)");
        }
        struct hs_trial *t = hs_exp_trial(x, m->n);
        if (t) {
            t->creating = 0;
            if (*msg) {
                t->job_ended = 1;
                t->phase = HS_FAILED;
                snprintf(t->message, sizeof t->message, "%s", msg);
            }
        }
    }
    if (x)
        hs_memo_release(x);
    if (*msg)
        record_refusal(p, m, msg);
}

static void make_job(void *state, void *arg)
{
    struct hs *p = state;
    struct make_task *m = arg;
    int rc;
    p->host->free(p->host->obj_create(p->self, m->doc, &rc));
    /* why, as the API would have answered (ABI 1.5 obj_error) */
    cJSON *why = rc == CUBE_OK ? NULL : cu_json_take(p->host, p->host->obj_error(p->self));
    finish_task(p, m, rc, cu_str(why, "message"));
    cJSON_Delete(why);
    free(m->doc);
    free(m);
}

int hs_trial_submit(struct hs *p, struct hs_exp *x, const cJSON *exp, struct hs_trial *t,
                    char *msg, size_t mlen)
{
    struct make_task *m = calloc(1, sizeof *m);
    if (!m || !(m->doc = hs_trial_doc(x, exp, t, msg, mlen))) {
        free(m);
        return m ? CUBE_EINVAL : CUBE_ENOMEM;
    }
    m->p = p;
    m->n = t->n;
    snprintf(m->project, sizeof m->project, "%s", x->project);
    snprintf(m->name, sizeof m->name, "%s", x->name);
    snprintf(m->uid, sizeof m->uid, "%s", x->uid);
    snprintf(m->job, sizeof m->job, "%s", t->job);
    t->creating = 1;
    if (p->host->submit(p->self, make_job, m) != CUBE_OK) {
        snprintf(msg, mlen, "shutting down");
        t->creating = 0;
        free(m->doc);
        free(m);
        return CUBE_ESTATE;
    }
    return CUBE_OK;
}
