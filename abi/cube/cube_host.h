/*
 * cube_host.h — the host function table handed to a plugin's init.
 *
 * Part of the Cube plugin ABI. The table is append-only: slots are never
 * reordered, removed or given new signatures (a changed behaviour gets a new
 * slot, `foo2`). Slots are grouped by the minor version that added them.
 * Every slot up to the minor a plugin declares (its descriptor's abi_minor)
 * is present and non-NULL, so it is called without a check; see "Versions"
 * in cube_plugin.h, the one rule for which slots a plugin may rely on.
 *
 * Ownership, in one rule: strings and buffers a plugin passes in are
 * borrowed for the duration of the call (the host copies what it keeps);
 * `char *` values the host returns are owned by the plugin and released with
 * host->free; `const char *` values the host returns are borrowed, with the
 * lifetime stated on the slot.
 *
 * Threads: every slot may be called from any thread unless it says
 * otherwise. "init only" slots may be called only during the plugin's init.
 */
#ifndef CUBE_HOST_H
#define CUBE_HOST_H

#include <stdarg.h>

#include "cube_auth.h"
#include "cube_fetch.h"
#include "cube_http.h"
#include "cube_kind.h"
#include "cube_metrics.h"
#include "cube_plugin.h"
#include "cube_sched.h"
#include "cube_proxy.h"
#include "cube_ui.h"
#include "cube_watch.h"

#ifdef __cplusplus
extern "C" {
#endif

/** True when the host table has slot `field` (it was added at or before the
 *  host's minor version). Needed only for slots newer than the plugin's
 *  declared CUBE_PLUGIN_MIN_MINOR (see "Versions" in cube_plugin.h):
 *
 *      #define CUBE_PLUGIN_MIN_MINOR 4      // runs on 1.4 hosts too
 *      #include <cube/cube.h>
 *      ...
 *      if (CUBE_HOST_HAS(host, obj_create_for))   // a 1.5 slot
 *          obj = host->obj_create_for(self, req, json, &rc);
 */
#define CUBE_HOST_HAS(host, field)                                  \
    ((host)->size >= offsetof(struct cube_host, field) + sizeof((host)->field) \
     && (host)->field != NULL)

/** Limits of the 1.5 key-value store and secrets (see kv_put, secret_put)
 *  and of shared API names (api_export). Since 1.5. */
#define CUBE_KV_KEY_MAX 256
#define CUBE_KV_VALUE_MAX 49152
#define CUBE_SECRET_VALUE_MAX 8192
#define CUBE_API_NAME_MAX 64

/** A timer or background-work callback. Runs on a host worker thread. */
typedef void (*cube_task_fn)(void *state, void *arg);

/** The host function table. */
struct cube_host {
    /* ---------------------------------------------------------------- */
    /* since 1.0                                                         */
    /* ---------------------------------------------------------------- */

    /** sizeof(struct cube_host) as the host was compiled. */
    size_t size;
    /** The host's ABI version (major, minor). */
    uint16_t abi_major;
    uint16_t abi_minor;

    /** The host's release version, e.g. "0.1.0". Static; never freed. */
    const char *(*host_version)(void);

    /** Releases any `char *` the host returned to the plugin. NULL is fine. */
    void (*free)(void *ptr);

    /* -- logging ------------------------------------------------------ */

    /** Writes one log line at `level`, prefixed with the plugin's name.
     *  Lines below the configured level are dropped cheaply. */
    void (*log)(cube_plugin *self, int level, const char *fmt, ...)
        CUBE_PRINTF(3, 4);
    /** As log, with a va_list. */
    void (*logv)(cube_plugin *self, int level, const char *fmt, va_list ap)
        CUBE_PRINTF(3, 0);
    /** Nonzero when a line at `level` would be written. */
    int (*log_enabled)(cube_plugin *self, int level);
    /** Sets the message explaining the error the plugin is about to return
     *  from init or start; the host prints it with the plugin's name.
     *  Since 1.5 it is also the error channel of the callbacks the host
     *  calls (see "one allocator and one error channel" below): called
     *  from inside one, it explains that callback's error. */
    void (*set_error)(cube_plugin *self, const char *fmt, ...)
        CUBE_PRINTF(2, 3);

    /* -- configuration ------------------------------------------------ */

    /** The plugin's validated `config:` section (defaults applied) as JSON
     *  text; "{}" when empty. Returns a new string: release with free. */
    char *(*config_json)(cube_plugin *self);
    /** Typed getters. `path` names a key, dotted for nested objects
     *  ("storage.max_mb"). Return `def` when the key is absent or has
     *  another type. config_string's result is borrowed and valid until
     *  fini returns. */
    const char *(*config_string)(cube_plugin *self, const char *path,
                                 const char *def);
    int64_t (*config_int)(cube_plugin *self, const char *path, int64_t def);
    double (*config_double)(cube_plugin *self, const char *path, double def);
    int (*config_bool)(cube_plugin *self, const char *path, int def);

    /** The plugin's private directory, `<data dir>/plugins/<name>`, created
     *  before init (mode 0700). Borrowed; valid until fini returns. */
    const char *(*data_dir)(cube_plugin *self);

    /* -- HTTP routes (init only) -------------------------------------- */

    /** Registers a route. Returns CUBE_OK, CUBE_EINVAL (bad field: see the
     *  log), CUBE_EEXIST (same method and path already registered) or
     *  CUBE_ESTATE (called after init). */
    int (*register_route)(cube_plugin *self, const struct cube_route_desc *desc);

    /* -- request accessors (borrowed; valid during the handler) -------- */

    const char *(*req_method)(cube_req *req);
    /** The decoded path, without the query string. */
    const char *(*req_path)(cube_req *req);
    /** A `{param}` of the route's path template (URL-decoded), or NULL. */
    const char *(*req_param)(cube_req *req, const char *name);
    /** A query-string argument (URL-decoded), or NULL. A key present
     *  without a value gives "". */
    const char *(*req_query)(cube_req *req, const char *name);
    /** A request header (case-insensitive name), or NULL. */
    const char *(*req_header)(cube_req *req, const char *name);
    /** The request body and its length (not NUL-terminated in general,
     *  though the host adds a NUL after it). Never NULL: "" when empty. */
    const char *(*req_body)(cube_req *req, size_t *len);
    /** The client's address as text ("127.0.0.1", "::1"). */
    const char *(*req_client_addr)(cube_req *req);
    /** The request id (X-Request-Id, received or generated). */
    const char *(*req_id)(cube_req *req);

    /* -- responses: exactly one resp_* answer per request -------------- */

    /** Adds a response header. Call before the answering resp_* call.
     *  Returns CUBE_EINVAL for names or values with CR/LF. */
    int (*resp_header)(cube_req *req, const char *name, const char *value);
    /** Answers with a JSON body (copied). Compressed when large and the
     *  client accepts gzip. */
    int (*resp_json)(cube_req *req, int status, const char *json);
    /** Answers with a text body of the given content type (copied);
     *  content_type NULL means "text/plain; charset=utf-8". */
    int (*resp_text)(cube_req *req, int status, const char *content_type,
                     const char *text);
    /** Answers with `len` bytes (copied). */
    int (*resp_bytes)(cube_req *req, int status, const char *content_type,
                      const void *data, size_t len);
    /** Answers with the standard JSON error body
     *  {"error":{"code":code,"message":message}}; code is a CamelCase word
     *  such as "BadRequest". */
    int (*resp_error)(cube_req *req, int status, const char *code,
                      const char *message);
    /** Answers with a streaming body (see struct cube_stream_desc). On
     *  success *stream (when not NULL) receives the handle for stream_wake.
     *  On failure close is not called and the plugin keeps cls. */
    int (*resp_stream)(cube_req *req, int status, const char *content_type,
                       const struct cube_stream_desc *desc, cube_stream **stream);
    /** Asks the host to call the stream's read again soon. Safe from any
     *  thread until the stream's close callback has returned. */
    void (*stream_wake)(cube_stream *stream);

    /* -- timers and background work ----------------------------------- */

    /** Runs fn(state, arg) on a host worker thread after `delay_ms`, then
     *  every `interval_ms` (0: once). `state` is the plugin's state at the
     *  time of this call (see cube_plugin_desc.init). Returns the timer, or
     *  NULL on error. A repeating run never overlaps itself. */
    cube_timer *(*timer_add)(cube_plugin *self, uint64_t delay_ms,
                             uint64_t interval_ms, cube_task_fn fn, void *arg);
    /** Cancels a timer; waits for a running callback to finish unless
     *  called from that callback. NULL is fine. */
    void (*timer_cancel)(cube_plugin *self, cube_timer *timer);
    /** Runs fn(state, arg) once on a host worker thread, soon (`state` as
     *  for timer_add). Returns
     *  CUBE_OK or CUBE_ESTATE during shutdown (fn is then not called). */
    int (*submit)(cube_plugin *self, cube_task_fn fn, void *arg);

    /* -- metrics ------------------------------------------------------ */

    /** Registers a metric shown at GET /metrics. Returns the handle or NULL
     *  (bad field or duplicate name; the reason is logged). */
    cube_metric *(*metric_register)(cube_plugin *self,
                                    const struct cube_metric_desc *desc);
    /** Adds v to a counter (v >= 0) or gauge. `label_values` has exactly
     *  label_count entries (NULL when 0). */
    void (*metric_add)(cube_metric *m, const char *const *label_values, double v);
    /** Sets a gauge. */
    void (*metric_set)(cube_metric *m, const char *const *label_values, double v);
    /** Records one observation in a histogram. */
    void (*metric_observe)(cube_metric *m, const char *const *label_values,
                           double v);

    /* ---------------------------------------------------------------- */
    /* since 1.1: resources, their events, logs and project files         */
    /* ---------------------------------------------------------------- */

    /** Registers a kind (init only). Returns CUBE_OK, CUBE_EINVAL (a bad
     *  field or schema: the log names it), CUBE_EEXIST (kind or plural
     *  taken) or CUBE_ESTATE (after init). */
    int (*register_kind)(cube_plugin *self, const struct cube_kind_desc *desc);
    /** Registers a sub-resource action of a kind (init only; the kind may
     *  be registered later by another plugin). Same codes as
     *  register_route. */
    int (*register_action)(cube_plugin *self,
                           const struct cube_action_desc *desc);

    /* Object access for plugins. project is NULL for cluster kinds. Each
     * returns a new JSON string (release with free) or NULL with *rc set
     * (CUBE_ENOTFOUND, CUBE_EINVAL with the reason logged, CUBE_ECONFLICT,
     * CUBE_EEXIST, CUBE_EUNAVAIL); *rc is CUBE_OK on success. Writes are
     * validated like API requests and audited as done by "plugin:<name>". */

    /** One object. */
    char *(*obj_get)(cube_plugin *self, const char *kind, const char *project,
                     const char *name, int *rc);
    /** {"kind":"<Kind>List","items":[...]} of a project filtered by a
     *  label selector (NULL: all), every page joined (see obj_list_page
     *  for large lists). project NULL: for a project kind, every project
     *  (since 1.5; before, hosts differed); for a cluster kind project is
     *  ignored and the list is the cluster's. */
    char *(*obj_list)(cube_plugin *self, const char *kind, const char *project,
                      const char *label_selector, int *rc);
    /** Creates the object given as JSON (kind, metadata.name and, for
     *  project kinds, metadata.project required); returns it as stored.
     *  Since 1.5 the new object's metadata.owner (whom its Jobs run as) is
     *  the owner of the object its controller ownerReference names (same
     *  project; same uid when the reference has one), else the plugin
     *  ("plugin:<name>", whose Jobs never start). For work a user asks for
     *  in a request, use obj_create_for. See "Whom a Job runs as" in
     *  cube_sched.h. */
    char *(*obj_create)(cube_plugin *self, const char *object_json, int *rc);
    /** Replaces metadata (labels, annotations, ownerReferences) and spec of
     *  an existing object; metadata.resourceVersion, when present, must
     *  match (else CUBE_ECONFLICT). Status is kept. */
    char *(*obj_update)(cube_plugin *self, const char *object_json, int *rc);
    /** Replaces the status of an object (controllers). resource_version NULL
     *  writes whatever the current version is. */
    char *(*obj_update_status)(cube_plugin *self, const char *kind,
                               const char *project, const char *name,
                               const char *status_json,
                               const char *resource_version, int *rc);
    /** Deletes an object (and, through ownerReferences, what it owns).
     *  Returns CUBE_OK, CUBE_ENOTFOUND or another error. */
    int (*obj_delete)(cube_plugin *self, const char *kind, const char *project,
                      const char *name);
    /** Records an event about an object: type "Normal" or "Warning", a
     *  CamelCase reason ("Started") and a message. */
    int (*obj_event)(cube_plugin *self, const char *kind, const char *project,
                     const char *name, const char *type, const char *reason,
                     const char *message);

    /* Log streams: append-only text per object and stream name (e.g.
     * "replica-0"), kept under the data dir. */

    /** Appends bytes to a log stream (created on first append); wakes
     *  followers. CUBE_ETOOBIG (nothing appended) when the stream would
     *  pass the host's per-stream cap, a fixed 1 GiB in this release (no
     *  setting changes it). */
    int (*log_append)(cube_plugin *self, const char *kind, const char *project,
                      const char *name, const char *stream, const void *data,
                      size_t len);
    /** Reads up to max bytes from offset; *len gets the count. Returns a
     *  new buffer (free) or NULL with *rc (CUBE_ENOTFOUND: no such log). */
    char *(*log_read)(cube_plugin *self, const char *kind, const char *project,
                      const char *name, const char *stream, uint64_t offset,
                      size_t max, size_t *len, int *rc);
    /** Answers a request with a log stream from offset, as text/plain;
     *  with follow, keeps the response open and sends appended bytes until
     *  log_close is called for it or the client leaves. */
    int (*resp_log)(cube_req *req, const char *kind, const char *project,
                    const char *name, const char *stream, uint64_t offset,
                    int follow);
    /** Marks a log stream finished: followers get the rest and the end. */
    int (*log_close)(cube_plugin *self, const char *kind, const char *project,
                     const char *name, const char *stream);

    /* Project files: under <data dir>/projects/<project>/, paths relative
     * to it, "/"-separated, without "..", "." or empty segments. A file is
     * at most the host's fixed cap, 256 MiB in this release (no setting
     * changes it): file_write of more, or file_read of a larger file, is
     * CUBE_ETOOBIG. */

    /** Writes (replaces) a file, creating parent directories. */
    int (*file_write)(cube_plugin *self, const char *project, const char *path,
                      const void *data, size_t len);
    /** Reads a whole file: a new buffer (free) with *len, or NULL + *rc. */
    char *(*file_read)(cube_plugin *self, const char *project, const char *path,
                       size_t *len, int *rc);
    /** Deletes a file. */
    int (*file_delete)(cube_plugin *self, const char *project,
                       const char *path);
    /** Lists a directory as JSON [{"name","size","dir"}] (free), or NULL. */
    char *(*file_list)(cube_plugin *self, const char *project, const char *dir,
                       int *rc);

    /* ---------------------------------------------------------------- */
    /* since 1.2: users, login methods and job credentials                */
    /* ---------------------------------------------------------------- */

    /** Registers a login method (init only). Returns CUBE_OK, CUBE_EINVAL
     *  (a bad field: the log names it), CUBE_EEXIST (name taken) or
     *  CUBE_ESTATE (after init). */
    int (*register_auth_provider)(cube_plugin *self,
                                  const struct cube_auth_desc *desc);
    /** For CUBE_AUTH_REDIRECT providers, from their callback route once the
     *  identity is verified: creates or updates the user from
     *  identity_json (see cube_auth.h), starts a session and answers the
     *  request with 303 See Other to `next` (a path on this server starting
     *  with a single "/"; anything else, or NULL, means "/") carrying the
     *  session cookie. `provider` is the registered name. When the identity
     *  is refused (malformed, disabled user) it answers 401 or 403 itself.
     *  Returns CUBE_OK when it answered, CUBE_EINVAL otherwise. */
    int (*auth_complete)(cube_req *req, const char *provider,
                         const char *identity_json, const char *next);
    /** The signed-in user making the request, or NULL when anonymous.
     *  Borrowed; valid during the handler. */
    const char *(*req_user)(cube_req *req);
    /** The caller's role in `project`: "admin" (a platform administrator),
     *  "creator", "ops", "dev", "viewer", or NULL when not a member.
     *  Static string. */
    const char *(*req_project_role)(cube_req *req, const char *project);
    /** Issues an API token acting as `user`, valid for ttl_seconds (1 ..
     *  604800), for work Cube starts on the user's behalf (a job's
     *  CUBE_TOKEN). `purpose` is recorded as the token's name. Returns the
     *  token (release with free; show it only to that work) or NULL with
     *  *rc: CUBE_ENOTFOUND (no such user), CUBE_EPERM (user disabled),
     *  CUBE_EINVAL, CUBE_EUNAVAIL. */
    char *(*token_issue)(cube_plugin *self, const char *user,
                         unsigned ttl_seconds, const char *purpose, int *rc);

    /* ---------------------------------------------------------------- */
    /* since 1.3: executors, nodes and accelerators                       */
    /* ---------------------------------------------------------------- */

    /** Registers an executor (init only). A plugin registers at most one.
     *  CUBE_OK, CUBE_EINVAL (bad field, logged), CUBE_EEXIST, CUBE_ESTATE. */
    int (*register_executor)(cube_plugin *self,
                             const struct cube_executor_desc *desc);
    /** Registers an accelerator vendor (init only). Same codes; a
     *  resource has one vendor. */
    int (*register_accel)(cube_plugin *self, const struct cube_accel_desc *desc);
    /** Adds or replaces a node of the caller's executor (see cube_sched.h);
     *  call it again whenever capacity, labels or device health change.
     *  CUBE_EINVAL (bad document, logged), CUBE_ESTATE (no executor). */
    int (*node_set)(cube_plugin *self, const char *node_json);
    /** Removes one of the caller's nodes; the replicas placed on it are
     *  recorded as Lost. CUBE_ENOTFOUND when it has no such node. */
    int (*node_remove)(cube_plugin *self, const char *name);
    /** Reports that a replica the caller started has ended: its exit code
     *  (-1 when killed by a signal or unknown) and why (CUBE_EXIT_*),
     *  with a message for the Job's status. Any thread. CUBE_ENOTFOUND for
     *  an unknown engine id. */
    int (*replica_exited)(cube_plugin *self, const char *engine_id,
                          int exit_code, const char *reason,
                          const char *message);
    /** The devices of this machine, from every accelerator plugin: a JSON
     *  array of device documents with "resource" filled in (release with
     *  free), or NULL with *rc. */
    char *(*local_devices)(cube_plugin *self, int *rc);

    /* ---------------------------------------------------------------- */
    /* since 1.4: reverse proxy and console pages                         */
    /* ---------------------------------------------------------------- */

    /** Registers a reverse-proxied prefix (see cube_proxy.h); init only.
     *  CUBE_OK, CUBE_EINVAL (bad field, logged), CUBE_EEXIST (prefix taken
     *  or overlapping a route), CUBE_ESTATE (after init). */
    int (*register_proxy)(cube_plugin *self, const struct cube_proxy_desc *desc);
    /** Registers a console menu entry and optional page (see cube_ui.h);
     *  init only. Same codes; CUBE_EEXIST when the plugin already has
     *  that id. */
    int (*register_ui)(cube_plugin *self, const struct cube_ui_desc *desc);

    /* ---------------------------------------------------------------- */
    /* since 1.5: objects created on a user's behalf                      */
    /* ---------------------------------------------------------------- */

    /** As obj_create, for the signed-in caller of `req`, a request the
     *  plugin is handling (a route or action handler, before it answers):
     *  the new object's metadata.owner is that user, who must be allowed
     *  to create objects of the kind in its project (project:edit; cluster
     *  kinds: a platform administrator); the audit names the plugin and
     *  the user. This is how a plugin makes objects a user asked for
     *  (an imported pipeline, a run started by a button) that are the
     *  user's to edit and whose Jobs run as the user; the plugin remains
     *  their controller. Returns the object as stored (release with free)
     *  or NULL with *rc: as obj_create, plus CUBE_EPERM (anonymous caller
     *  or not allowed; nothing is written). Thread: the request's. May
     *  block on the store. */
    char *(*obj_create_for)(cube_plugin *self, cube_req *req,
                            const char *object_json, int *rc);

    /* ---------------------------------------------------------------- */
    /* since 1.5: watches and paged lists                                 */
    /* ---------------------------------------------------------------- */

    /** Subscribes to changes of a kind's objects, or to Events (kind
     *  CUBE_WATCH_EVENTS), as `desc` says (see cube_watch.h: filters,
     *  resume point, the callback's thread and order). The host copies
     *  desc. Returns the watch, or NULL with *rc: CUBE_EINVAL (unknown
     *  kind, bad selector or resourceVersion, no fn; logged), CUBE_ENOMEM,
     *  CUBE_ESTATE (during shutdown). A resume point older than the host's
     *  history still returns a watch, whose one callback is ERROR. Any
     *  thread; does not block. The host cancels what is left after the
     *  plugin's stop returns. */
    cube_watch *(*watch)(cube_plugin *self, const struct cube_watch_desc *desc,
                         int *rc);
    /** Ends a watch and frees it. Once it returns no callback of the watch
     *  runs or will run: it waits for a callback running on another
     *  thread; called from inside the watch's own callback it returns at
     *  once and no further callback runs. Do not cancel from one watch's
     *  callback a watch whose callback may be cancelling the first. NULL
     *  is fine; the handle is invalid afterwards. May block (as said). */
    void (*watch_cancel)(cube_plugin *self, cube_watch *watch);
    /** One page of a list: {"apiVersion":"cube/v1","kind":"<Kind>List",
     *  "metadata":{"resourceVersion":"N","continue":"..."},"items":[...]}
     *  in (project, name) order, at most `limit` items (0: 500; more than
     *  5000 is CUBE_EINVAL). `continue_token` NULL or "" starts; else the
     *  previous page's metadata.continue (opaque; the same tokens as the
     *  API's ?continue=). metadata.continue is absent on the last page.
     *  Paging is by key, so an object that exists from the first page to
     *  the last is returned exactly once even while writes go on; objects
     *  created or deleted meanwhile may or may not appear. Watch from the
     *  first page's resourceVersion to see every change after it.
     *  project: as obj_list (NULL: every project; ignored for cluster
     *  kinds). Returns a new string (release with free) or NULL with *rc:
     *  CUBE_EINVAL (unknown kind, bad selector, limit or token; logged),
     *  CUBE_EUNAVAIL, CUBE_EIO. Any thread; blocks on the store. */
    char *(*obj_list_page)(cube_plugin *self, const char *kind, const char *project,
                           const char *label_selector, unsigned limit,
                           const char *continue_token, int *rc);

    /* ---------------------------------------------------------------- */
    /* since 1.5: plugin state, secrets, shared APIs and log resume       */
    /* ---------------------------------------------------------------- */

    /* A key-value store per plugin, in cubed's database (SQLite or
     * PostgreSQL), durable across restarts. Each plugin has a namespace of
     * its own: no slot reads or writes another plugin's keys, and nothing
     * here shows in objects, events or the audit. Keys are 1 ..
     * CUBE_KV_KEY_MAX bytes of visible ASCII ('!' .. '~': no space, no
     * control byte; CUBE_EINVAL otherwise); values are bytes, 0 ..
     * CUBE_KV_VALUE_MAX of them (CUBE_ETOOBIG past it). Every kv_* and
     * secret_* slot may block on the database (do not call it from a
     * stream's read callback); any thread; CUBE_EUNAVAIL when the database
     * is unreachable. Since 1.5. */

    /** Writes (creates or replaces) key. value (len bytes, NULL when len
     *  is 0) is copied. CUBE_OK, CUBE_EINVAL, CUBE_ETOOBIG, CUBE_EUNAVAIL. */
    int (*kv_put)(cube_plugin *self, const char *key, const void *value,
                  size_t len);
    /** Reads key: a new buffer of *len bytes with a NUL after them
     *  (release with free), or NULL with *rc (CUBE_ENOTFOUND, CUBE_EINVAL,
     *  CUBE_EUNAVAIL). */
    char *(*kv_get)(cube_plugin *self, const char *key, size_t *len, int *rc);
    /** Removes key. CUBE_OK, CUBE_ENOTFOUND, CUBE_EINVAL, CUBE_EUNAVAIL. */
    int (*kv_delete)(cube_plugin *self, const char *key);
    /** The plugin's keys starting with prefix (NULL or "": every key) as a
     *  JSON array of strings in byte order (release with free), or NULL
     *  with *rc. All of them in one answer (no paging in this release). */
    char *(*kv_list)(cube_plugin *self, const char *prefix, int *rc);

    /* Secrets: as the key-value store (a namespace of their own, names as
     * keys), for credentials. A value is encrypted before it reaches the
     * database (AES-256-GCM with the platform key, a random nonce per
     * value, the plugin's name and the secret's name bound in as
     * associated data, so a value copied to another name or plugin does
     * not open). The platform key is the file `secret_key_file` of
     * cube.yaml (see README); a database copied without it reveals no
     * value. The host never logs a value, never puts one in an error or
     * the audit, and zeroes its own copies after use; the plugin should
     * zero what secret_get returned before it frees it. Values are 1 ..
     * CUBE_SECRET_VALUE_MAX bytes. A value that does not decrypt (another
     * platform key, a damaged row) gives CUBE_EIO, logged without the
     * value. Since 1.5. */

    /** Writes (creates or replaces) the secret `name`; value is copied. */
    int (*secret_put)(cube_plugin *self, const char *name, const void *value,
                      size_t len);
    /** Reads a secret: a new buffer of *len bytes with a NUL after them
     *  (zero it, then free), or NULL with *rc (CUBE_ENOTFOUND, CUBE_EIO,
     *  CUBE_EINVAL, CUBE_EUNAVAIL). */
    char *(*secret_get)(cube_plugin *self, const char *name, size_t *len,
                        int *rc);
    /** Removes a secret. CUBE_OK, CUBE_ENOTFOUND, CUBE_EINVAL, CUBE_EUNAVAIL. */
    int (*secret_delete)(cube_plugin *self, const char *name);
    /** The names of the plugin's secrets starting with prefix (NULL: all),
     *  as kv_list; never their values. */
    char *(*secret_list)(cube_plugin *self, const char *prefix, int *rc);

    /* APIs plugins share, by name and version (as Redis modules share
     * APIs): a table of function pointers (any struct the two plugins
     * agree on, by a header the exporter ships) that one plugin exports
     * and others use. Names are 1 .. CUBE_API_NAME_MAX bytes of
     * [a-z0-9._-], unique across the process. Since 1.5. */

    /** Exports `table` as API `name` at `version` (>= 1; raise it when
     *  the table grows, append-only like this one). Init only
     *  (CUBE_ESTATE after). The API becomes visible to others only once
     *  the exporter's init has succeeded (a failed init exports nothing).
     *  `table` is borrowed: it must stay valid and unchanged until the
     *  exporter's fini, which the host calls after the fini of every
     *  plugin that requires the exporter. CUBE_OK, CUBE_EINVAL (bad name
     *  or version, NULL table), CUBE_EEXIST (name taken). */
    int (*api_export)(cube_plugin *self, const char *name, uint32_t version,
                      const void *table);
    /** The table of API `name` when its version is at least min_version;
     *  *version (may be NULL) gets the exported version (a newer table
     *  starts with the fields of the older ones). NULL with *rc:
     *  CUBE_ENOTFOUND (no such API, or its exporter's init has not
     *  succeeded), CUBE_EVERSION (older than min_version), CUBE_EPERM (the
     *  exporter is not named in the caller's descriptor `dependencies`: only
     *  that guarantees the exporter's init ran first and its fini runs
     *  after the caller's). Borrowed until the caller's fini returns. Any
     *  thread, from init on; does not block. */
    const void *(*api_get)(cube_plugin *self, const char *name,
                           uint32_t min_version, uint32_t *version, int *rc);

    /* Log resume, for an executor that re-adopts replicas after a restart
     * and must go on shipping their output where the log stream ends. A
     * stream's size and closed state survive restarts. Since 1.5. */

    /** The stream's size in bytes (*size) and whether it is closed
     *  (*closed: 1 closed, 0 open; either pointer may be NULL). A stream
     *  closed without a byte has size 0 and is closed. CUBE_OK,
     *  CUBE_ENOTFOUND (never appended to nor closed), CUBE_EINVAL. Any
     *  thread; does not block on the network. */
    int (*log_stat)(cube_plugin *self, const char *kind, const char *project,
                    const char *name, const char *stream, uint64_t *size,
                    int *closed);
    /** Appends data as the bytes that start at `offset` of the stream:
     *  the idempotent resume rule. Bytes before the stream's current size
     *  are taken as already shipped and skipped (not compared); the rest
     *  is appended. So two shippers, or one that repeats itself after a
     *  restart, never duplicate output. CUBE_OK (also when every byte was
     *  already there), CUBE_ECONFLICT (offset is past the stream's size: a
     *  gap; nothing appended), CUBE_ESTATE (the stream is closed and data
     *  has bytes past its end; nothing appended), CUBE_ETOOBIG and the
     *  other codes of log_append. Wakes followers when it appends. */
    int (*log_append_at)(cube_plugin *self, const char *kind,
                         const char *project, const char *name,
                         const char *stream, uint64_t offset,
                         const void *data, size_t len);

    /* ---------------------------------------------------------------- */
    /* since 1.5: outbound HTTP (see cube_fetch.h)                        */
    /* ---------------------------------------------------------------- */

    /** Starts fetching desc->url (see struct cube_fetch_desc) and returns
     *  at once with the fetch's id: never 0, never reused while cubed
     *  runs. Returns 0 with *rc set when nothing started: CUBE_EINVAL (a
     *  bad field or URL, logged), CUBE_ENOMEM, CUBE_ESTATE (shutting down);
     *  every other outcome, an egress refusal included, comes through done.
     *  Callbacks run on host worker threads (the pool behind submit), one
     *  at a time per fetch and in order, never inside this call; the
     *  network waits on one host thread that runs no plugin code, so no
     *  worker is held while a fetch waits. Any thread; does not block on
     *  the network. The host cancels a plugin's outstanding fetches after
     *  its stop returns. */
    uint64_t (*fetch)(cube_plugin *self, const struct cube_fetch_desc *desc,
                      int *rc);
    /** Cancels a fetch of this plugin. After it returns no callback of the
     *  fetch runs (one running on another thread is waited for, so do not
     *  hold a lock your callbacks take); from inside one of the fetch's own
     *  callbacks it returns at once and no further callback runs. Returns
     *  CUBE_OK when the fetch was still outstanding (done will not be
     *  called), CUBE_ENOTFOUND when it had finished (done ran), was never
     *  this plugin's, or id is 0. Any thread. */
    int (*fetch_cancel)(cube_plugin *self, uint64_t id);

    /* ---------------------------------------------------------------- */
    /* since 1.5: executors that place work themselves                    */
    /* ---------------------------------------------------------------- */

    /** For an executor registered with CUBE_EXECUTOR_ENGINE_QUEUE (see
     *  cube_sched.h): where the engine has a replica the caller started.
     *  `phase` is "Pending" (waiting in the engine's queue) or "Running"
     *  (it runs now; a replica may go back to Pending when the engine
     *  requeues it). `node` is the node the engine placed it on, one the
     *  caller advertised with node_set (NULL or "": unchanged); `message` says why it waits or where it runs, for
     *  the Job's status (NULL or "": cleared; at most 255 bytes kept).
     *  The Job becomes Running once every replica is; a replica's end is
     *  still reported with replica_exited (from Pending too). A report
     *  for an engine id whose start has not returned yet is kept and
     *  applied when it does. Strings are borrowed for the call. Returns
     *  CUBE_OK, CUBE_EINVAL (engine_id NULL, another phase, or a node not
     *  the caller's), CUBE_ESTATE
     *  (the caller has no executor with CUBE_EXECUTOR_ENGINE_QUEUE) or
     *  CUBE_EUNAVAIL (the status could not be written; report again).
     *  Any thread; may block on the store. */
    int (*replica_status)(cube_plugin *self, const char *engine_id,
                          const char *phase, const char *node,
                          const char *message);

    /* ---------------------------------------------------------------- */
    /* since 1.5: Job metrics                                             */
    /* ---------------------------------------------------------------- */

    /* A Job's replicas report points (loss at step 10, a final accuracy)
     * with POST /api/v1/projects/{p}/jobs/{name}/metrics and the body
     * {"metrics":[{"name":"loss","value":0.3,"step":10,"ts":1767225600.5}]}
     * (1 to 1000 points a request; name: 1 to 128 of letters, digits and
     * _ . - / :; value: a finite number; step: an integer 0 .. 2^53,
     * absent: 0; ts: Unix seconds, absent: now; a Job holds at most
     * 100,000 points, 413 past that; a bad point is 422 naming the field,
     * "metrics[3].value"). Project editors may write them, and so may the
     * Job's own CUBE_TOKEN, which the host binds to that Job: it is
     * refused (403) for any other Job's metrics. A replica finds the
     * server in CUBE_API, its Job in CUBE_PROJECT and CUBE_JOB. GET on
     * the same path (project viewers; ?name=, ?sinceStep=) answers what
     * job_metrics returns. Points are stored durably and deleted with the
     * Job. When a batch is stored, the objects the Job's ownerReferences
     * name get a reconcile queued (their controller's; requests for an
     * object already queued are coalesced, so a stream of points costs a
     * few reconciles, not one per point): a controller that owns Jobs
     * reads their metrics there. */

    /** The metrics of Job `job` in `project`: a new JSON string (release
     *  with free)
     *  {"kind":"JobMetrics","project":"p","job":"train",
     *   "metrics":[{"name":"loss","step":10,"value":0.3,"ts":1767225600.5}]}
     *  ordered by name, then step, then arrival; only `name_or_NULL`'s
     *  points when not NULL, only steps greater than since_step (-1: all).
     *  NULL with *rc: CUBE_ENOTFOUND (no such Job), CUBE_EINVAL (a bad
     *  name or since_step < -1), CUBE_EUNAVAIL (the store). Any thread;
     *  blocks on the store. */
    char *(*job_metrics)(cube_plugin *self, const char *project,
                         const char *job, const char *name_or_NULL,
                         int64_t since_step, int *rc);

    /* ---------------------------------------------------------------- */
    /* since 1.5: one allocator and one error channel                     */
    /* ---------------------------------------------------------------- */

    /* One allocator both ways. Everything the host returns to a plugin
     * ("release with free") is released with the `free` slot, and every
     * buffer a plugin hands the host to keep or free (a defaulting
     * callback's *out, a password check's identity, a pin's document) is
     * allocated with `alloc`. A plugin that links its own allocator (a
     * jemalloc'd plugin, one written in Rust) is then safe. The host of
     * this release uses the C library's malloc, so buffers of descriptors
     * older than 1.5 allocated with malloc() stay accepted.
     *
     * One error channel. A callback the host calls (reconcile, check,
     * password_check and every callback added since 1.5) returns CUBE_OK,
     * a flow code (CUBE_EAGAIN, CUBE_DECLINED, as each callback says) or
     * an error code, and explains an error with set_error, or with
     * set_error_field when a field is at fault. The host opens a frame per
     * callback on the calling thread: these slots write into the innermost
     * frame of the calling plugin on that thread, so they work only on the
     * callback's own thread, during the call (elsewhere set_error keeps
     * its 1.0 meaning, the init/start message, and set_error_field and
     * retry_after do nothing). The last call wins. The message reaches the
     * client (a 422's message) or the log, never both with a secret in it:
     * do not put one there. The callbacks of 1.1-1.4 keep their message
     * buffers. Since 1.5. */

    /** Allocates size bytes (size 0: a unique pointer free accepts), or
     *  NULL when out of memory. Any thread; does not block. */
    void *(*alloc)(size_t size);
    /** As set_error, naming the field at fault ("spec.tasks[2].image", as
     *  the API's 422 answers name it; NULL or "": none). Borrowed strings;
     *  at most 255 bytes of field and 511 of message are kept. */
    void (*set_error_field)(cube_plugin *self, const char *field,
                            const char *fmt, ...) CUBE_PRINTF(3, 4);
    /** From a reconcile about to return CUBE_EAGAIN: call it again after
     *  `ms` milliseconds (at most 86,400,000; without this call, 1000).
     *  Ignored with any other return code. */
    void (*retry_after)(cube_plugin *self, unsigned ms);

    /* ---------------------------------------------------------------- */
    /* since 1.5: replica endpoints                                       */
    /* ---------------------------------------------------------------- */

    /** Where a replica the caller started can be reached: one "host:port"
     *  per port name of its Job's spec.ports (see "Ports and endpoints"
     *  in cube_sched.h), as a JSON object {"http": "10.0.0.5:30001"}.
     *  host is a numeric IPv4 address, a bracketed IPv6 address
     *  ("[fd00::5]:30001") or a DNS name; port is 1..65535; at most
     *  CUBE_JOB_PORTS_MAX names, each a DNS label. An executor that runs
     *  replicas on its nodes' own network reports the replica document's
     *  "address" and the port the host allocated ("ports"); a cluster
     *  engine reports what it learns (a Pod's address), when it learns it.
     *  Each report replaces the replica's endpoints as a whole ("{}"
     *  clears them); names its Job's spec.ports does not list are dropped.
     *  The host records them in the Job's status.replicas[i].endpoints,
     *  where plugins read them (obj_get, watch) to reach the replica or
     *  name it as a proxy upstream, and a distributed Job's replicas
     *  started after replica 0 get MASTER_ADDR from replica 0's endpoint.
     *  Ordering, as for replica_status (whose path this shares): a report
     *  for an engine id whose start has not returned yet is kept (the
     *  latest, beside any replica_status report) and applied when the
     *  start is recorded, so an executor may report from inside start; a
     *  report for a replica that has ended changes nothing. Strings are
     *  borrowed for the call. Returns CUBE_OK, CUBE_EINVAL (engine_id NULL
     *  or "", not a JSON object, a name that is no DNS label, a value that
     *  is not host:port, too many names; nothing is recorded),
     *  CUBE_ESTATE (the caller registered no executor) or CUBE_EUNAVAIL
     *  (the status could not be written; report again). Any thread; may
     *  block on the store. */
    int (*replica_endpoints)(cube_plugin *self, const char *engine_id,
                             const char *endpoints_json);
    /* since 1.5: proxy mirror, park and counters                         */
    /* ---------------------------------------------------------------- */

    /* For the caller's own proxied prefixes (register_proxy), named by
     * their template exactly as registered ("/serve/{project}/{name}");
     * keys are cube_proxy_upstream.key (see cube_proxy.h). */

    /** Wakes the requests parked (resolve returned CUBE_EAGAIN) under
     *  `key` of `prefix`, every one parked under it when key is NULL: each
     *  runs resolve again soon on an HTTP thread, never inside this call.
     *  Make what resolve reads ready before calling it. Returns how many
     *  were woken (0 is fine: none was parked), CUBE_EINVAL (prefix NULL),
     *  CUBE_ENOTFOUND (prefix is not one of the caller's). Any thread,
     *  resolve and done included; does not block (a short lock). */
    int (*proxy_wake)(cube_plugin *self, const char *prefix, const char *key);
    /** Fills *out (out->size set by the caller; the host writes at most
     *  that many bytes) with the counters of `key` under `prefix`, or of
     *  the whole prefix when key is NULL (struct cube_proxy_stats).
     *  Returns CUBE_OK; CUBE_ENOTFOUND with *out zeroed when no request
     *  was counted under key (an idle object, or one past the 4096 kept
     *  keys) or prefix is not one of the caller's; CUBE_EINVAL (prefix
     *  or out NULL, out->size smaller than size + requests). Any thread;
     *  does not block (a short lock). */
    int (*proxy_stats)(cube_plugin *self, const char *prefix, const char *key,
                       struct cube_proxy_stats *out);
    /* since 1.5: device pinning and health                               */
    /* ---------------------------------------------------------------- */

    /* Pins beyond the environment (device nodes, mounts) and partitions
     * made around a replica are callbacks of struct cube_accel_desc (pin,
     * prepare, release: see cube_sched.h). This slot is the other way. */

    /** An accelerator plugin says that one of this machine's devices of
     *  the resource it registered (register_accel) turned unhealthy
     *  (healthy 0: an XID error, a lost GPU, pages waiting for
     *  retirement) or healthy again (1). device_id is the id discover
     *  gives; reason a sentence for people (NULL or "": none; at most 255
     *  bytes kept; never a secret). From the call on:
     *  - the scheduler allocates an unhealthy device to no new replica
     *    (Jobs that need it wait, "no node fits"); healthy again, it is
     *    offered at once. The push overrides discover's "healthy" for that
     *    device on the nodes that describe this machine (see "devices" in
     *    cube_sched.h) until the next push for it; a restart of cubed
     *    forgets it (discover then speaks);
     *  - replicas already running on the device are NOT stopped (as with
     *    Kubernetes device plugins: the device leaves the allocatable set,
     *    work on it goes on; a Job that cannot go on fails by itself);
     *  - it shows: local_devices answers the device with "healthy": false
     *    and "healthReason", so do the node documents built from it, and
     *    the gauge cube_accel_healthy{resource,device} at /metrics is 0
     *    (1 when healthy); the change is logged with the reason.
     *  Strings are borrowed for the call. Returns CUBE_OK (also when
     *  nothing changed), CUBE_EINVAL (NULL or empty device_id, an id over
     *  63 bytes, healthy neither 0 nor 1), CUBE_ESTATE (the caller serves
     *  no accelerator of that resource), CUBE_ETOOBIG (more than 4096
     *  devices with a pushed state). Any thread, also from the plugin's
     *  own callbacks' threads; calls back into no plugin before it
     *  returns; may block briefly on the scheduler's lock. */
    int (*device_health)(cube_plugin *self, const char *resource, const char *device_id,
                         int healthy, const char *reason);

    /* ---------------------------------------------------------------- */
    /* since 1.5: streamed bodies and files                               */
    /* ---------------------------------------------------------------- */

    /** From the handler of a stream_body route (see cube_route_desc),
     *  before it answers: asks for the request body, which the host hands
     *  to desc's callbacks in chunks as it arrives, never gathering it
     *  (see struct cube_body_desc, copied here). The handler then returns
     *  CUBE_OK without answering; desc->end answers once the body is in.
     *  A request without a body gets end at once. From CUBE_OK on, close
     *  is called exactly once (also when the handler answers or fails
     *  after this call: CUBE_ESTATE or its code). Returns CUBE_OK,
     *  CUBE_EINVAL (desc NULL, too small, data or end NULL) or CUBE_ESTATE
     *  (not a stream_body route's handler, called twice, or answered
     *  already; close is then not called). Thread: the handler's; does not
     *  block. */
    int (*req_body_stream)(cube_req *req, const struct cube_body_desc *desc);

    /* Files of the host's file store, open as handles, for data too large
     * for file_write (datasets, models, uploads). `project` names the
     * store: a project's files (as file_write: <data dir>/projects/<p>/,
     * which the files API and the project's Jobs see), or NULL for the
     * plugin's own area, <data_dir>/files/, which nothing else reads. Paths
     * are relative, "/"-separated, without "..", "." or empty segments or
     * segments starting with '.', at most 1024 bytes (CUBE_EINVAL). No
     * symlink is followed (CUBE_EPERM). No size cap but the disk's: the
     * plugin bounds what it takes (its route's max_body_bytes, its own
     * quota).
     *
     * Writing is never in place. CUBE_FILE_WRITE opens the path's pending
     * upload, a hidden file of the store that no path, listing or reader
     * sees; file_commit publishes it under the path atomically
     * (readers see the old file or the whole new one, never a part) and
     * file_abort deletes it. A pending upload outlives its handle, and
     * cubed restarts: a later file_open with CUBE_FILE_WRITE resumes it
     * (file_size tells how much is there), which is how an interrupted
     * upload goes on from where it broke. The host never expires one. One
     * write handle per pending upload at a time (a second file_open gets
     * CUBE_ECONFLICT until the first is closed). The SHA-256 of the content
     * is computed by the host beside the writes, on a thread of its own,
     * while bytes come (in order from offset 0, or resumed at the end),
     * and finished at commit, which hashes whatever is left.
     *
     * Every handle is released with file_close, whatever happened. Slots
     * on one handle are not called from two threads at once; they may
     * block on the disk (do not call them from a stream's read callback),
     * never on the network. Results besides those named: CUBE_ENOMEM,
     * CUBE_EIO, CUBE_EUNAVAIL (no space left). Since 1.5. */

    /** Opens path in the store `project` names (NULL: the plugin's area)
     *  with `flags` (CUBE_FILE_*, see cube_http.h): READ the published
     *  file, or WRITE its pending upload (made when missing, its bytes
     *  kept unless TRUNCATE; directories are made only at commit). Returns
     *  the handle or NULL with *rc: CUBE_EINVAL (bad flags, project or
     *  path), CUBE_ENOTFOUND (READ: no such file), CUBE_EPERM (a symlink
     *  or not a regular file on the way), CUBE_ECONFLICT (WRITE: another
     *  handle writes it). */
    cube_file *(*file_open)(cube_plugin *self, const char *project,
                            const char *path, unsigned flags, int *rc);
    /** The file's size now into *size (a pending upload's: one past its
     *  last byte written). CUBE_OK, CUBE_ESTATE (aborted). */
    int (*file_size)(cube_file *file, uint64_t *size);
    /** Reads up to max bytes at offset into buf; *got gets the count (0
     *  at or past the end). Any handle but an aborted one (CUBE_ESTATE):
     *  a WRITE handle reads its pending bytes. CUBE_OK, CUBE_EINVAL. */
    int (*file_pread)(cube_file *file, uint64_t offset, void *buf, size_t max,
                      size_t *got);
    /** Writes len bytes of data (borrowed) at offset of the pending upload,
     *  all of them or an error; a gap reads as zeros. CUBE_OK, CUBE_EINVAL
     *  (data NULL with len), CUBE_ESTATE (not a WRITE handle, or committed
     *  or aborted), CUBE_ETOOBIG (past 2^63 bytes or the file system's
     *  largest file), CUBE_EUNAVAIL (no space left: what landed is kept,
     *  write it again). */
    int (*file_write_at)(cube_file *file, uint64_t offset, const void *data,
                         size_t len);
    /** Publishes the pending upload under the handle's path, replacing a
     *  file there, after making its directories and syncing it to disk.
     *  sha256_out (may be NULL; CUBE_SHA256_HEX_SIZE bytes) gets the
     *  content's SHA-256 as lowercase hex. With expect_sha256 (64 hex
     *  digits, either case; NULL or "": no check) a content that differs
     *  is refused with CUBE_EDIGEST: nothing is published and the upload
     *  stays pending and writable (sha256_out still tells what it is).
     *  After CUBE_OK the handle reads the published file (file_pread,
     *  resp_file). CUBE_EINVAL (expect_sha256 not 64 hex digits),
     *  CUBE_ESTATE (not a pending WRITE handle), CUBE_EEXIST (a directory
     *  is at the path, or a file where a directory is needed), CUBE_EPERM
     *  (a symlink on the way). Blocks while it hashes what came out of
     *  order (after a resume, all of it) and while it syncs. */
    int (*file_commit)(cube_file *file, const char *expect_sha256,
                       char *sha256_out);
    /** Deletes the pending upload (the published file, if any, stays).
     *  CUBE_OK, CUBE_ESTATE (not a pending WRITE handle). The handle is
     *  still released with file_close. */
    int (*file_abort)(cube_file *file);
    /** Releases the handle (NULL is fine); a pending upload stays pending
     *  for a later file_open. The handle is invalid afterwards. */
    void (*file_close)(cube_file *file);
    /** Answers the request with the bytes of the file (a READ handle, or a
     *  committed one), streamed from the disk by the host (never read into
     *  memory), with content_type (NULL: application/octet-stream),
     *  Content-Length, Last-Modified, a strong ETag (changes whenever the
     *  path is published again), Accept-Ranges and, since the bytes are
     *  often a user's, X-Content-Type-Options: nosniff and a sandboxing
     *  Content-Security-Policy. A GET or HEAD with If-None-Match naming
     *  the ETag gets 304; one byte range (Range: bytes=a-b, a-, -n; with
     *  If-Range only when it names the ETag) gets 206 with Content-Range,
     *  a range past the end 416; several ranges get the whole file (200).
     *  The host keeps its own reference: the plugin may close the handle
     *  as soon as this returns. Headers added with resp_header go too.
     *  CUBE_OK, CUBE_EINVAL (content_type with CR/LF), CUBE_ESTATE (a
     *  pending or aborted handle, or answered already). Thread: the
     *  request's (a handler, or a body's end). */
    int (*resp_file)(cube_req *req, cube_file *file, const char *content_type);

    /* ---------------------------------------------------------------- */
    /* since 1.5: why an object write was refused                         */
    /* ---------------------------------------------------------------- */

    /* The object slots (obj_get, obj_list, obj_list_page, obj_create,
     * obj_create_for, obj_update, obj_update_status, obj_delete) answer a
     * refusal with a return code and log the reason. A controller that
     * writes objects for a user (a trial's Job, a task's Job) needs the
     * reason itself, as the API would have answered it, to show it where
     * the user looks (its own object's status). */

    /** The refusal of the last object slot call this plugin made on the
     *  calling thread, when that call failed: a new JSON string (release
     *  with free)
     *    {"status": 422, "code": "Invalid", "field": "spec.image",
     *     "message": "spec.image: not supported: ..."}
     *  ("field" absent when none is at fault), the same words the API
     *  answers a client with; never a secret (the API shows it to the
     *  writer). NULL when that call succeeded, when the thread made no
     *  object slot call since the plugin's init, or out of memory. Each
     *  object slot call of the plugin on the thread replaces what this
     *  answers; calls of other plugins or threads do not. Any thread;
     *  does not block. */
    char *(*obj_error)(cube_plugin *self);

    /* ---------------------------------------------------------------- */
    /* since 1.5: application credentials of proxied objects              */
    /* ---------------------------------------------------------------- */

    /** Gives the object of the caller's proxied `prefix` whose preset key
     *  is `key` (its path parameters joined with '/', "p1/iris" for
     *  "/serving/{project}/{name}", see cube_proxy_upstream.key) an
     *  application credential, or removes it (sha256_hex NULL). The host
     *  keeps only `sha256_hex`, the SHA-256 of the credential as 64 hex
     *  digits (either case), in memory; the plugin makes the credential,
     *  shows it once to whoever asked for it, keeps its hash (hashed or
     *  encrypted at rest, never the credential) and sets it again after a
     *  restart, from its init on. A request under that object presenting
     *  the credential (X-Api-Key: <c>, or Authorization: Bearer <c>)
     *  passes the prefix's permission and owner checks without a login,
     *  as an application (req_user NULL; done's `credential` set); the
     *  host compares digests in constant time, drops X-Api-Key (as
     *  Authorization) before relaying, and never logs either. A request
     *  presenting an X-Api-Key that does not match is answered 401 (a
     *  Bearer that does not match is tried as a Cube token, as
     *  elsewhere); one presenting none goes through the usual checks (a
     *  login still works). At most one credential per key (a new one
     *  replaces it) and 65536 per prefix. Returns CUBE_OK, CUBE_EINVAL
     *  (prefix or key NULL, a key over 127 bytes or with a control byte,
     *  sha256_hex not 64 hex digits), CUBE_ENOTFOUND (prefix is not one of
     *  the caller's; removing a credential that is not set is CUBE_OK),
     *  CUBE_ETOOBIG (the prefix has 65536). Any thread; does not block (a
     *  short lock). */
    int (*proxy_credential_set)(cube_plugin *self, const char *prefix, const char *key,
                                const char *sha256_hex);

    /* ---------------------------------------------------------------- */
    /* Append new slots below this line with a "since 1.N" header.        */
    /* ---------------------------------------------------------------- */
};

#ifdef __cplusplus
}
#endif

#endif /* CUBE_HOST_H */
