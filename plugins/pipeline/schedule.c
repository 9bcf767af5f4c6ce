/* schedule.c — the Pipeline controller, as Cube Studio schedules:
 *
 *   - each cron tick since spec.startTime (else since the pipeline was
 *     created), up to now, gets a run with that execution date, labelled
 *     queued=true; status.lastTick remembers the last one made (so a
 *     restart neither repeats nor skips a tick), and the controller asks
 *     to be called again at the next tick (at most poll_seconds later);
 *   - queued runs (scheduled or backfilled) are admitted by dropping the
 *     label: with dependsOnPast only the earliest, and only once the run
 *     before it Succeeded and none is active; otherwise, with
 *     expiredLimit N, only the newest N queued runs are kept (older ones
 *     are deleted with an event), and up to maxActiveRuns run at once.
 * A run's changes come back here (the pipeline owns its runs). */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "cron.h"
#include "pipeline.h"

/* Y-M-D alone: 0 with the parts, else -1. */
static int bare_date(const char *s, int *y, int *m, int *d)
{
    char tail;
    if (!s || strlen(s) != 10 || sscanf(s, "%4d-%2d-%2d%c", y, m, d, &tail) != 3)
        return -1;
    return *m >= 1 && *m <= 12 && *d >= 1 && *d <= 31 ? 0 : -1;
}

int pl_schedule_range(const cJSON *spec, const char *start, const char *end, int64_t *from,
                      int64_t *to, char *msg, size_t mlen)
{
    const char *tz_name = cu_str(spec, "timezone");
    char err[PL_ERR];
    pl_tz *tz = NULL;
    if (tz_name && strcmp(tz_name, "UTC") != 0 && !(tz = pl_tz_load(tz_name, err, sizeof err)))
        return snprintf(msg, mlen, "timezone: %s", err), -1;
    int y, m, d;
    *from = bare_date(start, &y, &m, &d) == 0 ? pl_tz_day_start(tz, y, m, d)
                                              : pl_time_parse(start);
    *to = bare_date(end, &y, &m, &d) == 0 ? pl_tz_day_start(tz, y, m, d + 1) - 1
                                          : pl_time_parse(end);
    pl_tz_free(tz);
    if (*from < 0 || *to < 0)
        return snprintf(msg, mlen, "%s: required, an ISO 8601 date or date-time",
                        *from < 0 ? "start" : "end"), -1;
    if (*to < *from)
        return snprintf(msg, mlen, "end: before start"), -1;
    return 0;
}

int pl_schedule_ticks(const cJSON *spec, int64_t from, int64_t to, int64_t max, int truncate,
                      int64_t **out, char *msg, size_t mlen)
{
    const char *expr = cu_str(spec, "schedule"), *tz_name = cu_str(spec, "timezone");
    char err[PL_ERR];
    *out = NULL;
    if (!expr || !strcmp(expr, "once"))
        return snprintf(msg, mlen, "the pipeline has no cron schedule (schedule: once)"), -1;
    pl_cron *c = pl_cron_parse(expr, err, sizeof err);
    pl_tz *tz = NULL;
    if (!c)
        return snprintf(msg, mlen, "schedule: %s", err), -1;
    if (tz_name && strcmp(tz_name, "UTC") != 0 && !(tz = pl_tz_load(tz_name, err, sizeof err))) {
        pl_cron_free(c);
        return snprintf(msg, mlen, "timezone: %s", err), -1;
    }
    int64_t n = 0, cap = 16;
    int64_t *ticks = malloc((size_t)cap * sizeof *ticks);
    for (int64_t t = pl_cron_next(c, tz, from - 1); ticks && t >= 0 && t <= to;
         t = pl_cron_next(c, tz, t)) {
        if (n == max) {
            if (truncate)
                break;
            snprintf(msg, mlen, "more than %lld ticks in that range", (long long)max);
            n = -1;
            break;
        }
        if (n == cap) {
            int64_t *more = realloc(ticks, (size_t)(cap *= 2) * sizeof *ticks);
            if (!more)
                break;
            ticks = more;
        }
        ticks[n++] = t;
    }
    pl_cron_free(c);
    pl_tz_free(tz);
    if (n < 0 || !ticks) {
        free(ticks);
        return n < 0 ? -1 : (snprintf(msg, mlen, "out of memory"), -1);
    }
    *out = ticks;
    return (int)n;
}

/* The first tick after `after`, or -1. */
static int64_t next_tick(const cJSON *spec, int64_t after)
{
    const char *tz_name = cu_str(spec, "timezone");
    char err[PL_ERR];
    pl_cron *c = pl_cron_parse(cu_str(spec, "schedule"), err, sizeof err);
    pl_tz *tz = tz_name && strcmp(tz_name, "UTC") ? pl_tz_load(tz_name, err, sizeof err) : NULL;
    int64_t t = c ? pl_cron_next(c, tz, after) : -1;
    pl_cron_free(c);
    pl_tz_free(tz);
    return t;
}

static void set_last_run(cJSON *status, const char *run);

/* Makes the runs of ticks up to now; returns ms until the next tick (0:
 * none). */
static int64_t make_ticks(struct pl *p, const cJSON *obj, cJSON *status)
{
    const cJSON *spec = cJSON_GetObjectItemCaseSensitive(obj, "spec");
    const char *last_s = cu_str(status, "lastTick"), *start = cu_str(spec, "startTime");
    int64_t now = pl_now(), from;
    if (last_s)
        from = pl_time_parse(last_s) + 1;
    else if (start)
        from = pl_time_parse(start);
    else
        from = pl_time_parse(cu_meta(obj, "created")) + 1;
    if (from < 0)
        from = now;
    int64_t *ticks = NULL, last = from - 1;
    char msg[PL_ERR], name[PL_NAME_MAX + 1], when[40];
    /* at most max_catchup now; when that many were due, the rest soon */
    int n = pl_schedule_ticks(spec, from, now, p->max_catchup, 1, &ticks, msg, sizeof msg);
    int capped = n == p->max_catchup;
    for (int i = 0; i < n; i++) {
        int rc;
        char *run = pl_run_create(p, NULL, obj, ticks[i], "schedule", name, sizeof name, &rc,
                                  msg, sizeof msg);
        p->host->free(run);
        if (!run && rc != CUBE_EEXIST)
            p->host->obj_event(p->self, "Pipeline", cu_meta(obj, "project"),
                               cu_meta(obj, "name"), "Warning", "TickFailed", msg);
        if (run) {
            cu_set_num(status, "queuedRuns", cu_num(status, "queuedRuns", 0) + 1);
            set_last_run(status, name);
        }
        last = ticks[i];
        pl_time_format(last, when, sizeof when);
        cu_set_str(status, "lastTick", when);
    }
    free(ticks);
    if (capped)
        return 1;
    int64_t base = last > now ? last : now;
    if (from - 1 > base)
        base = from - 1;   /* startTime is ahead */
    int64_t next = next_tick(spec, base);
    if (next > now) {
        pl_time_format(next, when, sizeof when);
        cu_set_str(status, "nextTick", when);
        return (next - now) * 1000;
    }
    cJSON_DeleteItemFromObjectCaseSensitive(status, "nextTick");
    return 0;
}

int pl_pipeline_reconcile(void *state, const char *kind, const char *project,
                          const char *name, const char *object_json)
{
    (void)kind, (void)project, (void)name;
    struct pl *p = state;
    if (!object_json)
        return CUBE_OK;
    double t0 = pl_clock();
    cJSON *obj = cJSON_Parse(object_json);
    if (!obj)
        return CUBE_ENOMEM;
    const cJSON *spec = cJSON_GetObjectItemCaseSensitive(obj, "spec");
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(obj, "status");
    cJSON *status = cJSON_IsObject(st) ? cJSON_Duplicate(st, 1) : cJSON_CreateObject();
    const char *sched = cu_str(spec, "schedule");
    int64_t delay = 0;
    if (sched && strcmp(sched, "once") != 0 &&
        !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(spec, "paused")))
        delay = make_ticks(p, obj, status);   /* paused: no ticks, no admission */
    cu_set_num(status, "tasks", cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(spec,
                                                                                    "tasks")));
    int paused = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(spec, "paused"));
    int rc = CUBE_OK, arc = CUBE_OK, left = 0;
    /* runs are listed only while some wait: a run's every change comes
     * here (the pipeline owns it), and most pipelines have none queued */
    if (!paused && (cu_num(status, "queuedRuns", 0) > 0 || !st)) {
        arc = pl_admit(p, obj, &left);
        cu_set_num(status, "queuedRuns", left);
    }
    if (!st || !cJSON_Compare(st, status, 1)) {
        char *doc = cJSON_PrintUnformatted(status);
        char *out = p->host->obj_update_status(p->self, "Pipeline", project, name, doc,
                                               cu_meta(obj, "resourceVersion"), &rc);
        free(doc);
        if (!out)
            rc = rc == CUBE_OK ? CUBE_EUNAVAIL : rc;
        p->host->free(out);
    }
    cJSON_Delete(status);
    cJSON_Delete(obj);
    if (p->passes)
        p->host->metric_observe(p->passes, (const char *const[]){"Pipeline"}, pl_clock() - t0);
    if (rc != CUBE_OK || arc != CUBE_OK)
        return rc != CUBE_OK ? rc : arc;
    if (delay > p->poll_seconds * 1000)
        delay = p->poll_seconds * 1000;
    return delay > 0 ? (int)delay : CUBE_OK;
}

/* status.lastRun and lastRunCreated: the run just made. */
static void set_last_run(cJSON *status, const char *run)
{
    char when[40];
    pl_time_format(pl_now(), when, sizeof when);
    cu_set_str(status, "lastRun", run);
    cu_set_str(status, "lastRunCreated", when);
}

void pl_note_queued(struct pl *p, const char *project, const char *pipeline, int n,
                    const char *last_run)
{
    for (int attempt = 0; attempt < 8; attempt++) {
        int rc;
        cJSON *obj = cu_json_take(p->host, p->host->obj_get(p->self, "Pipeline", project, pipeline,
                                                       &rc));
        if (!obj)
            return;
        const cJSON *st = cJSON_GetObjectItemCaseSensitive(obj, "status");
        cJSON *status = cJSON_IsObject(st) ? cJSON_Duplicate(st, 1) : cJSON_CreateObject();
        cu_set_num(status, "queuedRuns", cu_num(status, "queuedRuns", 0) + n);
        if (last_run)
            set_last_run(status, last_run);
        char *doc = cJSON_PrintUnformatted(status);
        char *out = p->host->obj_update_status(p->self, "Pipeline", project, pipeline, doc,
                                               cu_meta(obj, "resourceVersion"), &rc);
        free(doc);
        p->host->free(out);
        cJSON_Delete(status);
        cJSON_Delete(obj);
        if (out || rc != CUBE_ECONFLICT)
            return;
    }
}
