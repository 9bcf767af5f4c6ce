/* host_objects.c — the ABI 1.1 host slots: kinds, actions, object access,
 * events, log streams and project files for plugins. Whom a plugin's new
 * object is for (its metadata.owner) is decided in host_owner.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctx/ctx.h"
#include "host_slots.h"
#include "http/http_req.h"
#include "objects/kinds.h"
#include "base/log.h"
#include "files/files.h"
#include "logstore/logstore.h"
#include "objects/objects.h"
#include "objects/selector.h"

/* What register_kind and register_action share: init only, the reason of
 * a refusal logged under the slot's name. */
static int registered(cube_plugin *self, const char *slot, int rc, const char *err)
{
    if (rc != CUBE_OK)
        cube_log(CUBE_LOG_ERROR, self->log_component, "%s: %s", slot, err);
    return rc;
}

static int init_only(cube_plugin *self, const char *slot)
{
    if (self->in_init)
        return 0;
    cube_log(CUBE_LOG_ERROR, self->log_component, "%s: only during init", slot);
    return -1;
}

int cube_slot_register_kind(cube_plugin *self, const struct cube_kind_desc *desc)
{
    char err[300] = "";
    if (init_only(self, "register_kind"))
        return CUBE_ESTATE;
    return registered(self, "register_kind",
                      cube_kinds_add(&self->ctx->kinds, self, desc, err, sizeof err), err);
}

int cube_slot_register_action(cube_plugin *self, const struct cube_action_desc *desc)
{
    char err[300] = "";
    if (init_only(self, "register_action"))
        return CUBE_ESTATE;
    return registered(self, "register_action",
                      cube_kinds_add_action(&self->ctx->kinds, self, desc, err, sizeof err),
                      err);
}

/* Maps an operation failure to a return code, logging the reason. */
static int op_rc(cube_plugin *self, const struct cube_op_error *e)
{
    cube_host_refusal_op(self, e);
    if (e->status >= 500 || e->status == 400 || e->status == 422)
        cube_log(e->status >= 500 ? CUBE_LOG_WARN : CUBE_LOG_INFO, self->log_component,
                 "%s", e->message);
    switch (e->status) {
    case 404: return CUBE_ENOTFOUND;
    case 409: return strcmp(e->code, "AlreadyExists") == 0 ? CUBE_EEXIST : CUBE_ECONFLICT;
    case 503: return CUBE_EUNAVAIL;
    default: return e->status >= 500 ? CUBE_EIO : CUBE_EINVAL;
    }
}

static const struct cube_kind *find_kind(cube_plugin *self, const char *kind, int *rc)
{
    const struct cube_kind *k = kind ? cube_kinds_by_kind(&self->ctx->kinds, kind) : NULL;
    if (!k) {
        cube_log(CUBE_LOG_INFO, self->log_component, "unknown kind '%s'", kind ? kind : "");
        cube_host_refusal_set(self, 422, "Invalid", "kind", "kind: unknown kind \"%.100s\"",
                              kind ? kind : "");
        *rc = CUBE_EINVAL;
    }
    return k;
}

/* Prints a result tree (consumed) or sets *rc from the error. */
static char *result(cube_plugin *self, int ok, cJSON *tree, const struct cube_op_error *e,
                    int *rc)
{
    if (!ok) {
        *rc = op_rc(self, e);
        return NULL;
    }
    char *text = cJSON_PrintUnformatted(tree);
    cJSON_Delete(tree);
    *rc = text ? CUBE_OK : CUBE_ENOMEM;
    return text;
}

char *cube_slot_obj_get(cube_plugin *self, const char *kind, const char *project,
                        const char *name, int *rc)
{
    cube_host_refusal_clear(self);
    const struct cube_kind *k = find_kind(self, kind, rc);
    cJSON *out = NULL;
    struct cube_op_error e;
    if (!k || !name)
        return *rc = CUBE_EINVAL, NULL;
    /* Two statements: the order in which arguments are evaluated is
     * unspecified, and `out` must be read after cube_obj_get filled it. */
    int ok = cube_obj_get(self->ctx, k, project, name, &out, &e) == 0;
    return result(self, ok, out, &e, rc);
}

char *cube_slot_obj_list(cube_plugin *self, const char *kind, const char *project,
                         const char *selector, int *rc)
{
    cube_host_refusal_clear(self);
    const struct cube_kind *k = find_kind(self, kind, rc);
    char err[200];
    if (!k)
        return NULL;
    struct cube_selector *sel = cube_selector_parse(selector, err, sizeof err);
    if (!sel) {
        cube_log(CUBE_LOG_INFO, self->log_component, "obj_list: %s", err);
        cube_host_refusal_set(self, 400, "BadRequest", "labelSelector", "labelSelector: %s", err);
        return *rc = CUBE_EINVAL, NULL;
    }
    /* All pages: plugins get the whole list. */
    cJSON *all = NULL;
    char *cont = NULL;
    struct cube_op_error e;
    int ok = 1;
    do {
        cJSON *page = NULL;
        ok = cube_obj_list(self->ctx, k, project, sel, 5000, cont, &page, &e) == 0;
        free(cont);
        cont = NULL;
        if (!ok)
            break;
        const char *next = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(page, "metadata"), "continue"));
        cont = next ? strdup(next) : NULL;
        if (!all) {
            all = page;
        } else {
            cJSON *items = cJSON_DetachItemFromObjectCaseSensitive(page, "items");
            cJSON *dst = cJSON_GetObjectItemCaseSensitive(all, "items");
            cJSON *it;
            while ((it = cJSON_DetachItemFromArray(items, 0)))
                cJSON_AddItemToArray(dst, it);
            cJSON_Delete(items);
            cJSON_Delete(page);
        }
    } while (cont);
    cube_selector_free(sel);
    if (all)
        cJSON_DeleteItemFromObjectCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(all, "metadata"), "continue");
    if (!ok)
        cJSON_Delete(all);
    return result(self, ok, all, &e, rc);
}

/* The actor for writes a plugin makes. */
static struct cube_actor plugin_actor(cube_plugin *self)
{
    return (struct cube_actor){self->log_component, 1, NULL}; /* "plugin:<name>": trusted */
}

/* kind, metadata.name and metadata.project of an object body. */
static const struct cube_kind *body_target(cube_plugin *self, const cJSON *body,
                                           const char **project, const char **name,
                                           int *rc)
{
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(body, "metadata");
    const struct cube_kind *k = find_kind(self,
        cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(body, "kind")), rc);
    *project = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(meta, "project"));
    *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(meta, "name"));
    if (k && k->scope == CUBE_SCOPE_PROJECT && !*project) {
        cube_log(CUBE_LOG_INFO, self->log_component, "metadata.project is required");
        cube_host_refusal_set(self, 422, "Invalid", "metadata.project",
                              "metadata.project: required for kind %s", k->kind);
        *rc = CUBE_EINVAL;
        return NULL;
    }
    return k;
}

/* A create (req: on behalf of its caller, else for whom the object's
 * controller reference decides) or a replace. */
static char *obj_write(cube_plugin *self, cube_req *req, const char *json, int *rc,
                       int create)
{
    cJSON *body = json ? cJSON_Parse(json) : NULL, *out = NULL;
    const char *project, *name;
    char owner[CUBE_OWNER_MAX] = "";
    struct cube_op_error e;
    struct cube_actor who = plugin_actor(self);
    cube_host_refusal_clear(self);
    const struct cube_kind *k = body ? body_target(self, body, &project, &name, rc) : NULL;
    if (!body) {
        *rc = CUBE_EINVAL;
        cube_host_refusal_set(self, 400, "BadRequest", NULL, "the object is not JSON");
    }
    if (!k || (!create && !name)) {
        if (k) {
            *rc = CUBE_EINVAL;
            cube_host_refusal_set(self, 422, "Invalid", "metadata.name", "metadata.name: required");
        }
        cJSON_Delete(body);
        return NULL;
    }
    if (k->scope == CUBE_SCOPE_CLUSTER)
        project = NULL;
    if (create && req && cube_host_owner_of_request(self, req, k, project, owner, rc) < 0) {
        cJSON_Delete(body);
        return NULL;
    }
    if (create && !req)
        cube_host_owner_inherited(self, body, project, owner);
    who.owner = owner[0] ? owner : NULL;
    int ok = (create ? cube_obj_create(self->ctx, k, project, body, &who, &out, &e)
                     : cube_obj_replace(self->ctx, k, project, name, body, &who, &out, &e)) == 0;
    cJSON_Delete(body);
    return result(self, ok, out, &e, rc);
}

char *cube_host_obj_create(cube_plugin *self, cube_req *req, const char *json, int *rc)
{
    return obj_write(self, req, json, rc, 1);
}

char *cube_slot_obj_create(cube_plugin *self, const char *json, int *rc)
{
    return obj_write(self, NULL, json, rc, 1);
}

char *cube_slot_obj_update(cube_plugin *self, const char *json, int *rc)
{
    return obj_write(self, NULL, json, rc, 0);
}

char *cube_slot_obj_update_status(cube_plugin *self, const char *kind, const char *project,
                                  const char *name, const char *status_json,
                                  const char *resource_version, int *rc)
{
    cube_host_refusal_clear(self);
    const struct cube_kind *k = find_kind(self, kind, rc);
    cJSON *status = status_json ? cJSON_Parse(status_json) : NULL, *out = NULL;
    struct cube_op_error e;
    struct cube_actor who = plugin_actor(self);
    if (!k || !status || !name) {
        if (k)
            cube_host_refusal_set(self, 400, "BadRequest", !name ? "metadata.name" : "status",
                                  !name ? "metadata.name: required" : "status: not JSON");
        cJSON_Delete(status);
        return *rc = CUBE_EINVAL, NULL;
    }
    int64_t rv = resource_version ? strtoll(resource_version, NULL, 10) : 0;
    int ok = cube_obj_put_status(self->ctx, k, project, name, status, rv, &who, &out, &e) == 0;
    cJSON_Delete(status);
    return result(self, ok, out, &e, rc);
}

int cube_slot_obj_delete(cube_plugin *self, const char *kind, const char *project,
                         const char *name)
{
    int rc = CUBE_OK;
    cube_host_refusal_clear(self);
    const struct cube_kind *k = find_kind(self, kind, &rc);
    struct cube_op_error e;
    struct cube_actor who = plugin_actor(self);
    if (!k || !name)
        return CUBE_EINVAL;
    return cube_obj_delete(self->ctx, k, project, name, &who, &e) < 0 ? op_rc(self, &e)
                                                                       : CUBE_OK;
}

char *cube_slot_obj_list_page(cube_plugin *self, const char *kind, const char *project,
                              const char *selector, unsigned limit, const char *cont,
                              int *rc)
{
    cube_host_refusal_clear(self);
    const struct cube_kind *k = find_kind(self, kind, rc);
    char err[200];
    if (!k)
        return NULL;
    struct cube_selector *sel = cube_selector_parse(selector, err, sizeof err);
    if (!sel) {
        cube_log(CUBE_LOG_INFO, self->log_component, "obj_list_page: %s", err);
        cube_host_refusal_set(self, 400, "BadRequest", "labelSelector", "labelSelector: %s", err);
        return *rc = CUBE_EINVAL, NULL;
    }
    cJSON *page = NULL;
    struct cube_op_error e;
    int ok = cube_obj_list(self->ctx, k, project, sel, limit, cont, &page, &e) == 0;
    cube_selector_free(sel);
    return result(self, ok, page, &e, rc);
}

int cube_slot_obj_event(cube_plugin *self, const char *kind, const char *project,
                        const char *name, const char *type, const char *reason,
                        const char *message)
{
    int rc = CUBE_OK;
    const struct cube_kind *k = find_kind(self, kind, &rc);
    if (!k || !name || !type || !reason ||
        (strcmp(type, "Normal") != 0 && strcmp(type, "Warning") != 0))
        return CUBE_EINVAL;
    return cube_obj_record_event(self->ctx, k, project, name, NULL, NULL,
                                 self->log_component, 0, type, reason, message);
}

int cube_slot_log_append(cube_plugin *self, const char *kind, const char *project,
                         const char *name, const char *stream, const void *data, size_t len)
{
    return cube_logstore_append(self->ctx->logs, kind, project, name, stream, data, len);
}

char *cube_slot_log_read(cube_plugin *self, const char *kind, const char *project,
                         const char *name, const char *stream, uint64_t offset, size_t max,
                         size_t *len, int *rc)
{
    return cube_logstore_read(self->ctx->logs, kind, project, name, stream, offset, max,
                              len, rc);
}

int cube_slot_resp_log(cube_req *req, const char *kind, const char *project,
                       const char *name, const char *stream, uint64_t offset, int follow)
{
    return cube_logstore_respond(req->ctx->logs, req, kind, project, name, stream,
                                 offset, follow);
}

int cube_slot_log_close(cube_plugin *self, const char *kind, const char *project,
                        const char *name, const char *stream)
{
    return cube_logstore_close(self->ctx->logs, kind, project, name, stream);
}

int cube_slot_log_stat(cube_plugin *self, const char *kind, const char *project,
                       const char *name, const char *stream, uint64_t *size, int *closed)
{
    return cube_logstore_stat(self->ctx->logs, kind, project, name, stream, size, closed);
}

int cube_slot_log_append_at(cube_plugin *self, const char *kind, const char *project,
                            const char *name, const char *stream, uint64_t offset,
                            const void *data, size_t len)
{
    return cube_logstore_append_at(self->ctx->logs, kind, project, name, stream, offset,
                                   data, len);
}

int cube_slot_file_write(cube_plugin *self, const char *project, const char *path,
                         const void *data, size_t len)
{
    return cube_files_write(self->ctx->files, project, path, data, len);
}

char *cube_slot_file_read(cube_plugin *self, const char *project, const char *path,
                          size_t *len, int *rc)
{
    return cube_files_read(self->ctx->files, project, path, len, rc);
}

int cube_slot_file_delete(cube_plugin *self, const char *project, const char *path)
{
    return cube_files_delete(self->ctx->files, project, path);
}

char *cube_slot_file_list(cube_plugin *self, const char *project, const char *dir, int *rc)
{
    return cube_files_list(self->ctx->files, project, dir, rc);
}
