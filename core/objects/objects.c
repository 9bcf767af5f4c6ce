/* objects.c — creating, reading and replacing objects: metadata rules,
 * defaulting, schema and plugin validation, and the commit that gives a
 * write its resourceVersion, watch event, audit record and controller
 * trigger. */
#include "objects.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/callerr.h"
#include "controller.h"
#include "ctx/ctx.h"
#include "kinds.h"
#include "base/log.h"
#include "mergepatch.h"
#include "base/names.h"
#include "objcache.h"
#include "objects_priv.h"
#include "schema/schema.h"
#include "store/store.h"
#include "watch.h"

void cube_obj_what(const struct cube_kind *k, const char *name, char *buf,
                   size_t len)
{
    const char *parts[] = {k->plural, "/", name ? name : ""};
    cube_obj_join(buf, len, parts, 3);
}

int cube_obj_load_text(struct cube_ctx *ctx, const struct cube_kind *k,
                       const char *project, const char *name, char **text,
                       int64_t *rv, struct cube_op_error *e)
{
    return cube_obj_load_text2(ctx, k, project, name, text, rv, 0, e);
}

int cube_obj_load_text2(struct cube_ctx *ctx, const struct cube_kind *k,
                        const char *project, const char *name, char **text,
                        int64_t *rv, int stripe_held, struct cube_op_error *e)
{
    char what[160];
    int64_t cached_rv = 0;
    project = project ? project : "";
    if ((*text = cube_objcache_get(ctx->cache, k->kind, project, name, &cached_rv))) {
        if (rv)
            *rv = cached_rv;
        return 0;
    }
    /* A miss fills the cache under the write stripe, so a concurrent write
     * or delete cannot be overtaken by this older read. */
    pthread_mutex_t *stripe = cube_obj_stripe(ctx, k->kind, project, name);
    struct cube_store_obj so = {0};
    if (!stripe_held)
        pthread_mutex_lock(stripe);
    int rc = cube_store_get(ctx->store, k->kind, project, name, &so);
    if (rc == CUBE_OK)
        cube_objcache_put(ctx->cache, k->kind, project, name, so.rv, so.doc);
    if (!stripe_held)
        pthread_mutex_unlock(stripe);
    if (rc != CUBE_OK) {
        cube_obj_what(k, name, what, sizeof what);
        cube_op_store_fail(e, rc, what);
        return -1;
    }
    if (rv)
        *rv = so.rv;
    *text = so.doc; /* taken over */
    so.doc = NULL;
    cube_store_obj_clear(&so);
    return 0;
}

int cube_obj_load(struct cube_ctx *ctx, const struct cube_kind *k,
                  const char *project, const char *name, cJSON **out,
                  int64_t *rv, struct cube_op_error *e)
{
    char what[160], *text;
    cube_obj_what(k, name, what, sizeof what);
    if (cube_obj_load_text(ctx, k, project, name, &text, rv, e) < 0)
        return -1;
    *out = cJSON_Parse(text);
    free(text);
    if (!*out) {
        cube_op_fail(e, 500, "InternalError", NULL, "%s: stored document is corrupt", what);
        return -1;
    }
    return 0;
}

int cube_obj_get(struct cube_ctx *ctx, const struct cube_kind *k,
                 const char *project, const char *name, cJSON **out,
                 struct cube_op_error *e)
{
    return cube_obj_load(ctx, k, project, name, out, NULL, e);
}

int cube_obj_owner(struct cube_ctx *ctx, const struct cube_kind *k, const char *project,
                   const char *name, char *owner, size_t len, struct cube_op_error *e)
{
    if (cube_objcache_owner(ctx->cache, k->kind, project ? project : "", name, owner, len))
        return 0;
    cJSON *obj;
    if (cube_obj_get(ctx, k, project, name, &obj, e) < 0)
        return -1;
    const char *o = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(obj, "metadata"), "owner"));
    snprintf(owner, len, "%s", o ? o : "");
    cJSON_Delete(obj);
    return 0;
}

static void set_string(cJSON *obj, const char *key, const char *value)
{
    cJSON *s = cJSON_CreateString(value);
    if (cJSON_GetObjectItemCaseSensitive(obj, key))
        cJSON_ReplaceItemInObjectCaseSensitive(obj, key, s);
    else
        cJSON_AddItemToObject(obj, key, s);
}

static void set_item(cJSON *obj, const char *key, cJSON *item)
{
    if (cJSON_GetObjectItemCaseSensitive(obj, key))
        cJSON_ReplaceItemInObjectCaseSensitive(obj, key, item);
    else
        cJSON_AddItemToObject(obj, key, item);
}

/* Collects the uids of ownerReferences (borrowed from obj). */
static size_t owner_uids(const cJSON *meta, const char **uids, size_t max)
{
    size_t n = 0;
    const cJSON *ref;
    cJSON_ArrayForEach(ref, cJSON_GetObjectItemCaseSensitive(meta, "ownerReferences")) {
        const cJSON *uid = cJSON_GetObjectItemCaseSensitive(ref, "uid");
        if (cJSON_IsString(uid) && n < max)
            uids[n++] = uid->valuestring;
    }
    return n;
}

/* The audit event written with a change, or NULL for none: status writes
 * by plugins and the core (controllers, the scheduler reporting) are not
 * requests and not audited; their events say what happened instead. */
static char *audit_doc(const struct cube_kind *k, const char *project,
                       const char *name, const char *uid, const char *verb,
                       const struct cube_actor *who, int create, const char *what)
{
    int status_write = strcmp(verb, "update-status") == 0;
    if (status_write && (strncmp(who->user, "plugin:", 7) == 0 ||
                         strncmp(who->user, "system:", 7) == 0))
        return NULL;
    char msg[260];
    const char *parts[] = {what, " ", verb, " by ", who->user, who->owner ? " for " : "",
                           who->owner ? who->owner : ""};
    cube_obj_join(msg, sizeof msg, parts, 7);
    return cube_obj_event_doc(k, project, name, uid, verb, who->user, create ? 201 : 200,
                              "Normal", create ? "Created"
                              : status_write ? "StatusUpdated" : "Updated", msg);
}

int cube_obj_commit(struct cube_ctx *ctx, const struct cube_kind *k,
                    const char *project, cJSON *obj, int create,
                    int64_t expected_rv, const char *verb,
                    const struct cube_actor *who, char **text,
                    struct cube_op_error *e)
{
    return cube_obj_commit_event(ctx, k, project, obj, create, expected_rv, verb, who, NULL,
                                 text, e);
}

int cube_obj_commit_event(struct cube_ctx *ctx, const struct cube_kind *k,
                          const char *project, cJSON *obj, int create,
                          int64_t expected_rv, const char *verb,
                          const struct cube_actor *who, const char *event,
                          char **text, struct cube_op_error *e)
{
    cJSON *meta = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
    const char *name = cJSON_GetObjectItemCaseSensitive(meta, "name")->valuestring;
    const char *uid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(meta, "uid"));
    int64_t rv;
    char rvs[24], what[160];
    cube_obj_what(k, name, what, sizeof what);
    pthread_mutex_t *stripe = cube_obj_stripe(ctx, k->kind, project, name);
    pthread_mutex_lock(stripe);
    if (cube_hub_begin(ctx->hub, &rv) < 0) {
        pthread_mutex_unlock(stripe);
        cube_op_fail(e, 503, "Unavailable", NULL, "out of memory");
        return -1;
    }
    set_string(meta, "resourceVersion", cube_obj_i64(rv, rvs));
    char *doc = cube_obj_print(obj);
    const char *owners[64];
    size_t n_owners = owner_uids(meta, owners, 64);
    struct cube_store_obj so = {.kind = k->kind, .project = (char *)(project ? project : ""),
                                .name = (char *)name, .uid = (char *)uid, .rv = rv, .doc = doc};
    char *audit = event ? strdup(event) : audit_doc(k, project, name, uid, verb, who, create, what);
    int rc = !doc ? CUBE_ENOMEM
             : create ? cube_store_create(ctx->store, &so, owners, n_owners, audit)
                      : cube_store_update(ctx->store, &so, owners, n_owners, expected_rv, audit);
    free(audit);
    cube_hub_end(ctx->hub, rv, rc != CUBE_OK ? CUBE_WATCH_NONE
                 : create ? CUBE_WATCH_ADDED : CUBE_WATCH_MODIFIED, k->kind, project,
                 doc, cJSON_GetObjectItemCaseSensitive(meta, "labels"));
    if (rc == CUBE_OK)
        cube_objcache_put(ctx->cache, k->kind, project ? project : "", name, rv, doc);
    if (rc == CUBE_OK && k->core && k->core->after)
        k->core->after(ctx, name, obj, create);
    else if (rc != CUBE_EEXIST)
        cube_objcache_drop(ctx->cache, k->kind, project ? project : "", name);
    pthread_mutex_unlock(stripe);
    if (rc == CUBE_OK && text) {
        *text = doc; /* the object as stored is the caller's answer */
        doc = NULL;
    }
    free(doc);
    if (rc != CUBE_OK) {
        if (rc == CUBE_ECONFLICT && cube_log_enabled(CUBE_LOG_DEBUG)) {
            struct cube_store_obj now = {0};
            cube_store_get(ctx->store, k->kind, project ? project : "", name, &now);
            cube_log(CUBE_LOG_DEBUG, "objects", "%s: conflict: expected rv %" PRId64
                     ", stored %" PRId64, what, expected_rv, now.rv);
            cube_store_obj_clear(&now);
        }
        cube_op_store_fail(e, rc, what);
        return -1;
    }
    cube_ctrl_enqueue(ctx, k, project, name);
    cube_ctrl_enqueue_owners(ctx, project, obj);
    if (k->core && k->core->committed)
        k->core->committed(ctx, name, obj, create);
    return 0;
}

/* Checks kind, metadata.name/project, labels and annotations of a body. */
static int check_identity(const struct cube_kind *k, const char *project,
                          const cJSON *obj, const char *url_name,
                          struct cube_op_error *e)
{
    char why[160];
    const char *bad;
    const cJSON *kind = cJSON_GetObjectItemCaseSensitive(obj, "kind");
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
    if (kind && (!cJSON_IsString(kind) || strcmp(kind->valuestring, k->kind) != 0)) {
        cube_op_fail(e, 400, "BadRequest", "kind", "kind must be \"%s\"", k->kind);
        return -1;
    }
    if (!cJSON_IsObject(meta)) {
        cube_op_fail(e, 422, "Invalid", "metadata", "metadata: must be an object");
        return -1;
    }
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(meta, "name");
    if (!name && url_name)
        ; /* a PUT may leave it out: the URL names the object */
    else if (!cJSON_IsString(name) || cube_name_check(name->valuestring, why, sizeof why) < 0) {
        cube_op_fail(e, 422, "Invalid", "metadata.name", "metadata.name: %s",
                     cJSON_IsString(name) ? why : "required, a string");
        return -1;
    } else if (url_name && strcmp(name->valuestring, url_name) != 0) {
        cube_op_fail(e, 400, "BadRequest", "metadata.name",
                     "metadata.name \"%s\" does not match the URL's \"%s\"",
                     name->valuestring, url_name);
        return -1;
    }
    const cJSON *proj = cJSON_GetObjectItemCaseSensitive(meta, "project");
    if (proj && (!project || !cJSON_IsString(proj) || strcmp(proj->valuestring, project) != 0)) {
        cube_op_fail(e, 400, "BadRequest", "metadata.project", project
                     ? "metadata.project does not match the URL's project \"%s\""
                     : "%s objects belong to no project", project ? project : k->kind);
        return -1;
    }
    const cJSON *labels = cJSON_GetObjectItemCaseSensitive(meta, "labels");
    if (labels && cube_labels_check(labels, &bad, why, sizeof why) < 0) {
        cube_op_fail(e, 422, "Invalid", "metadata.labels", "metadata.labels%s%s: %s",
                     bad ? "." : "", bad ? bad : "", why);
        return -1;
    }
    const cJSON *ann = cJSON_GetObjectItemCaseSensitive(meta, "annotations");
    if (ann && cube_annotations_check(ann, &bad, why, sizeof why) < 0) {
        cube_op_fail(e, 422, "Invalid", "metadata.annotations", "metadata.annotations%s%s: %s",
                     bad ? "." : "", bad ? bad : "", why);
        return -1;
    }
    return 0;
}

/* The kind's check (since 1.5), its error through the call frame. */
static int plugin_check(const struct cube_kind *k, const cJSON *obj, const cJSON *old,
                        struct cube_op_error *e)
{
    char *in = cube_obj_print(obj);
    char *old_text = old ? cube_obj_print(old) : NULL;
    struct cube_callerr ce;
    cube_callerr_begin(&ce, k->plugin);
    int rc = in && (old_text || !old) ? k->desc.check(k->plugin->state, in, old_text)
                                      : CUBE_ENOMEM;
    cube_callerr_end(&ce);
    free(in);
    free(old_text);
    if (rc == CUBE_OK)
        return 0;
    if (rc == CUBE_EINVAL)
        cube_op_fail(e, 422, "Invalid", ce.field, "%s%s%s", ce.field, ce.field[0] ? ": " : "",
                     ce.msg[0] ? ce.msg : "rejected by the kind's validation");
    else if (rc == CUBE_EEXIST || rc == CUBE_ECONFLICT)
        cube_op_fail(e, 409, "Conflict", ce.field, "%s%s%s", ce.field, ce.field[0] ? ": " : "",
                     ce.msg[0] ? ce.msg : "conflicts with another object");
    else
        cube_op_fail(e, rc == CUBE_ENOMEM ? 503 : 500, rc == CUBE_ENOMEM ? "Unavailable"
                     : "InternalError", NULL, "%s check failed (%d)%s%s", k->kind, rc,
                     ce.msg[0] ? ": " : "", ce.msg);
    return -1;
}

/* Schema defaults, the plugin's defaulting, the schema, the plugin's
 * semantic validation. May replace *obj (plugin defaulting). */
static int default_and_validate(struct cube_ctx *ctx, const struct cube_kind *k,
                                cJSON **obj, const cJSON *old,
                                const struct cube_actor *who, struct cube_op_error *e)
{
    cJSON *spec = cJSON_GetObjectItemCaseSensitive(*obj, "spec");
    if (cJSON_IsObject(spec) && cube_schema_apply_defaults(k->spec_schema, spec) < 0) {
        cube_op_fail(e, 503, "Unavailable", NULL, "out of memory");
        return -1;
    }
    void *state = k->plugin ? k->plugin->state : NULL;
    if (k->desc.defaulting) {
        char *in = cube_obj_print(*obj), *out = NULL;
        int rc = in ? k->desc.defaulting(state, in, &out) : CUBE_ENOMEM;
        free(in);
        cJSON *parsed = out ? cJSON_Parse(out) : NULL;
        free(out);
        if (rc != CUBE_OK || (out && !parsed)) {
            cube_op_fail(e, 500, "InternalError", NULL, "%s defaulting failed", k->kind);
            return -1;
        }
        if (parsed) {
            cJSON_Delete(*obj);
            *obj = parsed;
        }
    }
    struct cube_schema_error err;
    if (cube_schema_validate(k->object_schema, *obj, CUBE_SCHEMA_STRICT, "", &err, 1) > 0) {
        cube_op_fail(e, 422, "Invalid", err.path, "%s%s%s", err.path,
                     err.path[0] ? ": " : "", err.message);
        return -1;
    }
    if (k->desc.validate) {
        char field[256] = "", msg[400] = "";
        char *in = cube_obj_print(*obj);
        char *old_text = old ? cube_obj_print(old) : NULL;
        int rc = in ? k->desc.validate(state, in, old_text, field, sizeof field, msg, sizeof msg)
                    : CUBE_ENOMEM;
        free(in);
        free(old_text);
        if (rc != CUBE_OK) {
            cube_op_fail(e, 422, "Invalid", field, "%s%s%s", field, field[0] ? ": " : "",
                         msg[0] ? msg : "rejected by the kind's validation");
            return -1;
        }
    }
    if (k->desc.check && plugin_check(k, *obj, old, e) < 0)
        return -1;
    return k->core && k->core->check ? k->core->check(ctx, who, *obj, old, e) : 0;
}

/* Sets the fields the server owns on a new object. */
static void stamp_new(cJSON *obj, const struct cube_kind *k, const char *project,
                      const struct cube_actor *who)
{
    char now[40], uid[40];
    cJSON *meta = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
    cube_obj_now(now, sizeof now);
    cube_obj_new_uid(uid);
    set_string(obj, "apiVersion", "cube/v1");
    set_string(obj, "kind", k->kind);
    if (project)
        set_string(meta, "project", project);
    set_string(meta, "uid", uid);
    set_string(meta, "created", now);
    set_string(meta, "updated", now);
    set_string(meta, "owner", who->owner ? who->owner : who->user);
    set_item(meta, "generation", cJSON_CreateNumber(1));
    cJSON_DeleteItemFromObjectCaseSensitive(meta, "deletionTimestamp");
    cJSON_DeleteItemFromObjectCaseSensitive(meta, "resourceVersion");
    cJSON_DeleteItemFromObjectCaseSensitive(obj, "status");
    if (!cJSON_GetObjectItemCaseSensitive(obj, "spec"))
        cJSON_AddObjectToObject(obj, "spec");
}

/* A create from obj (taken: it becomes the object, or is deleted),
 * answering the new tree (out) and/or its text (text). */
static int create(struct cube_ctx *ctx, const struct cube_kind *k,
                  const char *project, cJSON *obj,
                  const struct cube_actor *who, cJSON **out, char **text,
                  struct cube_op_error *e)
{
    if (check_identity(k, project, obj, NULL, e) < 0 ||
        cube_obj_check_reserved(who, obj, NULL, e) < 0) {
        cJSON_Delete(obj);
        return -1;
    }
    stamp_new(obj, k, project, who);
    if (default_and_validate(ctx, k, &obj, NULL, who, e) < 0 ||
        cube_obj_commit(ctx, k, project, obj, 1, 0, "create", who, text, e) < 0) {
        cJSON_Delete(obj);
        return -1;
    }
    if (out)
        *out = obj;
    else
        cJSON_Delete(obj);
    return 0;
}

int cube_obj_create(struct cube_ctx *ctx, const struct cube_kind *k,
                    const char *project, const cJSON *body,
                    const struct cube_actor *who, cJSON **out,
                    struct cube_op_error *e)
{
    if (!cJSON_IsObject(body)) {
        cube_op_fail(e, 400, "BadRequest", NULL, "the body must be a JSON object");
        return -1;
    }
    cJSON *obj = cJSON_Duplicate(body, 1);
    if (!obj) {
        cube_op_fail(e, 503, "Unavailable", NULL, "out of memory");
        return -1;
    }
    return create(ctx, k, project, obj, who, out, NULL, e);
}

int cube_obj_create_text(struct cube_ctx *ctx, const struct cube_kind *k,
                         const char *project, cJSON *body,
                         const struct cube_actor *who, char **text,
                         struct cube_op_error *e)
{
    if (!cJSON_IsObject(body)) {
        cube_op_fail(e, 400, "BadRequest", NULL, "the body must be a JSON object");
        cJSON_Delete(body);
        return -1;
    }
    return create(ctx, k, project, body, who, NULL, text, e);
}

/* Parses metadata.resourceVersion of a body: 0 when absent, -1 when bad. */
static int64_t body_rv(const cJSON *obj)
{
    const cJSON *rv = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(obj, "metadata"), "resourceVersion");
    if (!rv)
        return 0;
    char *end;
    if (!cJSON_IsString(rv) || !rv->valuestring[0])
        return -1;
    long long v = strtoll(rv->valuestring, &end, 10);
    return *end || v <= 0 ? -1 : v;
}

/* Copies server-owned fields from the stored object into the new one. */
static void keep_server_fields(cJSON *obj, const cJSON *cur, const char *project)
{
    static const char *const KEEP[] = {"uid", "created", "owner", "deletionTimestamp"};
    cJSON *meta = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
    const cJSON *cmeta = cJSON_GetObjectItemCaseSensitive(cur, "metadata");
    char now[40];
    cube_obj_now(now, sizeof now);
    for (size_t i = 0; i < sizeof KEEP / sizeof KEEP[0]; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(cmeta, KEEP[i]);
        cJSON_DeleteItemFromObjectCaseSensitive(meta, KEEP[i]);
        if (v)
            cJSON_AddItemToObject(meta, KEEP[i], cJSON_Duplicate(v, 1));
    }
    if (project)
        set_string(meta, "project", project);
    set_string(meta, "updated", now);
    set_string(obj, "apiVersion", "cube/v1");
    set_string(obj, "kind", cJSON_GetObjectItemCaseSensitive(cur, "kind")->valuestring);
    const cJSON *gen = cJSON_GetObjectItemCaseSensitive(cmeta, "generation");
    set_item(meta, "generation", cJSON_CreateNumber(cJSON_IsNumber(gen) ? gen->valuedouble : 1));
    const cJSON *status = cJSON_GetObjectItemCaseSensitive(cur, "status");
    cJSON_DeleteItemFromObjectCaseSensitive(obj, "status");
    if (status)
        cJSON_AddItemToObject(obj, "status", cJSON_Duplicate(status, 1));
    if (!cJSON_GetObjectItemCaseSensitive(obj, "spec"))
        cJSON_AddObjectToObject(obj, "spec");
}

/* Generation counts spec changes only (compared after defaulting). */
static void bump_generation(cJSON *obj, const cJSON *cur)
{
    if (cube_json_equal(cJSON_GetObjectItemCaseSensitive(obj, "spec"),
                        cJSON_GetObjectItemCaseSensitive(cur, "spec")))
        return;
    cJSON *meta = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
    const cJSON *gen = cJSON_GetObjectItemCaseSensitive(meta, "generation");
    set_item(meta, "generation", cJSON_CreateNumber(gen->valuedouble + 1));
}

/* True when a replace would change nothing a client can set. */
static int same_content(const cJSON *obj, const cJSON *cur)
{
    static const char *const META[] = {"labels", "annotations", "ownerReferences"};
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
    const cJSON *cm = cJSON_GetObjectItemCaseSensitive(cur, "metadata");
    for (size_t i = 0; i < 3; i++)
        if (!cube_json_equal(cJSON_GetObjectItemCaseSensitive(m, META[i]),
                             cJSON_GetObjectItemCaseSensitive(cm, META[i])))
            return 0;
    return cube_json_equal(cJSON_GetObjectItemCaseSensitive(obj, "spec"),
                           cJSON_GetObjectItemCaseSensitive(cur, "spec"));
}

/* One attempt of a replace against the stored object `cur` (rv cur_rv). */
static int replace_once(struct cube_ctx *ctx, const struct cube_kind *k,
                        const char *project, const char *name, const cJSON *body,
                        const cJSON *cur, int64_t cur_rv,
                        const struct cube_actor *who, cJSON **out,
                        struct cube_op_error *e)
{
    int64_t want = body_rv(body);
    if (want < 0) {
        cube_op_fail(e, 400, "BadRequest", "metadata.resourceVersion",
                     "metadata.resourceVersion: must be a positive integer string");
        return -1;
    }
    cJSON *obj = cJSON_Duplicate(body, 1);
    if (!obj) {
        cube_op_fail(e, 503, "Unavailable", NULL, "out of memory");
        return -1;
    }
    set_string(cJSON_GetObjectItemCaseSensitive(obj, "metadata"), "name", name);
    keep_server_fields(obj, cur, project);
    if (cube_obj_check_reserved(who, obj, cur, e) < 0 ||
        default_and_validate(ctx, k, &obj, cur, who, e) < 0) {
        cJSON_Delete(obj);
        return -1;
    }
    bump_generation(obj, cur);
    if (same_content(obj, cur) && (!want || want == cur_rv)) {
        cJSON_Delete(obj); /* nothing changed: no write, no new version */
        *out = cJSON_Duplicate(cur, 1);
        return 0;
    }
    if (cube_obj_commit(ctx, k, project, obj, 0, want ? want : cur_rv, "update", who, NULL,
                        e) < 0) {
        cJSON_Delete(obj);
        return -1;
    }
    *out = obj;
    return 0;
}

int cube_obj_replace(struct cube_ctx *ctx, const struct cube_kind *k,
                     const char *project, const char *name, const cJSON *body,
                     const struct cube_actor *who, cJSON **out,
                     struct cube_op_error *e)
{
    if (!cJSON_IsObject(body)) {
        cube_op_fail(e, 400, "BadRequest", NULL, "the body must be a JSON object");
        return -1;
    }
    if (check_identity(k, project, body, name, e) < 0)
        return -1;
    /* Without a resourceVersion in the body the write is conditional on
     * the version just read; a race with another writer retries. */
    for (int attempt = 0; attempt < 4; attempt++) {
        cJSON *cur;
        int64_t cur_rv;
        if (cube_obj_load(ctx, k, project, name, &cur, &cur_rv, e) < 0)
            return -1;
        int rc = replace_once(ctx, k, project, name, body, cur, cur_rv, who, out, e);
        cJSON_Delete(cur);
        if (rc == 0 || e->status != 409 || body_rv(body) > 0 ||
            strcmp(e->code, "Conflict") != 0)
            return rc;
    }
    return -1;
}
