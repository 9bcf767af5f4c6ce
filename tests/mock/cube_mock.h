/* cube_mock.h — a fake Cube host for plugin unit tests (no cubed needed).
 *
 * It implements the whole struct cube_host: routes are kept in a table and
 * called through cube_mock_request; responses are captured; timers and
 * submitted work run only when the test calls cube_mock_run_timers, so tests
 * are deterministic; metrics keep their last values per label set.
 *
 * What cubed checks, the mock checks the same way, so a plugin need not
 * re-implement it (JSON Schema work is done by the core's own validator,
 * linked in):
 * - Config: cube_mock_init applies the defaults of the plugin's
 *   config_schema and validates the result (strict: unknown keys are
 *   refused; a plugin without a schema takes no config) before init; a
 *   refused config never reaches init (CUBE_EINVAL; cube_mock_last_error
 *   names the setting as cubed's message does, without its file:line:col
 *   and "config." in front: "uid_min: must be >= 1000"). init sees the
 *   config with defaults applied through config_json and config_*.
 * - Objects: the spec schema's defaults, then the kind's defaulting, then
 *   the whole object against its schema (strict), then the kind's validate;
 *   a status against the kind's status schema. A refusal is CUBE_EINVAL
 *   with the field logged (cube_mock_last_log).
 * - Permissions: cube_mock_request checks a route's or action's permission
 *   against the user and role cube_mock_set_user set (anonymous until
 *   then), answering 401, 403 or 404 (not a member) without calling the
 *   handler, as cube_http.h says; role "admin" is a platform administrator.
 *
 * The ABI 1.1 slots work in memory, simply:
 * - register_kind/register_action copy the descriptor (size-checked, strings
 *   duplicated) and check names, scope, duplicates and that the schemas
 *   parse; after cube_mock_init's init they answer CUBE_ESTATE.
 * - Objects are checked as said above. obj_create checks the kind
 *   is registered, metadata.name (a DNS label), metadata.project for project
 *   kinds (none for cluster kinds), labels/annotations are string maps, and
 *   answers CUBE_EEXIST for a duplicate; it stamps apiVersion, uid, owner
 *   "plugin:<name>", created/updated, generation 1 and a resourceVersion
 *   from one counter, drops status and adds an empty spec. obj_update checks
 *   metadata.resourceVersion when present (CUBE_ECONFLICT), keeps status
 *   and server fields, bumps generation when spec changed and writes
 *   nothing when labels, annotations, ownerReferences and spec are
 *   unchanged; obj_update_status replaces status (an equal status is not
 *   written); obj_delete removes at once (finalize is NOT called), then
 *   deletes what the object owned (ownerReferences uid) and its logs.
 * - obj_list answers {"apiVersion","kind":"<Kind>List","items":[...],
 *   "metadata":{"resourceVersion"}} sorted by project and name; project NULL
 *   lists every project (cluster kinds ignore project), as cubed does;
 *   obj_list_page pages the same list with cubed's limit and opaque
 *   continue tokens. Label selectors: only comma-separated k=v, k==v,
 *   k!=v, k and !k (set-based "in"/"notin" give CUBE_EINVAL).
 * - Controllers: every write (create, update, status, delete) of an object
 *   whose kind has reconcile, or owned by such an object, queues one call
 *   (coalesced per object); calls run only in cube_mock_run_controllers,
 *   with the object as it is then (NULL when deleted). Their results are
 *   ignored: no retry, no back-off, no resync.
 * - obj_event records the plugin's events (see cube_mock_events); the
 *   host's own Created/Updated/... events are not recorded.
 * - Actions are routed by cube_mock_request: POST or GET
 *   /api/v1/projects/{project}/<plural>/{name}/<action> (cluster kinds:
 *   /api/v1/<plural>/{name}/<action>), after the permission check (the
 *   object's owner passes project:operate as a dev), 404 when the object
 *   does not exist. Kinds have no CRUD routes in the mock.
 * - Log streams live per (kind, project, name, stream) without a size
 *   limit; resp_log answers with what the stream holds (follow is ignored).
 * - Project files live per project (no size limit); paths must be relative,
 *   "/"-separated, without empty segments or segments starting with '.'.
 *   Directories exist while they hold files.
 *
 * The ABI 1.2 slots:
 * - register_auth_provider copies the descriptor (size-checked; name a DNS
 *   label, kind PASSWORD with password_login or REDIRECT with login_path);
 *   duplicates give CUBE_EEXIST, calls after init CUBE_ESTATE.
 * - auth_complete checks the identity is a JSON object with a string
 *   "username", records it (cube_mock_last_identity), and answers 303 with
 *   Location `next` (or "/") and Set-Cookie "cube_session=mock"; a bad
 *   identity answers 401.
 * - req_user and req_project_role answer what cube_mock_set_user set.
 * - token_issue returns "mock-token:<user>:<ttl>" for any user name.
 *
 * The ABI 1.3 slots:
 * - register_executor (one per plugin) and register_accel copy their
 *   descriptors (size-checked, names DNS labels, required callbacks).
 * - node_set keeps the last document per node name (it must parse, with a
 *   name and a capacity object); node_remove forgets it.
 * - replica_exited records each call (cube_mock_exits) and does nothing else
 *   (after cube_mock_set_exit_delay's wait, when one is set); it may be
 *   called from several threads at once.
 * - local_devices calls every registered accelerator's discover and joins
 *   the arrays, filling in "resource".
 *
 * The ABI 1.5 slots of plugin state, shared APIs and log resume:
 * - kv_* and secret_* keep the plugin's keys and secrets in memory (two
 *   namespaces) with cubed's checks: keys of visible ASCII up to
 *   CUBE_KV_KEY_MAX bytes, CUBE_KV_VALUE_MAX / CUBE_SECRET_VALUE_MAX
 *   (CUBE_ETOOBIG), empty secrets refused; lists are JSON arrays in byte
 *   order. Secrets are not encrypted here (nothing is written anywhere).
 *   cube_mock_reset forgets them unless cube_mock_keep_state(1): then a
 *   reset and a new cube_mock_init are a restart of cubed.
 * - api_export works during init only; the API is visible once init
 *   returned CUBE_OK (cube_mock_api). api_get finds the plugin's own APIs
 *   and those cube_mock_api_provide made in another plugin's name, which
 *   the descriptor's `dependencies` must name (else CUBE_EPERM, as cubed).
 *   The mock does not order or refuse plugins by `dependencies`.
 * - log_stat and log_append_at follow cubed's resume rule over the
 *   in-memory streams.
 *
 * The ABI 1.5 obj_error: every object slot is wrapped; a failed call
 * records its refusal for the calling thread (the status and code cubed
 * answers for its return code, the reason it logged as the message, the
 * field that reason starts with), any call clears it first.
 *
 * The ABI 1.5 proxy serving slots: proxy_wake marks parked requests and
 * proxy_stats reads the counters of the requests a test sends with
 * cube_mock_proxy_send (below), which runs resolve, parks, samples mirror
 * copies and calls done as cubed does; nothing is relayed.
 *
 * The ABI 1.5 device pinning and health:
 * - register_accel takes pin, prepare and release as cubed does (pin_env
 *   or pin required; prepare and release together; a descriptor of the
 *   1.3 size reads them as NULL). The callbacks are the plugin's: tests
 *   call them through cube_mock_accel(name).
 * - device_health checks its arguments as cubed does (CUBE_EINVAL,
 *   CUBE_ESTATE for a resource no registered accelerator serves,
 *   CUBE_ETOOBIG past 4096 devices) and keeps the last push per device
 *   (cube_mock_device_health); local_devices shows it ("healthy",
 *   "healthReason"). No scheduler runs here.
 *
 * The ABI 1.5 streamed bodies and files (cube_mock_streams.c):
 * - A stream_body route gets what cubed gives it: the permission check,
 *   then the body's length against the route's max_body_bytes (413, the
 *   handler not called), then the handler; after req_body_stream the body
 *   goes to desc.data in chunks (cube_mock_request_stream chooses their
 *   size; cube_mock_request sends its NUL-terminated body as one),
 *   then end, then close with cubed's codes; each callback in a call frame.
 *   An answer or error from data stops the body (close gets it); an error
 *   from data or end without an answer is answered as cubed does (the
 *   code's status, the frame's set_error message; handler_rc the code). A
 *   client that leaves (cut_at) gets no answer and close gets CUBE_EIO.
 *   req_body is "" on such routes.
 * - file_open and the other file slots keep files in memory: a project's
 *   are the project files of the 1.1 slots (file_read sees a committed
 *   file), the plugin's area (project NULL) a store of its own. Pending
 *   uploads are kept per (store, path) until commit or abort, across
 *   handles (resume), one writer at a time (CUBE_ECONFLICT), and commit
 *   checks the sha256 (OpenSSL) as cubed does (CUBE_EDIGEST).
 * - resp_file answers with the bytes, honouring one Range (206, 416),
 *   If-None-Match (304) and If-Range against an ETag of the content (not
 *   cubed's value: compare the ETag a response gave, never a spelled one);
 *   the request's one header decides. */
#ifndef CUBE_MOCK_H
#define CUBE_MOCK_H

#include <stddef.h>
#include <stdint.h>

#include <cube/cube.h>

struct cube_mock_response {
    int status;          /* 0 when the handler did not answer */
    char *content_type;
    char *body;          /* NUL-terminated; for streams, everything read */
    size_t body_len;
    int handler_rc;
    int streamed;
    char *headers;       /* resp_header calls, "Name: value\n" each; or NULL */
};

/* Creates the fake host and plugin handle. config_json may be NULL ("{}");
 * it is used as given (no schema is known here: cube_mock_init applies
 * the plugin's). */
const struct cube_host *cube_mock_host(const char *config_json, cube_plugin **self);
/* What cubed makes of a plugin's config: config_json (NULL: "{}") with the
 * defaults of schema_json applied and validated against it (strict) — a
 * new string (free) — or NULL with err naming the field. With schema_json
 * NULL only an empty config is accepted. For tests of a plugin's config
 * parsing that do not run init. */
char *cube_mock_config(const char *schema_json, const char *config_json, char *err,
                       size_t errlen);
/* What data_dir answers from now on (NULL: "/tmp", the default). */
void cube_mock_set_data_dir(const char *dir);
/* Applies and checks desc->config_schema as cubed does (see above), then
 * calls desc->init; returns init's result, or CUBE_EINVAL without calling
 * init when the config is refused. */
int cube_mock_init(const struct cube_plugin_desc *desc, const char *config_json,
                   void **state);
/* Finds the route for method+path (templates with {params}; then the
 * registered actions), builds a request with the given query ("a=1&b=2" or
 * NULL; req_query URL-decodes), one "Name: value"
 * header (or NULL) and body (or NULL), runs the handler and returns what
 * it answered. For a stream, reads until END/ERROR, running timers between
 * reads whenever read returns 0 (at most `max_idle_rounds` times). */
struct cube_mock_response cube_mock_request(const char *method, const char *path,
                                            const char *query, const char *header,
                                            const char *body);
/* As cube_mock_request with a body of len bytes (binary; may be NULL when
 * 0): a stream_body route gets it in chunks of `chunk` bytes (0: one), and
 * when cut_at < len the client leaves after cut_at bytes (no answer:
 * status 0). Other routes get it whole. ABI 1.5. */
struct cube_mock_response cube_mock_request_stream(const char *method, const char *path,
                                                   const char *query, const char *header,
                                                   const void *body, size_t len,
                                                   size_t chunk, size_t cut_at);
/* Runs every due timer and submitted task once. Returns how many ran. */
int cube_mock_run_timers(void);
/* The value of a metric for a label set (label values joined by ','), or
 * -1 when unknown. */
double cube_mock_metric(const char *name, const char *labels);
/* The last log line the plugin wrote, or "". */
const char *cube_mock_last_log(void);
/* The message of the last set_error, or "". */
const char *cube_mock_last_error(void);
/* Number of routes registered. */
int cube_mock_route_count(void);
void cube_mock_response_free(struct cube_mock_response *r);

/* An event the plugin recorded with obj_event (project "" for cluster kinds). */
struct cube_mock_event {
    char *kind, *project, *name, *type, *reason, *message;
};

/* Number of kinds and of actions registered. */
int cube_mock_kind_count(void);
int cube_mock_action_count(void);
/* The stored copy of a kind's descriptor, or NULL; valid until reset. */
const struct cube_kind_desc *cube_mock_kind(const char *kind);
/* Runs the reconcile calls queued so far (not those they queue); returns how many ran. */
int cube_mock_run_controllers(void);
/* The last reconcile's return code; *retry_ms its CUBE_EAGAIN delay as
 * cubed takes it (retry_after's, else 1000; -1 for any other code) and
 * why what it passed to set_error (ABI 1.5's error channel: every
 * callback runs in a call frame, as in cubed). Either may be NULL. */
int cube_mock_last_reconcile(int *retry_ms, char *why, size_t why_len);
/* Checks a password through provider `provider` as cubed's login does:
 * password_check in a call frame (since 1.5) when it has one, else
 * password_login. *identity: the identity to free, or NULL; why: the
 * explanation it gave. Returns its code (CUBE_ENOTFOUND: no such
 * password provider). */
int cube_mock_password_check(const char *provider, const char *user, const char *password,
                             char **identity, char *why, size_t why_len);
/* Number of reconcile calls queued and not yet run. */
int cube_mock_controllers_pending(void);
/* Events recorded, oldest first; *count (when not NULL) gets how many. Valid until the next obj_event or reset. */
const struct cube_mock_event *cube_mock_events(int *count);
/* The stored object as JSON text, or NULL; valid until the next call or reset. */
const char *cube_mock_object(const char *kind, const char *project, const char *name);
/* 1 when the log stream is closed, 0 when open, -1 when it does not exist. */
int cube_mock_log_closed(const char *kind, const char *project, const char *name,
                         const char *stream);
/* The registered login method's stored descriptor, or NULL. */
const struct cube_auth_desc *cube_mock_auth_provider(const char *name);
/* Number of login methods registered. */
int cube_mock_auth_count(void);
/* The identity JSON and `next` of the last successful auth_complete, or "". */
const char *cube_mock_last_identity(void);
const char *cube_mock_last_next(void);
/* Who req_user answers (NULL: anonymous) and the role req_project_role
 * answers for every project (NULL: not a member). */
void cube_mock_set_user(const char *user, const char *project_role);
/* A replica end the plugin reported. */
struct cube_mock_exit {
    char *engine_id, *reason, *message;
    int exit_code;
};
/* The registered executor / accelerator, or NULL. */
const struct cube_executor_desc *cube_mock_executor(void);
const struct cube_accel_desc *cube_mock_accel(const char *name);
/* The last node_set document of a node (valid until the next call), or NULL. */
const char *cube_mock_node(const char *name);
int cube_mock_node_count(void);
/* replica_exited calls so far, oldest first. */
const struct cube_mock_exit *cube_mock_exits(int *count);
/* Makes each replica_exited call wait ms first (0: none); *in_call_max (may
 * be NULL) gets the most calls that were in progress at once since the
 * last call of this, and that count starts again. */
void cube_mock_set_exit_delay(int ms, int *in_call_max);
/* ABI 1.5: the last replica_status report for engine_id (phase "Pending"
 * or "Running", node and message, "" when none given) into the buffers:
 * 0, or -1 when there was none. replica_status checks the phase
 * (CUBE_EINVAL) and that the executor registered with
 * CUBE_EXECUTOR_ENGINE_QUEUE (CUBE_ESTATE), as cubed does. */
int cube_mock_replica_status(const char *engine_id, char *phase, size_t phase_len,
                             char *node, size_t node_len, char *message, size_t msg_len);
/* ABI 1.5: the last replica_endpoints report for engine_id as JSON text
 * ({"http":"127.0.0.1:29517"}; release with free), or NULL when there was
 * none. replica_endpoints checks the report as cubed does (names DNS
 * labels given once, at most CUBE_JOB_PORTS_MAX, values host:port:
 * CUBE_EINVAL) and that the plugin registered an executor (CUBE_ESTATE). */
char *cube_mock_replica_endpoints(const char *engine_id);
/* ABI 1.5: reports points for a Job as its replica would POST them
 * ({"metrics":[{"name","value","step","ts"}]}), checked as cubed checks
 * them (names, finite values, integer steps, 1 to 1000 a batch, 100,000 a
 * Job): CUBE_OK, or CUBE_EINVAL with the bad field ("metrics[2].value")
 * in field. Kept in memory per (project, job) for the job_metrics slot
 * (which answers CUBE_ENOTFOUND for a Job with neither points nor an
 * object); each batch queues the reconcile of the owners named by the
 * Job object's ownerReferences, when the test created one (coalesced, as
 * every reconcile of the fake host is). */
int cube_mock_job_metrics_report(const char *project, const char *job, const char *body,
                                 char *field, size_t field_len);

/* ABI 1.5: the last device_health push for (resource, id): 1 healthy, 0
 * unhealthy (reason, when not NULL, gets its reason), -1 none. */
int cube_mock_device_health(const char *resource, const char *id, char *reason, size_t len);

/* ABI 1.4: the i-th registered proxy prefix / console entry, or NULL. */
const struct cube_proxy_desc *cube_mock_proxy(int i);
/* Calls the i-th proxy's resolve for a request to `path` (its {params}
 * filled from the prefix; req_user/req_project_role as cube_mock_set_user
 * set them) with a zeroed *up; returns resolve's result, or
 * CUBE_ENOTFOUND when the path is not under the prefix. */
int cube_mock_proxy_resolve(int i, const char *path, struct cube_proxy_upstream *up);
/* As cube_mock_proxy_resolve, keeping what resolve answered itself (status
 * 0 when nothing) in *answer (release with cube_mock_response_free). */
int cube_mock_proxy_answer(int i, const char *path, struct cube_proxy_upstream *up,
                           struct cube_mock_response *answer);
const struct cube_ui_desc *cube_mock_ui(int i);
/* ABI 1.5 proxy serving (mirror, park, counters, done): one request to
 * `path` under the i-th prefix as cubed serves it, the upstream answering
 * `status` with the body sizes given. resolve runs with up->key preset to
 * the path parameters joined with '/'; its answer is checked as cubed
 * checks it (a bad address, key or mirror_percent: 503, logged). CUBE_OK:
 * the request ends with `status`, a mirror copy is sampled as cubed
 * samples it (per key; bodies over mirror_body_max are not copied; the
 * mock sends nothing, so copies never fail), the counters move and done
 * is called (duration and parked time are 0 here). CUBE_EAGAIN: the
 * request is parked under its key (503 past park_max) until proxy_wake
 * marks it and cube_mock_proxy_run_woken runs resolve again. Refusals end
 * the request as cubed answers them (404, 403, 503). Returns the status
 * the caller got, 0 while it is parked; 404 when there is no prefix i. */
int cube_mock_proxy_send(int i, const char *path, int status, uint64_t bytes_in,
                         uint64_t bytes_out);
/* Runs resolve again, on the test's thread, for every parked request
 * proxy_wake marked; returns how many ended (the rest parked again). */
int cube_mock_proxy_run_woken(void);
/* Ends every parked request as its deadline passing would (504), or
 * those under key as their caller hanging up would (499; key NULL:
 * all). Return how many ended. */
int cube_mock_proxy_expire(void);
int cube_mock_proxy_hang_up(const char *key);
/* ABI 1.5 proxy_credential_set: the digest (64 lowercase hex digits)
 * set for key under prefix i, or NULL. The fake host checks arguments as
 * cubed does; requests sent here are not checked against it. The tag a
 * relaying resolve left reaches done. */
const char *cube_mock_proxy_credential(int i, const char *key);
/* Requests parked now; the statuses of every request ended, oldest first. */
int cube_mock_proxy_parked(void);
const int *cube_mock_proxy_ended(int *count);
/* ABI 1.5 watches: every write (create, update, status, delete; the
 * deletion of owned objects too) and every obj_event is recorded with its
 * own resourceVersion in a history of the last n changes (default 4096;
 * setting it forgets what was kept). Watches get callbacks only in
 * cube_mock_run_watches, on the test's thread, in rv order, until nothing
 * is left (callbacks that write are delivered too); a watch more than its
 * max_pending changes behind, or resumed from below the history, gets one
 * ERROR and nothing more, as in cubed. Returns the callbacks made. */
void cube_mock_set_watch_history(size_t n);
int cube_mock_run_watches(void);
/* Number of watches not cancelled. */
int cube_mock_watch_count(void);
/* ABI 1.5: provides API `name` as exported by `plugin` (another plugin,
 * its init done): CUBE_OK, CUBE_EINVAL, CUBE_EEXIST. */
int cube_mock_api_provide(const char *plugin, const char *name, uint32_t version,
                          const void *table);
/* The table the plugin under test exported as `name` (visible: its init
 * succeeded), with *version (may be NULL), or NULL. */
const void *cube_mock_api(const char *name, uint32_t *version);
/* Whether cube_mock_reset keeps the key-value store and secrets (1), as
 * cubed keeps them across a restart, or forgets them (0, the default). */
void cube_mock_keep_state(int keep);
/* Calls fini (if any) with state and forgets (frees) everything, 1.1 state included. */
void cube_mock_reset(const struct cube_plugin_desc *desc, void *state);

/* Outbound HTTP (fetch, ABI 1.5) is real: libcurl, one thread per fetch,
 * whose callbacks run on it. Without rules every destination is allowed;
 * with cube_mock_set_egress(patterns, n) cubed's egress.allow rules apply
 * (n = 0: nothing allowed; patterns NULL: checks off again). CUBE_EINVAL
 * for a bad pattern. cube_mock_reset cancels and joins every fetch. */
int cube_mock_set_egress(const char *const *patterns, size_t n);

#endif
