/*
 * cube_kind.h — resource kinds, their controllers and sub-resource actions
 * (since ABI 1.1).
 *
 * Part of the Cube plugin ABI (append-only; see cube_plugin.h). A plugin
 * declares a kind (a JSON Schema for `spec`, printer columns, optional
 * callbacks) and the host gives it, with no further plugin code: REST CRUD
 * under /api/v1/projects/{project}/{plural} (or /api/v1/{plural} for cluster
 * kinds), validation with field-precise errors, optimistic concurrency,
 * label selectors and paging, watch streams, audit events, the OpenAPI
 * document, console pages and cubectl support.
 *
 * Permissions of the generic API (since 1.2): for project kinds reading
 * needs project:view, creating project:edit, and replacing, patching or
 * deleting an object project:operate (ops and above, or the dev who owns
 * it); for cluster kinds reading needs a signed-in user and writing a
 * platform administrator. See CUBE_PERM_* in cube_http.h.
 *
 * Objects cross the ABI as JSON text of this shape:
 *   {"kind": "Widget",
 *    "metadata": {"name", "project", "uid", "labels", "annotations", "owner",
 *                 "ownerReferences": [{"kind","name","uid","controller"}],
 *                 "created", "updated", "resourceVersion", "generation",
 *                 "deletionTimestamp", "finalizers"},
 *    "spec": {...}, "status": {...}}
 */
#ifndef CUBE_KIND_H
#define CUBE_KIND_H

#include "cube_http.h"
#include "cube_plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Where objects of a kind live (since 1.1). */
enum cube_kind_scope {
    CUBE_SCOPE_PROJECT = 1, /**< inside a project: /api/v1/projects/{p}/... */
    CUBE_SCOPE_CLUSTER = 2, /**< platform-wide: /api/v1/... */
};

/**
 * A controller's reconcile callback. Runs on a host worker thread, never
 * concurrently for the same object. `object_json` is the current object
 * (borrowed for the call), or NULL when it no longer exists. Return CUBE_OK
 * when reality matches the object, a negative CUBE_E* code to be retried
 * with exponential back-off, or a positive number of milliseconds to be
 * called again after that delay (polling external state).
 *
 * Since 1.5, prefer the flow code to the positive delay: return
 * CUBE_EAGAIN after cube_host.retry_after(self, ms) (1000 ms without it) to
 * be called again then, with no back-off and no failure counted; and
 * explain an error with cube_host.set_error, which the host logs with the
 * object's name (the back-off and the log line are as before).
 */
typedef int (*cube_reconcile_fn)(void *state, const char *kind,
                                 const char *project, const char *name,
                                 const char *object_json);

/** Describes a kind; passed to cube_host.register_kind (since 1.1). */
struct cube_kind_desc {
    /* since 1.1 */
    size_t size;            /**< sizeof(struct cube_kind_desc) */
    const char *kind;       /**< CamelCase, unique: "Widget" */
    const char *plural;     /**< lowercase, unique, a DNS label: "widgets" */
    const char *singular;   /**< "widget"; NULL: the kind in lowercase */
    int scope;              /**< enum cube_kind_scope */
    const char *group;      /**< console menu group, e.g. "Training" */
    const char *description;/**< one line for the console and OpenAPI */
    /** Required: JSON Schema (draft-07 subset, see README) of `spec`.
     *  Unknown fields are rejected unless the schema allows them. */
    const char *spec_schema;
    /** JSON Schema of `status`; NULL accepts any object. */
    const char *status_schema;
    /** JSON text: [{"name":"Phase","jsonPath":".status.phase",
     *  "type":"string"}, ...]; NULL: name and age only. */
    const char *printer_columns;
    /** Optional. Fills defaults beyond the schema's `default`s. Set *out to
     *  a new object JSON allocated with malloc() (the host frees it), or
     *  leave it NULL for no change. Return CUBE_OK or an error. */
    int (*defaulting)(void *state, const char *object_json, char **out);
    /** Optional. Semantic validation after the schema passed. `old_json` is
     *  the stored object on update, NULL on create. On error, write the
     *  field path ("spec.tasks[2].upstream") and a message and return
     *  CUBE_EINVAL: the client gets 422 naming the field. */
    int (*validate)(void *state, const char *object_json, const char *old_json,
                    char *field, size_t field_len, char *msg, size_t msg_len);
    /** Optional. The controller: called after every change of an object of
     *  this kind or of an object it owns, on resync, and once per object
     *  after cubed starts. */
    cube_reconcile_fn reconcile;
    /** Optional. Called when an object is deleted, before it is removed
     *  (e.g. to stop what it runs). CUBE_OK lets the deletion finish; an
     *  error is retried with back-off while the object shows a
     *  deletionTimestamp. */
    int (*finalize)(void *state, const char *object_json);
    /** Reconcile every object again this often (seconds); 0: never. */
    unsigned resync_seconds;

    /* since 1.5 */
    /** Optional. Semantic validation as `validate`, through the error
     *  channel (cube_host.h): return CUBE_OK, or CUBE_EINVAL after
     *  cube_host.set_error_field(self, "spec.size", "...") and the client
     *  gets 422 naming that field; CUBE_EEXIST or CUBE_ECONFLICT (the
     *  object clashes with another one, e.g. a number that must be unique
     *  among objects) gives 409 Conflict with the field and message the
     *  same way (any other code: 500, logged). `old_json`
     *  is the stored object on update, NULL on create. Runs after the
     *  schema and `validate` passed, on the writer's thread (a request's or
     *  the plugin's own); may not block for long. */
    int (*check)(void *state, const char *object_json, const char *old_json);
};

/**
 * A sub-resource of a kind: `POST .../{name}/{action}` (run, stop ...) or
 * `GET .../{name}/{view}` (logs ...); passed to cube_host.register_action
 * (since 1.1). The host checks the permission and that the object exists
 * (since 1.2, on project kinds the caller must also be a member of the
 * project, and project:operate admits a dev only for objects they own)
 * before calling the handler; the handler reads req_param(req, "project")
 * (absent for cluster kinds) and req_param(req, "name").
 */
struct cube_action_desc {
    /* since 1.1 */
    size_t size;            /**< sizeof(struct cube_action_desc) */
    const char *kind;       /**< a kind registered by any plugin, or core */
    const char *method;     /**< "POST" or "GET" */
    const char *action;     /**< a DNS label: "run", "stop", "logs" */
    const char *permission; /**< as cube_route_desc.permission */
    cube_route_fn handler;  /**< required */
    const char *summary;    /**< for OpenAPI; may be NULL */
};

#ifdef __cplusplus
}
#endif

#endif /* CUBE_KIND_H */
