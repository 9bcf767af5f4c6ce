/* loader.c — see loader.h. The descriptor is checked field by field before
 * any plugin callback runs, and every refusal names the file, what was
 * expected and what was found. */
#include "loader.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "auth/auth.h"
#include "net/net.h"
#include "sched/jobs.h"
#include "proxy/proxy.h"
#include "config/config.h"
#include "ctx/ctx.h"
#include "base/log.h"
#include "metrics/metrics.h"
#include "base/tasks.h"
#include "host_slots.h"
#include "ui_ext.h"
#include "base/fs.h"

char *cube_loader_find(const char *plugin_dir, const char *name, char *err,
                       size_t errlen)
{
    char *cands[2] = {NULL, NULL};
    if (asprintf(&cands[0], "%s/cube-%s.so", plugin_dir, name) < 0)
        cands[0] = NULL;
    if (asprintf(&cands[1], "%s/%s/cube-%s.so", plugin_dir, name, name) < 0)
        cands[1] = NULL;
    for (int i = 0; i < 2; i++)
        if (cands[i] && access(cands[i], R_OK) == 0) {
            free(cands[1 - i]);
            return cands[i];
        }
    snprintf(err, errlen, "plugin file not found: looked for %s and %s",
             cands[0] ? cands[0] : "?", cands[1] ? cands[1] : "?");
    free(cands[0]);
    free(cands[1]);
    return NULL;
}

int cube_loader_check_desc(const struct cube_plugin_desc *d, const char *file,
                           const char *expected_name,
                           struct cube_plugin_desc *out, char *err, size_t errlen)
{
    if (!d) {
        snprintf(err, errlen, "%s: entry function returned NULL", file);
        return -1;
    }
    if (d->magic != CUBE_PLUGIN_MAGIC) {
        snprintf(err, errlen, "%s: bad magic: expected 0x%08x, found 0x%08x",
                 file, CUBE_PLUGIN_MAGIC, d->magic);
        return -1;
    }
    if (d->abi_major != CUBE_ABI_MAJOR) {
        snprintf(err, errlen, "%s: ABI major version: expected %d, found %u "
                 "(rebuild the plugin against this Cube)", file, CUBE_ABI_MAJOR,
                 (unsigned)d->abi_major);
        return -1;
    }
    if (d->abi_minor > CUBE_ABI_MINOR) {
        snprintf(err, errlen, "%s: ABI minor version: expected <= %d, found %u "
                 "(the plugin needs a newer Cube)", file, CUBE_ABI_MINOR,
                 (unsigned)d->abi_minor);
        return -1;
    }
    if (d->size < CUBE_DESC_MIN_SIZE) {
        snprintf(err, errlen, "%s: descriptor size: expected at least %zu, found %u",
                 file, (size_t)CUBE_DESC_MIN_SIZE, d->size);
        return -1;
    }
    memset(out, 0, sizeof *out);
    memcpy(out, d, d->size < sizeof *out ? d->size : sizeof *out);
    if (out->flags != 0) {
        snprintf(err, errlen, "%s: flags: expected 0, found 0x%x", file, out->flags);
        return -1;
    }
    if (!out->name || !*out->name) {
        snprintf(err, errlen, "%s: name: expected a name, found none", file);
        return -1;
    }
    if (expected_name && strcmp(out->name, expected_name) != 0) {
        snprintf(err, errlen, "%s: name: expected \"%s\", found \"%s\"", file,
                 expected_name, out->name);
        return -1;
    }
    if (!out->init) {
        snprintf(err, errlen, "%s: init: required callback is NULL", file);
        return -1;
    }
    return cube_deps_check_desc(out, file, err, errlen);
}

/* The entry symbol of a plugin: cube_plugin_<name>, with '-' as '_'. */
static void entry_symbol(const char *name, char *sym, size_t len)
{
    snprintf(sym, len, "cube_plugin_%s", name);
    for (char *p = sym; *p; p++)
        if (*p == '-')
            *p = '_';
}

/* Resolves the entry: `sym` (see entry_symbol), then the generic one. */
static cube_plugin_entry_fn find_entry(void *handle, const char *sym)
{
    void *fn = dlsym(handle, sym);
    if (!fn)
        fn = dlsym(handle, CUBE_PLUGIN_ENTRY_GENERIC);
    cube_plugin_entry_fn entry;
    memcpy(&entry, &fn, sizeof entry); /* object to function pointer */
    return entry;
}

int cube_loader_open(const char *file, const char *name, void **handle,
                     struct cube_plugin_desc *desc, char *err, size_t errlen)
{
    dlerror();
    void *h = dlopen(file, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(err, errlen, "%s: cannot load: %s", file, dlerror());
        return -1;
    }
    char sym[160];
    entry_symbol(name, sym, sizeof sym);
    cube_plugin_entry_fn entry = find_entry(h, sym);
    if (!entry) {
        snprintf(err, errlen, "%s: entry symbol: expected %s or %s, found neither",
                 file, sym, CUBE_PLUGIN_ENTRY_GENERIC);
        dlclose(h);
        return -1;
    }
    if (cube_loader_check_desc(entry(), file, name, desc, err, errlen) < 0) {
        dlclose(h);
        return -1;
    }
    *handle = h;
    return 0;
}

static void plugin_free(struct cube_plugin *p)
{
    if (!p)
        return;
    free(p->name);
    free(p->file);
    free(p->log_component);
    free(p->data_dir);
    free(p->config_text);
    cJSON_Delete(p->config);
    free(p);
}

/* Builds the host record: descriptor, validated config, data dir. */
static struct cube_plugin *plugin_prepare(struct cube_ctx *ctx,
                                          const struct cube_plugin_conf *pc)
{
    char err[512];
    struct cube_plugin *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->ctx = ctx;
    p->optional = pc->optional;
    p->name = strdup(pc->name);
    if (asprintf(&p->log_component, "plugin:%s", pc->name) < 0)
        p->log_component = NULL;
    char *dir = cube_path_join(ctx->cfg->data_dir, "plugins");
    p->data_dir = dir ? cube_path_join(dir, pc->name) : NULL;
    free(dir);
    if (!p->name || !p->log_component || !p->data_dir)
        goto fail;
    p->file = cube_loader_find(ctx->cfg->plugin_dir, pc->name, err, sizeof err);
    if (!p->file) {
        cube_log(CUBE_LOG_ERROR, "loader", "%s: plugin %s: %s", pc->file, pc->name, err);
        goto fail;
    }
    if (cube_loader_open(p->file, pc->name, &p->handle, &p->desc, err, sizeof err) < 0) {
        cube_log(CUBE_LOG_ERROR, "loader", "%s", err);
        goto fail;
    }
    struct cube_errs errs = {0};
    if (cube_config_validate_plugin(pc, p->desc.config_schema, &p->config, &errs) != 0) {
        for (size_t i = 0; i < errs.n; i++)
            cube_log(CUBE_LOG_ERROR, "config", "%s", errs.msgs[i]);
        cube_errs_clear(&errs);
        goto fail;
    }
    if (!(p->config_text = cJSON_PrintUnformatted(p->config)))
        goto fail;
    if (cube_mkdir_p(p->data_dir, 0700) < 0) {
        cube_log(CUBE_LOG_ERROR, "loader", "plugin %s: cannot create %s: %s",
                 pc->name, p->data_dir, strerror(errno));
        goto fail;
    }
    return p;
fail:
    plugin_free(p); /* a dlopen handle is left open: see DESIGN §2 */
    return NULL;
}

/* Undoes everything a plugin registered during an init that did not
 * stick (init failed, or its routes could not be committed). */
static void drop_registrations(struct cube_ctx *ctx, struct cube_plugin *p)
{
    cube_ctx_drop_routes(p);
    cube_kinds_drop_plugin(&ctx->kinds, p);
    cube_auth_drop_plugin(ctx, p);
    cube_proxy_drop_plugin(ctx, p);
    cube_ui_drop_plugin(&ctx->ui, p);
    sched_drop_plugin(ctx->sched, p);
    cube_plugin_apis_drop(ctx, p);
    cube_tasks_cancel_owner(ctx->tasks, p);
}

static int plugin_init(struct cube_ctx *ctx, struct cube_plugin *p)
{
    p->in_init = 1;
    int rc = p->desc.init(&ctx->host, p, &p->state);
    p->in_init = 0;
    if (rc != CUBE_OK) {
        cube_log(CUBE_LOG_ERROR, "loader", "plugin %s: init failed (%d): %s",
                 p->name, rc, p->error[0] ? p->error : "no message given");
        drop_registrations(ctx, p);
        return -1;
    }
    char err[300];
    if (cube_ctx_commit_routes(ctx, p, err, sizeof err) != CUBE_OK) {
        cube_log(CUBE_LOG_ERROR, "loader", "plugin %s: %s", p->name, err);
        drop_registrations(ctx, p);
        if (p->desc.fini)
            p->desc.fini(p->state);
        return -1;
    }
    p->initialised = 1;
    cube_plugin_apis_commit(ctx, p);
    cube_log(CUBE_LOG_INFO, "loader", "plugin %s %s (%s) loaded from %s",
             p->name, p->desc.version ? p->desc.version : "?",
             p->desc.vendor ? p->desc.vendor : "?", p->file);
    return 0;
}

/* A plugin that cannot load: an optional one is skipped (0), else
 * start-up stops (-1). */
static int refuse(const struct cube_plugin_conf *pc)
{
    if (!pc->optional) {
        cube_log(CUBE_LOG_ERROR, "loader", "%s: plugin %s failed; stopping "
                 "(set `optional: true` to skip it instead)", pc->file, pc->name);
        return -1;
    }
    cube_log(CUBE_LOG_WARN, "loader", "%s: optional plugin %s skipped", pc->file, pc->name);
    return 0;
}

/* The enabled plugins of one start-up, prepared, in conf.d order. */
struct load_set {
    struct cube_plugin **ps;               /* NULL where preparing failed */
    const struct cube_plugin_conf **pcs;
    struct cube_dep_node *nodes;
    size_t n;
};

/* The first plugin, in conf.d order, whose requirements are all
 * initialised (*ready 0) or can never be (*ready -1, err says why); n
 * when none can go now. */
static size_t next_ready(const struct load_set *L, int *ready, char *err, size_t errlen)
{
    for (size_t i = 0; i < L->n; i++) {
        if (L->nodes[i].done || L->nodes[i].failed)
            continue;
        if ((*ready = cube_deps_ready(L->nodes, L->n, i, err, errlen)) != 1)
            return i;
    }
    return L->n;
}

/* Initialises L's plugins, each after those it requires, appending them
 * to ctx->plugins; refuses those whose requirements fail or form a cycle.
 * 0, or -1 when a plugin that is not optional could not load. */
static int init_in_order(struct cube_ctx *ctx, struct load_set *L)
{
    char err[512];
    struct cube_plugin **tail = &ctx->plugins;
    int ready, rc = 0;
    for (size_t i; (i = next_ready(L, &ready, err, sizeof err)) < L->n;) {
        if (ready < 0)
            cube_log(CUBE_LOG_ERROR, "loader", "%s: %s", L->pcs[i]->file, err);
        if (ready == 0 && plugin_init(ctx, L->ps[i]) == 0) {
            L->nodes[i].done = 1;
            *tail = L->ps[i];
            tail = &L->ps[i]->next;
            ctx->n_plugins++;
            continue;
        }
        L->nodes[i].failed = 1;
        if (refuse(L->pcs[i]) < 0)
            return -1;
    }
    for (size_t i = 0; i < L->n; i++) {
        if (L->nodes[i].done || L->nodes[i].failed)
            continue;
        cube_deps_cycle(L->nodes, L->n, i, err, sizeof err);
        cube_log(CUBE_LOG_ERROR, "loader", "%s: %s", L->pcs[i]->file, err);
        if (refuse(L->pcs[i]) < 0)
            rc = -1;
    }
    for (size_t i = 0; i < L->n; i++)
        L->nodes[i].failed |= !L->nodes[i].done;
    return rc;
}

int cube_loader_load_all(struct cube_ctx *ctx)
{
    if (ctx->safe_mode) {
        cube_log(CUBE_LOG_WARN, "loader", "safe mode: no plugins loaded");
        return 0;
    }
    size_t cap = ctx->cfg->n_plugins ? ctx->cfg->n_plugins : 1;
    struct load_set L = {calloc(cap, sizeof *L.ps), calloc(cap, sizeof *L.pcs),
                         calloc(cap, sizeof *L.nodes), 0};
    int rc = L.ps && L.pcs && L.nodes ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < ctx->cfg->n_plugins; i++) {
        const struct cube_plugin_conf *pc = &ctx->cfg->plugins[i];
        if (!pc->enabled)
            continue;
        struct cube_plugin *p = plugin_prepare(ctx, pc);
        L.ps[L.n] = p;
        L.pcs[L.n] = pc;
        L.nodes[L.n] = (struct cube_dep_node){pc->name, p ? p->desc.version : NULL,
                                              p ? p->desc.dependencies : NULL, 0, !p};
        L.n++;
        if (!p && refuse(pc) < 0)
            rc = -1;
    }
    if (rc == 0)
        rc = init_in_order(ctx, &L);
    for (size_t i = 0; i < L.n; i++)
        if (!L.nodes[i].done)
            plugin_free(L.ps[i]);   /* a dlopen handle stays open: see DESIGN §2 */
    free(L.ps);
    free(L.pcs);
    free(L.nodes);
    cube_metric_set(ctx->m_plugins, NULL, (double)ctx->n_plugins);
    return rc;
}

int cube_loader_start_all(struct cube_ctx *ctx)
{
    for (struct cube_plugin *p = ctx->plugins; p; p = p->next) {
        if (p->desc.start) {
            p->error[0] = '\0';
            int rc = p->desc.start(p->state);
            if (rc != CUBE_OK) {
                cube_log(CUBE_LOG_ERROR, "loader", "plugin %s: start failed (%d): %s",
                         p->name, rc, p->error[0] ? p->error : "no message given");
                return -1;
            }
        }
        p->started = 1;
    }
    return 0;
}

/* Stops in reverse load order: later plugins may depend on earlier ones. */
static void stop_reverse(struct cube_ctx *ctx, struct cube_plugin *p)
{
    if (!p)
        return;
    stop_reverse(ctx, p->next);
    cube_tasks_cancel_owner(ctx->tasks, p);
    if (p->started && p->desc.stop)
        p->desc.stop(p->state);
    p->started = 0;
    cube_host_watch_cancel_all(p); /* no watch callback runs after stop */
    cube_host_tasks_drain(p);   /* nothing submitted runs after fini */
    cube_net_cancel_owner(ctx->net, p);   /* nor a fetch's callback */
}

/* Finis in reverse load order: a plugin's fini comes before the fini of
 * every plugin it requires, so the APIs it got from them (api_get) are
 * still there while it runs. */
static void fini_reverse(struct cube_ctx *ctx, struct cube_plugin *p)
{
    if (!p)
        return;
    fini_reverse(ctx, p->next);
    cube_plugin_apis_drop(ctx, p);
    if (p->initialised && p->desc.fini)
        p->desc.fini(p->state);
    plugin_free(p); /* the .so stays mapped: never dlclose after init */
}

void cube_loader_unload_all(struct cube_ctx *ctx)
{
    stop_reverse(ctx, ctx->plugins);
    fini_reverse(ctx, ctx->plugins);
    ctx->plugins = NULL;
    ctx->n_plugins = 0;
}

static void list_one(FILE *out, const struct cube_config *cfg, const char *name,
                     int *problems)
{
    char err[512];
    const struct cube_plugin_conf *pc = cube_config_find_plugin(cfg, name);
    const char *state = !pc ? "not configured" : pc->enabled ? "enabled" : "disabled";
    char *file = cube_loader_find(cfg->plugin_dir, name, err, sizeof err);
    void *handle;
    struct cube_plugin_desc d;
    if (!file) {
        fprintf(out, "%-20s %-14s MISSING  %s\n", name, state, err);
        (*problems)++;
        return;
    }
    if (cube_loader_open(file, name, &handle, &d, err, sizeof err) < 0) {
        fprintf(out, "%-20s %-14s BROKEN   %s\n", name, state, err);
        (*problems)++;
    } else {
        fprintf(out, "%-20s %-14s %-8s %s — %s (%s, %s) [ABI %u.%u] %s\n", name,
                state, d.version ? d.version : "?",
                d.description ? d.description : "", d.vendor ? d.vendor : "?",
                d.license ? d.license : "?", file, d.abi_major, d.abi_minor,
                d.config_schema ? "configurable" : "");
    }
    free(file);
}


int cube_loader_list(const struct cube_config *cfg, FILE *out)
{
    int problems = 0;
    char **names = NULL;
    size_t n = 0;
    cube_loader_scan_dir(cfg->plugin_dir, &names, &n);
    for (size_t i = 0; i < cfg->n_plugins; i++) {
        int seen = 0;
        for (size_t j = 0; j < n; j++)
            seen |= strcmp(names[j], cfg->plugins[i].name) == 0;
        char **grown = seen ? NULL : realloc(names, (n + 1) * sizeof *names);
        if (grown) {
            names = grown;
            names[n++] = strdup(cfg->plugins[i].name);
        }
    }
    fprintf(out, "plugin directory: %s\n", cfg->plugin_dir);
    for (size_t i = 0; i < n; i++)
        if (names[i])
            list_one(out, cfg, names[i], &problems);
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return problems ? 1 : 0;
}

/* --check-config's view of the requirements: every enabled plugin whose
 * descriptor opened is a node; those that did not are failed ones. */
static void check_requirements(struct load_set *L, struct cube_errs *errs)
{
    char err[512];
    int ready;
    for (size_t i; (i = next_ready(L, &ready, err, sizeof err)) < L->n;) {
        if (ready < 0) {
            const struct cube_plugin_conf *pc = L->pcs[i];
            cube_errs_add(errs, "%s:%d:%d: %s", pc->file, pc->line, pc->col, err);
        }
        L->nodes[i].done = ready == 0;
        L->nodes[i].failed = ready != 0;
    }
    for (size_t i = 0; i < L->n; i++)
        if (!L->nodes[i].done && !L->nodes[i].failed) {
            const struct cube_plugin_conf *pc = L->pcs[i];
            cube_deps_cycle(L->nodes, L->n, i, err, sizeof err);
            cube_errs_add(errs, "%s:%d:%d: %s", pc->file, pc->line, pc->col, err);
        }
}

int cube_loader_check_all(const struct cube_config *cfg, struct cube_errs *errs)
{
    size_t cap = cfg->n_plugins ? cfg->n_plugins : 1;
    struct load_set L = {NULL, calloc(cap, sizeof *L.pcs), calloc(cap, sizeof *L.nodes), 0};
    /* the nodes borrow names, versions and dependencies from the descriptors,
     * which stay mapped: a handle opened here is never closed */
    for (size_t i = 0; i < cfg->n_plugins; i++) {
        const struct cube_plugin_conf *pc = &cfg->plugins[i];
        if (!pc->enabled)
            continue;
        char err[512];
        char *file = cube_loader_find(cfg->plugin_dir, pc->name, err, sizeof err);
        void *handle;
        struct cube_plugin_desc d;
        cJSON *effective = NULL;
        int ok = 0;
        if (!file) {
            cube_errs_add(errs, "%s:%d:%d: plugin %s: %s", pc->file, pc->line,
                          pc->col, pc->name, err);
        } else if (cube_loader_open(file, pc->name, &handle, &d, err, sizeof err) < 0) {
            cube_errs_add(errs, "%s:%d:%d: %s", pc->file, pc->line, pc->col, err);
        } else {
            ok = 1;
            if (cube_config_validate_plugin(pc, d.config_schema, &effective, errs) == 0)
                cJSON_Delete(effective);
        }
        free(file);
        if (L.pcs && L.nodes) {
            L.pcs[L.n] = pc;
            L.nodes[L.n++] = (struct cube_dep_node){pc->name, ok ? d.version : NULL,
                                                    ok ? d.dependencies : NULL, 0, !ok};
        }
    }
    if (L.pcs && L.nodes)
        check_requirements(&L, errs);
    else
        cube_errs_add(errs, "plugins: out of memory");
    free(L.pcs);
    free(L.nodes);
    return cube_errs_count(errs) ? -1 : 0;
}
