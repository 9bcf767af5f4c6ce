/* runstatus.c — a PipelineRun's status as its passes keep it (runner.c
 * drives them): terminal phases, the run's phase and progress from its
 * tasks, status writes paced by status_write_ms, the finish (label, event,
 * alert), and the status and label edits of the stop and rerun actions
 * (runactions.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner_internal.h"

int pl_task_done(const char *ph)
{
    return ph && (!strcmp(ph, "Succeeded") || !strcmp(ph, "Failed") || !strcmp(ph, "Skipped") ||
                  !strcmp(ph, "UpstreamFailed") || !strcmp(ph, "Stopped"));
}

int pl_run_done(const char *ph)
{
    return ph && (!strcmp(ph, "Succeeded") || !strcmp(ph, "Failed") || !strcmp(ph, "Stopped"));
}

/* A task's phase ("" when the status has none). */
const char *pl_task_phase(const cJSON *ts)
{
    const char *ph = cu_str(ts, "phase");
    return ph ? ph : "";
}

/* Overall phase and progress from the tasks. */
const char *pl_pass_summarize(struct pl_pass *ps)
{
    int done = 0, failed = 0, stopped = 0;
    for (int i = 0; i < ps->n; i++) {
        const char *ph = pl_task_phase(ps->ts[i]);
        done += pl_task_done(ph);
        failed += !strcmp(ph, "Failed") || !strcmp(ph, "UpstreamFailed");
        stopped += !strcmp(ph, "Stopped");
    }
    char prog[40];
    snprintf(prog, sizeof prog, "%d/%d", done, ps->n);
    cu_set_str(ps->status, "progress", prog);
    if (done < ps->n)
        return "Running";
    return stopped || ps->stop ? "Stopped" : failed ? "Failed" : "Succeeded";
}

/* An "Alert" event when the pipeline asked for one on this phase (the
 * notify plugin turns events into messages to subscribers). */
void pl_pass_alert(struct pl_pass *ps, const char *phase, const char *msg)
{
    const cJSON *a;
    char text[240];
    snprintf(text, sizeof text, "run %s of pipeline %s: %s", ps->name,
             cu_str(cJSON_GetObjectItemCaseSensitive(ps->run, "spec"), "pipeline"), msg);
    cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(
                              cJSON_GetObjectItemCaseSensitive(ps->run, "spec"), "alerts"))
        if (cJSON_IsString(a) && !strcmp(a->valuestring, phase))
            ps->p->host->obj_event(ps->p->self, "PipelineRun", ps->project, ps->name,
                                   "Warning", "Alert", text);
}

int pl_run_label(struct pl *p, const cJSON *run, const char *key, const char *value)
{
    cJSON *obj = cJSON_Duplicate(run, 1);
    cJSON *meta = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
    cJSON_DeleteItemFromObjectCaseSensitive(obj, "status");
    cJSON_DeleteItemFromObjectCaseSensitive(meta, "resourceVersion");
    cJSON *labels = cJSON_GetObjectItemCaseSensitive(meta, "labels");
    if (!labels)
        labels = cJSON_AddObjectToObject(meta, "labels");
    if (value)
        cu_set_str(labels, key, value);
    else
        cJSON_DeleteItemFromObjectCaseSensitive(labels, key);
    char *doc = cJSON_PrintUnformatted(obj), *out = NULL;
    int rc = CUBE_ENOMEM;
    cJSON_Delete(obj);
    if (doc)
        out = p->host->obj_update(p->self, doc, &rc);
    free(doc);
    p->host->free(out);
    return out ? CUBE_OK : rc;
}

/* A finished run: labelled finished=true (the Pipeline controller counts
 * active runs by it), an event, and an alert when the pipeline asked. */
void pl_pass_finish(struct pl_pass *ps, const char *phase)
{
    struct pl *p = ps->p;
    char msg[200];
    int rc = pl_run_label(p, ps->run, "finished", "true");
    if (rc != CUBE_OK)
        p->host->log(p->self, CUBE_LOG_WARN, "run %s/%s: cannot label it finished (%d)",
                     ps->project, ps->name, rc);
    snprintf(msg, sizeof msg, "run %s: %s (%s tasks done)", ps->name, phase,
             cu_str(ps->status, "progress"));
    p->host->obj_event(p->self, "PipelineRun", ps->project, ps->name,
                       strcmp(phase, "Succeeded") ? "Warning" : "Normal", phase, msg);
    pl_pass_alert(ps, phase, phase);
}

/* ms until the run's status may be written again (0: now). */
int pl_pass_write_wait(const struct pl_pass *ps)
{
    double every = (double)ps->p->status_write_ms / 1000, at = ps->memo->written_at;
    double left = at > 0 ? at + every - pl_clock() : 0;
    return left > 0 ? (int)(left * 1000) + 1 : 0;
}

/* Writes the status when it changed: at once when `now` (the run starts,
 * ends or is queued), else at most every status_write_ms (a later pass
 * writes what this one found: ps->unwritten). CUBE_ECONFLICT when someone
 * else wrote first (the host retries the pass). */
int pl_pass_write_status(struct pl_pass *ps, int now)
{
    struct pl *p = ps->p;
    const cJSON *old = cJSON_GetObjectItemCaseSensitive(ps->run, "status");
    /* in the same order or not written: the host skips a status that is
     * equal in another order */
    if (old && pl_json_same_order(old, ps->status))
        return CUBE_OK;
    if (!now && pl_pass_write_wait(ps) > 0) {
        ps->unwritten = 1;
        return CUBE_OK;
    }
    char *doc = cJSON_PrintUnformatted(ps->status);
    int rc = CUBE_ENOMEM;
    char *out = doc ? p->host->obj_update_status(p->self, "PipelineRun", ps->project, ps->name,
                                                 doc, cu_meta(ps->run, "resourceVersion"), &rc)
                    : NULL;
    free(doc);
    if (out && pl_memo_written(ps->memo, out) < 0)
        rc = CUBE_ENOMEM;   /* the pass is dropped: the next one reads the run */
    else if (out)
        rc = CUBE_OK;
    ps->run = ps->memo->run;
    p->host->free(out);
    return rc;
}

int pl_run_edit_status(struct pl *p, const char *project, const char *name,
                       pl_status_edit edit, void *cls)
{
    for (int attempt = 0; attempt < 8; attempt++) {
        int rc;
        cJSON *run = cu_json_take(p->host, p->host->obj_get(p->self, "PipelineRun", project, name,
                                                       &rc));
        if (!run)
            return rc ? rc : CUBE_ENOMEM;
        const cJSON *st = cJSON_GetObjectItemCaseSensitive(run, "status");
        cJSON *status = cJSON_IsObject(st) ? cJSON_Duplicate(st, 1) : cJSON_CreateObject();
        int e = edit(cls, run, status);
        char *out = NULL;
        if (e == 0) {
            char *doc = cJSON_PrintUnformatted(status);
            out = p->host->obj_update_status(p->self, "PipelineRun", project, name, doc,
                                             cu_meta(run, "resourceVersion"), &rc);
            free(doc);
            p->host->free(out);
        }
        cJSON_Delete(status);
        cJSON_Delete(run);
        if (e != 0)
            return e < 0 ? CUBE_EINVAL : CUBE_OK;
        if (out)
            return CUBE_OK;
        if (rc != CUBE_ECONFLICT)
            return rc;
    }
    return CUBE_ECONFLICT;
}
