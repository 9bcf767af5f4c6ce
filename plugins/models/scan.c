/* scan.c — reading what spec.path names: one file (root its directory)
 * or a directory walked to MDL_MAX_FILES files and 16 levels (hidden
 * names and links are not project files and are not listed). Each file
 * is hashed (digest.c) and judged (sniff.c); a model file of the wrong
 * kind, a directory without one, too many bytes or files fail the version
 * naming the file. Runs on the controller's thread (it may take seconds
 * for gigabytes: the disk's speed). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models.h"

#define DEPTH_MAX 16

struct walk {
    struct mdl *p;
    const char *project, *framework, *torch;
    int single;                        /* spec.path is one file: the model file */
    cJSON *files;
    uint64_t bytes;
    char msg[1400];
};

/* Hashes and judges root/rel into w->files. 0, or -1 with w->msg. */
static int add_file(struct walk *w, const char *root, const char *rel)
{
    char full[2100];
    snprintf(full, sizeof full, "%s%s%s", root, *root ? "/" : "", rel);
    if (cJSON_GetArraySize(w->files) >= MDL_MAX_FILES)
        return snprintf(w->msg, sizeof w->msg, "more than %d files", MDL_MAX_FILES), -1;
    int rc;
    cube_file *f = w->p->host->file_open(w->p->self, w->project, full, CUBE_FILE_READ, &rc);
    if (!f)
        return snprintf(w->msg, sizeof w->msg, "%.600s: cannot be read (%s)", full,
                        rc == CUBE_EPERM ? "a link or not a regular file" : "gone"), -1;
    struct mdl_reader r = {.f = f, .host = w->p->host};
    struct mdl_file mf = {0};
    w->p->host->file_size(f, &r.size);
    w->bytes += r.size;
    if (w->bytes > w->p->max_model_bytes) {
        w->p->host->file_close(f);
        return snprintf(w->msg, sizeof w->msg, "more than max_model_bytes (%llu bytes) in all",
                        (unsigned long long)w->p->max_model_bytes), -1;
    }
    char why[300];
    int s = mdl_sniff_file(w->framework, w->torch, rel, &r, mf.format, sizeof mf.format, why,
                           sizeof why);
    if (s == MDL_SNIFF_SKIP && w->single && mdl_default_file(w->framework))
        s = mdl_sniff_file(w->framework, w->torch, mdl_default_file(w->framework), &r,
                           mf.format, sizeof mf.format, why, sizeof why);
    rc = s == MDL_SNIFF_BAD ? CUBE_OK : mdl_digest_file(&r, mf.sha256, mf.md5);
    w->p->host->file_close(f);
    if (s == MDL_SNIFF_BAD)
        return snprintf(w->msg, sizeof w->msg, "%.600s: %s (framework %s)", full, why,
                        w->framework), -1;
    if (rc != CUBE_OK)
        return snprintf(w->msg, sizeof w->msg, "%.600s: read error (%d)", full, rc), -1;
    snprintf(mf.path, sizeof mf.path, "%s", rel);
    mf.size = r.size;
    cJSON_AddItemToArray(w->files, mdl_file_json(&mf));
    return 0;
}

static int walk_dir(struct walk *w, const char *root, const char *rel, int depth)
{
    char dir[2100];
    int rc;
    snprintf(dir, sizeof dir, "%s%s%s", root, *root && *rel ? "/" : "", rel);
    if (depth > DEPTH_MAX)
        return snprintf(w->msg, sizeof w->msg, "%.600s: deeper than %d levels", dir,
                        DEPTH_MAX), -1;
    cJSON *list = cu_json_take(w->p->host, w->p->host->file_list(w->p->self, w->project, dir,
                                                                  &rc));
    if (!list)
        return snprintf(w->msg, sizeof w->msg, "%.600s: cannot be listed (%d)", dir, rc), -1;
    const cJSON *e;
    int out = 0;
    cJSON_ArrayForEach(e, list) {
        const char *name = cu_str(e, "name");
        char sub[1100];
        if (!name || snprintf(sub, sizeof sub, "%s%s%s", rel, *rel ? "/" : "", name) >= 1025) {
            snprintf(w->msg, sizeof w->msg, "%.600s: a path longer than 1024 bytes", dir);
            out = -1;
            break;
        }
        if ((out = cu_bool(e, "dir", 0) ? walk_dir(w, root, sub, depth + 1)
                                        : add_file(w, root, sub)) < 0)
            break;
    }
    cJSON_Delete(list);
    return out;
}

cJSON *mdl_scan_path(struct mdl *p, const cJSON *obj, char *msg, size_t mlen)
{
    const cJSON *spec = cJSON_GetObjectItemCaseSensitive(obj, "spec");
    const char *path = cu_str(spec, "path"), *project = cu_meta(obj, "project");
    struct walk w = {.p = p, .project = project, .framework = cu_str_or(spec, "framework", ""),
                     .torch = cu_str_or(cJSON_GetObjectItemCaseSensitive(spec, "pytorch"),
                                        "format", "torchscript"),
                     .files = cJSON_CreateArray()};
    cJSON *st = cJSON_CreateObject();
    char root[1025];
    int rc, ok;
    cube_file *f = p->host->file_open(p->self, project, path, CUBE_FILE_READ, &rc);
    if (f) {   /* one file: its directory is the root */
        p->host->file_close(f);
        w.single = 1;
        const char *slash = strrchr(path, '/');
        snprintf(root, sizeof root, "%.*s", slash ? (int)(slash - path) : 0, path);
        ok = add_file(&w, root, slash ? slash + 1 : path);
    } else {
        snprintf(root, sizeof root, "%s", path);
        ok = walk_dir(&w, root, "", 0);
    }
    cJSON_AddStringToObject(st, "root", root);
    cJSON_AddItemToObject(st, "files", w.files);
    if (ok == 0) {
        mdl_status_summarize(st, w.framework);
        if (strcmp(cu_str_or(st, "phase", ""), "Ready")) {
            snprintf(w.msg, sizeof w.msg, "%.600s: no %s model file in it (see the framework's "
                     "file names in the README)", path, w.framework);
            ok = -1;
        }
    }
    if (ok < 0) {
        snprintf(msg, mlen, "%s", w.msg);
        cJSON_Delete(st);
        return NULL;
    }
    return st;
}
