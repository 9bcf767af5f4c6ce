/* download.c — reading a version's files:
 *   GET .../models/{name}/files          {"kind":"ModelFiles","root","entry",
 *                                         "files":[{path,size,sha256,md5}]}
 *   GET .../models/{name}/files/{path*}  one of them (resp_file: Range,
 *                                         ETag, 304), with X-Checksum-Sha256
 *                                         as registered and an attachment
 *                                         Content-Disposition.
 * Only files status.files lists are served (404 for any other path), so
 * a version registered from one file of a directory does not open the
 * rest of it. Project viewers may read. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models.h"

static int list_files(void *state, cube_req *req)
{
    struct mdl *p = state;
    cJSON *obj = mdl_request_model(p, req);
    if (!obj)
        return CUBE_OK;
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(obj, "status");
    cJSON *out = cJSON_CreateObject();
    cJSON_AddStringToObject(out, "kind", "ModelFiles");
    cJSON_AddStringToObject(out, "model", cu_meta(obj, "name"));
    cJSON_AddStringToObject(out, "root", cu_str_or(st, "root", ""));
    if (cu_str(st, "entry"))
        cJSON_AddStringToObject(out, "entry", cu_str(st, "entry"));
    const cJSON *files = cJSON_GetObjectItemCaseSensitive(st, "files");
    cJSON_AddItemToObject(out, "files", files ? cJSON_Duplicate(files, 1) : cJSON_CreateArray());
    int rc = mdl_answer_json(p, req, 200, out);
    cJSON_Delete(out);
    cJSON_Delete(obj);
    return rc;
}

static int get_file(void *state, cube_req *req)
{
    struct mdl *p = state;
    const char *path = p->host->req_param(req, "path");
    char msg[1400], full[2100], disp[400];
    cJSON *obj = mdl_request_model(p, req);
    if (!obj)
        return CUBE_OK;
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(obj, "status"), *f;
    cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(st, "files"))
        if (!strcmp(cu_str_or(f, "path", ""), path))
            break;
    if (!f) {
        snprintf(msg, sizeof msg, "%.500s: not one of the version's files", path);
        cJSON_Delete(obj);
        return mdl_answer(p, req, 404, msg);
    }
    const char *root = cu_str_or(st, "root", "");
    snprintf(full, sizeof full, "%s%s%s", root, *root ? "/" : "", path);
    int rc;
    cube_file *h = p->host->file_open(p->self, cu_meta(obj, "project"), full, CUBE_FILE_READ,
                                      &rc);
    if (!h) {
        snprintf(msg, sizeof msg, "%.600s: %s", full,
                 rc == CUBE_ENOTFOUND ? "gone from the project's files"
                 : rc == CUBE_EPERM ? "now a link or not a regular file" : "cannot be read now");
        cJSON_Delete(obj);
        return mdl_answer(p, req, rc == CUBE_ENOTFOUND ? 404 : rc == CUBE_EPERM ? 409 : 503,
                          msg);
    }
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    /* the name as a quoted-string, without what could break the header */
    char safe[256];
    size_t j = 0;
    for (size_t i = 0; base[i] && j + 1 < sizeof safe; i++)
        if ((unsigned char)base[i] >= 0x20 && base[i] != '"' && base[i] != '\\' &&
            base[i] != 0x7f)
            safe[j++] = base[i];
    safe[j] = 0;
    snprintf(disp, sizeof disp, "attachment; filename=\"%s\"", safe);
    p->host->resp_header(req, "Content-Disposition", disp);
    if (cu_str(f, "sha256"))
        p->host->resp_header(req, "X-Checksum-Sha256", cu_str(f, "sha256"));
    rc = p->host->resp_file(req, h, "application/octet-stream");
    p->host->file_close(h);
    cJSON_Delete(obj);
    return rc;
}

int mdl_download_register(struct mdl *p)
{
    const struct cube_route_desc routes[] = {
        {.size = sizeof routes[0], .method = "GET",
         .path = "/api/v1/projects/{project}/models/{name}/files",
         .permission = CUBE_PERM_PROJECT_VIEW, .handler = list_files,
         .summary = "A model version's files: root, entry, sizes and digests"},
        {.size = sizeof routes[0], .method = "GET",
         .path = "/api/v1/projects/{project}/models/{name}/files/{path*}",
         .permission = CUBE_PERM_PROJECT_VIEW, .handler = get_file,
         .summary = "Download one file of a model version (byte ranges, ETag)"},
    };
    for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++)
        if (p->host->register_route(p->self, &routes[i]) != CUBE_OK) {
            p->host->set_error(p->self, "cannot register GET %s (see the log)", routes[i].path);
            return -1;
        }
    return 0;
}
