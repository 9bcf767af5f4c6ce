/* kinds.c — the pipeline plugin's kinds: schemas (what the host checks),
 * printer columns, and the validation and controller callbacks they use
 * (validate.c, runner.c, schedule.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline.h"

#define STR_MAP "{\"type\":\"object\",\"additionalProperties\":{\"type\":\"string\"}}"
#define STR_LIST(max) "{\"type\":\"array\",\"maxItems\":" #max ",\"items\":{\"type\":\"string\"}}"
#define RESOURCES                                                                      \
    "{\"type\":\"object\",\"description\":\"Per task, as a Job replica's: cpu, memory, "  \
    "devices\",\"additionalProperties\":{\"anyOf\":[{\"type\":\"number\",\"minimum\":0}," \
    "{\"type\":\"string\",\"maxLength\":32}]}}"
#define MOUNTS                                                                           \
    "{\"type\":\"array\",\"items\":{\"type\":\"object\",\"additionalProperties\":false,"   \
    "\"required\":[\"name\",\"path\"],\"properties\":{\"name\":{\"type\":\"string\"},"     \
    "\"path\":{\"type\":\"string\",\"pattern\":\"^/\"},\"readOnly\":{\"type\":\"boolean\"}}}}"
#define DNS_LABEL "\"pattern\":\"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$\""

static const char TEMPLATE_SPEC[] =
    "{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"command\"],"
    "\"properties\":{"
    "\"version\":{\"type\":\"string\",\"maxLength\":32,\"default\":\"Release\"},"
    "\"description\":{\"type\":\"string\",\"maxLength\":2000},"
    "\"category\":{\"type\":\"string\",\"maxLength\":64,\"default\":\"general\"},"
    "\"image\":{\"type\":\"string\",\"maxLength\":512},"
    "\"command\":{\"type\":\"array\",\"minItems\":1,\"maxItems\":256,"
    "\"items\":{\"type\":\"string\",\"maxLength\":65536},"
    "\"description\":\"argv; {{ template_dir }} is the template's directory\"},"
    "\"workdir\":{\"type\":\"string\",\"maxLength\":4096},"
    "\"env\":" STR_MAP ","
    "\"resources\":" RESOURCES ","
    "\"args\":{\"type\":\"object\",\"description\":\"Argument schema, Cube Studio's format: "
    "{group: {--arg: {type, default, require, choice, range ...}}}\"},"
    "\"example\":{\"type\":\"object\",\"description\":\"Example args\"}}}";

static const char TEMPLATE_COLUMNS[] =
    "[{\"name\":\"Category\",\"jsonPath\":\".spec.category\",\"type\":\"string\"},"
    "{\"name\":\"Version\",\"jsonPath\":\".spec.version\",\"type\":\"string\"},"
    "{\"name\":\"Description\",\"jsonPath\":\".spec.description\",\"type\":\"string\"}]";

static const char PIPELINE_SPEC[] =
    "{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"tasks\"],"
    "\"properties\":{"
    "\"description\":{\"type\":\"string\",\"maxLength\":2000},"
    "\"tasks\":{\"type\":\"array\",\"minItems\":1,\"maxItems\":2000,\"items\":{"
    "\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"name\"],"
    "\"properties\":{"
    "\"name\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":40," DNS_LABEL "},"
    "\"label\":{\"type\":\"string\",\"maxLength\":200},"
    "\"template\":{\"type\":\"string\",\"maxLength\":63},"
    "\"args\":{\"type\":\"object\",\"description\":\"--arg: value, checked against the "
    "template's schema; values with {{ }} are rendered per run\"},"
    "\"command\":{\"type\":\"array\",\"maxItems\":256,\"items\":{\"type\":\"string\"}},"
    "\"workdir\":{\"type\":\"string\",\"maxLength\":4096},"
    "\"resources\":" RESOURCES ","
    "\"retries\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":100,\"default\":0},"
    "\"retryBackoffSeconds\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":86400,"
    "\"default\":10},"
    "\"timeoutSeconds\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":31536000,\"default\":0},"
    "\"skip\":{\"type\":\"boolean\",\"default\":false},"
    "\"nodeSelector\":" STR_MAP ","
    "\"mounts\":" MOUNTS ","
    "\"env\":" STR_MAP ","
    "\"upstream\":" STR_LIST(2000) ","
    "\"layout\":{\"type\":\"object\",\"description\":\"Canvas position (console)\"}}}},"
    "\"env\":" STR_MAP ","
    "\"parallelism\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":2000,\"default\":1,"
    "\"description\":\"Tasks of one run running at once\"},"
    "\"schedule\":{\"type\":\"string\",\"maxLength\":128,\"default\":\"once\","
    "\"description\":\"once, or a cron expression (5 fields or @daily ...)\"},"
    "\"timezone\":{\"type\":\"string\",\"maxLength\":64,\"default\":\"UTC\"},"
    "\"startTime\":{\"type\":\"string\",\"maxLength\":40,"
    "\"description\":\"First tick considered (ISO 8601); past values backfill\"},"
    "\"paused\":{\"type\":\"boolean\",\"default\":false},"
    "\"dependsOnPast\":{\"type\":\"boolean\",\"default\":false},"
    "\"maxActiveRuns\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":1000,\"default\":3},"
    "\"expiredLimit\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":1000,\"default\":0},"
    "\"alerts\":{\"type\":\"array\",\"items\":{\"enum\":[\"Running\",\"Succeeded\","
    "\"Failed\",\"Stopped\"]}},"
    "\"alertUsers\":" STR_LIST(100) "}}";

static const char PIPELINE_COLUMNS[] =
    "[{\"name\":\"Schedule\",\"jsonPath\":\".spec.schedule\",\"type\":\"string\"},"
    "{\"name\":\"Tasks\",\"jsonPath\":\".status.tasks\",\"type\":\"integer\"},"
    "{\"name\":\"Paused\",\"jsonPath\":\".spec.paused\",\"type\":\"boolean\"},"
    "{\"name\":\"Next tick\",\"jsonPath\":\".status.nextTick\",\"type\":\"string\"}]";

/* A run's spec is a snapshot written by the plugin; the host checks its
 * outline only. */
static const char RUN_SPEC[] =
    "{\"type\":\"object\",\"required\":[\"pipeline\",\"tasks\"],\"properties\":{"
    "\"pipeline\":{\"type\":\"string\",\"maxLength\":63},"
    "\"executionDate\":{\"type\":\"string\",\"maxLength\":40},"
    "\"trigger\":{\"enum\":[\"manual\",\"schedule\",\"backfill\"],\"default\":\"manual\"},"
    "\"creator\":{\"type\":\"string\",\"maxLength\":128},"
    "\"layout\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":2,"
    "\"description\":\"Where task files go: 1 tasks/<t>/results, 2 results/<t>\"},"
    "\"parallelism\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":2000,\"default\":1},"
    "\"env\":" STR_MAP ","
    "\"alerts\":" STR_LIST(8) ","
    "\"tasks\":{\"type\":\"array\",\"maxItems\":2000,\"items\":{\"type\":\"object\","
    "\"required\":[\"name\"]}}}}";

static const char RUN_COLUMNS[] =
    "[{\"name\":\"Pipeline\",\"jsonPath\":\".spec.pipeline\",\"type\":\"string\"},"
    "{\"name\":\"Execution date\",\"jsonPath\":\".spec.executionDate\",\"type\":\"string\"},"
    "{\"name\":\"Phase\",\"jsonPath\":\".status.phase\",\"type\":\"string\"},"
    "{\"name\":\"Progress\",\"jsonPath\":\".status.progress\",\"type\":\"string\"}]";

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
    const char *creator = pl_str(cJSON_GetObjectItemCaseSensitive(obj, "spec"), "creator");
    const char *was = old ? pl_str(cJSON_GetObjectItemCaseSensitive(old, "spec"), "creator")
                          : NULL;
    const char *want = was ? was : pl_meta(obj, "owner");
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
    const char *owner = pl_meta(obj, "owner");
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
         .validate = template_validate},
        {.size = sizeof kinds[0], .kind = "ProjectJobTemplate", .plural = "projectjobtemplates",
         .scope = CUBE_SCOPE_PROJECT, .group = "Pipelines",
         .description = "A project's own task template; found before the catalog's",
         .spec_schema = TEMPLATE_SPEC, .printer_columns = TEMPLATE_COLUMNS,
         .validate = template_validate},
        {.size = sizeof kinds[0], .kind = "Pipeline", .plural = "pipelines",
         .scope = CUBE_SCOPE_PROJECT, .group = "Pipelines",
         .description = "A DAG of tasks run once, on a schedule or over past dates",
         .spec_schema = PIPELINE_SPEC, .printer_columns = PIPELINE_COLUMNS,
         .validate = pipeline_validate, .reconcile = pl_pipeline_reconcile,
         .resync_seconds = 60},
        {.size = sizeof kinds[0], .kind = "PipelineRun", .plural = "pipelineruns",
         .scope = CUBE_SCOPE_PROJECT, .group = "Pipelines",
         .description = "One run of a pipeline: a snapshot of its tasks and their Jobs",
         .spec_schema = RUN_SPEC, .printer_columns = RUN_COLUMNS,
         .validate = run_validate, .defaulting = run_defaulting,
         .reconcile = pl_run_reconcile, .resync_seconds = 300},
    };
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (p->host->register_kind(p->self, &kinds[i]) != CUBE_OK) {
            p->host->set_error(p->self, "cannot register kind %s (see the log)",
                               kinds[i].kind);
            return -1;
        }
    return 0;
}
