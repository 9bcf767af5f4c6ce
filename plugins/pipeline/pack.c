/* pack.c — the built-in template pack: every <templates_dir>/<name>/
 * template.json becomes (or updates) the JobTemplate <name>, labelled
 * builtin=true, with the annotation pipeline.cube.dev/template-dir giving
 * the directory that {{ template_dir }} renders to. A template.json is
 * either a whole object ({"metadata":{...},"spec":{...}}) or a spec.
 * Template dirs are absolute; pl_template_dir re-resolves relative ones
 * that older runs kept in their snapshots. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pipeline.h"

#define PACK_MAX_BYTES (1 << 20)

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = malloc(PACK_MAX_BYTES + 1);
    size_t n = buf ? fread(buf, 1, PACK_MAX_BYTES, f) : 0;
    fclose(f);
    if (buf)
        buf[n] = '\0';
    return buf;
}

/* The JobTemplate object for a pack entry (a new tree), or NULL. */
static cJSON *pack_object(const char *name, const char *dir, cJSON *doc)
{
    cJSON *spec = cJSON_GetObjectItemCaseSensitive(doc, "spec");
    if (!cJSON_IsObject(spec))
        spec = NULL;
    cJSON *obj = cJSON_CreateObject(), *meta = cJSON_AddObjectToObject(obj, "metadata");
    cJSON_AddStringToObject(obj, "kind", "JobTemplate");
    cJSON_AddStringToObject(meta, "name", name);
    cJSON *labels = cJSON_AddObjectToObject(meta, "labels");
    cJSON_AddStringToObject(labels, "builtin", "true");
    cJSON *ann = cJSON_AddObjectToObject(meta, "annotations");
    cJSON_AddStringToObject(ann, "pipeline.cube.dev/template-dir", dir);
    spec = cJSON_Duplicate(spec ? spec : doc, 1);
    /* a spec-only file may name itself: not a spec field */
    cJSON_DeleteItemFromObjectCaseSensitive(spec, "name");
    cJSON_DeleteItemFromObjectCaseSensitive(spec, "kind");
    cJSON_DeleteItemFromObjectCaseSensitive(spec, "metadata");
    cJSON_AddItemToObject(obj, "spec", spec);
    return obj;
}

/* Creates the template, or updates it when its spec or directory changed;
 * 1 when it is stored as wanted. */
static int pack_apply(struct pl *p, cJSON *want, const char *name)
{
    int rc;
    char *text = p->host->obj_get(p->self, "JobTemplate", NULL, name, &rc);
    cJSON *cur = cu_json_take(p->host, text);
    char *out;
    if (!cur) {
        char *doc = cJSON_PrintUnformatted(want);
        out = p->host->obj_create(p->self, doc, &rc);
        free(doc);
    } else {
        cJSON *cmeta = cJSON_GetObjectItemCaseSensitive(cur, "metadata");
        cJSON *wmeta = cJSON_GetObjectItemCaseSensitive(want, "metadata");
        if (cJSON_Compare(cJSON_GetObjectItemCaseSensitive(cur, "spec"),
                          cJSON_GetObjectItemCaseSensitive(want, "spec"), 1) &&
            cJSON_Compare(cJSON_GetObjectItemCaseSensitive(cmeta, "annotations"),
                          cJSON_GetObjectItemCaseSensitive(wmeta, "annotations"), 1)) {
            cJSON_Delete(cur);
            return 1;
        }
        cu_set_str(wmeta, "resourceVersion", cu_str(cmeta, "resourceVersion"));
        char *doc = cJSON_PrintUnformatted(want);
        out = p->host->obj_update(p->self, doc, &rc);
        free(doc);
        cJSON_Delete(cur);
    }
    if (!out)
        p->host->log(p->self, CUBE_LOG_WARN, "built-in template %s: not stored (%d)", name, rc);
    p->host->free(out);
    return out != NULL;
}

/* One <dir>/<name>/template.json; returns 1 when loaded. */
static int pack_entry(struct pl *p, const char *name)
{
    char dir[PATH_MAX + 260], path[PATH_MAX + 280];
    snprintf(dir, sizeof dir, "%s/%s", p->templates_dir, name);
    snprintf(path, sizeof path, "%s/template.json", dir);
    char *text = read_file(path);
    if (!text)
        return 0;
    cJSON *doc = cJSON_Parse(text);
    free(text);
    const char *tname = cu_meta(doc, "name") ? cu_meta(doc, "name")
                        : cu_str(doc, "name") ? cu_str(doc, "name") : name;
    if (!cJSON_IsObject(doc)) {
        p->host->log(p->self, CUBE_LOG_WARN, "%s: not a JSON object; skipped", path);
        cJSON_Delete(doc);
        return 0;
    }
    cJSON *want = pack_object(tname, dir, doc);
    int ok = pack_apply(p, want, tname);
    cJSON_Delete(want);
    cJSON_Delete(doc);
    return ok;
}

void pl_pack_load(struct pl *p)
{
    if (!*p->templates_dir)
        return;
    DIR *d = opendir(p->templates_dir);
    if (!d) {
        p->host->log(p->self, CUBE_LOG_INFO, "no built-in templates at %s", p->templates_dir);
        return;
    }
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)))
        if (de->d_name[0] != '.')
            n += pack_entry(p, de->d_name);
    closedir(d);
    p->host->log(p->self, CUBE_LOG_INFO, "%d built-in templates from %s", n, p->templates_dir);
}

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

const char *pl_template_dir(struct pl *p, const char *dir, char *buf, size_t len)
{
    if (!*dir || dir[0] == '/')
        return dir;
    const char *slash = strrchr(dir, '/'), *leaf = slash ? slash + 1 : dir;
    char cand[PATH_MAX + 260], abs[PATH_MAX];
    snprintf(cand, sizeof cand, "%s/%s", p->templates_dir, leaf);
    if (*p->templates_dir && *leaf && strcmp(leaf, "..") != 0 && is_dir(cand)) {
        snprintf(buf, len, "%s", cand);
        return buf;
    }
    if (realpath(dir, abs) && is_dir(abs)) {
        snprintf(buf, len, "%s", abs);
        return buf;
    }
    return dir;
}
