/* objects.h — the operations on resource objects, shared by the REST
 * handlers and the plugin ABI: validation, defaulting, optimistic
 * concurrency, resourceVersions and watch events, audit, controller
 * triggers, cascading delete. */
#ifndef CUBE_OBJECTS_H
#define CUBE_OBJECTS_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

struct cube_ctx;
struct cube_kind;
struct cube_selector;

/* Why an operation failed: an HTTP status, a CamelCase code, a message and
 * (for validation) the field path. */
struct cube_op_error {
    int status;
    char code[32];
    char message[512];
    char field[256];
};

/* Who acts, for audit and metadata.owner: a user name, "anonymous",
 * "plugin:<name>" or "system:<part>"; admin when a platform administrator
 * (plugins and the system count as trusted, see cube_actor_trusted).
 * owner, when set, is the user a plugin or the core writes for: a new
 * object's metadata.owner (whom its Jobs run as), decided by the host from
 * an authenticated request or a controller's own object, never from a
 * field a user wrote; NULL: the actor itself. Borrowed. */
struct cube_actor {
    const char *user;
    int admin;
    const char *owner;
};

/* 1 when the actor is a plugin or the core itself (not a request). */
int cube_actor_internal(const struct cube_actor *who);

/* 1 when `owner` (a metadata.owner) names a user: not empty, "anonymous",
 * "plugin:..." or "system:...". Only such an owner has Jobs run for it. */
int cube_owner_is_user(const char *owner);

/* Users' writes may not set what Cube itself records: label and annotation
 * keys under "cube.dev/" and ownerReferences marked controller. On a
 * create (cur NULL) any such key or reference is refused; on a replace
 * those already stored may be sent back unchanged, and the stored ones a
 * body leaves out are kept (copied into obj). Writes by plugins and the
 * core pass. 0, or -1 with e filled (422 naming the field). */
int cube_obj_check_reserved(const struct cube_actor *who, cJSON *obj,
                            const cJSON *cur, struct cube_op_error *e);

/* 1 when the actor is an administrator, a plugin or the core itself. */
int cube_actor_trusted(const struct cube_actor *who);

/* Each returns 0 and (where there is one) a new tree in *out, or -1 with e
 * filled. project is NULL for cluster kinds. Trees passed in are borrowed. */
int cube_obj_get(struct cube_ctx *ctx, const struct cube_kind *k,
                 const char *project, const char *name, cJSON **out,
                 struct cube_op_error *e);
/* The object's metadata.owner ("" when none) into owner (len bytes), or
 * -1 with e filled as cube_obj_get. Parses nothing while the object is in
 * the object cache: for checks on every request (the proxy). */
int cube_obj_owner(struct cube_ctx *ctx, const struct cube_kind *k,
                   const char *project, const char *name, char *owner, size_t len,
                   struct cube_op_error *e);
int cube_obj_create(struct cube_ctx *ctx, const struct cube_kind *k,
                    const char *project, const cJSON *body,
                    const struct cube_actor *who, cJSON **out,
                    struct cube_op_error *e);
/* As cube_obj_create, but body is taken (it becomes the object or is
 * deleted: no copy) and the answer is the object as JSON text, the bytes
 * stored (*text, malloc'd), instead of a tree. */
int cube_obj_create_text(struct cube_ctx *ctx, const struct cube_kind *k,
                         const char *project, cJSON *body,
                         const struct cube_actor *who, char **text,
                         struct cube_op_error *e);
/* PUT: body is the whole object; metadata.resourceVersion, when given,
 * must match. Status is kept from the stored object. */
int cube_obj_replace(struct cube_ctx *ctx, const struct cube_kind *k,
                     const char *project, const char *name, const cJSON *body,
                     const struct cube_actor *who, cJSON **out,
                     struct cube_op_error *e);
/* PATCH with a JSON merge patch (RFC 7386) over labels, annotations,
 * ownerReferences and spec. */
int cube_obj_patch(struct cube_ctx *ctx, const struct cube_kind *k,
                   const char *project, const char *name, const cJSON *patch,
                   const struct cube_actor *who, cJSON **out,
                   struct cube_op_error *e);
/* Replaces status; rv 0 means any version. */
int cube_obj_put_status(struct cube_ctx *ctx, const struct cube_kind *k,
                        const char *project, const char *name,
                        const cJSON *status, int64_t rv,
                        const struct cube_actor *who, cJSON **out,
                        struct cube_op_error *e);
/* cube_obj_put_status on obj, the object as the caller loaded it at rv
 * (taken: *out on success, freed on failure), recording event (JSON text,
 * as cube_obj_record_event writes it; NULL: the audit event) in the
 * status' store write, or alone when the status was unchanged: no second
 * load; a write since then makes it fail with 409. */
int cube_obj_put_status_loaded(struct cube_ctx *ctx, const struct cube_kind *k,
                               const char *project, cJSON *obj, int64_t rv,
                               const cJSON *status, const struct cube_actor *who,
                               const char *event, cJSON **out, struct cube_op_error *e);
/* Deletes (or, for kinds with a finalizer, marks for deletion). Returns 0
 * when removed, 1 when marked and left to the finalizer, -1 on error. */
int cube_obj_delete(struct cube_ctx *ctx, const struct cube_kind *k,
                    const char *project, const char *name,
                    const struct cube_actor *who, struct cube_op_error *e);
/* One page of a list: items matching sel (NULL: all) after the continue
 * token (NULL: from the start), at most limit (0: 500). project NULL: every
 * project (project kinds); ignored for cluster kinds. *out is the
 * {"kind":"<Kind>List",...} document. */
int cube_obj_list(struct cube_ctx *ctx, const struct cube_kind *k,
                  const char *project, const struct cube_selector *sel,
                  size_t limit, const char *cont, cJSON **out,
                  struct cube_op_error *e);
/* Removes an object for good (finalizer done, or cascading delete). */
int cube_obj_remove(struct cube_ctx *ctx, const struct cube_kind *k,
                    const char *project, const char *name, int64_t expected_rv,
                    const struct cube_actor *who, struct cube_op_error *e);
/* Records an audit/plugin event about an object. */
int cube_obj_record_event(struct cube_ctx *ctx, const struct cube_kind *k,
                          const char *project, const char *name,
                          const char *uid, const char *verb, const char *user,
                          int result, const char *type, const char *reason,
                          const char *message);
/* Fills e. */
void cube_op_fail(struct cube_op_error *e, int status, const char *code,
                  const char *field, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* Maps a store return code to e (404/409/503/500). */
void cube_op_store_fail(struct cube_op_error *e, int rc, const char *what);

#endif
