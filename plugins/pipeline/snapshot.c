/* snapshot.c — a PipelineRun from a Pipeline. The run keeps a copy of
 * everything it needs (tasks with their templates resolved: command,
 * image, env, resources, argument schema), so later edits of the pipeline
 * or its templates never change a run that exists, and a restart of cubed
 * finds all it needs in the run itself.
 *
 * Names: a scheduled or backfilled run is <pipeline>-<YYYYMMDDHHMM> of its
 * tick (creating it twice answers CUBE_EEXIST: one run per tick); a manual
 * run adds seconds and a random suffix. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "pipeline.h"

/* Copies key from src into dst when present. */
static void copy_key(cJSON *dst, const cJSON *src, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(src, key);
    if (v)
        cJSON_AddItemToObject(dst, key, cJSON_Duplicate(v, 1));
}

/* a's string members, then b's over them. */
static cJSON *merged(const cJSON *a, const cJSON *b)
{
    cJSON *out = cJSON_IsObject(a) ? cJSON_Duplicate(a, 1) : cJSON_CreateObject();
    const cJSON *v;
    cJSON_ArrayForEach(v, b)
        cu_set_item(out, v->string, cJSON_Duplicate(v, 1));
    return out;
}

/* One task of the snapshot. NULL with msg when its template is gone. */
static cJSON *snap_task(struct pl *p, const char *project, const cJSON *t, char *msg,
                        size_t mlen)
{
    static const char *const KEEP[] = {"name", "label", "upstream", "skip", "retries",
                                       "retryBackoffSeconds", "timeoutSeconds",
                                       "nodeSelector", "mounts", "workdir", "args",
                                       "template"};
    cJSON *s = cJSON_CreateObject(), *tmpl = NULL;
    for (size_t i = 0; i < sizeof KEEP / sizeof KEEP[0]; i++)
        copy_key(s, t, KEEP[i]);
    const char *tname = cu_str(t, "template");
    const cJSON *tspec = NULL;
    if (tname) {
        if (!(tmpl = pl_template_find(p, project, tname))) {
            snprintf(msg, mlen, "task %s: no job template \"%s\"", cu_str(t, "name"), tname);
            cJSON_Delete(s);
            return NULL;
        }
        tspec = cJSON_GetObjectItemCaseSensitive(tmpl, "spec");
        const char *dir = cu_str(cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(tmpl, "metadata"), "annotations"),
            "pipeline.cube.dev/template-dir");
        cJSON_AddStringToObject(s, "templateDir", dir ? dir : "");
        copy_key(s, tspec, "image");
        const cJSON *args = cJSON_GetObjectItemCaseSensitive(tspec, "args");
        if (cJSON_IsObject(args) && args->child)
            cJSON_AddItemToObject(s, "argsSchema", cJSON_Duplicate(args, 1));
        if (!cJSON_HasObjectItem(s, "workdir"))
            copy_key(s, tspec, "workdir");
    }
    const cJSON *cmd = cJSON_GetObjectItemCaseSensitive(t, "command");
    copy_key(s, cJSON_GetArraySize(cmd) ? t : tspec, "command");
    cJSON_AddItemToObject(s, "env", merged(cJSON_GetObjectItemCaseSensitive(tspec, "env"),
                                           cJSON_GetObjectItemCaseSensitive(t, "env")));
    const cJSON *res = cJSON_GetObjectItemCaseSensitive(t, "resources");
    cJSON_AddItemToObject(s, "resources", merged(cJSON_GetObjectItemCaseSensitive(tspec,
                                                                                  "resources"),
                                                 res));
    cJSON_Delete(tmpl);
    return s;
}

/* The run's name for time t. */
static void run_name(const char *pipeline, int64_t t, const char *trigger, char *out,
                     size_t len)
{
    char suffix[40];
    time_t tt = (time_t)t;
    struct tm tm;
    gmtime_r(&tt, &tm);
    if (!strcmp(trigger, "manual")) {
        unsigned short r = 0;
        if (getrandom(&r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r)
            r = (unsigned short)clock();
        strftime(suffix, sizeof suffix, "%Y%m%d%H%M%S", &tm);
        snprintf(suffix + strlen(suffix), sizeof suffix - strlen(suffix), "-%04x", r);
    } else {
        strftime(suffix, sizeof suffix, "%Y%m%d%H%M", &tm);
    }
    pl_join_name(pipeline, suffix, out, len);
}

/* The run object (a new tree) or NULL with msg. */
static cJSON *run_object(struct pl *p, const cJSON *pipeline, int64_t t, const char *trigger,
                         const char *user, const char *name, char *msg, size_t mlen)
{
    const cJSON *spec = cJSON_GetObjectItemCaseSensitive(pipeline, "spec"), *task;
    const char *project = cu_meta(pipeline, "project"), *pname = cu_meta(pipeline, "name");
    char date[40];
    cJSON *run = cJSON_CreateObject(), *meta = cJSON_AddObjectToObject(run, "metadata");
    cJSON_AddStringToObject(run, "kind", "PipelineRun");
    cJSON_AddStringToObject(meta, "name", name);
    cJSON_AddStringToObject(meta, "project", project);
    cJSON *labels = cJSON_AddObjectToObject(meta, "labels");
    cJSON_AddStringToObject(labels, "pipeline", pname);
    cJSON_AddStringToObject(labels, "trigger", trigger);
    if (strcmp(trigger, "manual") != 0)   /* the Pipeline controller admits it */
        cJSON_AddStringToObject(labels, "queued", "true");
    cJSON *ref = cJSON_CreateObject();
    cJSON_AddStringToObject(ref, "kind", "Pipeline");
    cJSON_AddStringToObject(ref, "name", pname);
    cJSON_AddStringToObject(ref, "uid", cu_meta(pipeline, "uid") ? cu_meta(pipeline, "uid") : "");
    cJSON_AddTrueToObject(ref, "controller");
    cJSON_AddItemToArray(cJSON_AddArrayToObject(meta, "ownerReferences"), ref);
    cJSON *rs = cJSON_AddObjectToObject(run, "spec");
    cJSON_AddStringToObject(rs, "pipeline", pname);
    pl_time_format(t, date, sizeof date);
    cJSON_AddStringToObject(rs, "executionDate", date);
    cJSON_AddStringToObject(rs, "trigger", trigger);
    if (user)
        cJSON_AddStringToObject(rs, "creator", user);
    cJSON_AddNumberToObject(rs, "layout", PL_LAYOUT);
    cJSON_AddNumberToObject(rs, "parallelism", cu_num(spec, "parallelism", 1));
    copy_key(rs, spec, "env");
    copy_key(rs, spec, "alerts");
    cJSON *tasks = cJSON_AddArrayToObject(rs, "tasks");
    cJSON_ArrayForEach(task, cJSON_GetObjectItemCaseSensitive(spec, "tasks")) {
        cJSON *s = snap_task(p, project, task, msg, mlen);
        if (!s) {
            cJSON_Delete(run);
            return NULL;
        }
        cJSON_AddItemToArray(tasks, s);
    }
    return run;
}

char *pl_run_create(struct pl *p, cube_req *req, const cJSON *pipeline, int64_t t,
                    const char *trigger, char *name_out, size_t name_len, int *rc,
                    char *msg, size_t mlen)
{
    const char *pname = cu_meta(pipeline, "name");
    /* Whom the run is for is the host's to decide: the caller of req, or
     * (scheduled) the owner of the Pipeline its controller reference
     * names. spec.creator repeats it for templates ({{ creator }}). */
    const char *user = req ? p->host->req_user(req) : cu_meta(pipeline, "owner");
    run_name(pname, t, trigger, name_out, name_len);
    cJSON *run = run_object(p, pipeline, t, trigger, user, name_out, msg, mlen);
    if (!run) {
        *rc = CUBE_EINVAL;
        return NULL;
    }
    char *doc = cJSON_PrintUnformatted(run);
    cJSON_Delete(run);
    char *out = !doc ? NULL : req ? p->host->obj_create_for(p->self, req, doc, rc)
                                  : p->host->obj_create(p->self, doc, rc);
    free(doc);
    if (!out && *rc == CUBE_EPERM)
        snprintf(msg, mlen, "you may not start runs in this project");
    else if (!out && *rc != CUBE_EEXIST) {
        snprintf(msg, mlen, "cannot create run %s (%d)", name_out, *rc);
        p->host->log(p->self, CUBE_LOG_WARN, "%s", msg);
    }
    return out;
}
