/* objects_ops.c — merge patch, status writes, deletion (with finalizers
 * and cascading through ownerReferences). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "controller.h"
#include "ctx/ctx.h"
#include "kinds.h"
#include "base/log.h"
#include "logstore/logstore.h"
#include "mergepatch.h"
#include "objcache.h"
#include "objects.h"
#include "objects_priv.h"
#include "schema/schema.h"
#include "store/store.h"
#include "base/tasks.h"
#include "watch.h"

/* The part of an object a merge patch may change. */
static cJSON *patchable(const cJSON *cur)
{
    static const char *const META[] = {"labels", "annotations", "ownerReferences"};
    cJSON *view = cJSON_CreateObject();
    cJSON *meta = cJSON_AddObjectToObject(view, "metadata");
    const cJSON *cmeta = cJSON_GetObjectItemCaseSensitive(cur, "metadata");
    for (size_t i = 0; i < 3; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(cmeta, META[i]);
        if (v)
            cJSON_AddItemToObject(meta, META[i], cJSON_Duplicate(v, 1));
    }
    const cJSON *spec = cJSON_GetObjectItemCaseSensitive(cur, "spec");
    cJSON_AddItemToObject(view, "spec", spec ? cJSON_Duplicate(spec, 1) : cJSON_CreateObject());
    return view;
}

static int check_patch_keys(const cJSON *patch, struct cube_op_error *e)
{
    const cJSON *item;
    cJSON_ArrayForEach(item, patch) {
        if (strcmp(item->string, "metadata") == 0 || strcmp(item->string, "spec") == 0 ||
            strcmp(item->string, "kind") == 0 || strcmp(item->string, "apiVersion") == 0)
            continue;
        cube_op_fail(e, 422, "Invalid", item->string, "%s: a patch may change metadata "
                     "and spec only (status has its own endpoint)", item->string);
        return -1;
    }
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(patch, "metadata");
    cJSON_ArrayForEach(item, meta) {
        if (strcmp(item->string, "labels") && strcmp(item->string, "annotations") &&
            strcmp(item->string, "ownerReferences") && strcmp(item->string, "name") &&
            strcmp(item->string, "resourceVersion")) {
            cube_op_fail(e, 422, "Invalid", "metadata", "metadata.%s cannot be patched",
                         item->string);
            return -1;
        }
    }
    return 0;
}

int cube_obj_patch(struct cube_ctx *ctx, const struct cube_kind *k,
                   const char *project, const char *name, const cJSON *patch,
                   const struct cube_actor *who, cJSON **out,
                   struct cube_op_error *e)
{
    if (!cJSON_IsObject(patch)) {
        cube_op_fail(e, 400, "BadRequest", NULL, "a merge patch must be a JSON object");
        return -1;
    }
    if (check_patch_keys(patch, e) < 0)
        return -1;
    cJSON *cur;
    int64_t rv;
    if (cube_obj_load(ctx, k, project, name, &cur, &rv, e) < 0)
        return -1;
    cJSON *view = patchable(cur);
    cJSON *patched = cube_merge_patch(view, patch);
    cJSON_Delete(view);
    if (!patched || !cJSON_IsObject(patched)) {
        cJSON_Delete(patched);
        cJSON_Delete(cur);
        cube_op_fail(e, 400, "BadRequest", NULL, "the patch nests too deeply");
        return -1;
    }
    /* The patch's own resourceVersion, if any, makes it conditional. */
    cJSON *pmeta = cJSON_GetObjectItemCaseSensitive(patched, "metadata");
    const cJSON *prv = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(patch, "metadata"), "resourceVersion");
    cJSON_DeleteItemFromObjectCaseSensitive(pmeta, "resourceVersion");
    if (prv)
        cJSON_AddItemToObject(pmeta, "resourceVersion", cJSON_Duplicate(prv, 1));
    cJSON_AddStringToObject(pmeta, "name", name);
    int rc = cube_obj_replace(ctx, k, project, name, patched, who, out, e);
    cJSON_Delete(patched);
    cJSON_Delete(cur);
    return rc;
}

/* Replaces the status of obj (taken; loaded at cur_rv) and commits it
 * when it changed: 0 with *out the object, or -1 (obj freed). */
static int put_status_into(struct cube_ctx *ctx, const struct cube_kind *k,
                           const char *project, cJSON *obj, int64_t cur_rv,
                           const cJSON *status, int64_t rv,
                           const struct cube_actor *who, const char *event,
                           cJSON **out, struct cube_op_error *e)
{
    const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(obj, "metadata"), "name"));
    /* An unchanged status is not written: controllers that set the same
     * status again must not trigger themselves forever. */
    if (cube_json_equal(cJSON_GetObjectItemCaseSensitive(obj, "status"), status) &&
        (!rv || rv == cur_rv)) {
        if (event)
            cube_store_event_add(ctx->store, project ? project : "", k->kind, name, event,
                                 NULL);
        *out = obj;
        return 0;
    }
    cJSON_DeleteItemFromObjectCaseSensitive(obj, "status");
    cJSON_AddItemToObject(obj, "status", cJSON_Duplicate(status, 1));
    if (cube_obj_commit_event(ctx, k, project, obj, 0, rv ? rv : cur_rv, "update-status",
                              who, event, NULL, e) == 0) {
        *out = obj;
        return 0;
    }
    cJSON_Delete(obj);
    return -1;
}

static int check_status(const struct cube_kind *k, const cJSON *status,
                        struct cube_op_error *e)
{
    struct cube_schema_error err;
    if (!cJSON_IsObject(status)) {
        cube_op_fail(e, 422, "Invalid", "status", "status: must be an object");
        return -1;
    }
    if (k->status_schema &&
        cube_schema_validate(k->status_schema, status, CUBE_SCHEMA_STRICT, "status", &err, 1) > 0) {
        cube_op_fail(e, 422, "Invalid", err.path, "%s: %s", err.path, err.message);
        return -1;
    }
    return 0;
}

int cube_obj_put_status(struct cube_ctx *ctx, const struct cube_kind *k,
                        const char *project, const char *name,
                        const cJSON *status, int64_t rv,
                        const struct cube_actor *who, cJSON **out,
                        struct cube_op_error *e)
{
    if (check_status(k, status, e) < 0)
        return -1;
    for (int attempt = 0; attempt < 4; attempt++) {
        cJSON *obj;
        int64_t cur_rv;
        if (cube_obj_load(ctx, k, project, name, &obj, &cur_rv, e) < 0)
            return -1;
        if (put_status_into(ctx, k, project, obj, cur_rv, status, rv, who, NULL, out, e) == 0)
            return 0;
        if (rv || e->status != 409)
            return -1;
    }
    return -1;
}

int cube_obj_put_status_loaded(struct cube_ctx *ctx, const struct cube_kind *k,
                               const char *project, cJSON *obj, int64_t rv,
                               const cJSON *status, const struct cube_actor *who,
                               const char *event, cJSON **out, struct cube_op_error *e)
{
    if (check_status(k, status, e) < 0) {
        cJSON_Delete(obj);
        return -1;
    }
    return put_status_into(ctx, k, project, obj, rv, status, rv, who, event, out, e);
}

/* Background deletion of what an object owned (Kubernetes' "background"
 * cascading): runs on a worker after the owner is gone. */
struct cascade {
    struct cube_ctx *ctx;
    char *owner_uid;
    int depth;
};

struct owned_list {
    struct cube_store_obj *items;
    size_t n, cap;
};

static int collect_owned(void *cls, const struct cube_store_obj *o)
{
    struct owned_list *l = cls;
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        struct cube_store_obj *grown = realloc(l->items, cap * sizeof *grown);
        if (!grown)
            return 1;
        l->items = grown;
        l->cap = cap;
    }
    struct cube_store_obj *c = &l->items[l->n++];
    *c = (struct cube_store_obj){strdup(o->kind), strdup(o->project), strdup(o->name),
                                 strdup(o->uid), o->rv, NULL};
    return 0;
}

static void cascade_run(void *a, void *b)
{
    (void)b;
    struct cascade *c = a;
    struct owned_list l = {0};
    struct cube_actor who = {"system:garbage-collector", 1, NULL};
    if (cube_store_list_owned(c->ctx->store, c->owner_uid, collect_owned, &l) != CUBE_OK)
        cube_log(CUBE_LOG_WARN, "gc", "cannot list objects owned by %s", c->owner_uid);
    for (size_t i = 0; i < l.n; i++) {
        struct cube_store_obj *o = &l.items[i];
        const struct cube_kind *k = cube_kinds_by_kind(&c->ctx->kinds, o->kind);
        struct cube_op_error e;
        if (k && c->depth < 16 &&
            cube_obj_delete(c->ctx, k, o->project[0] ? o->project : NULL, o->name, &who, &e) < 0 &&
            e.status != 404)
            cube_log(CUBE_LOG_WARN, "gc", "deleting %s/%s: %s", o->kind, o->name, e.message);
        cube_store_obj_clear(o);
    }
    free(l.items);
    free(c->owner_uid);
    free(c);
}

static void cascade(struct cube_ctx *ctx, const char *uid)
{
    struct cascade *c = calloc(1, sizeof *c);
    if (!c || !(c->owner_uid = strdup(uid))) {
        free(c);
        return;
    }
    c->ctx = ctx;
    if (cube_tasks_submit(ctx->tasks, cascade_run, c, NULL) < 0) {
        free(c->owner_uid);
        free(c);
    }
}

int cube_obj_remove(struct cube_ctx *ctx, const struct cube_kind *k,
                    const char *project, const char *name, int64_t expected_rv,
                    const struct cube_actor *who, struct cube_op_error *e)
{
    cJSON *cur;
    int64_t cur_rv, rv;
    char what[160], rvs[24];
    /* Load under the stripe: the DELETED event carries the last state. */
    pthread_mutex_t *stripe = cube_obj_stripe(ctx, k->kind, project, name);
    pthread_mutex_lock(stripe);
    char *text;
    if (cube_obj_load_text2(ctx, k, project, name, &text, &cur_rv, 1, e) < 0) {
        pthread_mutex_unlock(stripe);
        return -1;
    }
    cur = cJSON_Parse(text);
    free(text);
    if (!cur) {
        pthread_mutex_unlock(stripe);
        cube_op_fail(e, 500, "InternalError", NULL, "stored document is corrupt");
        return -1;
    }
    cube_obj_what(k, name, what, sizeof what);
    if (cube_hub_begin(ctx->hub, &rv) < 0) {
        pthread_mutex_unlock(stripe);
        cJSON_Delete(cur);
        cube_op_fail(e, 503, "Unavailable", NULL, "out of memory");
        return -1;
    }
    cJSON *meta = cJSON_GetObjectItemCaseSensitive(cur, "metadata");
    snprintf(rvs, sizeof rvs, "%" PRId64, rv);
    cJSON_ReplaceItemInObjectCaseSensitive(meta, "resourceVersion", cJSON_CreateString(rvs));
    char *doc = cube_obj_print(cur);
    /* Unconditional unless the caller gave a version (Kubernetes deletes
     * without preconditions); the stripe orders it after any write of the
     * same object already holding a version. */
    const char *uid0 = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(meta, "uid"));
    char msg0[200];
    snprintf(msg0, sizeof msg0, "%s deleted by %s", what, who->user);
    char *audit = cube_obj_event_doc(k, project, name, uid0, "delete", who->user, 200,
                                     "Normal", "Deleted", msg0);
    int rc = cube_store_delete(ctx->store, k->kind, project ? project : "", name,
                               expected_rv, rv, audit);
    free(audit);
    cube_hub_end(ctx->hub, rv, rc == CUBE_OK && doc ? CUBE_WATCH_DELETED : CUBE_WATCH_NONE,
                 k->kind, project, doc ? doc : "{}",
                 cJSON_GetObjectItemCaseSensitive(meta, "labels"));
    cube_objcache_drop(ctx->cache, k->kind, project ? project : "", name);
    if (rc == CUBE_OK && k->core && k->core->after)
        k->core->after(ctx, name, NULL, 0);
    pthread_mutex_unlock(stripe);
    free(doc);
    if (rc != CUBE_OK) {
        cJSON_Delete(cur);
        cube_op_store_fail(e, rc, what);
        return -1;
    }
    const char *uid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(meta, "uid"));
    if (k->core && k->core->committed)
        k->core->committed(ctx, name, NULL, 0);
    if (ctx->logs)
        cube_logstore_remove_object(ctx->logs, k->kind, project, name);
    cube_ctrl_enqueue(ctx, k, project, name);
    cube_ctrl_enqueue_owners(ctx, project, cur);
    if (uid)
        cascade(ctx, uid);
    cJSON_Delete(cur);
    return 0;
}

int cube_obj_delete(struct cube_ctx *ctx, const struct cube_kind *k,
                    const char *project, const char *name,
                    const struct cube_actor *who, struct cube_op_error *e)
{
    if (!k->desc.finalize)
        return cube_obj_remove(ctx, k, project, name, 0, who, e);
    /* A finalizer runs first: mark the object; its controller finalizes
     * and removes it. */
    for (int attempt = 0; attempt < 4; attempt++) {
        cJSON *cur;
        int64_t rv;
        char now[40];
        if (cube_obj_load(ctx, k, project, name, &cur, &rv, e) < 0)
            return -1;
        cJSON *meta = cJSON_GetObjectItemCaseSensitive(cur, "metadata");
        if (cJSON_GetObjectItemCaseSensitive(meta, "deletionTimestamp")) {
            cJSON_Delete(cur);
            return 1; /* already being deleted */
        }
        cube_obj_now(now, sizeof now);
        cJSON_AddStringToObject(meta, "deletionTimestamp", now);
        int rc = cube_obj_commit(ctx, k, project, cur, 0, rv, "delete", who, NULL, e);
        cJSON_Delete(cur);
        if (rc == 0)
            return 1;
        if (e->status != 409)
            return -1;
    }
    return -1;
}
