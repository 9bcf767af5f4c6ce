/* proxy.c — reverse-proxied prefixes registered by plugins (ABI 1.4
 * register_proxy): validation, the prefix table, matching a request path
 * and the life of the relay, park and mirror threads.
 *
 * The table is written only while plugins initialise (one thread) and
 * read-only once HTTP starts, so matching takes no lock. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apps.h"
#include "auth/auth.h"
#include "ctx/ctx.h"
#include "http/http_req.h"
#include "objects/kinds.h"
#include "base/log.h"
#include "metrics/metrics.h"
#include "proxy_priv.h"

static struct cube_proxies *proxies_of(struct cube_ctx *ctx)
{
    if (ctx->proxies)
        return ctx->proxies;
    struct cube_proxies *px = calloc(1, sizeof *px);
    if (!px)
        return NULL;
    char err[200];
    if (proxy_metrics_register(px, ctx->metrics, err, sizeof err) < 0) {
        cube_log(CUBE_LOG_ERROR, "proxy", "metric: %s", err);
        free(px);
        return NULL;
    }
    px->ctx = ctx;
    pthread_mutex_init(&px->pool_mu, NULL);
    px->shared.px = px;
    ctx->proxies = px;
    return px;
}

static void prefix_free(struct proxy_prefix *p)
{
    if (!p)
        return;
    proxy_stats_free(p);
    proxy_creds_free(p);
    for (size_t i = 0; i < p->n_segs; i++)
        free(p->segs[i]);
    free(p->tmpl);
    free(p);
}

static int param_name_ok(const char *s, size_t n)
{
    if (!n)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') || s[i] == '_' ||
              (i && s[i] >= '0' && s[i] <= '9')))
            return 0;
    return 1;
}

static int literal_ok(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
              (s[i] >= '0' && s[i] <= '9') || strchr("-_.~", s[i])))
            return 0;
    return n > 0;
}

/* Splits the template into p->segs. NULL, or what is wrong with it. */
static const char *parse_template(struct proxy_prefix *p, const char *t)
{
    if (t[0] != '/' || strlen(t) > 200)
        return "prefix: must start with / and be at most 200 characters";
    for (const char *s = t + 1; *s;) {
        size_t n = strcspn(s, "/");
        if (p->n_segs == PROXY_MAX_SEGS)
            return "prefix: too many segments";
        int param = n >= 2 && s[0] == '{' && s[n - 1] == '}';
        if (param ? !param_name_ok(s + 1, n - 2) : !literal_ok(s, n))
            return "prefix: each segment must be a literal ([A-Za-z0-9-_.~]) or a {param}";
        for (size_t i = 0; param && i < p->n_segs; i++)
            if (p->is_param[i] && strlen(p->segs[i]) == n - 2 &&
                !strncmp(p->segs[i], s + 1, n - 2))
                return "prefix: a {param} name appears twice";
        p->is_param[p->n_segs] = param;
        if (!(p->segs[p->n_segs++] = param ? strndup(s + 1, n - 2) : strndup(s, n)))
            return "out of memory";
        s += n;
        if (*s == '/' && !*++s)
            return "prefix: must not end with /";
    }
    if (!p->n_segs || p->is_param[0])
        return "prefix: the first segment must be a literal";
    if (!strcmp(p->segs[0], "api") || !strcmp(p->segs[0], "ui") || !strcmp(p->segs[0], "_cube"))
        return "prefix: /api, /ui and /_cube belong to the core";
    return NULL;
}

static int has_param(const struct proxy_prefix *p, const char *name)
{
    for (size_t i = 0; i < p->n_segs; i++)
        if (p->is_param[i] && !strcmp(p->segs[i], name))
            return 1;
    return 0;
}

/* 1 when some path lies under both prefixes. */
static int overlaps(const struct proxy_prefix *a, const struct proxy_prefix *b)
{
    size_t n = a->n_segs < b->n_segs ? a->n_segs : b->n_segs;
    for (size_t i = 0; i < n; i++)
        if (!a->is_param[i] && !b->is_param[i] && strcmp(a->segs[i], b->segs[i]) != 0)
            return 0;
    return 1;
}

/* 1 when a core route's first segment is the prefix's (/healthz ...). */
static int core_route_clash(const struct cube_ctx *ctx, const char *first)
{
    size_t n = strlen(first);
    for (const struct cube_route_entry *e = ctx->routes; e; e = e->next)
        if (!strncmp(e->path + 1, first, n) && (e->path[1 + n] == '/' || !e->path[1 + n]))
            return 1;
    return 0;
}

/* Fills p from d; NULL or what is wrong (naming the field). */
static const char *check_desc(struct cube_ctx *ctx, struct proxy_prefix *p,
                              const struct cube_proxy_desc *d)
{
    if (!d->prefix)
        return "prefix: required";
    const char *bad = parse_template(p, d->prefix);
    if (bad)
        return bad;
    if (core_route_clash(ctx, p->segs[0]))
        return "prefix: its first segment is a core route's";
    p->perm = cube_perm_parse(d->permission, 0);
    if (p->perm < 0)
        return "permission: must be one of the CUBE_PERM_* values";
    if (cube_perm_needs_project(p->perm) && !has_param(p, "project"))
        return "permission: a project permission needs a {project} segment in prefix";
    if (!d->resolve)
        return "resolve: required";
    if (d->kind) {
        p->kind = cube_kinds_by_kind(&ctx->kinds, d->kind);
        if (!p->kind)
            return "kind: not a registered kind (register the kind first)";
        if (p->kind->scope != CUBE_SCOPE_PROJECT || !has_param(p, "project") ||
            !has_param(p, "name"))
            return "kind: needs a project kind and {project} and {name} in prefix";
    }
    return NULL;
}

int cube_slot_register_proxy(cube_plugin *self, const struct cube_proxy_desc *in)
{
    struct cube_proxy_desc d = {0};
    size_t min = offsetof(struct cube_proxy_desc, resolve) + sizeof d.resolve;
    if (!self->in_init) {
        cube_log(CUBE_LOG_ERROR, self->log_component, "register_proxy: only during init");
        return CUBE_ESTATE;
    }
    if (!in || in->size < min) {
        cube_log(CUBE_LOG_ERROR, self->log_component, "register_proxy: size: descriptor "
                 "size %zu is smaller than ABI 1.4's %zu", in ? in->size : 0, min);
        return CUBE_EINVAL;
    }
    memcpy(&d, in, in->size < sizeof d ? in->size : sizeof d);
    struct cube_proxies *px = proxies_of(self->ctx);
    struct proxy_prefix *p = calloc(1, sizeof *p);
    if (p)
        proxy_stats_init(p);
    if (!px || !p || !(p->tmpl = strdup(d.prefix ? d.prefix : ""))) {
        prefix_free(p);
        return CUBE_ENOMEM;
    }
    const char *bad = check_desc(self->ctx, p, &d);
    for (struct proxy_prefix *o = px->prefixes; !bad && o; o = o->next)
        if (overlaps(o, p))
            bad = "prefix: overlaps a prefix already registered";
    if (bad) {
        cube_log(CUBE_LOG_ERROR, self->log_component, "register_proxy %s: %s",
                 d.prefix ? d.prefix : "(null)", bad);
        prefix_free(p);
        return strstr(bad, "overlaps") ? CUBE_EEXIST
               : strstr(bad, "memory") ? CUBE_ENOMEM : CUBE_EINVAL;
    }
    p->plugin = self;
    p->login_redirect = d.login_redirect != 0;
    p->strip_prefix = d.strip_prefix != 0;
    p->allow_remote = d.allow_remote != 0;
    p->resolve = d.resolve;
    p->done = d.done;
    p->park_max = !d.park_max ? PROXY_PARK_MAX
                  : d.park_max > PROXY_PARK_MAX_MAX ? PROXY_PARK_MAX_MAX : d.park_max;
    p->mirror_body_max = !d.mirror_body_max ? PROXY_MIRROR_BODY_MAX
                         : d.mirror_body_max > PROXY_MIRROR_BODY_MAX_MAX
                             ? PROXY_MIRROR_BODY_MAX_MAX : d.mirror_body_max;
    p->next = px->prefixes;
    px->prefixes = p;
    const char *series[] = {p->tmpl};   /* the prefix's series exist from the start */
    cube_metric_set(px->m_inflight, series, 0);
    cube_metric_set(px->m_parked, series, 0);
    cube_metric_add(px->m_errors, series, 0);
    cube_log(CUBE_LOG_INFO, self->log_component, "proxying %s (%s)", p->tmpl,
             cube_perm_name(p->perm));
    return CUBE_OK;
}

/* -- matching ----------------------------------------------------------------- */

struct proxy_prefix *proxy_match(const struct cube_proxies *px, const char *raw_path,
                                 struct cube_route_match *m, const char **rest)
{
    for (struct proxy_prefix *p = px ? px->prefixes : NULL; p; p = p->next) {
        const char *s = raw_path;
        size_t i = 0;
        m->n_params = 0;
        for (; i < p->n_segs && *s == '/'; i++) {
            s++;
            size_t n = strcspn(s, "/");
            if (!p->is_param[i] && (strlen(p->segs[i]) != n || strncmp(s, p->segs[i], n)))
                break;
            if (p->is_param[i]) {
                char *v = strndup(s, n);
                if (!v || !n || cube_percent_decode(v) < 0 || strchr(v, '/')) {
                    free(v);
                    break;
                }
                m->params[m->n_params].name = p->segs[i];
                m->params[m->n_params++].value = v;
            }
            s += n;
        }
        if (i == p->n_segs && (*s == '\0' || *s == '/')) {
            *rest = s;
            m->pattern = p->tmpl;
            return p;
        }
        cube_route_match_clear(m);
    }
    return NULL;
}

struct proxy_prefix *proxy_prefix_of(struct cube_proxies *px, const cube_plugin *self,
                                     const char *tmpl)
{
    for (struct proxy_prefix *p = px && tmpl ? px->prefixes : NULL; p; p = p->next)
        if (p->plugin == self && !strcmp(p->tmpl, tmpl))
            return p;
    return NULL;
}

/* -- life cycle ----------------------------------------------------------------- */

int cube_proxy_http_start(struct cube_ctx *ctx)
{
    struct cube_proxies *px = ctx->proxies;
    if (!px || !px->prefixes)
        return 0;
    px->loop = proxy_loop_start();
    px->park = proxy_park_new();
    px->mirror = proxy_mirror_new();
    if (!px->loop || !px->park || !px->mirror) {
        cube_log(CUBE_LOG_ERROR, "proxy", "cannot start the relay thread");
        return -1;
    }
    return 0;
}

void cube_proxy_http_stop(struct cube_ctx *ctx)
{
    struct cube_proxies *px = ctx->proxies;
    if (!px)
        return;
    if (px->park)    /* parked requests answer 503 before the daemon stops */
        proxy_park_stop(px->park);
    if (px->mirror)
        proxy_mirror_stop(px->mirror);
    if (px->loop)
        proxy_loop_stop(px->loop);
}

void cube_proxy_drop_plugin(struct cube_ctx *ctx, struct cube_plugin *plugin)
{
    struct cube_proxies *px = ctx->proxies;
    for (struct proxy_prefix **pp = px ? &px->prefixes : NULL; pp && *pp;) {
        struct proxy_prefix *p = *pp;
        if (p->plugin != plugin) {
            pp = &p->next;
            continue;
        }
        *pp = p->next;
        prefix_free(p);
    }
}

void cube_proxy_free(struct cube_ctx *ctx)
{
    struct cube_proxies *px = ctx->proxies;
    if (!px)
        return;
    cube_proxy_http_stop(ctx);
    cube_apps_free(ctx);
    proxy_pool_clear(px);
    proxy_loop_free(px->loop);
    proxy_park_free(px->park);
    proxy_mirror_free(px->mirror);
    while (px->prefixes) {
        struct proxy_prefix *p = px->prefixes;
        px->prefixes = p->next;
        prefix_free(p);
    }
    pthread_mutex_destroy(&px->pool_mu);
    free(px);
    ctx->proxies = NULL;
}
