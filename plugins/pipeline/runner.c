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
 * conflict is retried by the host).
 *
 * This file is the pass driver: it paces the run's passes, takes the run
 * as the last pass left it (runmemo.c), lines its task statuses up with its
 * tasks and decides what the pass writes. What each task does is
 * runtasks.c's; the run's phase, status writes, events and alerts are
 * runstatus.c's (runner_internal.h: the pass they share). */
#include <stdlib.h>
#include <string.h>

#include "runner_internal.h"

/* The status object of each task, made when missing. */
static int pass_tasks(struct pl_pass *ps)
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
        const char *name = cu_str(t, "name");
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

static int reconcile(struct pl_pass *ps)
{
    const cJSON *labels = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(ps->run, "metadata"), "labels");
    const char *phase = cu_str(ps->status, "phase");
    if (pl_run_done(phase))
        return CUBE_OK;
    if (!strcmp(cu_str(labels, "queued") ? cu_str(labels, "queued") : "", "true")) {
        if (phase)
            return CUBE_OK;
        cu_set_str(ps->status, "phase", "Queued");
        return pl_pass_write_status(ps, 1);
    }
    ps->stop = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ps->status, "stopRequested"));
    ps->parallelism = (int)cu_num(cJSON_GetObjectItemCaseSensitive(ps->run, "spec"),
                                  "parallelism", 1);
    int starting = !phase || !strcmp(phase, "Queued");
    if (starting) {
        cu_set_str(ps->status, "phase", "Running");
        cu_set_str(ps->status, "started", ps->now);
        /* what it waited for while queued (admit.c) is over */
        cJSON_DeleteItemFromObjectCaseSensitive(ps->status, "reason");
        cJSON_DeleteItemFromObjectCaseSensitive(ps->status, "message");
    }
    if (pass_tasks(ps) < 0)
        return CUBE_ENOMEM;
    if (ps->memo->fresh)
        pl_pass_adopt_jobs(ps);
    if (pl_pass_advance(ps) < 0)
        return CUBE_ENOMEM;
    const char *now_phase = pl_pass_summarize(ps);
    cu_set_str(ps->status, "phase", now_phase);
    int done = pl_run_done(now_phase);
    if (done)
        cu_set_str(ps->status, "finished", ps->now);
    int rc = pl_pass_write_status(ps, starting || done || ps->stop);
    if (rc == CUBE_OK && starting)
        pl_pass_alert(ps, "Running", "started");
    if (rc == CUBE_OK && done)
        pl_pass_finish(ps, now_phase);
    return rc;
}

/* Pacing: a run's Jobs change three times each (admitted, started, ended),
 * each change brings the run here; a pass follows the running Jobs and
 * starts what became ready. A pass that comes too soon after the previous
 * one's end is put off (the host calls again after the returned ms) so
 * that the changes meanwhile make one pass. "Too soon" is twice as long as
 * the previous pass took, at most pass_gap_ms (pl_pace_delay): a run
 * spends at most a third of its time in passes, a wide run's passes (many
 * Jobs each, about the gap long) still gather pass_gap_ms of changes, and
 * a narrow run's next task (a chain: one Job ended, one to start) is not
 * held back a whole gap. */
static unsigned pace_slot(const char *project, const char *name)
{
    unsigned h = 2166136261u;
    for (const char *c = project ? project : ""; *c; c++)
        h = (h ^ (unsigned char)*c) * 16777619u;
    for (const char *c = name; *c; c++)
        h = (h ^ (unsigned char)*c) * 16777619u;
    return h % PL_PACE_SLOTS;
}

double pl_pace_delay(int64_t gap_ms, double took_s)
{
    double gap = gap_ms > 0 ? (double)gap_ms / 1000 : 0, busy = 2 * (took_s > 0 ? took_s : 0);
    return busy < gap ? busy : gap;
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

/* The next pass after the delay: the pass that just took `took` s. */
static void pace_done(struct pl *p, unsigned slot, double took)
{
    if (p->pass_gap_ms <= 0)
        return;
    double delay = pl_pace_delay(p->pass_gap_ms, took);
    pthread_mutex_lock(&p->pace_mu);
    p->pace_at[slot] = pl_clock() + delay;
    pthread_mutex_unlock(&p->pace_mu);
}

int pl_run_reconcile(void *state, const char *kind, const char *project, const char *name,
                     const char *object_json)
{
    (void)kind;
    struct pl *p = state;
    if (!object_json) {
        pl_memo_forget(p, project, name);
        pl_run_dir_forget(p, project ? project : "", name);
        return CUBE_OK;   /* deleted: its Jobs go with it (ownerReferences) */
    }
    unsigned slot = pace_slot(project, name);
    int wait = pace_wait(p, slot);
    if (wait > 0)
        return wait;
    struct pl_pass ps = {.p = p, .project = project, .name = name};
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
    if (rc != CUBE_OK || pl_run_done(cu_str(ps.status, "phase"))) {
        pl_memo_free(ps.memo);
    } else {
        ps.memo->fresh = 0;
        pl_memo_put(p, ps.memo);
    }
    pace_done(p, slot, took);
    if (rc == CUBE_OK && ps.unwritten)
        return pl_pass_write_wait(&ps) > 0 ? pl_pass_write_wait(&ps) : 1;
    return rc;
}
