/* job_points_http.c — the Job metrics routes (job_points.c), as actions
 * of the Job kind: the generic resource layer checks membership, that
 * the Job exists and the action's permission (project:view) before
 * these run; writing then needs project:edit, or the Job's own
 * CUBE_TOKEN (a token bound to another Job is refused with 403). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth/auth.h"
#include "ctx/ctx.h"
#include "http/http_req.h"
#include "jobs.h"
#include "objects/kinds.h"
#include "objects/objects.h"
#include "base/log.h"

static int answer_text(cube_req *req, int status, char *text)
{
    if (!text)
        return cube_http_answer_error(req, 503, "Unavailable", "cannot read the metrics");
    int rc = cube_http_answer(req, status, "application/json", text, strlen(text), 1);
    free(text);
    return rc;
}

/* The Job of the route, or NULL after answering. */
static cJSON *route_job(struct cube_sched *s, cube_req *req)
{
    cJSON *job = NULL;
    struct cube_op_error e;
    if (cube_obj_get(s->ctx, s->job_kind, cube_route_match_param(&req->match, "project"),
                     cube_route_match_param(&req->match, "name"), &job, &e) < 0) {
        cube_http_answer_error(req, e.status, e.code, e.message);
        return NULL;
    }
    return job;
}

/* 1 when the caller, past the route's project:edit, may write the Job's
 * metrics: a Job's CUBE_TOKEN only its own Job's; else answers, 0. */
static int may_write(cube_req *req, const cJSON *job)
{
    const struct cube_principal *p = cube_auth_who(req);
    const char *uid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(job, "metadata"), "uid"));
    if (p->via == CUBE_VIA_TOKEN && p->job_uid[0]) {   /* a Job's CUBE_TOKEN */
        if (uid && !strcmp(uid, p->job_uid))
            return 1;
        cube_http_answer_error(req, 403, "Forbidden",
                               "a Job's CUBE_TOKEN writes the metrics of its own Job only");
        return 0;
    }
    return 1;   /* project:edit, checked by the route's declared permission */
}

static int post_metrics(void *state, cube_req *req)
{
    struct cube_sched *s = ((struct cube_ctx *)state)->sched;
    cJSON *job = route_job(s, req), *body = NULL;
    struct cube_store_point *pts = NULL;
    size_t n = 0;
    int64_t total = 0;
    char field[64], msg[160];
    int rc = CUBE_OK;
    if (!job || !may_write(req, job))
        goto done;
    body = cJSON_ParseWithLength(req->body, req->body_len);
    if (!body) {
        rc = cube_http_answer_error(req, 400, "BadRequest", "the body is not JSON");
        goto done;
    }
    if (job_points_parse(body, &pts, &n, field, sizeof field, msg, sizeof msg) < 0) {
        rc = cube_http_answer_error_field(req, 422, "Invalid", msg, field);
        goto done;
    }
    rc = job_points_add(s, job, pts, n, &total);
    if (rc == CUBE_ETOOBIG) {
        snprintf(msg, sizeof msg, "metrics: a Job holds at most %d points", JOB_POINTS_JOB_MAX);
        rc = cube_http_answer_error_field(req, 413, "TooLarge", msg, "metrics");
    } else if (rc != CUBE_OK) {
        rc = cube_http_answer_error(req, 503, "Unavailable", "cannot store the metrics");
    } else {
        snprintf(msg, sizeof msg, "{\"accepted\":%zu,\"total\":%lld}", n, (long long)total);
        rc = cube_http_answer_json(req, 201, msg);
    }
done:
    free(pts);
    cJSON_Delete(body);
    cJSON_Delete(job);
    return rc;
}

/* ?sinceStep=N: -1 (all) when absent; -2 when malformed. */
static int64_t since_step(cube_req *req)
{
    const char *v = cube_req_query(req, "sinceStep");
    char *end;
    if (!v)
        return -1;
    errno = 0;
    long long n = strtoll(v, &end, 10);
    return *v && !*end && !errno && n >= -1 ? n : -2;
}

static int get_metrics(void *state, cube_req *req)
{
    struct cube_sched *s = ((struct cube_ctx *)state)->sched;
    const char *name = cube_req_query(req, "name");
    int64_t since = since_step(req);
    int rc;
    if (name && !job_point_name_ok(name))
        return cube_http_answer_error_field(req, 400, "BadRequest",
                                            "name: a metric name", "name");
    if (since < -1)
        return cube_http_answer_error_field(req, 400, "BadRequest",
                                            "sinceStep: an integer, -1 or more", "sinceStep");
    cJSON *job = route_job(s, req);
    if (!job)
        return CUBE_OK;
    char *text = job_points_json(s, job, name, since, &rc);
    cJSON_Delete(job);
    return answer_text(req, 200, text);
}

int job_points_register(struct cube_sched *s)
{
    const struct cube_action_desc actions[] = {
        {sizeof actions[0], "Job", "POST", "metrics", CUBE_PERM_PROJECT_EDIT, post_metrics,
         "Report metrics {\"metrics\":[{name, value, step, ts}]} (1 to 1000 points; project "
         "editors, or the Job's own CUBE_TOKEN)"},
        {sizeof actions[0], "Job", "GET", "metrics", CUBE_PERM_PROJECT_VIEW, get_metrics,
         "The Job's metrics (?name=, ?sinceStep=: steps after it)"},
    };
    char err[256];
    for (size_t i = 0; i < sizeof actions / sizeof actions[0]; i++)
        if (cube_kinds_add_action(&s->ctx->kinds, &s->ctx->core, &actions[i], err, sizeof err) !=
            CUBE_OK) {
            cube_log(CUBE_LOG_ERROR, "jobs", "metrics action: %s", err);
            return -1;
        }
    return 0;
}
