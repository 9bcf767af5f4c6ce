/* runtasks.c — what a PipelineRun pass does with each task (runner.c
 * drives the pass): a Pending task starts when its upstreams allow and the
 * parallelism has room, a Running one follows its Job, a stop stops the
 * Jobs; Jobs an earlier pass created unrecorded are adopted, and the
 * directories of the tasks next in line are made ahead. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner_internal.h"

static int task_ok(const char *ph)
{
    return ph && (!strcmp(ph, "Succeeded") || !strcmp(ph, "Skipped"));
}

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

static void task_set(cJSON *ts, const char *phase, const char *msg, const char *now)
{
    cu_set_str(ts, "phase", phase);
    if (msg)
        cu_set_str(ts, "message", msg);
    if (pl_task_done(phase) && now)
        cu_set_str(ts, "finished", now);
}

/* The Job name of task i (its rerun generation in the status). */
static void job_name(const struct pl_pass *ps, int i, char *out, size_t len)
{
    int gen = (int)cu_num(ps->ts[i], "rerun", 0);
    char leaf[64];
    if (gen > 0)
        snprintf(leaf, sizeof leaf, "%s-%d", cu_str(ps->task[i], "name"), gen);
    else
        snprintf(leaf, sizeof leaf, "%s", cu_str(ps->task[i], "name"));
    pl_join_name(ps->name, leaf, out, len);
}

/* Asks the core to stop a running task's Job: as its owner, the run sets
 * the Job's status.stopRequested (what the Job stop action records); the
 * Job controller signals the replicas and the Job ends Cancelled with its
 * log kept. A conflict is retried by a later pass (the Job's changes bring
 * its run back here). */
static void stop_job(struct pl_pass *ps, const cJSON *job)
{
    struct pl *p = ps->p;
    const cJSON *js = cJSON_GetObjectItemCaseSensitive(job, "status");
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(js, "stopRequested")))
        return;
    cJSON *st = cJSON_IsObject(js) ? cJSON_Duplicate(js, 1) : cJSON_CreateObject();
    cu_set_item(st, "stopRequested", cJSON_CreateTrue());
    char *doc = cJSON_PrintUnformatted(st);
    int rc = CUBE_ENOMEM;
    char *out = doc ? p->host->obj_update_status(p->self, "Job", ps->project,
                                                 cu_meta(job, "name"), doc,
                                                 cu_meta(job, "resourceVersion"), &rc) : NULL;
    if (!out && rc != CUBE_ECONFLICT)
        p->host->log(p->self, CUBE_LOG_WARN, "run %s/%s: cannot stop Job %s (%d)", ps->project,
                     ps->name, cu_meta(job, "name"), rc);
    p->host->free(out);
    free(doc);
    cJSON_Delete(st);
}

/* A Running task: follow its Job. */
static void follow_job(struct pl_pass *ps, int i)
{
    struct pl *p = ps->p;
    cJSON *ts = ps->ts[i];
    const char *jname = cu_str(ts, "job");
    int rc;
    cJSON *job = jname ? cu_json_take(p->host, p->host->obj_get(p->self, "Job", ps->project,
                                                            jname, &rc)) : NULL;
    if (!job) {
        if (!ps->stop)
            task_set(ts, "Failed", "its Job is gone (deleted)", ps->now);
        else
            task_set(ts, "Stopped", "stopped", ps->now);
        return;
    }
    const cJSON *js = cJSON_GetObjectItemCaseSensitive(job, "status");
    const char *ph = cu_str(js, "phase") ? cu_str(js, "phase") : "";
    double att = cu_num(js, "attempts", 0);
    if (att > 0 && att != cu_num(ts, "attempts", 0))
        cu_set_num(ts, "attempts", att);
    if (!strcmp(ph, "Succeeded")) {
        pl_run_dir_vouch(p, ps->project, ps->name, job);   /* its wrapper checked */
        task_set(ts, "Succeeded", NULL, ps->now);
        cJSON_DeleteItemFromObjectCaseSensitive(ts, "message");
        pl_outputs_collect(p, ps->project, ps->name, pl_run_layout(ps->run),
                           cu_str(ps->task[i], "name"), ts);
    } else if (!strcmp(ph, "Failed") || !strcmp(ph, "Cancelled")) {
        char msg[600];
        snprintf(msg, sizeof msg, "Job %s: %s: %s", jname, cu_str(js, "reason") ?
                 cu_str(js, "reason") : ph, cu_str(js, "message") ? cu_str(js, "message") : "");
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
static void start_task(struct pl_pass *ps, int i)
{
    struct pl *p = ps->p;
    char jname[PL_NAME_MAX + 1], msg[PL_ERR];
    int rc;
    job_name(ps, i, jname, sizeof jname);
    if (pl_runs_dir_prepare(p, ps->project) < 0)   /* else left to the wrapper */
        p->host->log(p->self, CUBE_LOG_DEBUG, "project %s: cannot prepare pipeline-runs/",
                     ps->project);
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
    if (!out && rc == CUBE_EEXIST && !pl_job_is_runs(p, ps->run, jname)) {
        snprintf(msg, sizeof msg, "a Job named %s exists and is not this run's; delete it "
                 "and rerun", jname);
        task_set(ps->ts[i], "Failed", msg, ps->now);
        return;
    }
    if (!out && rc != CUBE_EEXIST) {
        snprintf(msg, sizeof msg, "cannot create Job %s (error %d; see the log)", jname, rc);
        task_set(ps->ts[i], "Failed", msg, ps->now);
        return;
    }
    if (out)
        ps->created[ps->n_created++] = i;
    cu_set_str(ps->ts[i], "phase", "Running");
    cu_set_str(ps->ts[i], "job", jname);
    cu_set_str(ps->ts[i], "started", ps->now);
    cJSON_DeleteItemFromObjectCaseSensitive(ps->ts[i], "message");
    ps->running++;
}

/* A Pending task: upstream states decide. */
static void consider(struct pl_pass *ps, const struct nix *ix, int i)
{
    const cJSON *u;
    int ready = 1;
    if (ps->stop) {
        task_set(ps->ts[i], "Stopped", "stopped before it ran", ps->now);
        return;
    }
    cJSON_ArrayForEach(u, cJSON_GetObjectItemCaseSensitive(ps->task[i], "upstream")) {
        int k = cJSON_IsString(u) ? nix_find(ix, ps->n, u->valuestring) : -1;
        const char *ph = k >= 0 ? pl_task_phase(ps->ts[k]) : "Failed";
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
void pl_pass_adopt_jobs(struct pl_pass *ps)
{
    struct pl *p = ps->p;
    char sel[128], jname[PL_NAME_MAX + 1];
    int rc;
    snprintf(sel, sizeof sel, "pipelinerun=%s", ps->name);
    cJSON *list = cu_json_take(p->host, p->host->obj_list(p->self, "Job", ps->project, sel, &rc));
    const cJSON *j;
    cJSON_ArrayForEach(j, cJSON_GetObjectItemCaseSensitive(list, "items")) {
        const char *task = cu_str(cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(j, "metadata"), "labels"), "task");
        for (int i = 0; task && i < ps->n; i++) {
            const char *ph = pl_task_phase(ps->ts[i]);
            if (strcmp(cu_str(ps->task[i], "name"), task) != 0 ||
                (*ph && strcmp(ph, "Pending") != 0))
                continue;
            job_name(ps, i, jname, sizeof jname);
            if (!strcmp(jname, cu_meta(j, "name"))) {   /* this rerun's Job */
                cu_set_str(ps->ts[i], "phase", "Running");
                cu_set_str(ps->ts[i], "job", jname);
                cu_set_str(ps->ts[i], "started", ps->now);
            }
        }
    }
    cJSON_Delete(list);
}

/* Nonzero when every upstream of task i has started (or ended well): the
 * task is among the next to become ready. */
static int upstreams_started(struct pl_pass *ps, const struct nix *ix, int i)
{
    const cJSON *u;
    cJSON_ArrayForEach(u, cJSON_GetObjectItemCaseSensitive(ps->task[i], "upstream")) {
        int k = cJSON_IsString(u) ? nix_find(ix, ps->n, u->valuestring) : -1;
        const char *ph = k >= 0 ? pl_task_phase(ps->ts[k]) : "";
        if (!*ph || !strcmp(ph, "Pending") || (pl_task_done(ph) && !task_ok(ph)))
            return 0;
    }
    return 1;
}

/* Asks for task i's directories unless an earlier pass of the memo did.
 * A memo rebuilt from the stored run (a rerun, a restart) asks again (what
 * is there is kept); a directory gone since, or not made yet when its Job
 * is created, is made by the task's wrapper (taskjob.c decides on what it
 * finds on disk). */
static void want_dirs(struct pl_pass *ps, int i, const char **names, int *n)
{
    struct pl_memo *m = ps->memo;
    if (i >= m->n_dirs_made || m->dirs_made[i])
        return;
    m->dirs_made[i] = 1;
    names[(*n)++] = cu_str(ps->task[i], "name");
}

/* Directories: those of the tasks whose Jobs this pass created (their
 * wrapper would make them otherwise), then ahead of time those of up to
 * `parallelism` tasks next in line, so that these run without the wrapper
 * (taskjob.c). The plugin's thread makes them (taskdirs.c): no pass waits
 * for a directory. Nothing before the run's work directory exists (the
 * first tasks' wrappers make it). */
static void make_task_dirs(struct pl_pass *ps, const struct nix *ix, const int *order)
{
    struct pl_memo *m = ps->memo;
    if (m->n_dirs_made != ps->n) {
        free(m->dirs_made);
        m->dirs_made = calloc((size_t)ps->n + 1, 1);
        m->n_dirs_made = m->dirs_made ? ps->n : 0;
    }
    const char **names = malloc(sizeof *names * ((size_t)ps->n + 1));
    if (!names || !m->n_dirs_made || !pl_task_dirs_ready(ps->p, ps->project, ps->name)) {
        free(names);
        return;
    }
    int n = 0;
    for (int k = 0; k < ps->n_created; k++)
        want_dirs(ps, ps->created[k], names, &n);
    int ahead = 0;
    for (int k = 0; k < ps->n && ahead < ps->parallelism && !ps->stop; k++) {
        int i = order[k];
        const char *ph = pl_task_phase(ps->ts[i]);
        if ((!*ph || !strcmp(ph, "Pending")) && upstreams_started(ps, ix, i)) {
            want_dirs(ps, i, names, &n);
            ahead++;
        }
    }
    if (n)
        pl_task_dirs_make(ps->p, ps->project, ps->name, pl_run_layout(ps->run), names, n);
    free(names);
}

/* One pass over the tasks in dependency order. */
int pl_pass_advance(struct pl_pass *ps)
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
        ix[i] = (struct nix){cu_str(ps->task[i], "name"), i};
    qsort(ix, (size_t)ps->n, sizeof *ix, nix_cmp);
    /* Running tasks first: they decide how many more may start. */
    for (int i = 0; i < ps->n; i++)
        if (!strcmp(pl_task_phase(ps->ts[i]), "Running"))
            follow_job(ps, i);
    for (int k = 0; k < ps->n; k++) {
        int i = order[k];
        const char *ph = pl_task_phase(ps->ts[i]);
        if (!*ph || !strcmp(ph, "Pending"))
            consider(ps, ix, i);
    }
    /* Once the Jobs exist (their way to their start does not wait for
     * these; a task that starts first makes its own) */
    make_task_dirs(ps, ix, order);
    free(ix), free(order);
    return 0;
}
