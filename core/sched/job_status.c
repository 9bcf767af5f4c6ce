/* job_status.c — see job_status.h. */
#include "job_status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctx/ctx.h"
#include "jobs.h"
#include "base/log.h"
#include "objects/objects.h"
#include "objects/objects_priv.h"
#include "store/store.h"

#define RETRIES 8

void job_id(const char *project, const char *name, char *buf, size_t len)
{
    snprintf(buf, len, "%s/%s", project, name);
}

int job_id_split(const char *id, char project[64], char name[64])
{
    const char *slash = strchr(id, '/');
    if (!slash || slash - id >= 64 || strlen(slash + 1) >= 64)
        return -1;
    snprintf(project, 64, "%.*s", (int)(slash - id), id);
    snprintf(name, 64, "%s", slash + 1);
    return 0;
}

const char *job_status_str(const cJSON *job, const char *key)
{
    const char *v = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(job, "status"), key));
    return v ? v : "";
}

void job_set_str(cJSON *status, const char *key, const char *value)
{
    cJSON_DeleteItemFromObjectCaseSensitive(status, key);
    if (value)
        cJSON_AddStringToObject(status, key, value);
}

void job_set_num(cJSON *status, const char *key, double value)
{
    cJSON_DeleteItemFromObjectCaseSensitive(status, key);
    cJSON_AddNumberToObject(status, key, value);
}

void job_set_now(cJSON *status, const char *key)
{
    char now[40];
    cube_obj_now(now, sizeof now);
    job_set_str(status, key, now);
}

int job_update_status(struct cube_sched *s, const char *project, const char *name,
                      job_edit_fn edit, void *cls)
{
    return job_update_status_event(s, project, name, edit, cls, NULL);
}

char *job_event_doc(struct cube_sched *s, const char *project, const char *name,
                    const char *type, const char *reason, const char *message)
{
    return cube_obj_event_doc(s->job_kind, project, name, NULL, "event", "system:scheduler",
                              200, type, reason, message);
}

int job_update_status_event(struct cube_sched *s, const char *project, const char *name,
                            job_edit_fn edit, void *cls, const char *event)
{
    struct cube_actor sys = {"system:scheduler", 1, NULL};
    for (int attempt = 0; attempt < RETRIES; attempt++) {
        cJSON *job = NULL, *out = NULL;
        int64_t rv;
        struct cube_op_error e;
        if (cube_obj_load(s->ctx, s->job_kind, project, name, &job, &rv, &e) < 0)
            return -1;
        cJSON *status = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(job, "status"), 1);
        if (!cJSON_IsObject(status)) {
            cJSON_Delete(status);
            status = cJSON_CreateObject();
        }
        int rc = edit(cls, job, status);
        if (rc == 0) {
            cJSON *loaded = job;   /* taken: the status goes on the Job as loaded */
            job = NULL;
            if (cube_obj_put_status_loaded(s->ctx, s->job_kind, project, loaded, rv, status,
                                           &sys, event, &out, &e) < 0)
                rc = e.status == 409 ? 2 : -1;
        }
        if (rc == 1 && event)   /* nothing to write: the event alone */
            cube_store_event_add(s->ctx->store, project, s->job_kind->kind, name, event, NULL);
        if (rc < 0 && e.status != 409)
            cube_log(CUBE_LOG_WARN, "jobs", "%s/%s: cannot write status: %s", project, name,
                     e.message);
        cJSON_Delete(status);
        cJSON_Delete(job);
        cJSON_Delete(out);
        if (rc != 2)
            return rc < 0 ? -1 : 0;
    }
    return -1;
}

void job_event(struct cube_sched *s, const char *project, const char *name,
               const char *type, const char *reason, const char *message)
{
    cube_obj_record_event(s->ctx, s->job_kind, project, name, NULL, "event",
                          "system:scheduler", 200, type, reason, message);
}
