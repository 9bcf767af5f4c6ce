/* ctrl.c — the Notebook controller. A notebook's desired state lives in
 * its status: phase Stopped/Failed means "not running" (set by stop, idle
 * culling, expiry or the server's end); anything else means "running as
 * generation N", and restart bumps N. Reconcile brings the owned Job of
 * generation N into being, follows it, probes the server until it answers,
 * and then reports Running with the proxied URL. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>
#include <cube/util/json.h>

#include "notebook.h"

/* Writes status when it differs from the stored one (a status write
 * queues another reconcile: unchanged writes would loop). With rv, only
 * over that version of the object (CUBE_ECONFLICT otherwise). */
static int write_status(struct nb *nb, const char *project, const char *name,
                        const cJSON *old, const cJSON *st, const char *rv)
{
    char *a = old ? cJSON_PrintUnformatted(old) : NULL, *b = cJSON_PrintUnformatted(st);
    int rc = CUBE_OK;
    if (b && (!a || strcmp(a, b))) {
        char *out = nb->host->obj_update_status(nb->self, NB_KIND, project, name, b, rv, &rc);
        nb->host->free(out);
    }
    free(a);
    free(b);
    return rc;
}

int nb_status_merge(struct nb *nb, const char *project, const char *name, const char *patch_json)
{
    int rc;
    char *text = nb->host->obj_get(nb->self, NB_KIND, project, name, &rc);
    cJSON *obj = text ? cJSON_Parse(text) : NULL, *patch = cJSON_Parse(patch_json), *v;
    nb->host->free(text);
    if (!obj || !patch) {
        cJSON_Delete(obj);
        cJSON_Delete(patch);
        return obj ? CUBE_EINVAL : rc;
    }
    const cJSON *old = cJSON_GetObjectItemCaseSensitive(obj, "status");
    cJSON *st = old ? cJSON_Duplicate(old, 1) : cJSON_CreateObject();
    cJSON_ArrayForEach(v, patch) {
        cJSON_DeleteItemFromObjectCaseSensitive(st, v->string);
        if (!cJSON_IsNull(v))
            cJSON_AddItemToObject(st, v->string, cJSON_Duplicate(v, 1));
    }
    rc = write_status(nb, project, name, old, st, NULL);
    cJSON_Delete(st);
    cJSON_Delete(obj);
    cJSON_Delete(patch);
    return rc;
}

int nb_stop(struct nb *nb, const char *project, const char *name, const char *reason,
            const char *message)
{
    char key[NB_KEY_LEN], patch[1024];
    /* The phase first: a reconcile that sees the Job end after this knows
     * the end was asked for. */
    cJSON *p = cJSON_CreateObject();
    cJSON_AddStringToObject(p, "phase", "Stopped");
    cJSON_AddStringToObject(p, "reason", reason);
    cJSON_AddStringToObject(p, "message", message);
    cJSON_AddNullToObject(p, "url");
    cJSON_PrintPreallocated(p, patch, sizeof patch, 0);
    cJSON_Delete(p);
    int rc = nb_status_merge(nb, project, name, patch);
    if (rc != CUBE_OK)
        return rc;
    nb->host->obj_event(nb->self, NB_KIND, project, name, "Normal", reason, message);
    nb_key(project, name, key, sizeof key);
    return nb_ensure_stopped(nb, project, key);
}

/* Not running: the Job of the last generation, if any, goes. */
int nb_ensure_stopped(struct nb *nb, const char *project, const char *key)
{
    struct nb_entry e;
    if (nb_table_get(&nb->table, key, &e) == 0) {
        int rc = nb->host->obj_delete(nb->self, "Job", project, e.job);
        if (rc != CUBE_OK && rc != CUBE_ENOTFOUND)
            return rc;
        nb_table_drop(&nb->table, key);
    }
    return CUBE_OK;
}

int nb_reconcile(void *state, const char *kind, const char *project, const char *name,
                 const char *object_json)
{
    (void)kind;
    struct nb *nb = state;
    char key[NB_KEY_LEN];
    nb_key(project, name, key, sizeof key);
    if (!object_json) {
        nb_table_drop(&nb->table, key);  /* its Job goes with it (ownerReferences) */
        return CUBE_OK;
    }
    cJSON *obj = cJSON_Parse(object_json);
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
    const cJSON *old = cJSON_GetObjectItemCaseSensitive(obj, "status");
    const char *phase = cu_str(old, "phase");
    int rc;
    if (!obj)
        return CUBE_EINVAL;
    if (cJSON_GetObjectItemCaseSensitive(meta, "deletionTimestamp") ||
        (phase && (!strcmp(phase, "Stopped") || !strcmp(phase, "Failed")))) {
        rc = nb_ensure_stopped(nb, project, key);
    } else {
        cJSON *st = old ? cJSON_Duplicate(old, 1) : cJSON_CreateObject();
        rc = nb_follow(nb, obj, object_json, project, name, key, st);
        const char *rv = cu_str(meta, "resourceVersion");
        int wrc = write_status(nb, project, name, old, st, rv);
        if (wrc == CUBE_ECONFLICT)
            rc = 10;          /* changed meanwhile (stop, restart): look again */
        else if (wrc != CUBE_OK && wrc != CUBE_ENOTFOUND)
            rc = wrc;
        cJSON_Delete(st);
    }
    cJSON_Delete(obj);
    return rc;
}
