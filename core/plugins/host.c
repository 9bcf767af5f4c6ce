/* host.c — the ABI 1.0 host function table: what plugins may call.
 * Each slot validates its arguments and maps onto a core facility. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/callerr.h"
#include "ctx/ctx.h"
#include "sched/jobs.h"
#include "host_slots.h"
#include "cube_build.h"
#include "http/http_req.h"
#include "base/errs.h"
#include "base/log.h"
#include "metrics/metrics.h"
#include "http/router.h"
#include "base/tasks.h"

const char *cube_slot_host_version(void)
{
    return CUBE_VERSION;
}

void cube_slot_free(void *p)
{
    free(p);
}

void cube_slot_logv(cube_plugin *self, int level, const char *fmt, va_list ap)
{
    cube_logv(level, self ? self->log_component : "plugin:?", fmt, ap);
}

void cube_slot_log(cube_plugin *self, int level, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cube_slot_logv(self, level, fmt, ap);
    va_end(ap);
}

int cube_slot_log_enabled(cube_plugin *self, int level)
{
    (void)self;
    return cube_log_enabled(level);
}

/* Inside a callback the host called (a call frame of self on this
 * thread): that call's error; elsewhere the init/start message. */
void cube_slot_set_error(cube_plugin *self, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    struct cube_callerr *ce = cube_callerr_current(self);
    if (ce)
        vsnprintf(ce->msg, sizeof ce->msg, fmt, ap);
    else
        vsnprintf(self->error, sizeof self->error, fmt, ap);
    va_end(ap);
}

void *cube_slot_alloc(size_t size)
{
    return malloc(size ? size : 1);
}

void cube_slot_set_error_field(cube_plugin *self, const char *field, const char *fmt, ...)
{
    struct cube_callerr *ce = cube_callerr_current(self);
    if (!ce)
        return;
    snprintf(ce->field, sizeof ce->field, "%s", field ? field : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ce->msg, sizeof ce->msg, fmt ? fmt : "", ap);
    va_end(ap);
}

#define RETRY_MAX_MS 86400000u

void cube_slot_retry_after(cube_plugin *self, unsigned ms)
{
    struct cube_callerr *ce = cube_callerr_current(self);
    if (ce) {
        ce->has_retry = 1;
        ce->retry_ms = ms < RETRY_MAX_MS ? ms : RETRY_MAX_MS;
    }
}

char *cube_slot_config_json(cube_plugin *self)
{
    return strdup(self->config_text ? self->config_text : "{}");
}

/* Finds a dotted path ("a.b.c") in the plugin's config. */
static const cJSON *config_lookup(const cube_plugin *self, const char *path)
{
    const cJSON *node = self->config;
    char key[128];
    while (node && path && *path) {
        const char *dot = strchr(path, '.');
        size_t len = dot ? (size_t)(dot - path) : strlen(path);
        if (len >= sizeof key)
            return NULL;
        memcpy(key, path, len);
        key[len] = '\0';
        node = cJSON_IsObject(node) ? cJSON_GetObjectItemCaseSensitive(node, key)
                                    : NULL;
        path = dot ? dot + 1 : NULL;
    }
    return node;
}

const char *cube_slot_config_string(cube_plugin *self, const char *path,
                                    const char *def)
{
    const cJSON *n = config_lookup(self, path);
    return cJSON_IsString(n) ? n->valuestring : def;
}

int64_t cube_slot_config_int(cube_plugin *self, const char *path, int64_t def)
{
    const cJSON *n = config_lookup(self, path);
    if (!cJSON_IsNumber(n) || n->valuedouble != (double)(int64_t)n->valuedouble)
        return def;
    return (int64_t)n->valuedouble;
}

double cube_slot_config_double(cube_plugin *self, const char *path, double def)
{
    const cJSON *n = config_lookup(self, path);
    return cJSON_IsNumber(n) ? n->valuedouble : def;
}

int cube_slot_config_bool(cube_plugin *self, const char *path, int def)
{
    const cJSON *n = config_lookup(self, path);
    return cJSON_IsBool(n) ? cJSON_IsTrue(n) : def;
}

const char *cube_slot_data_dir(cube_plugin *self)
{
    return self->data_dir;
}

int cube_slot_register_route(cube_plugin *self,
                             const struct cube_route_desc *desc)
{
    char err[256];
    if (!self->in_init) {
        cube_log(CUBE_LOG_ERROR, self->log_component,
                 "register_route: only allowed during init");
        return CUBE_ESTATE;
    }
    int rc = cube_ctx_add_route(self->ctx, self, desc, err, sizeof err);
    if (rc != CUBE_OK)
        cube_log(CUBE_LOG_ERROR, self->log_component, "register_route: %s", err);
    return rc;
}

const char *cube_slot_req_method(cube_req *r) { return r->method; }
const char *cube_slot_req_path(cube_req *r) { return r->path; }
const char *cube_slot_req_body(cube_req *r, size_t *len)
{
    if (len)
        *len = r->body_len;
    return r->body ? r->body : "";
}
const char *cube_slot_req_client_addr(cube_req *r) { return cube_req_client(r); }
const char *cube_slot_req_id(cube_req *r) { return r->id; }

const char *cube_slot_req_param(cube_req *r, const char *name)
{
    return name ? cube_route_match_param(&r->match, name) : NULL;
}

const char *cube_slot_req_query(cube_req *r, const char *name)
{
    return name ? cube_req_query(r, name) : NULL;
}

const char *cube_slot_req_header(cube_req *r, const char *name)
{
    return name ? cube_req_header(r, name) : NULL;
}

int cube_slot_resp_json(cube_req *r, int status, const char *json)
{
    if (!json)
        return CUBE_EINVAL;
    return cube_http_answer(r, status, "application/json", json, strlen(json), 1);
}

int cube_slot_resp_text(cube_req *r, int status, const char *ctype, const char *text)
{
    if (!text)
        return CUBE_EINVAL;
    return cube_http_answer(r, status, ctype ? ctype : "text/plain; charset=utf-8",
                            text, strlen(text), 1);
}

int cube_slot_resp_bytes(cube_req *r, int status, const char *ctype,
                         const void *data, size_t len)
{
    if (!data && len)
        return CUBE_EINVAL;
    return cube_http_answer(r, status, ctype ? ctype : "application/octet-stream",
                            data ? data : "", len, 0);
}

int cube_slot_resp_error(cube_req *r, int status, const char *code, const char *msg)
{
    if (status < 400 || status > 599)
        return CUBE_EINVAL;
    return cube_http_answer_error(r, status, code, msg);
}

cube_timer *cube_slot_timer_add(cube_plugin *self, uint64_t delay_ms,
                                uint64_t interval_ms, cube_task_fn fn, void *arg)
{
    if (!fn)
        return NULL;
    /* Contract (cube_plugin_desc.init): the state is taken now; the loader
     * hands init &self->state, so a plugin that assigned it first is fine. */
    if (self->in_init && !self->state)
        cube_log(CUBE_LOG_WARN, self->log_component,
                 "timer_add during init before *state was assigned");
    return (cube_timer *)cube_tasks_timer_add(self->ctx->tasks, delay_ms,
                                              interval_ms, (cube_tasks_fn)fn,
                                              self->state, arg, self);
}

void cube_slot_timer_cancel(cube_plugin *self, cube_timer *t)
{
    if (t)
        cube_tasks_timer_cancel(self->ctx->tasks, (struct cube_timer *)t);
}

/* One submitted function, counted against its plugin until it returns. */
struct submitted {
    cube_plugin *self;
    cube_task_fn fn;
    void *arg;
};

static void run_submitted(void *a, void *b)
{
    struct submitted *s = a;
    (void)b;
    s->fn(s->self->state, s->arg);
    atomic_fetch_sub(&s->self->tasks_inflight, 1);
    free(s);
}

int cube_slot_submit(cube_plugin *self, cube_task_fn fn, void *arg)
{
    if (!fn)
        return CUBE_EINVAL;
    if (atomic_load(&self->tasks_closed))
        return CUBE_ESTATE;
    struct submitted *s = malloc(sizeof *s);
    if (!s)
        return CUBE_ENOMEM;
    *s = (struct submitted){self, fn, arg};
    atomic_fetch_add(&self->tasks_inflight, 1);
    if (cube_tasks_submit(self->ctx->tasks, run_submitted, s, NULL) < 0) {
        atomic_fetch_sub(&self->tasks_inflight, 1);
        free(s);
        return CUBE_ESTATE;
    }
    return CUBE_OK;
}

void cube_host_tasks_drain(cube_plugin *self)
{
    atomic_store(&self->tasks_closed, 1);
    while (atomic_load(&self->tasks_inflight) > 0)
        usleep(1000);
}

cube_metric *cube_slot_metric_register(cube_plugin *self,
                                       const struct cube_metric_desc *desc)
{
    char err[256];
    struct cube_metric *m = cube_metrics_register(self->ctx->metrics, desc,
                                                  self->name, err, sizeof err);
    if (!m)
        cube_log(CUBE_LOG_ERROR, self->log_component, "metric_register: %s", err);
    return m;
}
