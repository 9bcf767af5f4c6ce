/* job_points.c — Job metrics (ABI 1.5, G5): points a Job reports while it
 * runs (loss at step 10, accuracy at the end), for hyper-parameter search,
 * the SDK's trial API and pipelines.
 *
 *   POST .../jobs/{name}/metrics  {"metrics":[{"name","value","step","ts"}]}
 *        project editors, and the Job's own CUBE_TOKEN (no other Job's)
 *   GET  .../jobs/{name}/metrics[?name=loss&sinceStep=10]   project viewers
 *
 * Points live in the store's job_metrics table under the Job's uid (a Job
 * made again under the same name starts empty) and are deleted with the
 * Job (job_finalize; orphans of a delete cut short are purged at start).
 * When a batch is stored the owners the Job's ownerReferences name get a
 * reconcile queued: one per batch, and the controller queue coalesces
 * requests for an object already queued, so a stream of points costs a
 * few reconciles, never one per point. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ctx/ctx.h"
#include "http/http_req.h"
#include "jobs.h"
#include "base/log.h"
#include "objects/controller.h"
#include "objects/kinds.h"
#include "objects/objects.h"
#include "store/store.h"

#define STEP_MAX 9007199254740992.0     /* 2^53: exact in JSON numbers */

static const char *meta_str(const cJSON *job, const char *key)
{
    return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(job, "metadata"), key));
}

int job_point_name_ok(const char *name)
{
    size_t n = name ? strlen(name) : 0;
    if (n == 0 || n > JOB_POINT_NAME_MAX)
        return 0;
    for (const char *p = name; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              strchr("_.-/:", *p)))
            return 0;
    return 1;
}

/* One point of the batch; -1 with the reason in msg, the field in field. */
static int parse_point(const cJSON *m, int i, struct cube_store_point *p, char *field,
                       size_t flen, char *msg, size_t mlen)
{
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(m, "name");
    const cJSON *value = cJSON_GetObjectItemCaseSensitive(m, "value");
    const cJSON *step = cJSON_GetObjectItemCaseSensitive(m, "step");
    const cJSON *ts = cJSON_GetObjectItemCaseSensitive(m, "ts");
    const cJSON *k;
    const char *bad = NULL, *why = NULL;
    cJSON_ArrayForEach(k, m)
        if (!bad && strcmp(k->string, "name") && strcmp(k->string, "value") &&
            strcmp(k->string, "step") && strcmp(k->string, "ts"))
            bad = k->string, why = "unknown member (name, value, step, ts)";
    if (bad)
        ;
    else if (!cJSON_IsString(name) || !job_point_name_ok(name->valuestring))
        bad = "name", why = "1 to 128 of letters, digits and _ . - / :";
    else if (!cJSON_IsNumber(value) || !isfinite(value->valuedouble))
        bad = "value", why = "a finite number";
    else if (step && (!cJSON_IsNumber(step) || step->valuedouble < 0 ||
                      step->valuedouble > STEP_MAX ||
                      step->valuedouble != floor(step->valuedouble)))
        bad = "step", why = "an integer, 0 to 2^53";
    else if (ts && (!cJSON_IsNumber(ts) || !isfinite(ts->valuedouble) || ts->valuedouble < 0 ||
                    ts->valuedouble > 1e11))
        bad = "ts", why = "Unix seconds";
    if (bad) {
        snprintf(field, flen, "metrics[%d].%s", i, bad);
        snprintf(msg, mlen, "%s: %s", field, why);
        return -1;
    }
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    p->name = name->valuestring;
    p->value = value->valuedouble;
    p->step = step ? (int64_t)step->valuedouble : 0;
    p->ts_ms = ts ? (int64_t)llround(ts->valuedouble * 1000)
                  : (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
    return 0;
}

int job_points_parse(const cJSON *body, struct cube_store_point **out, size_t *n, char *field,
                     size_t flen, char *msg, size_t mlen)
{
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(body, "metrics"), *m;
    int count = cJSON_GetArraySize(list), i = 0;
    *out = NULL;
    *n = 0;
    snprintf(field, flen, "metrics");
    if (!cJSON_IsObject(body) || !cJSON_IsArray(list)) {
        snprintf(msg, mlen, "metrics: required, an array of {name, value, step, ts}");
        return -1;
    }
    if (count < 1 || count > JOB_POINTS_BATCH_MAX) {
        snprintf(msg, mlen, "metrics: 1 to %d points per request", JOB_POINTS_BATCH_MAX);
        return -1;
    }
    struct cube_store_point *pts = calloc((size_t)count, sizeof *pts);
    if (!pts) {
        snprintf(msg, mlen, "out of memory");
        return -1;
    }
    cJSON_ArrayForEach(m, list) {
        if (!cJSON_IsObject(m)) {
            snprintf(field, flen, "metrics[%d]", i);
            snprintf(msg, mlen, "%s: an object {name, value, step, ts}", field);
        }
        if (!cJSON_IsObject(m) || parse_point(m, i, &pts[i], field, flen, msg, mlen) < 0) {
            free(pts);
            return -1;
        }
        i++;
    }
    *out = pts;
    *n = (size_t)count;
    return 0;
}

int job_points_add(struct cube_sched *s, const cJSON *job, const struct cube_store_point *p,
                   size_t n, int64_t *total)
{
    const char *uid = meta_str(job, "uid");
    if (!uid)
        return CUBE_EINVAL;
    int rc = cube_store_points_add(s->ctx->store, uid, p, n, JOB_POINTS_JOB_MAX, total);
    if (rc == CUBE_OK)   /* the owner's controller hears of it: coalesced per object */
        cube_ctrl_enqueue_owners(s->ctx, meta_str(job, "project"), job);
    return rc;
}

static int point_json(void *cls, const struct cube_store_point *p)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", p->name);
    cJSON_AddNumberToObject(o, "step", (double)p->step);
    cJSON_AddNumberToObject(o, "value", p->value);
    cJSON_AddNumberToObject(o, "ts", (double)p->ts_ms / 1000.0);
    cJSON_AddItemToArray(cls, o);
    return 0;
}

char *job_points_json(struct cube_sched *s, const cJSON *job, const char *name,
                      int64_t since_step, int *rc)
{
    const char *uid = meta_str(job, "uid");
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "kind", "JobMetrics");
    cJSON_AddStringToObject(doc, "project", meta_str(job, "project") ?: "");
    cJSON_AddStringToObject(doc, "job", meta_str(job, "name") ?: "");
    cJSON *items = cJSON_AddArrayToObject(doc, "metrics");
    *rc = uid ? cube_store_points_list(s->ctx->store, uid, name, since_step, point_json, items)
              : CUBE_EINVAL;
    char *text = *rc == CUBE_OK ? cJSON_PrintUnformatted(doc) : NULL;
    cJSON_Delete(doc);
    if (*rc == CUBE_OK && !text)
        *rc = CUBE_ENOMEM;
    return text;
}

void job_points_forget(struct cube_sched *s, const cJSON *job)
{
    const char *uid = meta_str(job, "uid");
    if (uid && cube_store_points_delete(s->ctx->store, uid) != CUBE_OK)
        cube_log(CUBE_LOG_WARN, "jobs", "%s/%s: its metrics stay until the next start",
                 meta_str(job, "project") ?: "", meta_str(job, "name") ?: "");
}

void job_points_purge(struct cube_sched *s)
{
    if (s->ctx->store && cube_store_points_purge(s->ctx->store) != CUBE_OK)
        cube_log(CUBE_LOG_WARN, "jobs", "cannot purge the metrics of deleted Jobs");
}

char *cube_slot_job_metrics(cube_plugin *self, const char *project, const char *job,
                            const char *name, int64_t since_step, int *rc)
{
    struct cube_sched *s = self->ctx->sched;
    struct cube_op_error e;
    cJSON *obj = NULL;
    int ignored;
    rc = rc ? rc : &ignored;
    if (!project || !job || (name && !job_point_name_ok(name)) || since_step < -1) {
        *rc = CUBE_EINVAL;
        return NULL;
    }
    if (cube_obj_get(s->ctx, s->job_kind, project, job, &obj, &e) < 0) {
        *rc = e.status == 404 ? CUBE_ENOTFOUND : CUBE_EUNAVAIL;
        return NULL;
    }
    char *text = job_points_json(s, obj, name, since_step, rc);
    cJSON_Delete(obj);
    return text;
}
