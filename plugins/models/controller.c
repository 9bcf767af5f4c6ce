/* controller.c — the Model controller. A new version gets its first
 * status (stage none, registered); one registered by spec.path has its
 * files read once (scan.c: hashed, judged; spec.path cannot change, so
 * once is enough) and turns Ready or Failed naming the file. It also
 * keeps status.stage in line with the family's production pointer (the
 * plugin's key "prod/<project>/<family>", which promote switches in one
 * write): a version that says production but is not the pointer's is
 * archived, the pointer's version says production. The finalizer deletes
 * an uploaded version's files and drops the pointer to it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models.h"

void mdl_prod_key(char *key, size_t len, const char *project, const char *family)
{
    snprintf(key, len, "prod/%s/%s", project, family);
}

/* The production version's object name of the family into out ("" when
 * none). 0, or -1 when the key store is unreachable. */
int mdl_prod_get(struct mdl *p, const char *project, const char *family, char *out, size_t len)
{
    char key[200];
    size_t n;
    int rc;
    mdl_prod_key(key, sizeof key, project, family);
    char *v = p->host->kv_get(p->self, key, &n, &rc);
    *out = 0;
    if (!v)
        return rc == CUBE_ENOTFOUND ? 0 : -1;
    snprintf(out, len, "%.*s", (int)n, v);
    p->host->free(v);
    return 0;
}

struct pass {
    const char *prod;        /* the pointer's object ("" none) */
    int scan;                /* read spec.path's files */
};

static int pass_edit(struct mdl *p, const cJSON *obj, cJSON *st, void *ctx, char *msg,
                     size_t mlen)
{
    struct pass *ps = ctx;
    const cJSON *spec = cJSON_GetObjectItemCaseSensitive(obj, "spec");
    const char *name = cu_meta(obj, "name"), *stage = cu_str_or(st, "stage", "none");
    int changed = !cJSON_GetObjectItemCaseSensitive(obj, "status");
    (void)msg;
    (void)mlen;
    if (ps->scan && cu_str(spec, "path") && !strcmp(cu_str_or(st, "phase", ""), "Pending")) {
        char why[800];
        double t0 = mdl_clock();
        cJSON *found = mdl_scan_path(p, obj, why, sizeof why);
        p->host->metric_observe(p->scans, NULL, mdl_clock() - t0);
        static const char *const KEYS[] = {"root", "files", "entry", "format", "size", "sha256",
                                           "md5", "phase", "message", "field"};
        for (size_t i = 0; i < sizeof KEYS / sizeof KEYS[0]; i++)
            cJSON_DeleteItemFromObjectCaseSensitive(st, KEYS[i]);
        if (found) {
            cJSON *it;
            while ((it = found->child)) {
                cJSON_DetachItemViaPointer(found, it);
                cJSON_AddItemToObject(st, it->string, it);
            }
            cJSON_Delete(found);
        } else {
            cJSON_AddStringToObject(st, "phase", "Failed");
            cJSON_AddStringToObject(st, "message", why);
            cJSON_AddStringToObject(st, "field", "spec.path");
        }
        changed = 1;
    }
    if (!strcmp(stage, "production") && strcmp(ps->prod, name)) {
        cu_set_str(st, "stage", "archived");   /* a promote of another version won */
        changed = 1;
    } else if (!strcmp(ps->prod, name) && strcmp(stage, "production")) {
        cu_set_str(st, "stage", "production"); /* a promote that stopped half-way */
        changed = 1;
    }
    const cJSON *gen = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(obj,
                                                                                "metadata"),
                                                        "generation");
    if (cJSON_IsNumber(gen) && cu_num(st, "observedGeneration", -1) != gen->valuedouble) {
        cu_set_num(st, "observedGeneration", gen->valuedouble);
        changed = 1;
    }
    return changed ? 0 : 1;
}

int mdl_reconcile(void *state, const char *kind, const char *project, const char *name,
                  const char *object_json)
{
    struct mdl *p = state;
    (void)kind;
    if (!object_json) {
        mdl_version_forget(p, project, name);
        return CUBE_OK;
    }
    cJSON *obj = cJSON_Parse(object_json);
    if (!obj)
        return CUBE_ENOMEM;
    mdl_version_forget(p, project, name);   /* stored: the list shows its version now */
    const char *family = cu_str(cJSON_GetObjectItemCaseSensitive(obj, "spec"), "name");
    char prod[256], msg[600];
    if (!family || mdl_prod_get(p, project, family, prod, sizeof prod) < 0) {
        cJSON_Delete(obj);
        p->host->set_error(p->self, "cannot read the family's production version");
        return CUBE_EUNAVAIL;
    }
    cJSON_Delete(obj);
    struct pass ps = {.prod = prod, .scan = 1};
    int st = mdl_status_edit(p, project, name, pass_edit, &ps, msg, sizeof msg, NULL);
    if (st == 0 || st == 404)
        return CUBE_OK;
    p->host->set_error(p->self, "%s", msg);
    return CUBE_EUNAVAIL;
}

int mdl_finalize(void *state, const char *object_json)
{
    struct mdl *p = state;
    cJSON *obj = cJSON_Parse(object_json);
    if (!obj)
        return CUBE_ENOMEM;
    const cJSON *spec = cJSON_GetObjectItemCaseSensitive(obj, "spec");
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(obj, "status");
    const char *project = cu_meta(obj, "project"), *name = cu_meta(obj, "name");
    const char *family = cu_str(spec, "name");
    char prod[256], key[200], root[300];
    if (family && mdl_prod_get(p, project, family, prod, sizeof prod) == 0 &&
        !strcmp(prod, name)) {
        mdl_prod_key(key, sizeof key, project, family);
        p->host->kv_delete(p->self, key);
    }
    /* Uploads are the version's own; a spec.path is the project's. */
    snprintf(root, sizeof root, MDL_UPLOAD_DIR "/%s", name);
    if (!cu_str(spec, "path") && !strcmp(cu_str_or(st, "root", ""), root)) {
        const cJSON *f;
        cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(st, "files")) {
            char path[1400];
            snprintf(path, sizeof path, "%s/%s", root, cu_str_or(f, "path", ""));
            int rc = p->host->file_delete(p->self, project, path);
            if (rc != CUBE_OK && rc != CUBE_ENOTFOUND)
                p->host->log(p->self, CUBE_LOG_WARN, "%s/%s: cannot delete %s (%d)", project,
                             name, path, rc);
        }
    }
    mdl_version_forget(p, project, name);
    cJSON_Delete(obj);
    return CUBE_OK;
}
