/* cube_mock_priv.h — what the fake host's source files share (not for
 * tests: they include cube_mock.h). */
#ifndef CUBE_MOCK_PRIV_H
#define CUBE_MOCK_PRIV_H

#include <stddef.h>

#include <cube/cube.h>
#include <cjson/cJSON.h>

#include "cube_mock.h"

/* -- cube_mock.c ---------------------------------------------------- */

/* A request of cube_mock_request (or _stream): the fake host's cube_req. */
struct cube_req {
    const char *method, *path, *query, *header;
    const char *body;            /* len bytes (a stream_body route gets them in chunks) */
    size_t body_len;
    char params[8][2][256];
    int n_params;
    char scratch[8][256]; /* req_query answers: each stays valid for the request */
    int n_scratch;
    struct cube_mock_response *out;
    struct cube_stream_desc stream;
    int has_stream;
    int streaming;               /* a stream_body route: req_body gives "" */
    int body_phase;              /* cube_mock_streams.c: 1 in the handler */
    struct cube_body_desc body_desc;
    int has_body_desc;
};

/* The plugin's state as init left it (NULL before init). */
void *mock_state(void);
/* The fake host's table (for slots built on other slots). */
const struct cube_host *mock_host(void);
/* "plugin:<name>", the owner the host stamps on objects the plugin creates. */
const char *mock_actor(void);
/* Nonzero once cube_mock_init's call of init has returned. */
int mock_after_init(void);
/* Answers r once (later answers give CUBE_ESTATE). */
int mock_answer(cube_req *r, int status, const char *ctype, const void *data,
                size_t len);
/* Writes a log line as the host would (cube_mock_last_log shows it). */
void mock_logf(const char *fmt, ...) CUBE_PRINTF(1, 2);

/* -- cube_mock_calls.c: the error channel of callbacks (ABI 1.5) ------ */

/* A callback's frame: what set_error(_field) and retry_after wrote. */
struct mock_call {
    char field[256], msg[512];
    int has_retry;
    unsigned retry_ms;
    struct mock_call *prev;
};
void mock_call_begin(struct mock_call *c);
void mock_call_end(struct mock_call *c);
/* The innermost open frame, or NULL (set_error's init/start meaning). */
struct mock_call *mock_call_current(void);
/* Fills alloc, set_error_field and retry_after of h. */
void mock_calls_install(struct cube_host *h);
void mock_calls_reset(void);
/* Runs a reconcile in a frame and records what cube_mock_last_reconcile
 * reports. */
int mock_reconcile_call(cube_reconcile_fn fn, const char *kind, const char *project,
                        const char *name, const char *doc);

/* -- cube_mock_kinds.c: kinds, actions and shared helpers ------------- */

/* Fills register_kind and register_action of h. */
void mock_kinds_install(struct cube_host *h);
/* Frees every kind and action. */
void mock_kinds_reset(void);
/* The registered kind's stored descriptor, or NULL. */
const struct cube_kind_desc *mock_find_kind(const char *kind);
/* The i-th registered action as a route: writes its path template
 * (/api/v1/projects/{project}/<plural>/{name}/<action>, or
 * /api/v1/<plural>/{name}/<action> for cluster kinds) and sets *method,
 * *kind and *handler. Returns 1, 0 past the last action, or -1 when the
 * action's kind is not registered (skip it). */
int mock_action_route(int i, char *tmpl, size_t len, const char **method,
                      const char **kind, cube_route_fn *handler, const char **permission);
/* Returns items with room for item n (grown to *cap), or NULL. */
void *mock_grow(void *items, int n, int *cap, size_t size);
/* strdup, NULL for NULL. */
char *mock_strdup(const char *s);
/* Nonzero for a DNS label: 1..63 of [a-z0-9-], no '-' at either end. */
int mock_dns_label(const char *s);

/* -- cube_mock_schema.c: the core's JSON Schema validator, as cubed uses it */

/* Parses and checks a kind's schemas (spec_schema required) and keeps them
 * for its objects; CUBE_EINVAL with why naming the field. */
int mock_schema_kind_add(const struct cube_kind_desc *d, char *why, size_t len);
/* Fills the defaults of the kind's spec schema into obj.spec (when it is an
 * object). 0, or -1 when out of memory. */
int mock_schema_default_spec(const char *kind, cJSON *obj);
/* Validates a whole object (strict, as cubed) / a status against the
 * kind's schemas: 0, or -1 with why ("spec.steps[0].name: ..."). */
int mock_schema_check_object(const char *kind, const cJSON *obj, char *why, size_t len);
int mock_schema_check_status(const char *kind, const cJSON *status, char *why, size_t len);
/* Forgets every kind's schemas. */
void mock_schema_reset(void);

/* -- cube_mock_objects.c: objects, events, controllers --------------- */

/* Fills the object and event slots of h. */
void mock_objects_install(struct cube_host *h);
/* Frees every object, event and queued reconcile. */
void mock_objects_reset(void);
/* Nonzero when the object exists (project NULL or "" for cluster kinds). */
int mock_object_exists(const char *kind, const char *project, const char *name);
/* The object's metadata.owner (borrowed until the next write), or NULL. */
const char *mock_object_owner(const char *kind, const char *project, const char *name);
/* Queues the reconcile of the owners an object's ownerReferences name
 * (nothing when there is no such object). */
void mock_queue_owners(const char *kind, const char *project, const char *name);

/* 1 when labels match the selector, 0 when not, -1 when it is not one the
 * mock understands (comma-separated k=v, k==v, k!=v, k, !k). */
int mock_selector_match(const char *sel, const cJSON *labels);

/* -- cube_mock_watch.c: the 1.5 watch and paged-list slots ------------ */

void mock_watch_install(struct cube_host *h);
void mock_watch_reset(void);
/* Records a change for watches: doc is copied; involved_kind and reason
 * are set for Events (kind "Event"). */
void mock_watch_publish(long long rv, const char *type, const char *kind, const char *project,
                        const cJSON *doc, const char *involved_kind, const char *reason);

/* -- cube_mock_files.c: log streams and project files ---------------- */

/* Fills the 1.1 log and file slots of h. */
void mock_files_install(struct cube_host *h);
/* Frees every log stream and file. */
void mock_files_reset(void);
/* Drops the log streams of a deleted object (project "" or NULL: none). */
void mock_files_forget_object(const char *kind, const char *project, const char *name);

/* -- cube_mock_auth.c: the 1.2 slots (login methods, users, tokens) -- */

/* Fills the 1.2 slots of h. */
void mock_auth_install(struct cube_host *h);
/* Forgets providers, the identity and the signed-in user. */
void mock_auth_reset(void);
/* Whether the user cube_mock_set_user set passes a route's or action's
 * permission as cubed checks it (cube_http.h): 0 when allowed, else the
 * status cubed answers (401 anonymous, 403 not allowed, 404 not a member
 * of the project). `owner` is the metadata.owner of the object an action
 * names (project:operate admits a dev who owns it), or NULL. */
int mock_permission(const char *perm, const char *owner);

/* -- cube_mock_sched.c: the 1.3 slots (executors, nodes, accelerators) -- */

void mock_sched_install(struct cube_host *h);
void mock_sched_reset(void);

/* -- cube_mock_metrics.c: the 1.5 Job metrics slot ------------------- */
void mock_metrics_install(struct cube_host *h);
void mock_metrics_reset(void);

/* -- cube_mock_ext.c: the 1.4 slots (proxy prefixes, console entries) -- */

void mock_ext_install(struct cube_host *h);
void mock_ext_reset(void);

/* -- cube_mock_proxy.c: the 1.5 proxy slots (wake, stats; done) ------ */

void mock_proxy_install(struct cube_host *h);
void mock_proxy_reset(void);
/* Runs the i-th prefix's resolve for path (cube_mock.c) with up->key
 * preset to key, or to the path parameters joined when key is NULL. */
int mock_proxy_resolve(int i, const char *path, const char *key, struct cube_proxy_upstream *up,
                       struct cube_mock_response *answer);

/* -- cube_mock_state.c: the 1.5 key-value store, secrets, shared APIs -- */

void mock_state_install(struct cube_host *h);
/* Before cube_mock_init's init: desc's dependencies decide api_get. */
void mock_state_before_init(const struct cube_plugin_desc *desc);
/* After cube_mock_init's init returned rc: the APIs it exported become
 * visible (CUBE_OK) or are dropped. */
void mock_state_after_init(const struct cube_plugin_desc *desc, int rc);
/* Forgets APIs, and keys and secrets unless cube_mock_keep_state(1). */
void mock_state_reset(void);

/* -- cube_mock_streams.c: the 1.5 streamed bodies and file handles ---- */

void mock_streams_install(struct cube_host *h);
/* Forgets every file of the plugin's area and every pending upload. */
void mock_streams_reset(void);
/* Runs a stream_body route for r (its permission passed): the declared
 * length against the route's limit (413), the handler, then the body in
 * chunks of `chunk` bytes (0: one) to the plugin's desc, as cubed does;
 * the client leaves after cut_at bytes when cut_at < r->body_len. */
void mock_body_run(cube_req *r, const struct cube_route_desc *route, size_t chunk,
                   size_t cut_at);
/* Reads a resp_stream answer until END or ERROR into r->out, running the
 * timers whenever read returns 0 (at most 1000 times), then closes it. */
void mock_stream_drain(cube_req *r);

/* -- cube_mock_fetch.c: the 1.5 fetch slots (libcurl, a thread each) -- */

void mock_fetch_install(struct cube_host *h);
/* obj_error: wraps the object slots already installed (cube_mock_refusal.c). */
void mock_refusal_install(struct cube_host *h);
/* Cancels and joins every fetch, forgets the egress rules. */
void mock_fetch_reset(void);

#endif
