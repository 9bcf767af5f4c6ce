/* runner.c — the PipelineRun controller. Each pass re-derives the run from
 * the run object and its Jobs (so a restart of cubed loses nothing):
 *
 *   - a run waits while labelled queued=true (the Pipeline controller
 *     admits scheduled and backfilled runs, schedule.c);
 *   - a Pending task whose upstreams all Succeeded (or were Skipped) gets
 *     its Job <run>-<task>[-<rerun>] (owned by the run, so its changes
 *     bring the run back here), while fewer than spec.parallelism run;
 *     creating a Job that exists adopts it (a pass cut short earlier);
 *   - a Running task follows its Job: Succeeded (outputs collected),
 *     Failed (the Job failed after its retries, timed out, or is gone);
 *   - a task with a failed upstream becomes UpstreamFailed, a skipped one
 *     Skipped;
 *   - stopRequested stops the Jobs of running tasks (their status'
 *     stopRequested, as the Job stop action; they end Cancelled and keep
 *     their logs), and marks what had not started Stopped;
 *   - when every task is done the run is Succeeded, Failed or Stopped,
 *     labelled finished=true, and an alert event is recorded when the
 *     pipeline asked for one.
 * Status is written only when it changed, with the version read (a
 * conflict is retried by the host). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline.h"

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
static const char *phase_of(const cJSON *ts)
{
    const char *ph = pl_str(ts, "phase");
    return ph ? ph : "";
}

static int task_ok(const char *ph)
{
    return ph && (!strcmp(ph, "Succeeded") || !strcmp(ph, "Skipped"));
}

struct pass {
    struct pl *p;
    const char *project, *name;
    struct pl_memo *memo;           /* run and status are its */
    const cJSON *run;
    cJSON *status, *tstat;          /* status (as it is now) and status.tasks */
    int unwritten;                  /* status changed; written by a later pass */
    const cJSON **task;             /* task specs by index */
    cJSON **ts;                     /* their status objects */
    int n, running, parallelism, stop;
    int *created, n_created;        /* tasks whose Job this pass created */
    char now[40];
};

/* Sorted names for upstream lookups. */
struct nix {
    const char *name;
    int i;
};

static int nix_cmp(const void *a, const void *b)
{
    return strcmp(((const struct nix *)a)->name, ((const struct nix *)b)->name);
}

static int nix_find(const struct nix *ix, int n, const char *name)
{
    struct nix key = {name, 0};
    const struct nix *hit = bsearch(&key, ix, (size_t)n, sizeof *ix, nix_cmp);
    return hit ? hit->i : -1;
}

/* The status object of each task, made when missing. */
static int pass_tasks(struct pass *ps)
{
    const cJSON *tasks = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(ps->run, "spec"), "tasks"), *t;
    ps->n = cJSON_GetArraySize(tasks);
    ps->task = calloc((size_t)ps->n + 1, sizeof *ps->task);
    ps->ts = calloc((size_t)ps->n + 1, sizeof *ps->ts);
    ps->created = calloc((size_t)ps->n + 1, sizeof *ps->created);
    if (!ps->task || !ps->ts || !ps->created)
        return -1;
    ps->tstat = cJSON_GetObjectItemCaseSensitive(ps->status, "tasks");
    if (!cJSON_IsObject(ps->tstat)) {
        cJSON_DeleteItemFromObjectCaseSensitive(ps->status, "tasks");
        ps->tstat = cJSON_AddObjectToObject(ps->status, "tasks");
    }
    /* status.tasks in the order of spec.tasks: index i is task i */
    int i = 0, aligned = 1;
    cJSON *s = ps->tstat->child;
    cJSON_ArrayForEach(t, tasks) {
        ps->task[i] = t;
        const char *name = pl_str(t, "name");
        if (aligned && s && !strcmp(s->string, name)) {
            ps->ts[i] = s;
            s = s->next;
        } else {
            aligned = 0;
            ps->ts[i] = cJSON_GetObjectItemCaseSensitive(ps->tstat, name);
        }
        if (!ps->ts[i]) {
            ps->ts[i] = cJSON_AddObjectToObject(ps->tstat, name);
            cJSON_AddStringToObject(ps->ts[i], "phase", "Pending");
        }
        i++;
    }
    return 0;
}

static void task_set(cJSON *ts, const char *phase, const char *msg, const char *now)
{
    pl_set_str(ts, "phase", phase);
    if (msg)
        pl_set_str(ts, "message", msg);
    if (pl_task_done(phase) && now)
        pl_set_str(ts, "finished", now);
}

/* The Job name of task i (its rerun generation in the status). */
static void job_name(const struct pass *ps, int i, char *out, size_t len)
{
    int gen = (int)pl_num(ps->ts[i], "rerun", 0);
    char leaf[64];
    if (gen > 0)
        snprintf(leaf, sizeof leaf, "%s-%d", pl_str(ps->task[i], "name"), gen);
    else
        snprintf(leaf, sizeof leaf, "%s", pl_str(ps->task[i], "name"));
    pl_join_name(ps->name, leaf, out, len);
}

/* Asks the core to stop a running task's Job: as its owner, the run sets
 * the Job's status.stopRequested (what the Job stop action records); the
 * Job controller signals the replicas and the Job ends Cancelled with its
 * log kept. A conflict is retried by a later pass (the Job's changes bring
 * its run back here). */
static void stop_job(struct pass *ps, const cJSON *job)
{
    struct pl *p = ps->p;
    const cJSON *js = cJSON_GetObjectItemCaseSensitive(job, "status");
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(js, "stopRequested")))
        return;
    cJSON *st = cJSON_IsObject(js) ? cJSON_Duplicate(js, 1) : cJSON_CreateObject();
    pl_set_item(st, "stopRequested", cJSON_CreateTrue());
    char *doc = cJSON_PrintUnformatted(st);
    int rc = CUBE_ENOMEM;
    char *out = doc ? p->host->obj_update_status(p->self, "Job", ps->project,
                                                 pl_meta(job, "name"), doc,
                                                 pl_meta(job, "resourceVersion"), &rc) : NULL;
    if (!out && rc != CUBE_ECONFLICT)
        p->host->log(p->self, CUBE_LOG_WARN, "run %s/%s: cannot stop Job %s (%d)", ps->project,
                     ps->name, pl_meta(job, "name"), rc);
    p->host->free(out);
    free(doc);
    cJSON_Delete(st);
}

/* A Running task: follow its Job. */
static void follow_job(struct pass *ps, int i)
{
    struct pl *p = ps->p;
    cJSON *ts = ps->ts[i];
    const char *jname = pl_str(ts, "job");
    int rc;
    cJSON *job = jname ? pl_parse_host(p, p->host->obj_get(p->self, "Job", ps->project,
                                                            jname, &rc)) : NULL;
    if (!job) {
        if (!ps->stop)
            task_set(ts, "Failed", "its Job is gone (deleted)", ps->now);
        else
            task_set(ts, "Stopped", "stopped", ps->now);
        return;
    }
    const cJSON *js = cJSON_GetObjectItemCaseSensitive(job, "status");
    const char *ph = pl_str(js, "phase") ? pl_str(js, "phase") : "";
    double att = pl_num(js, "attempts", 0);
    if (att > 0 && att != pl_num(ts, "attempts", 0))
        pl_set_num(ts, "attempts", att);
    if (!strcmp(ph, "Succeeded")) {
        task_set(ts, "Succeeded", NULL, ps->now);
        cJSON_DeleteItemFromObjectCaseSensitive(ts, "message");
        pl_outputs_collect(p, ps->project, ps->name, pl_str(ps->task[i], "name"), ts);
    } else if (!strcmp(ph, "Failed") || !strcmp(ph, "Cancelled")) {
        char msg[600];
        snprintf(msg, sizeof msg, "Job %s: %s: %s", jname, pl_str(js, "reason") ?
                 pl_str(js, "reason") : ph, pl_str(js, "message") ? pl_str(js, "message") : "");
        task_set(ts, ps->stop ? "Stopped" : "Failed", msg, ps->now);
    } else if (ps->stop) {
        stop_job(ps, job);   /* the task becomes Stopped when its Job has ended */
        ps->running++;
    } else {
        ps->running++;
    }
    cJSON_Delete(job);
}

/* Starts task i: creates (or adopts) its Job. */
static void start_task(struct pass *ps, int i)
{
    struct pl *p = ps->p;
    char jname[PL_NAME_MAX + 1], msg[PL_ERR];
    int rc;
    job_name(ps, i, jname, sizeof jname);
    cJSON *job = pl_task_job(p, ps->run, ps->status, ps->task[i], jname, msg, sizeof msg);
    if (!job) {
        task_set(ps->ts[i], "Failed", msg, ps->now);
        return;
    }
    char *doc = cJSON_PrintUnformatted(job);
    cJSON_Delete(job);
    char *out = doc ? p->host->obj_create(p->self, doc, &rc) : NULL;
    free(doc);
    p->host->free(out);
    if (out && p->jobs)
        p->host->metric_add(p->jobs, NULL, 1);
    if (!out && rc != CUBE_EEXIST) {
        snprintf(msg, sizeof msg, "cannot create Job %s (error %d; see the log)", jname, rc);
        task_set(ps->ts[i], "Failed", msg, ps->now);
        return;
    }
    if (out)
        ps->created[ps->n_created++] = i;
    pl_set_str(ps->ts[i], "phase", "Running");
    pl_set_str(ps->ts[i], "job", jname);
    pl_set_str(ps->ts[i], "started", ps->now);
    cJSON_DeleteItemFromObjectCaseSensitive(ps->ts[i], "message");
    ps->running++;
}

/* A Pending task: upstream states decide. */
static void consider(struct pass *ps, const struct nix *ix, int i)
{
    const cJSON *u;
    int ready = 1;
    if (ps->stop) {
        task_set(ps->ts[i], "Stopped", "stopped before it ran", ps->now);
        return;
    }
    cJSON_ArrayForEach(u, cJSON_GetObjectItemCaseSensitive(ps->task[i], "upstream")) {
        int k = cJSON_IsString(u) ? nix_find(ix, ps->n, u->valuestring) : -1;
        const char *ph = k >= 0 ? phase_of(ps->ts[k]) : "Failed";
        if (task_ok(ph))
            continue;
        if (pl_task_done(ph)) {
            char msg[120];
            snprintf(msg, sizeof msg, "upstream %s %s", k >= 0 ? u->valuestring : "?", ph);
            task_set(ps->ts[i], "UpstreamFailed", msg, ps->now);
            return;
        }
        ready = 0;
    }
    if (ready && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ps->task[i], "skip")))
        task_set(ps->ts[i], "Skipped", NULL, ps->now);
    else if (ready && ps->running < ps->parallelism)
        start_task(ps, i);
}

/* A pass that starts from the stored run (its first, or after a restart,
 * a stop or anyone else's write) may find tasks Pending whose Job an
 * earlier pass created without writing it down yet (status_write_ms):
 * they follow their Job (Running), so that they count against the
 * parallelism and a stop stops them. One list of the run's Jobs. */
static void adopt_jobs(struct pass *ps)
{
    struct pl *p = ps->p;
    char sel[128], jname[PL_NAME_MAX + 1];
    int rc;
    snprintf(sel, sizeof sel, "pipelinerun=%s", ps->name);
    cJSON *list = pl_parse_host(p, p->host->obj_list(p->self, "Job", ps->project, sel, &rc));
    const cJSON *j;
    cJSON_ArrayForEach(j, cJSON_GetObjectItemCaseSensitive(list, "items")) {
        const char *task = pl_str(cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(j, "metadata"), "labels"), "task");
        for (int i = 0; task && i < ps->n; i++) {
            const char *ph = phase_of(ps->ts[i]);
            if (strcmp(pl_str(ps->task[i], "name"), task) != 0 ||
                (*ph && strcmp(ph, "Pending") != 0))
                continue;
            job_name(ps, i, jname, sizeof jname);
            if (!strcmp(jname, pl_meta(j, "name"))) {   /* this rerun's Job */
                pl_set_str(ps->ts[i], "phase", "Running");
                pl_set_str(ps->ts[i], "job", jname);
                pl_set_str(ps->ts[i], "started", ps->now);
            }
        }
    }
    cJSON_Delete(list);
}

/* Nonzero when every upstream of task i has started (or ended well): the
 * task is among the next to become ready. */
static int upstreams_started(struct pass *ps, const struct nix *ix, int i)
{
    const cJSON *u;
    cJSON_ArrayForEach(u, cJSON_GetObjectItemCaseSensitive(ps->task[i], "upstream")) {
        int k = cJSON_IsString(u) ? nix_find(ix, ps->n, u->valuestring) : -1;
        const char *ph = k >= 0 ? phase_of(ps->ts[k]) : "";
        if (!*ph || !strcmp(ph, "Pending") || (pl_task_done(ph) && !task_ok(ph)))
            return 0;
    }
    return 1;
}

/* Directories: those of the tasks whose Jobs this pass created (their
 * wrapper would make them otherwise), then ahead of time those of up to
 * `parallelism` tasks next in line, so that these run without the wrapper
 * (taskjob.c) and no pass makes directories before creating a Job. */
static void make_task_dirs(struct pass *ps, const struct nix *ix, const int *order)
{
    for (int k = 0; k < ps->n_created; k++)
        pl_task_dirs(ps->p, ps->project, ps->name, pl_str(ps->task[ps->created[k]], "name"));
    int ahead = 0;
    for (int k = 0; k < ps->n && ahead < ps->parallelism && !ps->stop; k++) {
        int i = order[k];
        const char *ph = phase_of(ps->ts[i]);
        if ((!*ph || !strcmp(ph, "Pending")) && upstreams_started(ps, ix, i) &&
            pl_task_dirs(ps->p, ps->project, ps->name, pl_str(ps->task[i], "name")))
            ahead++;
    }
}

/* One pass over the tasks in dependency order. */
static int advance(struct pass *ps)
{
    struct nix *ix = calloc((size_t)ps->n + 1, sizeof *ix);
    int *order = calloc((size_t)ps->n + 1, sizeof *order);
    const char *cyclic;
    const cJSON *tasks = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(ps->run, "spec"), "tasks");
    if (!ix || !order || pl_topo_order(tasks, order, ps->n, &cyclic) < 0) {
        free(ix), free(order);
        return -1;
    }
    for (int i = 0; i < ps->n; i++)
        ix[i] = (struct nix){pl_str(ps->task[i], "name"), i};
    qsort(ix, (size_t)ps->n, sizeof *ix, nix_cmp);
    /* Running tasks first: they decide how many more may start. */
    for (int i = 0; i < ps->n; i++)
        if (!strcmp(phase_of(ps->ts[i]), "Running"))
            follow_job(ps, i);
    for (int k = 0; k < ps->n; k++) {
        int i = order[k];
        const char *ph = phase_of(ps->ts[i]);
        if (!*ph || !strcmp(ph, "Pending"))
            consider(ps, ix, i);
    }
    /* Once the Jobs exist (their way to their start does not wait for
     * these; a task that starts first makes its own) */
    make_task_dirs(ps, ix, order);
    free(ix), free(order);
    return 0;
}

/* Overall phase and progress from the tasks. */
static const char *summarize(struct pass *ps)
{
    int done = 0, failed = 0, stopped = 0;
    for (int i = 0; i < ps->n; i++) {
        const char *ph = phase_of(ps->ts[i]);
        done += pl_task_done(ph);
        failed += !strcmp(ph, "Failed") || !strcmp(ph, "UpstreamFailed");
        stopped += !strcmp(ph, "Stopped");
    }
    char prog[40];
    snprintf(prog, sizeof prog, "%d/%d", done, ps->n);
    pl_set_str(ps->status, "progress", prog);
    if (done < ps->n)
        return "Running";
    return stopped || ps->stop ? "Stopped" : failed ? "Failed" : "Succeeded";
}

/* An "Alert" event when the pipeline asked for one on this phase (the
 * notify plugin turns events into messages to subscribers). */
static void alert(struct pass *ps, const char *phase, const char *msg)
{
    const cJSON *a;
    char text[240];
    snprintf(text, sizeof text, "run %s of pipeline %s: %s", ps->name,
             pl_str(cJSON_GetObjectItemCaseSensitive(ps->run, "spec"), "pipeline"), msg);
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
        pl_set_str(labels, key, value);
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
static void finish(struct pass *ps, const char *phase)
{
    struct pl *p = ps->p;
    char msg[200];
    int rc = pl_run_label(p, ps->run, "finished", "true");
    if (rc != CUBE_OK)
        p->host->log(p->self, CUBE_LOG_WARN, "run %s/%s: cannot label it finished (%d)",
                     ps->project, ps->name, rc);
    snprintf(msg, sizeof msg, "run %s: %s (%s tasks done)", ps->name, phase,
             pl_str(ps->status, "progress"));
    p->host->obj_event(p->self, "PipelineRun", ps->project, ps->name,
                       strcmp(phase, "Succeeded") ? "Warning" : "Normal", phase, msg);
    alert(ps, phase, phase);
}

/* ms until the run's status may be written again (0: now). */
static int write_wait(const struct pass *ps)
{
    double every = (double)ps->p->status_write_ms / 1000, at = ps->memo->written_at;
    double left = at > 0 ? at + every - pl_clock() : 0;
    return left > 0 ? (int)(left * 1000) + 1 : 0;
}

/* Writes the status when it changed: at once when `now` (the run starts,
 * ends or is queued), else at most every status_write_ms (a later pass
 * writes what this one found: ps->unwritten). CUBE_ECONFLICT when someone
 * else wrote first (the host retries the pass). */
static int write_status(struct pass *ps, int now)
{
    struct pl *p = ps->p;
    const cJSON *old = cJSON_GetObjectItemCaseSensitive(ps->run, "status");
    /* in the same order or not written: the host skips a status that is
     * equal in another order */
    if (old && pl_json_same_order(old, ps->status))
        return CUBE_OK;
    if (!now && write_wait(ps) > 0) {
        ps->unwritten = 1;
        return CUBE_OK;
    }
    char *doc = cJSON_PrintUnformatted(ps->status);
    int rc = CUBE_ENOMEM;
    char *out = doc ? p->host->obj_update_status(p->self, "PipelineRun", ps->project, ps->name,
                                                 doc, pl_meta(ps->run, "resourceVersion"), &rc)
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

static int reconcile(struct pass *ps)
{
    const cJSON *labels = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(ps->run, "metadata"), "labels");
    const char *phase = pl_str(ps->status, "phase");
    if (pl_run_done(phase))
        return CUBE_OK;
    if (!strcmp(pl_str(labels, "queued") ? pl_str(labels, "queued") : "", "true")) {
        if (phase)
            return CUBE_OK;
        pl_set_str(ps->status, "phase", "Queued");
        return write_status(ps, 1);
    }
    ps->stop = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ps->status, "stopRequested"));
    ps->parallelism = (int)pl_num(cJSON_GetObjectItemCaseSensitive(ps->run, "spec"),
                                  "parallelism", 1);
    int starting = !phase || !strcmp(phase, "Queued");
    if (starting) {
        pl_set_str(ps->status, "phase", "Running");
        pl_set_str(ps->status, "started", ps->now);
    }
    if (pass_tasks(ps) < 0)
        return CUBE_ENOMEM;
    if (ps->memo->fresh)
        adopt_jobs(ps);
    if (advance(ps) < 0)
        return CUBE_ENOMEM;
    const char *now_phase = summarize(ps);
    pl_set_str(ps->status, "phase", now_phase);
    int done = pl_run_done(now_phase);
    if (done)
        pl_set_str(ps->status, "finished", ps->now);
    int rc = write_status(ps, starting || done || ps->stop);
    if (rc == CUBE_OK && starting)
        alert(ps, "Running", "started");
    if (rc == CUBE_OK && done)
        finish(ps, now_phase);
    return rc;
}

/* Pacing: a run's Jobs change three times each (admitted, started, ended),
 * each change brings the run here; a pass follows the running Jobs and
 * starts what became ready. A pass that comes
 * within pass_gap_ms of the previous one's end is put off (the host calls
 * again after the returned ms) so that the changes meanwhile make one pass. */
static unsigned pace_slot(const char *project, const char *name)
{
    unsigned h = 2166136261u;
    for (const char *c = project ? project : ""; *c; c++)
        h = (h ^ (unsigned char)*c) * 16777619u;
    for (const char *c = name; *c; c++)
        h = (h ^ (unsigned char)*c) * 16777619u;
    return h % PL_PACE_SLOTS;
}

/* ms to wait before the next pass of the run, or 0 to pass now. */
static int pace_wait(struct pl *p, unsigned slot)
{
    if (p->pass_gap_ms <= 0)
        return 0;
    double now = pl_clock();
    pthread_mutex_lock(&p->pace_mu);
    double at = p->pace_at[slot];
    pthread_mutex_unlock(&p->pace_mu);
    return now < at ? (int)((at - now) * 1000) + 1 : 0;
}

/* The next pass after the gap. (It used to wait as long as the last pass
 * took, too, when every pass parsed and wrote the whole run: with the run
 * kept in memory a pass costs what it starts and follows, and that wait
 * only delayed the next tasks.) */
static void pace_done(struct pl *p, unsigned slot)
{
    if (p->pass_gap_ms <= 0)
        return;
    double gap = (double)p->pass_gap_ms / 1000;
    pthread_mutex_lock(&p->pace_mu);
    p->pace_at[slot] = pl_clock() + gap;
    pthread_mutex_unlock(&p->pace_mu);
}

int pl_run_reconcile(void *state, const char *kind, const char *project, const char *name,
                     const char *object_json)
{
    (void)kind;
    struct pl *p = state;
    if (!object_json) {
        pl_memo_forget(p, project, name);
        return CUBE_OK;   /* deleted: its Jobs go with it (ownerReferences) */
    }
    unsigned slot = pace_slot(project, name);
    int wait = pace_wait(p, slot);
    if (wait > 0)
        return wait;
    struct pass ps = {.p = p, .project = project, .name = name};
    double t0 = pl_clock();
    ps.memo = pl_memo_take(p, project, name, object_json);
    if (!ps.memo)
        return CUBE_ENOMEM;
    ps.run = ps.memo->run;
    ps.status = ps.memo->status;
    pl_now_text(ps.now, sizeof ps.now);
    int rc = reconcile(&ps);
    double took = pl_clock() - t0;
    if (p->passes)
        p->host->metric_observe(p->passes, (const char *const[]){"PipelineRun"}, took);
    free(ps.task), free(ps.ts), free(ps.created);
    /* a failed pass, or a finished run: the next pass (if any) reads the
     * stored run again */
    if (rc != CUBE_OK || pl_run_done(pl_str(ps.status, "phase"))) {
        pl_memo_free(ps.memo);
    } else {
        ps.memo->fresh = 0;
        pl_memo_put(p, ps.memo);
    }
    pace_done(p, slot);
    if (rc == CUBE_OK && ps.unwritten)
        return write_wait(&ps) > 0 ? write_wait(&ps) : 1;
    return rc;
}

int pl_run_edit_status(struct pl *p, const char *project, const char *name,
                       pl_status_edit edit, void *cls)
{
    for (int attempt = 0; attempt < 8; attempt++) {
        int rc;
        cJSON *run = pl_parse_host(p, p->host->obj_get(p->self, "PipelineRun", project, name,
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
                                             pl_meta(run, "resourceVersion"), &rc);
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
