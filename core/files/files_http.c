/* files_http.c — the project files API, over files_fs.h:
 *
 *   GET    /api/v1/projects/{project}/files[/{path*}]  a file's bytes (Range),
 *                                                      or a directory's listing
 *   PUT    /api/v1/projects/{project}/files/{path*}    writes (replaces) a file
 *   DELETE /api/v1/projects/{project}/files/{path*}    a file or an empty directory
 *
 * Reading needs project:view, writing project:edit. The tree is the
 * project's shared directory, which every member may change, except the
 * subtrees the platform manages for one user's run (MANAGED): those are
 * read-only here. Every write and delete, refused ones too (once the path
 * is valid), is an audit event of the project: involvedObject kind "File",
 * its name the path, and the user. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "auth/auth.h"
#include "ctx/ctx.h"
#include "files_fs.h"
#include "files_http.h"
#include "http/http_req.h"
#include "base/log.h"
#include "files.h"
#include "objects/objects_priv.h"
#include "store/store.h"

#define PATH_MAX_BYTES 1024   /* as files.c */
#define LIST_MAX 10000        /* entries in one listing */

/* Top-level directories that Cube writes for one user's run: pipeline-runs/
 * (plugins/pipeline: a run's working files, results and outputs, which the
 * next tasks read) and cube-jobs/ (core/sched/job_env.c: MPI hostfiles). */
static const struct {
    const char *dir, *what;
} MANAGED[] = {
    {"pipeline-runs", "pipeline runs' working files, results and outputs"},
    {"cube-jobs", "jobs' hostfiles"},
};

/* Why path is not a project file path, or NULL when it is one. */
static const char *path_problem(const char *path)
{
    if (strlen(path) > PATH_MAX_BYTES)
        return "is longer than 1024 bytes";
    if (path[0] == '/')
        return "is absolute: paths are relative to the project's directory";
    for (const char *seg = path; seg; seg = strchr(seg, '/') ? strchr(seg, '/') + 1 : NULL) {
        size_t n = strcspn(seg, "/");
        if (n == 0)
            return "has an empty segment";
        if ((n == 1 && seg[0] == '.') || (n == 2 && seg[0] == '.' && seg[1] == '.'))
            return "has a \".\" or \"..\" segment";
        if (seg[0] == '.')
            return "has a segment starting with \".\" (hidden names are not project files)";
    }
    return cube_files_path_ok(path) ? NULL : "is not a valid project file path";
}

static const char *param(cube_req *req, const char *name)
{
    const char *v = cube_route_match_param(&req->match, name);
    return v ? v : "";
}

/* 1 when the path is valid and the project exists; else answers 400/404. */
static int target_ok(cube_req *req, const char *project, const char *path)
{
    char msg[400];
    if (!cube_auth_project_exists(req->ctx, project)) {
        snprintf(msg, sizeof msg, "project \"%.128s\" not found", project);
        cube_http_answer_error(req, 404, "NotFound", msg);
        return 0;
    }
    const char *why = *path ? path_problem(path) : NULL;
    if (why) {
        snprintf(msg, sizeof msg, "path \"%.200s\" %s", path, why);
        cube_http_answer_error_field(req, 400, "BadRequest", msg, "path");
        return 0;
    }
    return 1;
}

/* Records a write or delete (result: the HTTP status answered). */
static void audit(cube_req *req, const char *project, const char *path, const char *verb,
                  int result, const char *reason, const char *message)
{
    struct cube_actor who = cube_auth_actor(req);
    char now[40];
    cube_obj_now(now, sizeof now);
    cJSON *ev = cJSON_CreateObject(), *meta = cJSON_AddObjectToObject(ev, "metadata");
    cJSON_AddStringToObject(meta, "created", now);
    cJSON_AddStringToObject(meta, "project", project);
    cJSON_AddStringToObject(ev, "kind", "Event");
    cJSON *obj = cJSON_AddObjectToObject(ev, "involvedObject");
    cJSON_AddStringToObject(obj, "kind", "File");
    cJSON_AddStringToObject(obj, "name", path);
    cJSON_AddStringToObject(obj, "project", project);
    cJSON_AddStringToObject(ev, "type", result < 300 ? "Normal" : "Warning");
    cJSON_AddStringToObject(ev, "reason", reason);
    cJSON_AddStringToObject(ev, "message", message);
    cJSON_AddStringToObject(ev, "verb", verb);
    cJSON_AddStringToObject(ev, "user", who.user);
    cJSON_AddNumberToObject(ev, "result", result);
    char *text = cJSON_PrintUnformatted(ev);
    cJSON_Delete(ev);
    int rc = text ? cube_store_event_add(req->ctx->store, project, "File", path, text, NULL)
                  : CUBE_ENOMEM;
    free(text);
    if (rc != CUBE_OK)
        cube_log(CUBE_LOG_WARN, "audit", "cannot record a file event in project %s: %d",
                 project, rc);
}

/* Answers a files_fs error (why names the entry), auditing it when verb. */
static int answer_fs(cube_req *req, int rc, const char *why, const char *project,
                     const char *path, const char *verb)
{
    const char *code;
    int status = cube_status_for(rc, &code);
    if (rc == CUBE_ENOMEM || rc == CUBE_EUNAVAIL)
        status = 503, code = "Unavailable";
    if (verb)
        audit(req, project, path, verb, status, "Refused", why);
    return cube_http_answer_error_field(req, status, code, why, "path");
}

/* Refuses writes under a managed subtree (answers 403 and returns 1). */
static int refuse_managed(cube_req *req, const char *project, const char *path,
                          const char *verb)
{
    size_t top = strcspn(path, "/");
    for (size_t i = 0; i < sizeof MANAGED / sizeof MANAGED[0]; i++) {
        if (strlen(MANAGED[i].dir) != top || strncmp(path, MANAGED[i].dir, top) != 0)
            continue;
        char msg[300];
        snprintf(msg, sizeof msg, "%s/ holds %s, which Cube manages: it is read-only "
                 "through the files API", MANAGED[i].dir, MANAGED[i].what);
        audit(req, project, path, verb, 403, "Refused", msg);
        cube_http_answer_error_field(req, 403, "Forbidden", msg, "path");
        return 1;
    }
    return 0;
}

/* The listing entry of path (its last segment as name, and the path). */
static int answer_entry(cube_req *req, int status, const char *path, const struct stat *st)
{
    const char *slash = strrchr(path, '/');
    cJSON *o = cube_ffs_entry(slash ? slash + 1 : path, st);
    if (!o || !cJSON_AddStringToObject(o, "path", path)) {
        cJSON_Delete(o);
        return CUBE_ENOMEM;
    }
    char *text = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    if (!text)
        return CUBE_ENOMEM;
    int rc = cube_http_answer(req, status, "application/json", text, strlen(text), 0);
    free(text);
    return rc;
}

/* {"path","items":[...]} of the directory fd (taken over; -1: empty). */
static int answer_listing(cube_req *req, const char *path, int fd)
{
    int truncated = 0;
    cJSON *items = fd < 0 ? cJSON_CreateArray() : cube_ffs_list(fd, LIST_MAX, &truncated);
    cJSON *doc = items ? cJSON_CreateObject() : NULL;
    if (!doc) {
        cJSON_Delete(items);
        return CUBE_ENOMEM;
    }
    cJSON_AddStringToObject(doc, "path", path);
    cJSON_AddItemToObject(doc, "items", items);
    if (truncated)
        cJSON_AddBoolToObject(doc, "truncated", 1);
    char *text = cJSON_PrintUnformatted(doc);
    cJSON_Delete(doc);
    if (!text)
        return CUBE_ENOMEM;
    int rc = cube_http_answer(req, 200, "application/json", text, strlen(text), 1);
    free(text);
    return rc;
}

static int get_any(struct cube_ctx *ctx, cube_req *req, const char *path)
{
    const char *project = param(req, "project");
    if (!target_ok(req, project, path))
        return CUBE_OK;
    char why[400];
    struct stat st;
    int fd;
    int rc = cube_ffs_open(ctx->files, project, path, &fd, &st, why, sizeof why);
    if (rc == CUBE_ENOTFOUND && !*path)
        return answer_listing(req, path, -1); /* no files yet */
    if (rc != CUBE_OK)
        return answer_fs(req, rc, why, project, path, NULL);
    if (S_ISDIR(st.st_mode))
        return answer_listing(req, path, fd);
    return cube_files_answer_bytes(req, fd, &st);
}

static int get_root(void *state, cube_req *req)
{
    return get_any(state, req, "");
}

static int get_path(void *state, cube_req *req)
{
    return get_any(state, req, param(req, "path"));
}

static int put_path(void *state, cube_req *req)
{
    struct cube_ctx *ctx = state;
    const char *project = param(req, "project"), *path = param(req, "path");
    if (!target_ok(req, project, path) || refuse_managed(req, project, path, "write"))
        return CUBE_OK;
    char why[400], msg[64];
    struct stat st;
    int created;
    int rc = cube_ffs_write(ctx->files, project, path, req->body, req->body_len, &created,
                            &st, why, sizeof why);
    if (rc != CUBE_OK)
        return answer_fs(req, rc, why, project, path, "write");
    snprintf(msg, sizeof msg, "wrote %zu bytes", req->body_len);
    audit(req, project, path, "write", created ? 201 : 200, created ? "Created" : "Replaced",
          msg);
    return answer_entry(req, created ? 201 : 200, path, &st);
}

static int delete_path(void *state, cube_req *req)
{
    struct cube_ctx *ctx = state;
    const char *project = param(req, "project"), *path = param(req, "path");
    if (!target_ok(req, project, path) || refuse_managed(req, project, path, "delete"))
        return CUBE_OK;
    char why[400];
    struct stat st;
    int rc = cube_ffs_delete(ctx->files, project, path, &st, why, sizeof why);
    if (rc != CUBE_OK)
        return answer_fs(req, rc, why, project, path, "delete");
    audit(req, project, path, "delete", 200, "Deleted",
          S_ISDIR(st.st_mode) ? "deleted the directory" : "deleted the file");
    return answer_entry(req, 200, path, &st);
}

int cube_files_routes_register(struct cube_ctx *ctx)
{
#define FILES "/api/v1/projects/{project}/files"
    const struct cube_route_desc routes[] = {
        {sizeof routes[0], "GET", FILES, CUBE_PERM_PROJECT_VIEW, get_root,
         "List the project directory's files", 0, 0, NULL},
        {sizeof routes[0], "GET", FILES "/{path*}", CUBE_PERM_PROJECT_VIEW, get_path,
         "Read a project file (Range), or list a directory", 0, 0, NULL},
        {sizeof routes[0], "PUT", FILES "/{path*}", CUBE_PERM_PROJECT_EDIT, put_path,
         "Write (replace) a project file, making its directories", 0, 0, NULL},
        {sizeof routes[0], "DELETE", FILES "/{path*}", CUBE_PERM_PROJECT_EDIT, delete_path,
         "Delete a project file or an empty directory", 0, 0, NULL},
    };
#undef FILES
    return cube_ctx_add_core_routes(ctx, routes, sizeof routes / sizeof routes[0], "files");
}
