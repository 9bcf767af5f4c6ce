/* host_slots.h — the host table's slots that plugins/ implements (host.c:
 * ABI 1.0; host_objects.c: kinds, objects, logs and files; host_owner.c:
 * obj_create_for; ui_ext.c: register_ui). host_table.c lists every slot
 * of the table; each subsystem declares its own slots in its header.
 * Every slot's contract is the ABI's (abi/cube/cube_host.h). */
#ifndef CUBE_HOST_SLOTS_H
#define CUBE_HOST_SLOTS_H

#include <cjson/cJSON.h>
#include <cube/cube.h>

/* -- whom a plugin's new object is for (host_owner.c) ------------------ */

struct cube_kind;
#define CUBE_OWNER_MAX 64

/* Creates an object for a plugin (host_objects.c): on behalf of req's
 * caller when req is set (see obj_create_for), else for whom its
 * controller reference decides (cube_host_owner_inherited). */
char *cube_host_obj_create(cube_plugin *self, cube_req *req, const char *json, int *rc);

/* The caller of req, into owner, when they are signed in and may create
 * objects of k in project (project:edit; cluster kinds: administrators):
 * 0, or -1 with *rc CUBE_EPERM. */
int cube_host_owner_of_request(cube_plugin *self, cube_req *req, const struct cube_kind *k,
                               const char *project, char owner[CUBE_OWNER_MAX], int *rc);

/* The owner of the object that body's controller ownerReference names (of
 * the same project and, when the reference has one, the same uid), into
 * owner; "" when there is none. A Job a controller makes for a user's
 * object runs as that object's owner. */
void cube_host_owner_inherited(cube_plugin *self, const cJSON *body, const char *project,
                               char owner[CUBE_OWNER_MAX]);

/* -- why an object slot call was refused (host_refusal.c, ABI 1.5) ------ */

struct cube_op_error;
/* Forgets the calling thread's refusal (an object slot call starts). */
void cube_host_refusal_clear(cube_plugin *self);
/* Records an operation's refusal, or one the slot itself makes (status,
 * code, field or NULL, message). */
void cube_host_refusal_op(cube_plugin *self, const struct cube_op_error *e);
void cube_host_refusal_set(cube_plugin *self, int status, const char *code, const char *field,
                           const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* obj_error: the refusal as JSON (free), or NULL. */
char *cube_slot_obj_error(cube_plugin *self);

/* Fills the whole table, every slot in ABI order (host_table.c). */
void cube_host_table_init(struct cube_host *h);
/* Refuses the plugin's further submits (CUBE_ESTATE) and waits until every
 * function it submitted has returned. Called by the loader after the
 * plugin's stop and before its fini (host.c). */
void cube_host_tasks_drain(struct cube_plugin *self);

/* -- slots (plugins/host_table.c) --------------------------------------- */

/* host.c: ABI 1.0 */
const char *cube_slot_host_version(void);
void cube_slot_free(void *p);
void cube_slot_log(cube_plugin *self, int level, const char *fmt, ...);
void cube_slot_logv(cube_plugin *self, int level, const char *fmt, va_list ap);
int cube_slot_log_enabled(cube_plugin *self, int level);
void cube_slot_set_error(cube_plugin *self, const char *fmt, ...);
/* since 1.5: one allocator and one error channel (host.c) */
void *cube_slot_alloc(size_t size);
void cube_slot_set_error_field(cube_plugin *self, const char *field, const char *fmt, ...);
void cube_slot_retry_after(cube_plugin *self, unsigned ms);
char *cube_slot_config_json(cube_plugin *self);
const char *cube_slot_config_string(cube_plugin *self, const char *path,
                                    const char *def);
int64_t cube_slot_config_int(cube_plugin *self, const char *path, int64_t def);
double cube_slot_config_double(cube_plugin *self, const char *path, double def);
int cube_slot_config_bool(cube_plugin *self, const char *path, int def);
const char *cube_slot_data_dir(cube_plugin *self);
int cube_slot_register_route(cube_plugin *self,
                             const struct cube_route_desc *desc);
const char *cube_slot_req_param(cube_req *r, const char *name);
const char *cube_slot_req_query(cube_req *r, const char *name);
const char *cube_slot_req_header(cube_req *r, const char *name);
const char *cube_slot_req_body(cube_req *r, size_t *len);
int cube_slot_resp_json(cube_req *r, int status, const char *json);
int cube_slot_resp_text(cube_req *r, int status, const char *ctype, const char *text);
int cube_slot_resp_bytes(cube_req *r, int status, const char *ctype,
                         const void *data, size_t len);
int cube_slot_resp_error(cube_req *r, int status, const char *code, const char *msg);
cube_timer *cube_slot_timer_add(cube_plugin *self, uint64_t delay_ms,
                                uint64_t interval_ms, cube_task_fn fn, void *arg);
void cube_slot_timer_cancel(cube_plugin *self, cube_timer *t);
int cube_slot_submit(cube_plugin *self, cube_task_fn fn, void *arg);
cube_metric *cube_slot_metric_register(cube_plugin *self,
                                       const struct cube_metric_desc *desc);
const char *cube_slot_req_method(cube_req *r);
const char *cube_slot_req_path(cube_req *r);
const char *cube_slot_req_client_addr(cube_req *r);
const char *cube_slot_req_id(cube_req *r);
/* host_objects.c: ABI 1.1 */
int cube_slot_register_kind(cube_plugin *self, const struct cube_kind_desc *desc);
int cube_slot_register_action(cube_plugin *self, const struct cube_action_desc *desc);
char *cube_slot_obj_get(cube_plugin *self, const char *kind, const char *project,
                        const char *name, int *rc);
char *cube_slot_obj_list(cube_plugin *self, const char *kind, const char *project,
                         const char *selector, int *rc);
char *cube_slot_obj_create(cube_plugin *self, const char *json, int *rc);
char *cube_slot_obj_update(cube_plugin *self, const char *json, int *rc);
char *cube_slot_obj_update_status(cube_plugin *self, const char *kind, const char *project,
                                  const char *name, const char *status_json,
                                  const char *resource_version, int *rc);
int cube_slot_obj_delete(cube_plugin *self, const char *kind, const char *project,
                         const char *name);
int cube_slot_obj_event(cube_plugin *self, const char *kind, const char *project,
                        const char *name, const char *type, const char *reason,
                        const char *message);
int cube_slot_log_append(cube_plugin *self, const char *kind, const char *project,
                         const char *name, const char *stream, const void *data, size_t len);
char *cube_slot_log_read(cube_plugin *self, const char *kind, const char *project,
                         const char *name, const char *stream, uint64_t offset, size_t max,
                         size_t *len, int *rc);
int cube_slot_resp_log(cube_req *req, const char *kind, const char *project,
                       const char *name, const char *stream, uint64_t offset, int follow);
int cube_slot_log_close(cube_plugin *self, const char *kind, const char *project,
                        const char *name, const char *stream);
int cube_slot_file_write(cube_plugin *self, const char *project, const char *path,
                         const void *data, size_t len);
char *cube_slot_file_read(cube_plugin *self, const char *project, const char *path,
                          size_t *len, int *rc);
int cube_slot_file_delete(cube_plugin *self, const char *project, const char *path);
char *cube_slot_file_list(cube_plugin *self, const char *project, const char *dir, int *rc);
/* ui_ext.c: ABI 1.4 */
int cube_slot_register_ui(cube_plugin *self, const struct cube_ui_desc *desc);
/* host_watch.c: ABI 1.5 */
cube_watch *cube_slot_watch(cube_plugin *self, const struct cube_watch_desc *desc, int *rc);
void cube_slot_watch_cancel(cube_plugin *self, cube_watch *watch);
/* Cancels every watch the plugin left open (after its stop). */
void cube_host_watch_cancel_all(cube_plugin *self);
/* host_objects.c: ABI 1.5 */
char *cube_slot_obj_list_page(cube_plugin *self, const char *kind, const char *project,
                              const char *selector, unsigned limit, const char *cont,
                              int *rc);
/* host_owner.c: ABI 1.5 */
char *cube_slot_obj_create_for(cube_plugin *self, cube_req *req, const char *object_json,
                               int *rc);
/* host_kv.c: ABI 1.5, plugins' key-value store and secrets */
int cube_slot_kv_put(cube_plugin *self, const char *key, const void *value, size_t len);
char *cube_slot_kv_get(cube_plugin *self, const char *key, size_t *len, int *rc);
int cube_slot_kv_delete(cube_plugin *self, const char *key);
char *cube_slot_kv_list(cube_plugin *self, const char *prefix, int *rc);
int cube_slot_secret_put(cube_plugin *self, const char *name, const void *value, size_t len);
char *cube_slot_secret_get(cube_plugin *self, const char *name, size_t *len, int *rc);
int cube_slot_secret_delete(cube_plugin *self, const char *name);
char *cube_slot_secret_list(cube_plugin *self, const char *prefix, int *rc);
/* plugin_api.c: ABI 1.5, APIs plugins share */
int cube_slot_api_export(cube_plugin *self, const char *name, uint32_t version,
                         const void *table);
const void *cube_slot_api_get(cube_plugin *self, const char *name, uint32_t min_version,
                              uint32_t *version, int *rc);
/* host_objects.c: ABI 1.5, log resume */
int cube_slot_log_stat(cube_plugin *self, const char *kind, const char *project,
                       const char *name, const char *stream, uint64_t *size, int *closed);
int cube_slot_log_append_at(cube_plugin *self, const char *kind, const char *project,
                            const char *name, const char *stream, uint64_t offset,
                            const void *data, size_t len);

/* -- shared APIs' lifetime (plugin_api.c), driven by the loader --------- */

struct cube_ctx;
/* Makes the APIs p exported during its init visible (its init succeeded). */
void cube_plugin_apis_commit(struct cube_ctx *ctx, struct cube_plugin *p);
/* Forgets p's exports (its init failed, or its fini is next). */
void cube_plugin_apis_drop(struct cube_ctx *ctx, struct cube_plugin *p);
/* Forgets every export (the context goes). */
void cube_plugin_apis_free(struct cube_ctx *ctx);

#endif
