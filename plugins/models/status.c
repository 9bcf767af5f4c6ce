/* status.c — a Model's status: its first form, the summary recomputed
 * from status.files (size, digests, entry, phase) and the edit loop every
 * writer (controller, upload, promote, deploy) goes through, so each one
 * changes only its own fields under the object's resourceVersion. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "models.h"

cJSON *mdl_status_initial(const cJSON *obj)
{
    cJSON *st = cJSON_CreateObject();
    const cJSON *spec = cJSON_GetObjectItemCaseSensitive(obj, "spec");
    const char *created = cu_meta(obj, "created");
    char now[40];
    mdl_now(now, sizeof now);
    int upload = !cu_str(spec, "path");
    cJSON_AddStringToObject(st, "phase", upload ? "AwaitingUpload" : "Pending");
    cJSON_AddStringToObject(st, "message", upload ? "no files yet: upload them with POST "
                                                    "files" : "reading the files");
    cJSON_AddStringToObject(st, "stage", "none");
    cJSON_AddStringToObject(st, "registered", created ? created : now);
    if (upload) {
        char root[300];
        snprintf(root, sizeof root, MDL_UPLOAD_DIR "/%s", cu_meta(obj, "name"));
        cJSON_AddStringToObject(st, "root", root);
        cJSON_AddArrayToObject(st, "files");
        cJSON_AddNumberToObject(st, "size", 0);
    }
    return st;
}

cJSON *mdl_file_json(const struct mdl_file *f)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "path", f->path);
    cJSON_AddNumberToObject(o, "size", (double)f->size);
    cJSON_AddStringToObject(o, "sha256", f->sha256);
    cJSON_AddStringToObject(o, "md5", f->md5);
    if (f->format[0])
        cJSON_AddStringToObject(o, "format", f->format);
    return o;
}

static int by_path(const void *a, const void *b)
{
    const cJSON *x = *(const cJSON *const *)a, *y = *(const cJSON *const *)b;
    return strcmp(cu_str_or(x, "path", ""), cu_str_or(y, "path", ""));
}

/* The digest `alg` of the sorted "<digest>  <path>\n" lines (sha256sum's
 * output for the directory) into hex. */
static void manifest_digest(cJSON **files, int n, const char *key, const EVP_MD *md,
                            char *hex, size_t hlen)
{
    unsigned char out[EVP_MAX_MD_SIZE];
    unsigned len = 0;
    EVP_MD_CTX *c = EVP_MD_CTX_new();
    *hex = 0;
    if (!c || EVP_DigestInit_ex(c, md, NULL) != 1) {
        EVP_MD_CTX_free(c);
        return;
    }
    for (int i = 0; i < n; i++) {
        const char *d = cu_str_or(files[i], key, ""), *path = cu_str_or(files[i], "path", "");
        EVP_DigestUpdate(c, d, strlen(d));
        EVP_DigestUpdate(c, "  ", 2);
        EVP_DigestUpdate(c, path, strlen(path));
        EVP_DigestUpdate(c, "\n", 1);
    }
    EVP_DigestFinal_ex(c, out, &len);
    EVP_MD_CTX_free(c);
    for (unsigned i = 0; i < len && 2 * i + 2 < hlen; i++)
        snprintf(hex + 2 * i, 3, "%02x", out[i]);
}

void mdl_status_summarize(cJSON *st, const char *framework)
{
    cJSON *files = cJSON_GetObjectItemCaseSensitive(st, "files");
    int n = cJSON_GetArraySize(files);
    cJSON **v = n ? calloc((size_t)n, sizeof *v) : NULL;
    if (n && !v)
        return;
    double size = 0;
    int i = 0;
    cJSON *f;
    cJSON_ArrayForEach(f, files) {
        v[i++] = f;
        size += cu_num(f, "size", 0);
    }
    qsort(v, (size_t)n, sizeof *v, by_path);
    cu_set_num(st, "size", size);
    char sha[65] = "", md5[33] = "";
    if (n == 1) {
        snprintf(sha, sizeof sha, "%s", cu_str_or(v[0], "sha256", ""));
        snprintf(md5, sizeof md5, "%s", cu_str_or(v[0], "md5", ""));
    } else if (n > 1) {
        manifest_digest(v, n, "sha256", EVP_sha256(), sha, sizeof sha);
        manifest_digest(v, n, "md5", EVP_md5(), md5, sizeof md5);
    }
    /* The entry: the first model file by path (custom: the only file, or
     * none: the server of one's own knows). */
    const cJSON *entry = NULL;
    for (i = 0; i < n && !entry; i++)
        if (cu_str(v[i], "format"))
            entry = v[i];
    if (!entry && n == 1 && framework && !strcmp(framework, "custom"))
        entry = v[0];
    cJSON_DeleteItemFromObjectCaseSensitive(st, "sha256");
    cJSON_DeleteItemFromObjectCaseSensitive(st, "md5");
    cJSON_DeleteItemFromObjectCaseSensitive(st, "entry");
    cJSON_DeleteItemFromObjectCaseSensitive(st, "format");
    if (n) {
        cJSON_AddStringToObject(st, "sha256", sha);
        cJSON_AddStringToObject(st, "md5", md5);
    }
    if (entry) {
        cJSON_AddStringToObject(st, "entry", cu_str(entry, "path"));
        if (cu_str(entry, "format"))
            cJSON_AddStringToObject(st, "format", cu_str(entry, "format"));
    }
    int ready = entry || (n && framework && !strcmp(framework, "custom"));
    cu_set_str(st, "phase", ready ? "Ready" : "AwaitingUpload");
    cu_set_str(st, "message", ready ? "" : n ? "no model file yet (see the framework's file "
                                                "names)" : "no files yet: upload them with "
                                                           "POST files");
    cJSON_DeleteItemFromObjectCaseSensitive(st, "field");
    free(v);
}

int mdl_status_edit(struct mdl *p, const char *project, const char *name, mdl_edit_fn fn,
                    void *ctx, char *msg, size_t mlen, cJSON **out)
{
    if (out)
        *out = NULL;
    for (int attempt = 0; attempt < 16; attempt++) {
        int rc;
        cJSON *obj = cu_json_take(p->host, p->host->obj_get(p->self, MDL_KIND, project, name,
                                                            &rc));
        if (!obj) {
            snprintf(msg, mlen, "models/%.200s: %s", name,
                     rc == CUBE_ENOTFOUND ? "not found" : "cannot be read now");
            return rc == CUBE_ENOTFOUND ? 404 : 503;
        }
        cJSON *st = cJSON_DetachItemFromObjectCaseSensitive(obj, "status");
        if (!cJSON_IsObject(st)) {
            cJSON_Delete(st);
            st = mdl_status_initial(obj);
        }
        int want = fn(p, obj, st, ctx, msg, mlen);
        if (want) {
            cJSON_Delete(st);
            if (want == 1 && out)
                *out = obj;
            else
                cJSON_Delete(obj);
            return want == 1 ? 0 : want;
        }
        char *text = cJSON_PrintUnformatted(st);
        const char *rv = cu_meta(obj, "resourceVersion");
        char *written = text ? p->host->obj_update_status(p->self, MDL_KIND, project, name, text,
                                                          rv, &rc) : NULL;
        free(text);
        cJSON_Delete(st);
        cJSON_Delete(obj);
        if (written) {
            if (out)
                *out = cu_json_take(p->host, written);
            else
                p->host->free(written);
            return 0;
        }
        if (rc != CUBE_ECONFLICT) {
            snprintf(msg, mlen, "models/%.200s: the status cannot be written now (%d)", name, rc);
            return rc == CUBE_ENOTFOUND ? 404 : 503;
        }
    }
    snprintf(msg, mlen, "models/%.200s: too many writes at once; try again", name);
    return 409;
}
