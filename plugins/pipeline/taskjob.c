/* taskjob.c — the Job of one task of a run. Values with "{{" (command,
 * args, env) are rendered with the run's variables: execution_date, ds,
 * run_id, creator, pipeline_name, project, template_dir and
 * tasks.<name>.outputs.<key> of finished upstreams. Args are checked
 * against the template's schema after rendering and appended as flags.
 *
 * Each task gets three paths under the project's files, which the task
 * itself creates (a wrapper shell line; mkdir only when missing: the
 * runner makes a task's directories like the run's work directory once
 * that exists, taskdirs.c), so they belong to the account it runs as and
 * the project's group:
 *   CUBE_RUN_DIR     pipeline-runs/<run>/work          shared by the run
 *   CUBE_OUTPUT_DIR  pipeline-runs/<run>/results/<t>   result files
 *   CUBE_OUTPUTS     pipeline-runs/<run>/outputs/<t>   key=value or JSON
 * (runs of layout 1, made before layout 2: tasks/<t>/results and
 * tasks/<t>/outputs; pipeline.h)
 * The wrapper also clears an old outputs file (a rerun) and, without a
 * workdir of the task's own, starts the command in CUBE_RUN_DIR.
 *
 * When the task's directories were made ahead (runtasks.c, taskdirs.c) and
 * no old outputs file must be cleared, the Job runs the command itself,
 * with CUBE_RUN_DIR as its workdir when the task has none: no shell, one
 * process less per task.
 * Whether found through PATH by the shell or by the executor, a missing
 * command fails the task either way. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "args.h"
#include "pipeline.h"
#include "tmpl.h"

/* Shell builtins only, except mkdir when a directory is missing: each
 * extra exec costs a task tens of ms on a loaded machine (a `true` task
 * spent 340 ms from start to end with mkdir and rm). Outputs of an earlier
 * attempt are truncated, not removed (an empty file has no outputs). The
 * run's directory is made first and must be the task account's own
 * (PL_RUN_DIR_CHECK, rundirs.c: another member may have made one of that
 * name); else the task fails before its command runs. */
#define WRAPPER_PREP                                                                 \
    "{ [ -d \"${CUBE_RUN_DIR%/*}\" ] || mkdir -p \"${CUBE_RUN_DIR%/*}\"; } && "          \
    PL_RUN_DIR_CHECK " || { echo \"cube-task: ${CUBE_RUN_DIR%/*} is not a directory of "  \
    "this task's account: refusing to run the task in it\" >&2; exit 1; }; "              \
    "{ [ -d \"$CUBE_OUTPUT_DIR\" ] && [ -d \"$CUBE_RUN_DIR\" ] && "                   \
    "[ -d \"${CUBE_OUTPUTS%/*}\" ] || "                                                  \
    "mkdir -p \"$CUBE_OUTPUT_DIR\" \"$CUBE_RUN_DIR\" \"${CUBE_OUTPUTS%/*}\"; } && "    \
    "{ [ ! -e \"$CUBE_OUTPUTS\" ] || : >\"$CUBE_OUTPUTS\"; } && "
static const char WRAPPER[] = WRAPPER_PREP "exec \"$@\"";
static const char WRAPPER_CD[] = WRAPPER_PREP "cd \"$CUBE_RUN_DIR\" && exec \"$@\"";

int pl_run_layout(const cJSON *run)
{
    return cu_num(cJSON_GetObjectItemCaseSensitive(run, "spec"), "layout", 1) == 2 ? 2 : 1;
}

void pl_task_path(int layout, const char *run, const char *task, const char *leaf, char *out,
                  size_t len)
{
    if (!task)
        snprintf(out, len, "pipeline-runs/%s/%s", run, leaf);
    else if (layout == 2)
        snprintf(out, len, "pipeline-runs/%s/%s/%s", run, leaf, task);
    else
        snprintf(out, len, "pipeline-runs/%s/tasks/%s/%s", run, task, leaf);
}

void pl_abs_path(struct pl *p, const char *project, const char *rel, char *out, size_t len)
{
    snprintf(out, len, "%s/%s/%s", p->files_root, project, rel);
}

/* The variables templates see. */
static cJSON *run_vars(struct pl *p, const cJSON *run, const cJSON *status,
                       const cJSON *task)
{
    const cJSON *spec = cJSON_GetObjectItemCaseSensitive(run, "spec"), *t;
    cJSON *v = cJSON_CreateObject();
    const char *date = cu_str(spec, "executionDate") ? cu_str(spec, "executionDate") : "";
    char ds[16];
    snprintf(ds, sizeof ds, "%.10s", date);
    cJSON_AddStringToObject(v, "execution_date", date);
    cJSON_AddStringToObject(v, "ds", ds);
    cJSON_AddStringToObject(v, "run_id", cu_meta(run, "name"));
    cJSON_AddStringToObject(v, "creator", cu_str(spec, "creator") ? cu_str(spec, "creator") : "");
    cJSON_AddStringToObject(v, "pipeline_name", cu_str(spec, "pipeline"));
    cJSON_AddStringToObject(v, "project", cu_meta(run, "project"));
    char tdir[PATH_MAX + 260];
    cJSON_AddStringToObject(v, "template_dir", pl_template_dir(p, cu_str(task, "templateDir") ?
                            cu_str(task, "templateDir") : "", tdir, sizeof tdir));
    cJSON *tasks = cJSON_AddObjectToObject(v, "tasks");
    cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(status, "tasks")) {
        const cJSON *out = cJSON_GetObjectItemCaseSensitive(t, "outputs");
        cJSON *o = cJSON_AddObjectToObject(tasks, t->string);
        cJSON_AddItemToObject(o, "outputs", out ? cJSON_Duplicate(out, 1) : cJSON_CreateObject());
    }
    return v;
}

/* 1 when a string of v (recursively) holds "{{". */
static int has_template(const cJSON *v)
{
    const cJSON *c;
    if (cJSON_IsString(v))
        return strstr(v->valuestring, "{{") != NULL;
    cJSON_ArrayForEach(c, v)
        if (has_template(c))
            return 1;
    return 0;
}

/* Renders every string of v (recursively) that holds "{{". */
static int render_all(cJSON *v, const cJSON *vars, const char *what, char *msg, size_t mlen)
{
    char err[PL_ERR];
    if (cJSON_IsString(v) && strstr(v->valuestring, "{{")) {
        char *r = pl_tmpl_render(v->valuestring, vars, err, sizeof err);
        if (!r)
            return snprintf(msg, mlen, "%s: %s", what, err), -1;
        cJSON_SetValuestring(v, r);
        free(r);
        return 0;
    }
    cJSON *c;
    cJSON_ArrayForEach(c, v)
        if (render_all(c, vars, what, msg, mlen) < 0)
            return -1;
    return 0;
}

/* command + rendered args flags (a new array), or NULL with msg. */
static cJSON *task_argv(const cJSON *task, const cJSON *vars, char *msg, size_t mlen)
{
    char err[PL_ERR];
    cJSON *argv = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(task, "command"), 1);
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(task, "argsSchema");
    if (!cJSON_IsArray(argv) || render_all(argv, vars, "command", msg, mlen) < 0)
        goto fail;
    if (!schema)
        return argv;
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(task, "args");
    cJSON *args = cJSON_IsObject(a) ? cJSON_Duplicate(a, 1) : cJSON_CreateObject();
    cJSON *flags = NULL;
    if (render_all(args, vars, "args", msg, mlen) == 0) {
        if (pl_args_validate(schema, args, err, sizeof err) < 0)
            snprintf(msg, mlen, "args: %s", err);
        else if (!(flags = pl_args_render(schema, args)))
            snprintf(msg, mlen, "args: cannot render them as flags");
    }
    cJSON_Delete(args);
    if (!flags)
        goto fail;
    cJSON *f;
    while ((f = cJSON_DetachItemFromArray(flags, 0)))
        cJSON_AddItemToArray(argv, f);
    cJSON_Delete(flags);
    return argv;
fail:
    if (!*msg)
        snprintf(msg, mlen, "the task has no command");
    cJSON_Delete(argv);
    return NULL;
}

/* Global env, the task's env (both rendered), then Cube's variables. */
static cJSON *task_env(struct pl *p, const cJSON *run, const cJSON *task, const cJSON *vars,
                       char *msg, size_t mlen)
{
    const cJSON *spec = cJSON_GetObjectItemCaseSensitive(run, "spec"), *v;
    const char *project = cu_meta(run, "project"), *rname = cu_meta(run, "name");
    const char *tname = cu_str(task, "name");
    cJSON *env = cJSON_CreateObject();
    cJSON_ArrayForEach(v, cJSON_GetObjectItemCaseSensitive(spec, "env"))
        cu_set_item(env, v->string, cJSON_Duplicate(v, 1));
    cJSON_ArrayForEach(v, cJSON_GetObjectItemCaseSensitive(task, "env"))
        cu_set_item(env, v->string, cJSON_Duplicate(v, 1));
    if (render_all(env, vars, "env", msg, mlen) < 0) {
        cJSON_Delete(env);
        return NULL;
    }
    char rel[512], abs[PATH_MAX + 600];
    cu_set_str(env, "CUBE_PIPELINE", cu_str(spec, "pipeline"));
    cu_set_str(env, "CUBE_PIPELINE_RUN", rname);
    cu_set_str(env, "CUBE_TASK", tname);
    cu_set_str(env, "CUBE_EXECUTION_DATE", cu_str(spec, "executionDate"));
    int layout = pl_run_layout(run);
    pl_task_path(layout, rname, NULL, "work", rel, sizeof rel);
    pl_abs_path(p, project, rel, abs, sizeof abs);
    cu_set_str(env, "CUBE_RUN_DIR", abs);
    pl_task_path(layout, rname, tname, "results", rel, sizeof rel);
    pl_abs_path(p, project, rel, abs, sizeof abs);
    cu_set_str(env, "CUBE_OUTPUT_DIR", abs);
    pl_task_path(layout, rname, tname, "outputs", rel, sizeof rel);
    pl_abs_path(p, project, rel, abs, sizeof abs);
    cu_set_str(env, "CUBE_OUTPUTS", abs);
    return env;
}

/* metadata of the Job: labels, owned by the run (the host makes the run's
 * owner the Job's, so it runs as the user the run is for). */
static void job_meta(cJSON *job, const cJSON *run, const cJSON *task, const char *name)
{
    const cJSON *spec = cJSON_GetObjectItemCaseSensitive(run, "spec");
    cJSON *meta = cJSON_AddObjectToObject(job, "metadata");
    cJSON_AddStringToObject(meta, "name", name);
    cJSON_AddStringToObject(meta, "project", cu_meta(run, "project"));
    cJSON *labels = cJSON_AddObjectToObject(meta, "labels");
    cJSON_AddStringToObject(labels, "pipeline", cu_str(spec, "pipeline"));
    cJSON_AddStringToObject(labels, "pipelinerun", cu_meta(run, "name"));
    cJSON_AddStringToObject(labels, "task", cu_str(task, "name"));
    cJSON *ref = cJSON_CreateObject();
    cJSON_AddStringToObject(ref, "kind", "PipelineRun");
    cJSON_AddStringToObject(ref, "name", cu_meta(run, "name"));
    cJSON_AddStringToObject(ref, "uid", cu_meta(run, "uid") ? cu_meta(run, "uid") : "");
    cJSON_AddTrueToObject(ref, "controller");
    cJSON_AddItemToArray(cJSON_AddArrayToObject(meta, "ownerReferences"), ref);
}

int pl_job_is_runs(struct pl *p, const cJSON *run, const char *job_name)
{
    int rc, mine = 0;
    cJSON *job = cu_json_take(p->host, p->host->obj_get(p->self, "Job", cu_meta(run, "project"),
                                                  job_name, &rc));
    const char *uid = cu_meta(run, "uid");
    const cJSON *ref;
    cJSON_ArrayForEach(ref, cJSON_GetObjectItemCaseSensitive(
                                cJSON_GetObjectItemCaseSensitive(job, "metadata"),
                                "ownerReferences"))
        mine |= uid && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ref, "controller")) &&
                cu_str(ref, "uid") && !strcmp(cu_str(ref, "uid"), uid);
    cJSON_Delete(job);
    return mine;
}

/* Copies a task member into the Job spec under another name. */
static void copy_as(cJSON *js, const cJSON *task, const char *from, const char *to)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(task, from);
    if (v && !(cJSON_IsObject(v) && !v->child) && !(cJSON_IsString(v) && !*v->valuestring))
        cJSON_AddItemToObject(js, to, cJSON_Duplicate(v, 1));
}

/* Nonzero when the task can run without the wrapper: the run's directory
 * is vouched for (rundirs.c), its result directory is there (made ahead by
 * an earlier pass, runtasks.c) and it has no old outputs file to clear. */
static int runs_direct(struct pl *p, const cJSON *run, const cJSON *task)
{
    const char *project = cu_meta(run, "project"), *rname = cu_meta(run, "name");
    const char *tname = cu_str(task, "name");
    char rel[512], abs[PATH_MAX + 600];
    struct stat st;
    int layout = pl_run_layout(run);
    if (!pl_run_dir_vouched(p, project, rname, NULL))
        return 0;   /* the wrapper checks whose the run's directory is */
    pl_task_path(layout, rname, tname, "results", rel, sizeof rel);
    pl_abs_path(p, project, rel, abs, sizeof abs);
    if (lstat(abs, &st) < 0 || !S_ISDIR(st.st_mode))
        return 0;
    if (layout == 2) {   /* the outputs file's directory, shared by the run's tasks */
        pl_task_path(layout, rname, NULL, "outputs", rel, sizeof rel);
        pl_abs_path(p, project, rel, abs, sizeof abs);
        if (lstat(abs, &st) < 0 || !S_ISDIR(st.st_mode))
            return 0;
    }
    pl_task_path(layout, rname, tname, "outputs", rel, sizeof rel);
    pl_abs_path(p, project, rel, abs, sizeof abs);
    return lstat(abs, &st) < 0 && errno == ENOENT;
}

/* The Job's command: argv itself, or the wrapper shell line around it. */
static void job_command(struct pl *p, cJSON *js, const cJSON *run, const cJSON *task,
                        cJSON *argv)
{
    const char *wd = cu_str(task, "workdir");
    cJSON *cmd = cJSON_AddArrayToObject(js, "command"), *a;
    if (cJSON_GetArraySize(argv) > 0 && runs_direct(p, run, task)) {
        if (!(wd && *wd)) {
            char rel[512], abs[PATH_MAX + 600];
            pl_task_path(pl_run_layout(run), cu_meta(run, "name"), NULL, "work", rel,
                         sizeof rel);
            pl_abs_path(p, cu_meta(run, "project"), rel, abs, sizeof abs);
            cJSON_AddStringToObject(js, "workdir", abs);
        }
    } else {
        cJSON_AddItemToArray(cmd, cJSON_CreateString("/bin/sh"));
        cJSON_AddItemToArray(cmd, cJSON_CreateString("-c"));
        cJSON_AddItemToArray(cmd, cJSON_CreateString(wd && *wd ? WRAPPER : WRAPPER_CD));
        cJSON_AddItemToArray(cmd, cJSON_CreateString("cube-task"));
    }
    while ((a = cJSON_DetachItemFromArray(argv, 0)))
        cJSON_AddItemToArray(cmd, a);
}

cJSON *pl_task_job(struct pl *p, const cJSON *run, const cJSON *status, const cJSON *task,
                   const char *job_name, char *msg, size_t mlen)
{
    *msg = '\0';
    /* the variables (every task's outputs) only when something renders */
    const cJSON *spec = cJSON_GetObjectItemCaseSensitive(run, "spec");
    int renders = has_template(cJSON_GetObjectItemCaseSensitive(task, "command")) ||
                  has_template(cJSON_GetObjectItemCaseSensitive(task, "args")) ||
                  has_template(cJSON_GetObjectItemCaseSensitive(task, "env")) ||
                  has_template(cJSON_GetObjectItemCaseSensitive(spec, "env"));
    cJSON *vars = renders ? run_vars(p, run, status, task) : cJSON_CreateObject();
    cJSON *argv = task_argv(task, vars, msg, mlen);
    cJSON *env = argv ? task_env(p, run, task, vars, msg, mlen) : NULL;
    cJSON_Delete(vars);
    if (!env) {
        cJSON_Delete(argv);
        return NULL;
    }
    cJSON *job = cJSON_CreateObject();
    cJSON_AddStringToObject(job, "kind", "Job");
    job_meta(job, run, task, job_name);
    cJSON *js = cJSON_AddObjectToObject(job, "spec");
    job_command(p, js, run, task, argv);
    cJSON_Delete(argv);
    cJSON_AddItemToObject(js, "env", env);
    copy_as(js, task, "resources", "resources");
    copy_as(js, task, "image", "image");
    copy_as(js, task, "workdir", "workdir");
    copy_as(js, task, "nodeSelector", "nodeSelector");
    copy_as(js, task, "mounts", "mounts");
    copy_as(js, task, "timeoutSeconds", "timeoutSeconds");
    cJSON *retries = cJSON_AddObjectToObject(js, "retries");
    cJSON_AddNumberToObject(retries, "limit", cu_num(task, "retries", 0));
    cJSON_AddNumberToObject(retries, "backoffSeconds", cu_num(task, "retryBackoffSeconds", 10));
    return job;
}
