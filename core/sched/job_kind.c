/* job_kind.c — the core's Job kind (project scope): its schema, and the
 * translation of a Job's spec into a request for the policy engine with
 * field-precise errors (negative cpu, unknown resource, replicas 0, a share
 * over 1, more memory than any node). The controller is in job_ctrl.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctx/ctx.h"
#include "jobs.h"
#include "objects/kinds.h"
#include "base/log.h"
#include "objects/objects.h"
#include "base/quantity.h"
#include "sched_policy.h"

/* The Job kind's spec schema and printer columns: job.schema.json and
 * job.columns.json beside this file, embedded at build time. */
#include "sched/job_columns.h"
#include "sched/job_schema.h"

/* Fills e for a bad field and returns -1. */
static int bad(struct cube_op_error *e, const char *field, const char *msg)
{
    cube_op_fail(e, 422, "Invalid", field, "%s: %s", field, msg);
    return -1;
}

/* One extended resource of the request. */
static int ext_request(struct cube_sched *s, const cJSON *v, const char *field,
                       struct cube_sp_ext *x, struct cube_op_error *e)
{
    const char *why;
    if (!sched_resource_known(s, v->string))
        return bad(e, field, "unknown resource (no accelerator plugin or node offers it)");
    if (cube_qty_milli(v, &x->milli, &why) < 0)
        return bad(e, field, why);
    if (x->milli > 1000 && x->milli % 1000)
        return bad(e, field, "above 1, only whole devices (a share is between 0 and 1)");
    x->resource = v->string;
    return 0;
}

int job_request(struct cube_sched *s, const cJSON *job, struct job_request *r,
                struct cube_op_error *e)
{
    const cJSON *spec = cJSON_GetObjectItemCaseSensitive(job, "spec"), *v;
    const cJSON *accel = cJSON_GetObjectItemCaseSensitive(spec, "accelerator");
    char field[160];
    const char *why, *prio = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(spec, "priority"));
    memset(r, 0, sizeof *r);
    r->job.replicas = (unsigned)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(spec, "replicas"));
    r->job.priority = prio && !strcmp(prio, "high") ? CUBE_SP_HIGH
                      : prio && !strcmp(prio, "low") ? CUBE_SP_LOW : CUBE_SP_NORMAL;
    r->job.pool = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(spec, "pool"));
    const char *model = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(accel, "model"));
    const cJSON *frac = cJSON_GetObjectItemCaseSensitive(accel, "memoryFraction");
    cJSON_ArrayForEach(v, cJSON_GetObjectItemCaseSensitive(spec, "resources")) {
        snprintf(field, sizeof field, "spec.resources.%s", v->string);
        if (!strcmp(v->string, "cpu")) {
            if (cube_qty_milli(v, &r->job.cpu_milli, &why) < 0)
                return bad(e, field, why);
        } else if (!strcmp(v->string, "memory")) {
            if (cube_qty_bytes(v, &r->job.memory, &why) < 0)
                return bad(e, field, why);
        } else if (r->job.n_ext == CUBE_SP_MAX_EXT) {
            return bad(e, field, "too many device resources (at most 4)");
        } else {
            struct cube_sp_ext *x = &r->ext[r->job.n_ext];
            if (ext_request(s, v, field, x, e) < 0)
                return -1;
            x->model = model;
            x->mem_milli = cJSON_IsNumber(frac) && x->milli < 1000
                               ? (int64_t)(frac->valuedouble * 1000) : 0;
            r->job.n_ext += x->milli > 0;
        }
    }
    r->job.ext = r->ext;
    cJSON_ArrayForEach(v, cJSON_GetObjectItemCaseSensitive(spec, "nodeSelector")) {
        if (r->job.n_selector == JOB_MAX_SELECTOR)
            return bad(e, "spec.nodeSelector", "too many terms (at most 16)");
        r->sel[r->job.n_selector++] = (struct cube_sp_label){v->string, v->valuestring};
    }
    r->job.selector = r->sel;
    return 0;
}

/* Rejects what the schema cannot: resources that do not parse or exist,
 * and what job_admit.c refuses. An update may change metadata only: the
 * rest was checked when the Job was created. */
static int job_check(struct cube_ctx *ctx, const struct cube_actor *who, cJSON *obj,
                     const cJSON *old, struct cube_op_error *e)
{
    (void)who;
    struct job_request r;
    if (old)
        return job_admit_check(ctx, obj, old, e);
    if (job_request(ctx->sched, obj, &r, e) < 0 || job_admit_check(ctx, obj, NULL, e) < 0)
        return -1;
    if (!sched_some_node_fits(ctx->sched, r.job.pool, r.job.cpu_milli, r.job.memory)) {
        cube_op_fail(e, 422, "Invalid", "spec.resources", "spec.resources: more cpu or "
                     "memory than any node of pool %s offers", r.job.pool ? r.job.pool : "default");
        return -1;
    }
    return 0;
}

static const struct cube_kind_core JOB_CORE = {job_check, NULL, NULL};

int job_kind_register(struct cube_sched *s)
{
    struct cube_ctx *ctx = s->ctx;
    const struct cube_kind_desc d = {
        .size = sizeof d, .kind = "Job", .plural = "jobs", .scope = CUBE_SCOPE_PROJECT,
        .group = "Training", .description = "Replicas of a command, scheduled onto nodes",
        .spec_schema = JOB_SPEC, .printer_columns = JOB_COLUMNS,
        .reconcile = job_reconcile, .finalize = job_finalize,
        .display_name = "Job", .display_plural = "Jobs", .display_name_zh = "任务",
        .display_plural_zh = "任务", .group_zh = "训练"};
    char err[256];
    if (cube_kinds_add(&ctx->kinds, &ctx->core, &d, err, sizeof err) != CUBE_OK) {
        cube_log(CUBE_LOG_ERROR, "jobs", "kind Job: %s", err);
        return -1;
    }
    s->job_kind = cube_kinds_by_kind(&ctx->kinds, "Job");
    s->job_kind->core = &JOB_CORE;
    return 0;
}
