/* upload.c — a version's files by upload:
 *   POST   .../models/{name}/files?path=<file>   the body is the file's
 *          bytes, streamed to the project's files at models/<name>/<file>
 *          as it arrives (never gathered), up to max_upload_bytes (413
 *          before a byte is read when Content-Length says more) and, with
 *          the version's other files, max_model_bytes (413). Without
 *          ?path= the framework's usual name (model.pkl, model.json,
 *          model.pt, model.onnx). A model file by its name is judged
 *          before it is published (sniff.c): a wrong one is 422 and
 *          nothing changes. Answers 201 with the Model (status.files).
 *   DELETE .../models/{name}/files/{path*}        removes an uploaded file.
 * Only versions without spec.path take uploads, only while their stage is
 * none (a staged or production version's files are fixed), and only from
 * the version's owner or the project's ops (403). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "models.h"

struct up {
    struct mdl *p;
    cube_file *f;
    EVP_MD_CTX *md5;
    uint64_t off, others;          /* bytes so far; the version's other files */
    int done;                      /* committed or aborted */
    char project[64], name[256], path[1025], framework[16], torch[16];
};

/* Bytes of the version's files other than `path`. */
static uint64_t other_bytes(const cJSON *st, const char *path)
{
    double n = 0;
    const cJSON *f;
    cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(st, "files"))
        if (strcmp(cu_str_or(f, "path", ""), path))
            n += cu_num(f, "size", 0);
    return (uint64_t)n;
}

/* Why the version takes no upload now (an HTTP status with msg), or 0. */
static int refuse(struct mdl *p, cube_req *req, const cJSON *obj, char *msg, size_t len)
{
    const cJSON *spec = cJSON_GetObjectItemCaseSensitive(obj, "spec");
    const char *stage = cu_str_or(cJSON_GetObjectItemCaseSensitive(obj, "status"), "stage",
                                  "none");
    if (req && !mdl_may_operate(p, req, obj))
        return snprintf(msg, len, "only the version's owner (%s) or the project's ops may "
                        "change its files", cu_meta(obj, "owner") ? cu_meta(obj, "owner") : "?"),
               403;
    if (cu_str(spec, "path"))
        return snprintf(msg, len, "this version's files are spec.path's (%.300s): uploads are "
                        "for versions registered without a path", cu_str(spec, "path")), 409;
    if (strcmp(stage, "none"))
        return snprintf(msg, len, "the version is in stage %s: its files are fixed (register "
                        "a new version)", stage), 409;
    return 0;
}

struct add_ctx {
    const struct mdl_file *file;
};

static int add_edit(struct mdl *p, const cJSON *obj, cJSON *st, void *ctx, char *msg,
                    size_t mlen)
{
    struct add_ctx *a = ctx;
    int why = refuse(p, NULL, obj, msg, mlen);
    if (why)
        return why;
    cJSON *files = cJSON_GetObjectItemCaseSensitive(st, "files");
    if (!cJSON_IsArray(files)) {
        cJSON_DeleteItemFromObjectCaseSensitive(st, "files");
        files = cJSON_AddArrayToObject(st, "files");
    }
    int i = 0;
    cJSON *f;
    cJSON_ArrayForEach(f, files) {
        if (!strcmp(cu_str_or(f, "path", ""), a->file->path))
            break;
        i++;
    }
    if (f)
        cJSON_ReplaceItemInArray(files, i, mdl_file_json(a->file));
    else
        cJSON_AddItemToArray(files, mdl_file_json(a->file));
    mdl_status_summarize(st, cu_str(cJSON_GetObjectItemCaseSensitive(obj, "spec"),
                                    "framework"));
    return 0;
}

static int on_data(void *cls, cube_req *req, const char *data, size_t len)
{
    struct up *u = cls;
    (void)req;
    if (u->others + u->off + len > u->p->max_model_bytes) {
        u->p->host->set_error(u->p->self, "the version's files would pass max_model_bytes "
                              "(%llu bytes)", (unsigned long long)u->p->max_model_bytes);
        return CUBE_ETOOBIG;
    }
    int rc = u->p->host->file_write_at(u->f, u->off, data, len);
    if (rc != CUBE_OK) {
        u->p->host->set_error(u->p->self, "cannot write %s (%d)", u->path, rc);
        return rc == CUBE_EUNAVAIL ? CUBE_EUNAVAIL : CUBE_EIO;
    }
    EVP_DigestUpdate(u->md5, data, len);
    u->off += len;
    return CUBE_OK;
}

static int on_end(void *cls, cube_req *req)
{
    struct up *u = cls;
    struct mdl *p = u->p;
    struct mdl_file mf = {.size = u->off};
    struct mdl_reader r = {.f = u->f, .size = u->off, .host = p->host};
    char why[400], msg[1400];
    int s = mdl_sniff_file(u->framework, u->torch, u->path, &r, mf.format, sizeof mf.format,
                           why, sizeof why);
    if (s == MDL_SNIFF_BAD) {
        p->host->file_abort(u->f);
        u->done = 1;
        snprintf(msg, sizeof msg, "%.500s: %s (framework %s)", u->path, why, u->framework);
        return mdl_answer(p, req, 422, msg);
    }
    unsigned char d[EVP_MAX_MD_SIZE];
    unsigned n = 0;
    EVP_DigestFinal_ex(u->md5, d, &n);
    for (unsigned i = 0; i < n; i++)
        snprintf(mf.md5 + 2 * i, 3, "%02x", d[i]);
    snprintf(mf.path, sizeof mf.path, "%s", u->path);
    /* Under stage_mu: a promote cannot fix the files between the look at
     * the stage and the publish. */
    pthread_mutex_lock(&p->stage_mu);
    int rc, st;
    cJSON *obj = cu_json_take(p->host, p->host->obj_get(p->self, MDL_KIND, u->project, u->name,
                                                        &rc));
    st = !obj ? (rc == CUBE_ENOTFOUND ? 404 : 503) : refuse(p, NULL, obj, msg, sizeof msg);
    if (!obj)
        snprintf(msg, sizeof msg, "models/%s: %s", u->name,
                 rc == CUBE_ENOTFOUND ? "deleted during the upload" : "cannot be read now");
    cJSON_Delete(obj);
    if (st) {
        pthread_mutex_unlock(&p->stage_mu);
        p->host->file_abort(u->f);
        u->done = 1;
        return mdl_answer(p, req, st, msg);
    }
    if ((rc = p->host->file_commit(u->f, NULL, mf.sha256)) != CUBE_OK) {
        pthread_mutex_unlock(&p->stage_mu);
        snprintf(msg, sizeof msg, "%.500s: cannot be published (%s)", u->path,
                 rc == CUBE_EEXIST ? "a directory is there, or a file where a directory is "
                                     "needed" : rc == CUBE_EUNAVAIL ? "no space left"
                                                                     : "a write error");
        return mdl_answer(p, req, rc == CUBE_EEXIST ? 409 : 503, msg);
    }
    u->done = 1;
    cJSON *out = NULL;
    st = mdl_status_edit(p, u->project, u->name, add_edit, &(struct add_ctx){&mf}, msg,
                         sizeof msg, &out);
    pthread_mutex_unlock(&p->stage_mu);
    if (st) {
        cJSON_Delete(out);
        return mdl_answer(p, req, st, msg);
    }
    p->host->metric_add(p->uploads, NULL, (double)u->off);
    p->host->obj_event(p->self, MDL_KIND, u->project, u->name, "Normal", "Uploaded",
                       u->path);
    rc = mdl_answer_json(p, req, 201, out);
    cJSON_Delete(out);
    return rc;
}

static void on_close(void *cls, int rc)
{
    struct up *u = cls;
    if (!u->done)
        u->p->host->file_abort(u->f);   /* uploads start over: no half file is kept */
    (void)rc;
    u->p->host->file_close(u->f);
    EVP_MD_CTX_free(u->md5);
    free(u);
}

static int post_files(void *state, cube_req *req)
{
    struct mdl *p = state;
    char msg[1400];
    cJSON *obj = mdl_request_model(p, req);
    if (!obj)
        return CUBE_OK;
    const cJSON *spec = cJSON_GetObjectItemCaseSensitive(obj, "spec");
    const char *fw = cu_str_or(spec, "framework", "custom");
    const char *path = p->host->req_query(req, "path");
    int st = refuse(p, req, obj, msg, sizeof msg);
    if (!st && !path && !(path = mdl_default_file(fw)))
        st = 422, snprintf(msg, sizeof msg, "path: a custom model's upload needs ?path=<file>");
    if (!st && !mdl_path_ok(path))
        st = 422, snprintf(msg, sizeof msg, "path: must be a relative path without \"..\", "
                           "\".\", empty or hidden segments, at most 1024 bytes");
    uint64_t others = st ? 0 : other_bytes(cJSON_GetObjectItemCaseSensitive(obj, "status"),
                                           path);
    const char *cl = p->host->req_header(req, "Content-Length");
    if (!st && cl && others + strtoull(cl, NULL, 10) > p->max_model_bytes)
        st = 413, snprintf(msg, sizeof msg, "the version's files would pass max_model_bytes "
                           "(%llu bytes)", (unsigned long long)p->max_model_bytes);
    struct up *u = st ? NULL : calloc(1, sizeof *u);
    if (!st && !u)
        st = 503, snprintf(msg, sizeof msg, "out of memory");
    if (st) {
        cJSON_Delete(obj);
        return mdl_answer(p, req, st, msg);
    }
    u->p = p;
    u->others = others;
    snprintf(u->project, sizeof u->project, "%s", cu_meta(obj, "project"));
    snprintf(u->name, sizeof u->name, "%s", cu_meta(obj, "name"));
    snprintf(u->path, sizeof u->path, "%s", path);
    snprintf(u->framework, sizeof u->framework, "%s", fw);
    snprintf(u->torch, sizeof u->torch, "%s",
             cu_str_or(cJSON_GetObjectItemCaseSensitive(spec, "pytorch"), "format",
                       "torchscript"));
    cJSON_Delete(obj);
    char full[1400];
    int rc;
    snprintf(full, sizeof full, MDL_UPLOAD_DIR "/%s/%s", u->name, u->path);
    u->md5 = EVP_MD_CTX_new();
    if (u->md5 && EVP_DigestInit_ex(u->md5, EVP_md5(), NULL) == 1)
        u->f = p->host->file_open(p->self, u->project, full, CUBE_FILE_WRITE | CUBE_FILE_TRUNCATE,
                                  &rc);
    else
        rc = CUBE_ENOMEM;
    const struct cube_body_desc desc = {.size = sizeof desc, .data = on_data, .end = on_end,
                                        .close = on_close, .cls = u};
    if (u->f && (rc = p->host->req_body_stream(req, &desc)) == CUBE_OK)
        return CUBE_OK;
    if (u->f) {
        p->host->file_abort(u->f);
        p->host->file_close(u->f);
    }
    EVP_MD_CTX_free(u->md5);
    free(u);
    snprintf(msg, sizeof msg, "%.500s: %s", path,
             rc == CUBE_ECONFLICT ? "another upload of this file is under way"
             : rc == CUBE_EPERM ? "a link or a directory is in the way" : "cannot be written now");
    return mdl_answer(p, req, rc == CUBE_ECONFLICT || rc == CUBE_EPERM ? 409 : 503, msg);
}

static int del_edit(struct mdl *p, const cJSON *obj, cJSON *st, void *ctx, char *msg,
                    size_t mlen)
{
    const char *path = ctx;
    int why = refuse(p, NULL, obj, msg, mlen), i = 0;
    if (why)
        return why;
    cJSON *files = cJSON_GetObjectItemCaseSensitive(st, "files"), *f;
    cJSON_ArrayForEach(f, files) {
        if (!strcmp(cu_str_or(f, "path", ""), path))
            break;
        i++;
    }
    if (!f)
        return snprintf(msg, mlen, "%.500s: not one of the version's files", path), 404;
    cJSON_DeleteItemFromArray(files, i);
    mdl_status_summarize(st, cu_str(cJSON_GetObjectItemCaseSensitive(obj, "spec"),
                                    "framework"));
    return 0;
}

static int delete_file(void *state, cube_req *req)
{
    struct mdl *p = state;
    char msg[1400], full[1400];
    const char *path = p->host->req_param(req, "path");
    cJSON *obj = mdl_request_model(p, req);
    if (!obj)
        return CUBE_OK;
    int st = refuse(p, req, obj, msg, sizeof msg);
    snprintf(full, sizeof full, MDL_UPLOAD_DIR "/%s/%s", cu_meta(obj, "name"), path);
    cJSON_Delete(obj);
    if (st)
        return mdl_answer(p, req, st, msg);
    pthread_mutex_lock(&p->stage_mu);
    cJSON *out = NULL;
    st = mdl_status_edit(p, p->host->req_param(req, "project"), p->host->req_param(req, "name"),
                         del_edit, (void *)path, msg, sizeof msg, &out);
    if (!st)
        p->host->file_delete(p->self, p->host->req_param(req, "project"), full);
    pthread_mutex_unlock(&p->stage_mu);
    int rc = st ? mdl_answer(p, req, st, msg) : mdl_answer_json(p, req, 200, out);
    cJSON_Delete(out);
    return rc;
}

int mdl_routes_register(struct mdl *p)
{
    const struct cube_route_desc routes[] = {
        {.size = sizeof routes[0], .method = "POST",
         .path = "/api/v1/projects/{project}/models/{name}/files",
         .permission = CUBE_PERM_PROJECT_OPERATE, .handler = post_files,
         .summary = "Upload one file of a model version (?path=; the body is its bytes)",
         .stream_body = 1, .max_body_bytes = p->max_upload_bytes, .owner_kind = MDL_KIND},
        {.size = sizeof routes[0], .method = "DELETE",
         .path = "/api/v1/projects/{project}/models/{name}/files/{path*}",
         .permission = CUBE_PERM_PROJECT_OPERATE, .handler = delete_file,
         .summary = "Remove an uploaded file of a model version (stage none only)",
         .owner_kind = MDL_KIND},
    };
    for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++)
        if (p->host->register_route(p->self, &routes[i]) != CUBE_OK) {
            p->host->set_error(p->self, "cannot register %s %s (see the log)", routes[i].method,
                               routes[i].path);
            return -1;
        }
    return mdl_download_register(p);
}
