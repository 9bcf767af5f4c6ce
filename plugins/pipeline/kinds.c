/* kinds.c — the pipeline plugin's kinds: schemas (what the host checks),
 * printer columns, and the validation and controller callbacks they use
 * (validate.c, runner.c, schedule.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline.h"
/* Embedded at build time from the .json files beside this one: */
#include "jobtemplate_spec_schema.h"   /* TEMPLATE_SPEC */
#include "jobtemplate_columns.h"       /* TEMPLATE_COLUMNS */
#include "pipeline_spec_schema.h"      /* PIPELINE_SPEC */
#include "pipeline_columns.h"          /* PIPELINE_COLUMNS */
#include "pipelinerun_spec_schema.h"   /* RUN_SPEC: outline only (the plugin writes it) */
#include "pipelinerun_columns.h"       /* RUN_COLUMNS */

/* validate callbacks -------------------------------------------------- */

static int template_validate(void *state, const char *object_json, const char *old_json,
                             char *field, size_t flen, char *msg, size_t mlen)
{
    (void)state, (void)old_json;
    cJSON *obj = cJSON_Parse(object_json);
    char sub[200] = "";
    int rc = pl_template_check(cJSON_GetObjectItemCaseSensitive(obj, "spec"), sub,
                               sizeof sub, msg, mlen);
    if (rc < 0)
        snprintf(field, flen, "spec.%s", sub);
    cJSON_Delete(obj);
    return rc < 0 ? CUBE_EINVAL : CUBE_OK;
}

static int pipeline_validate(void *state, const char *object_json, const char *old_json,
                             char *field, size_t flen, char *msg, size_t mlen)
{
    (void)old_json;
    cJSON *obj = cJSON_Parse(object_json);
    int rc = obj ? pl_pipeline_check(state, obj, field, flen, msg, mlen) : -1;
    if (!obj)
        snprintf(msg, mlen, "out of memory");
    cJSON_Delete(obj);
    return rc < 0 ? CUBE_EINVAL : CUBE_OK;
}

/* spec.creator records whom the run is for: the host's metadata.owner
 * (the caller who started it, or the Pipeline's owner for scheduled and
 * backfilled runs). A user may leave it out, never name someone else. */
static int run_validate(void *state, const char *object_json, const char *old_json,
                        char *field, size_t flen, char *msg, size_t mlen)
{
    (void)state;
    cJSON *obj = cJSON_Parse(object_json), *old = old_json ? cJSON_Parse(old_json) : NULL;
    const char *creator = cu_str(cJSON_GetObjectItemCaseSensitive(obj, "spec"), "creator");
    const char *was = old ? cu_str(cJSON_GetObjectItemCaseSensitive(old, "spec"), "creator")
                          : NULL;
    const char *want = was ? was : cu_meta(obj, "owner");
    int bad = creator && (!want || strcmp(creator, want) != 0);
    if (bad) {
        snprintf(field, flen, "spec.creator");
        snprintf(msg, mlen, "set by Cube to the user the run is for (%s); leave it out",
                 want ? want : "its owner");
    }
    cJSON_Delete(obj);
    cJSON_Delete(old);
    return bad ? CUBE_EINVAL : CUBE_OK;
}

/* Fills spec.creator from metadata.owner on a run that lacks it. */
static int run_defaulting(void *state, const char *object_json, char **out)
{
    (void)state;
    cJSON *obj = cJSON_Parse(object_json);
    cJSON *spec = cJSON_GetObjectItemCaseSensitive(obj, "spec");
    const char *owner = cu_meta(obj, "owner");
    if (cJSON_IsObject(spec) && owner && !cJSON_HasObjectItem(spec, "creator")) {
        cJSON_AddStringToObject(spec, "creator", owner);
        *out = cJSON_PrintUnformatted(obj);
    }
    cJSON_Delete(obj);
    return CUBE_OK;
}

int pl_kinds_register(struct pl *p)
{
    const struct cube_kind_desc kinds[] = {
        {.size = sizeof kinds[0], .kind = "JobTemplate", .plural = "jobtemplates",
         .scope = CUBE_SCOPE_CLUSTER, .group = "Pipelines",
         .description = "A reusable task: image, command, argument schema (the catalog)",
         .spec_schema = TEMPLATE_SPEC, .printer_columns = TEMPLATE_COLUMNS,
         .validate = template_validate, .display_name = "Job template",
         .display_plural = "Job templates", .display_name_zh = "任务模板",
         .display_plural_zh = "任务模板", .group_zh = "流水线"},
        {.size = sizeof kinds[0], .kind = "ProjectJobTemplate", .plural = "projectjobtemplates",
         .scope = CUBE_SCOPE_PROJECT, .group = "Pipelines",
         .description = "A project's own task template; found before the catalog's",
         .spec_schema = TEMPLATE_SPEC, .printer_columns = TEMPLATE_COLUMNS,
         .validate = template_validate, .display_name = "Project job template",
         .display_plural = "Project job templates", .display_name_zh = "项目任务模板",
         .display_plural_zh = "项目任务模板", .group_zh = "流水线"},
        {.size = sizeof kinds[0], .kind = "Pipeline", .plural = "pipelines",
         .scope = CUBE_SCOPE_PROJECT, .group = "Pipelines",
         .description = "A DAG of tasks run once, on a schedule or over past dates",
         .spec_schema = PIPELINE_SPEC, .printer_columns = PIPELINE_COLUMNS,
         .validate = pipeline_validate, .reconcile = pl_pipeline_reconcile,
         .resync_seconds = 60, .display_name = "Pipeline", .display_plural = "Pipelines",
         .display_name_zh = "流水线", .display_plural_zh = "流水线", .group_zh = "流水线"},
        {.size = sizeof kinds[0], .kind = "PipelineRun", .plural = "pipelineruns",
         .scope = CUBE_SCOPE_PROJECT, .group = "Pipelines",
         .description = "One run of a pipeline: a snapshot of its tasks and their Jobs",
         .spec_schema = RUN_SPEC, .printer_columns = RUN_COLUMNS,
         .validate = run_validate, .defaulting = run_defaulting,
         .reconcile = pl_run_reconcile, .resync_seconds = 300,
         .display_name = "Pipeline run", .display_plural = "Pipeline runs",
         .display_name_zh = "流水线运行", .display_plural_zh = "流水线运行记录",
         .group_zh = "流水线"},
    };
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (p->host->register_kind(p->self, &kinds[i]) != CUBE_OK) {
            p->host->set_error(p->self, "cannot register kind %s (see the log)",
                               kinds[i].kind);
            return -1;
        }
    return 0;
}
