/* cube_mock.c — see cube_mock.h. Test-only code: global state is fine here,
 * a test process hosts one plugin at a time. The 1.1 slots live in
 * cube_mock_kinds.c (kinds, actions), cube_mock_objects.c (objects, events,
 * controllers) and cube_mock_files.c (log streams, project files); the 1.2
 * slots in cube_mock_auth.c. */
#include "cube_mock.h"
#include "cube_mock_priv.h"

#include <ctype.h>
#include <stddef.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#define MAX_ROUTES 64
#define MAX_TIMERS 64
#define MAX_METRICS 64
#define MAX_SERIES 32

struct cube_plugin { int unused; };
struct cube_stream { int unused; };
struct cube_timer { cube_task_fn fn; void *state, *arg; int active, repeat; };
struct cube_metric {
    struct cube_metric_desc desc;
    char name[128];
    char series[MAX_SERIES][128];
    double values[MAX_SERIES];
    int n;
};

static struct {
    struct cube_host host;
    struct cube_plugin self;
    cJSON *config;
    void *state;
    struct cube_route_desc routes[MAX_ROUTES];
    char paths[MAX_ROUTES][256], methods[MAX_ROUTES][8];
    int n_routes;
    struct cube_timer timers[MAX_TIMERS];
    struct cube_metric metrics[MAX_METRICS];
    int n_metrics;
    char last_log[1024], last_error[1024];
    struct cube_stream stream;
    char actor[160];   /* "plugin:<name>" once cube_mock_init ran */
    int after_init;    /* cube_mock_init's call of init has returned */
} M;

static const char *version(void) { return "mock"; }
static void mfree(void *p) { free(p); }

/* The ABI lets any thread log and count: these two are serialised. */
static pthread_mutex_t mock_mu = PTHREAD_MUTEX_INITIALIZER;

static void logv(cube_plugin *s, int level, const char *fmt, va_list ap)
{
    (void)s; (void)level;
    pthread_mutex_lock(&mock_mu);
    vsnprintf(M.last_log, sizeof M.last_log, fmt, ap);
    pthread_mutex_unlock(&mock_mu);
}

static void mlog(cube_plugin *s, int level, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    logv(s, level, fmt, ap);
    va_end(ap);
}

void *mock_state(void) { return M.state; }
const struct cube_host *mock_host(void) { return &M.host; }
const char *mock_actor(void) { return M.actor[0] ? M.actor : "plugin:mock"; }
int mock_after_init(void) { return M.after_init; }

void mock_logf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    logv(&M.self, CUBE_LOG_INFO, fmt, ap);
    va_end(ap);
}

static int log_enabled(cube_plugin *s, int level) { (void)s; (void)level; return 1; }

/* In a callback's frame (since 1.5): that call's error; else init's. */
static void set_error(cube_plugin *s, const char *fmt, ...)
{
    (void)s;
    struct mock_call *c = mock_call_current();
    va_list ap;
    va_start(ap, fmt);
    if (c)
        vsnprintf(c->msg, sizeof c->msg, fmt, ap);
    else
        vsnprintf(M.last_error, sizeof M.last_error, fmt, ap);
    va_end(ap);
}

static char *config_json(cube_plugin *s) { (void)s; return cJSON_PrintUnformatted(M.config); }

static const cJSON *lookup(const char *path)
{
    const cJSON *n = M.config;
    char key[128];
    while (n && path && *path) {
        const char *dot = strchr(path, '.');
        size_t len = dot ? (size_t)(dot - path) : strlen(path);
        snprintf(key, sizeof key, "%.*s", (int)len, path);
        n = cJSON_GetObjectItemCaseSensitive(n, key);
        path = dot ? dot + 1 : NULL;
    }
    return n;
}

static const char *cfg_str(cube_plugin *s, const char *p, const char *d)
{ (void)s; const cJSON *n = lookup(p); return cJSON_IsString(n) ? n->valuestring : d; }
static int64_t cfg_int(cube_plugin *s, const char *p, int64_t d)
{ (void)s; const cJSON *n = lookup(p); return cJSON_IsNumber(n) ? (int64_t)n->valuedouble : d; }
static double cfg_double(cube_plugin *s, const char *p, double d)
{ (void)s; const cJSON *n = lookup(p); return cJSON_IsNumber(n) ? n->valuedouble : d; }
static int cfg_bool(cube_plugin *s, const char *p, int d)
{ (void)s; const cJSON *n = lookup(p); return cJSON_IsBool(n) ? cJSON_IsTrue(n) : d; }
static char mock_data_dir[1024] = "/tmp";
static const char *data_dir(cube_plugin *s) { (void)s; return mock_data_dir; }

void cube_mock_set_data_dir(const char *dir)
{
    snprintf(mock_data_dir, sizeof mock_data_dir, "%s", dir ? dir : "/tmp");
}

static int register_route(cube_plugin *s, const struct cube_route_desc *d)
{
    (void)s;
    if (M.n_routes == MAX_ROUTES || !d || !d->handler || !d->path || !d->method ||
        d->size < offsetof(struct cube_route_desc, summary) + sizeof d->summary)
        return CUBE_EINVAL;
    struct cube_route_desc *copy = &M.routes[M.n_routes];
    memset(copy, 0, sizeof *copy);
    memcpy(copy, d, d->size < sizeof *copy ? d->size : sizeof *copy);
    if (copy->max_body_bytes && !copy->stream_body)
        return CUBE_EINVAL;   /* as cubed: a limit only for stream_body routes */
    snprintf(M.paths[M.n_routes], sizeof M.paths[0], "%s", d->path);
    snprintf(M.methods[M.n_routes], sizeof M.methods[0], "%s", d->method);
    M.n_routes++;
    return CUBE_OK;
}

static const char *req_method(cube_req *r) { return r->method; }
static const char *req_path(cube_req *r) { return r->path; }
static const char *req_client(cube_req *r) { (void)r; return "127.0.0.1"; }
static const char *req_idf(cube_req *r) { (void)r; return "mock-request"; }

static const char *req_param(cube_req *r, const char *name)
{
    for (int i = 0; i < r->n_params; i++)
        if (strcmp(r->params[i][0], name) == 0)
            return r->params[i][1];
    return NULL;
}

static const char *req_query(cube_req *r, const char *name)
{
    size_t len = strlen(name);
    for (const char *p = r->query; p && *p;) {
        const char *amp = strchr(p, '&');
        size_t seg = amp ? (size_t)(amp - p) : strlen(p);
        if (seg >= len && strncmp(p, name, len) == 0 && (seg == len || p[len] == '=')) {
            if (seg == len)
                return "";
            char *out = r->scratch[r->n_scratch++ % 8];
            size_t o = 0;
            for (const char *v = p + len + 1; v < p + seg && o + 1 < sizeof r->scratch[0]; v++) {
                if (*v == '%' && v + 2 < p + seg && isxdigit((unsigned char)v[1]) &&
                    isxdigit((unsigned char)v[2])) {
                    char hex[3] = {v[1], v[2], '\0'};
                    out[o++] = (char)strtol(hex, NULL, 16); /* URL-decoded, as the host does */
                    v += 2;
                } else
                    out[o++] = *v == '+' ? ' ' : *v;
            }
            out[o] = '\0';
            return out;
        }
        p = amp ? amp + 1 : NULL;
    }
    return NULL;
}

static const char *req_header(cube_req *r, const char *name)
{
    size_t len = strlen(name);
    if (r->header && strncasecmp(r->header, name, len) == 0 && r->header[len] == ':')
        return r->header + len + 1 + (r->header[len + 1] == ' ');
    return NULL;
}

static const char *req_body(cube_req *r, size_t *len)
{
    const char *b = r->body && !r->streaming ? r->body : "";
    if (len)
        *len = r->body && !r->streaming ? r->body_len : 0;
    return b;
}

/* Headers are kept as "Name: value\n" lines in the response. */
static int resp_header(cube_req *r, const char *n, const char *v)
{
    if (!n || !v || strpbrk(n, "\r\n") || strpbrk(v, "\r\n"))
        return CUBE_EINVAL;
    struct cube_mock_response *o = r->out;
    size_t have = o->headers ? strlen(o->headers) : 0;
    size_t add = strlen(n) + strlen(v) + 3;
    char *grown = realloc(o->headers, have + add + 1);
    if (!grown)
        return CUBE_ENOMEM;
    snprintf(grown + have, add + 1, "%s: %s\n", n, v);
    o->headers = grown;
    return CUBE_OK;
}

int mock_answer(cube_req *r, int status, const char *ctype, const void *data, size_t len)
{
    if (r->out->status)
        return CUBE_ESTATE;
    r->out->status = status;
    r->out->content_type = strdup(ctype);
    r->out->body = malloc(len + 1);
    memcpy(r->out->body, data, len);
    r->out->body[len] = '\0';
    r->out->body_len = len;
    return CUBE_OK;
}

static int resp_json(cube_req *r, int s, const char *j) { return mock_answer(r, s, "application/json", j, strlen(j)); }
static int resp_text(cube_req *r, int s, const char *c, const char *t)
{ return mock_answer(r, s, c ? c : "text/plain; charset=utf-8", t, strlen(t)); }
static int resp_bytes(cube_req *r, int s, const char *c, const void *d, size_t l)
{ return mock_answer(r, s, c ? c : "application/octet-stream", d, l); }

static int resp_error(cube_req *r, int s, const char *code, const char *msg)
{
    char body[1024];
    snprintf(body, sizeof body, "{\"error\":{\"code\":\"%s\",\"message\":\"%s\"}}", code, msg);
    return mock_answer(r, s, "application/json", body, strlen(body));
}

static int resp_stream(cube_req *r, int s, const char *c, const struct cube_stream_desc *d,
                       cube_stream **out)
{
    if (!d || !d->read || mock_answer(r, s, c ? c : "application/octet-stream", "", 0) != CUBE_OK)
        return CUBE_EINVAL;
    memset(&r->stream, 0, sizeof r->stream);
    memcpy(&r->stream, d, d->size < sizeof r->stream ? d->size : sizeof r->stream);
    r->has_stream = 1;
    r->out->streamed = 1;
    if (out)
        *out = &M.stream;
    return CUBE_OK;
}

static void stream_wake(cube_stream *s) { (void)s; }

static cube_timer *timer_add(cube_plugin *s, uint64_t delay, uint64_t interval,
                             cube_task_fn fn, void *arg)
{
    (void)s; (void)delay;
    for (int i = 0; i < MAX_TIMERS; i++)
        if (!M.timers[i].active) {
            M.timers[i] = (struct cube_timer){fn, M.state, arg, 1, interval > 0};
            return &M.timers[i];
        }
    return NULL;
}

static void timer_cancel(cube_plugin *s, cube_timer *t) { (void)s; if (t) t->active = 0; }

static int submit(cube_plugin *s, cube_task_fn fn, void *arg)
{
    return timer_add(s, 0, 0, fn, arg) ? CUBE_OK : CUBE_ENOMEM;
}

static cube_metric *metric_register(cube_plugin *s, const struct cube_metric_desc *d)
{
    (void)s;
    if (!d || !d->name || !d->help || M.n_metrics == MAX_METRICS)
        return NULL;
    for (int i = 0; i < M.n_metrics; i++)
        if (strcmp(M.metrics[i].name, d->name) == 0)
            return NULL;
    struct cube_metric *m = &M.metrics[M.n_metrics++];
    memset(m, 0, sizeof *m);
    m->desc = *d;
    snprintf(m->name, sizeof m->name, "%s", d->name);
    return m;
}

static double *series(struct cube_metric *m, const char *const *labels)
{
    char key[128] = "";
    for (unsigned i = 0; i < m->desc.label_count; i++)
        snprintf(key + strlen(key), sizeof key - strlen(key), "%s%s", i ? "," : "", labels[i]);
    for (int i = 0; i < m->n; i++)
        if (strcmp(m->series[i], key) == 0)
            return &m->values[i];
    if (m->n == MAX_SERIES)
        return NULL;
    snprintf(m->series[m->n], sizeof m->series[0], "%s", key);
    m->values[m->n] = 0;
    return &m->values[m->n++];
}

static void metric_update(cube_metric *m, const char *const *l, double v, int how)
{
    pthread_mutex_lock(&mock_mu);
    double *p = m ? series(m, l) : NULL;
    if (p)
        *p = how == 0 ? *p + v : how == 1 ? v : *p + 1;   /* observe counts */
    pthread_mutex_unlock(&mock_mu);
}
static void metric_add(cube_metric *m, const char *const *l, double v) { metric_update(m, l, v, 0); }
static void metric_set(cube_metric *m, const char *const *l, double v) { metric_update(m, l, v, 1); }
static void metric_observe(cube_metric *m, const char *const *l, double v)
{ metric_update(m, l, v, 2); }

static void host_init(void)
{
    struct cube_host *h = &M.host;
    h->size = sizeof *h;
    h->abi_major = CUBE_ABI_MAJOR;
    h->abi_minor = CUBE_ABI_MINOR;
    h->host_version = version; h->free = mfree; h->log = mlog; h->logv = logv;
    h->log_enabled = log_enabled; h->set_error = set_error; h->config_json = config_json;
    h->config_string = cfg_str; h->config_int = cfg_int; h->config_double = cfg_double;
    h->config_bool = cfg_bool; h->data_dir = data_dir; h->register_route = register_route;
    h->req_method = req_method; h->req_path = req_path; h->req_param = req_param;
    h->req_query = req_query; h->req_header = req_header; h->req_body = req_body;
    h->req_client_addr = req_client; h->req_id = req_idf; h->resp_header = resp_header;
    h->resp_json = resp_json; h->resp_text = resp_text; h->resp_bytes = resp_bytes;
    h->resp_error = resp_error; h->resp_stream = resp_stream; h->stream_wake = stream_wake;
    h->timer_add = timer_add; h->timer_cancel = timer_cancel; h->submit = submit;
    h->metric_register = metric_register; h->metric_add = metric_add;
    h->metric_set = metric_set; h->metric_observe = metric_observe;
    mock_calls_install(h);
    mock_kinds_install(h);
    mock_objects_install(h);
    mock_files_install(h);
    mock_auth_install(h);
    mock_sched_install(h);
    mock_metrics_install(h);
    mock_ext_install(h);
    mock_proxy_install(h);
    mock_watch_install(h);
    mock_state_install(h);
    mock_fetch_install(h);
    mock_streams_install(h);
    mock_refusal_install(h);   /* last: it wraps the object slots */
}

const struct cube_host *cube_mock_host(const char *config_json, cube_plugin **self)
{
    host_init();
    cJSON_Delete(M.config);
    M.config = cJSON_Parse(config_json ? config_json : "{}");
    *self = &M.self;
    return &M.host;
}

int cube_mock_init(const struct cube_plugin_desc *desc, const char *config_json,
                   void **state)
{
    cube_plugin *self;
    char err[sizeof M.last_error];
    char *config = cube_mock_config(desc->config_schema, config_json, err, sizeof err);
    const struct cube_host *h = cube_mock_host(config ? config : config_json, &self);
    free(config);
    M.state = NULL;
    M.after_init = 0;
    snprintf(M.actor, sizeof M.actor, "plugin:%s", desc->name ? desc->name : "mock");
    if (!config) {
        /* as cubed: a config its schema refuses never reaches init */
        snprintf(M.last_error, sizeof M.last_error, "%s", err);
        M.after_init = 1;
        *state = NULL;
        return CUBE_EINVAL;
    }
    mock_state_before_init(desc);
    int rc = desc->init(h, self, &M.state);
    M.after_init = 1;
    mock_state_after_init(desc, rc);
    *state = M.state;
    return rc;
}

/* Matches a template against a path, filling params. */
static int match(const char *tmpl, const char *path, cube_req *r)
{
    r->n_params = 0;
    while (*tmpl && *path) {
        if (*tmpl != '/' || *path != '/')
            return 0;
        tmpl++, path++;
        size_t tl = strcspn(tmpl, "/"), pl = strcspn(path, "/");
        if (tmpl[0] == '{' && r->n_params < 8) {
            snprintf(r->params[r->n_params][0], 256, "%.*s", (int)(tl - 2), tmpl + 1);
            snprintf(r->params[r->n_params][1], 256, "%.*s", (int)pl, path);
            r->n_params++;
        } else if (tl != pl || strncmp(tmpl, path, tl) != 0) {
            return 0;
        }
        tmpl += tl, path += pl;
    }
    return *tmpl == '\0' && *path == '\0';
}

int cube_mock_proxy_resolve(int i, const char *path, struct cube_proxy_upstream *up)
{
    struct cube_mock_response out = {0};
    int rc = cube_mock_proxy_answer(i, path, up, &out);
    cube_mock_response_free(&out);
    return rc;
}

int cube_mock_proxy_answer(int i, const char *path, struct cube_proxy_upstream *up,
                           struct cube_mock_response *answer)
{
    return mock_proxy_resolve(i, path, NULL, up, answer);
}

int mock_proxy_resolve(int i, const char *path, const char *key, struct cube_proxy_upstream *up,
                       struct cube_mock_response *answer)
{
    const struct cube_proxy_desc *d = cube_mock_proxy(i);
    struct cube_mock_response out = {0};
    cube_req r = {.method = "GET", .path = path, .out = &out};
    *answer = out;
    char head[512];
    size_t segs = 0, n = 0;
    if (!d)
        return CUBE_ENOTFOUND;
    for (const char *t = d->prefix; *t; t++)
        segs += *t == '/';
    /* the first `segs` segments of path, matched against the prefix */
    for (; path[n] && n < sizeof head - 1; n++) {
        if (path[n] == '/' && segs-- == 0)
            break;
        head[n] = path[n];
    }
    head[n] = '\0';
    if (!match(d->prefix, head, &r))
        return CUBE_ENOTFOUND;
    memset(up, 0, sizeof *up);
    up->size = sizeof *up;
    /* cubed presets the key: the parameters joined with '/' */
    for (int k = 0; !key && k < r.n_params; k++) {
        size_t kl = strlen(up->key);
        snprintf(up->key + kl, sizeof up->key - kl, "%s%s", k ? "/" : "", r.params[k][1]);
    }
    if (key)
        snprintf(up->key, sizeof up->key, "%s", key);
    int rc = d->resolve(M.state, &r, up);
    *answer = out;
    return rc;
}

/* Answers as cubed when the caller may not use a route or action: 401,
 * 403 or 404 before the handler runs. Returns nonzero when it answered. */
static int refused(cube_req *r, const char *perm, const char *owner)
{
    static const char *const CODE[] = {"Unauthorized", "Forbidden", "NotFound"};
    int status = mock_permission(perm, owner);
    if (status)
        resp_error(r, status, CODE[status == 401 ? 0 : status == 403 ? 1 : 2],
                   status == 401 ? "sign in first" : status == 403
                   ? "not allowed" : "no such project");
    return status;
}

struct cube_mock_response cube_mock_request(const char *method, const char *path,
                                            const char *query, const char *header,
                                            const char *body)
{
    return cube_mock_request_stream(method, path, query, header, body,
                                    body ? strlen(body) : 0, 0, (size_t)-1);
}

struct cube_mock_response cube_mock_request_stream(const char *method, const char *path,
                                                   const char *query, const char *header,
                                                   const void *body, size_t len,
                                                   size_t chunk, size_t cut_at)
{
    struct cube_mock_response out = {0};
    cube_req r = {.method = method, .path = path, .query = query, .header = header,
                  .body = body, .body_len = len, .out = &out};
    for (int i = 0; i < M.n_routes; i++) {
        if (strcmp(M.methods[i], method) != 0 || !match(M.paths[i], path, &r))
            continue;
        if (refused(&r, M.routes[i].permission, NULL))
            return out;
        if (M.routes[i].stream_body) {
            mock_body_run(&r, &M.routes[i], chunk, cut_at);
            return out;
        }
        out.handler_rc = M.routes[i].handler(M.state, &r);
        if (r.has_stream)
            mock_stream_drain(&r);
        return out;
    }
    /* Registered actions: the host checks the object exists first. */
    for (int i = 0;; i++) {
        char tmpl[512];
        const char *m, *kind;
        const char *perm;
        cube_route_fn fn;
        int got = mock_action_route(i, tmpl, sizeof tmpl, &m, &kind, &fn, &perm);
        if (got == 0)
            break;
        if (got < 0 || strcmp(m, method) != 0 || !match(tmpl, path, &r))
            continue;
        const char *project = req_param(&r, "project"), *name = req_param(&r, "name");
        if (refused(&r, perm, mock_object_owner(kind, project, name)))
            return out;
        if (!mock_object_exists(kind, project, name))
            resp_error(&r, 404, "NotFound", "no such object");
        else
            out.handler_rc = fn(M.state, &r);
        if (r.has_stream)
            mock_stream_drain(&r);
        return out;
    }
    out.status = 404;
    return out;
}

int cube_mock_run_timers(void)
{
    int ran = 0;
    for (int i = 0; i < MAX_TIMERS; i++) {
        struct cube_timer *t = &M.timers[i];
        if (!t->active)
            continue;
        if (!t->repeat)
            t->active = 0;
        t->fn(t->state, t->arg);
        ran++;
    }
    return ran;
}

double cube_mock_metric(const char *name, const char *labels)
{
    for (int i = 0; i < M.n_metrics; i++) {
        struct cube_metric *m = &M.metrics[i];
        if (strcmp(m->name, name) != 0)
            continue;
        for (int j = 0; j < m->n; j++)
            if (strcmp(m->series[j], labels ? labels : "") == 0)
                return m->values[j];
    }
    return -1;
}

const char *cube_mock_last_log(void) { return M.last_log; }
const char *cube_mock_last_error(void) { return M.last_error; }
int cube_mock_route_count(void) { return M.n_routes; }

void cube_mock_response_free(struct cube_mock_response *r)
{
    free(r->body);
    free(r->content_type);
    free(r->headers);
    memset(r, 0, sizeof *r);
}

void cube_mock_reset(const struct cube_plugin_desc *desc, void *state)
{
    mock_fetch_reset();   /* as cubed: no fetch calls back after stop */
    if (desc && desc->fini && state)
        desc->fini(state);
    mock_objects_reset();
    mock_kinds_reset();
    mock_files_reset();
    mock_auth_reset();
    mock_sched_reset();
    mock_metrics_reset();
    mock_proxy_reset();
    mock_ext_reset();
    mock_watch_reset();
    mock_state_reset();
    mock_calls_reset();
    mock_streams_reset();
    cJSON_Delete(M.config);
    memset(&M, 0, sizeof M);
}
