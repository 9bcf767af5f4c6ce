/* plugin_api.c — APIs plugins share (cube_host.h: api_export, api_get;
 * ABI 1.5). An export is staged while its plugin's init runs, visible
 * once that init succeeded (cube_plugin_apis_commit), and gone before the
 * exporter's fini (cube_plugin_apis_drop). Lookups take ctx->apis_mu:
 * timers of plugins already loaded may run while later ones export. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "ctx/ctx.h"
#include "host_slots.h"
#include "loader.h"

struct cube_api_export {
    struct cube_plugin *plugin;
    char *name;
    uint32_t version;
    const void *table;
    int live;                      /* the exporter's init succeeded */
    struct cube_api_export *next;
};

/* 1 .. CUBE_API_NAME_MAX bytes of [a-z0-9._-]. */
static int api_name_ok(const char *s)
{
    size_t n = 0;
    for (; s && s[n]; n++)
        if (n >= CUBE_API_NAME_MAX ||
            !((s[n] >= 'a' && s[n] <= 'z') || (s[n] >= '0' && s[n] <= '9') ||
              s[n] == '.' || s[n] == '_' || s[n] == '-'))
            return 0;
    return n > 0;
}

/* Caller holds apis_mu. */
static struct cube_api_export *find_locked(struct cube_ctx *ctx, const char *name)
{
    for (struct cube_api_export *e = ctx->apis; e; e = e->next)
        if (strcmp(e->name, name) == 0)
            return e;
    return NULL;
}

int cube_slot_api_export(cube_plugin *self, const char *name, uint32_t version,
                         const void *table)
{
    if (!self->in_init) {
        cube_log(CUBE_LOG_ERROR, self->log_component, "api_export: only during init");
        return CUBE_ESTATE;
    }
    if (!api_name_ok(name) || version < 1 || !table) {
        cube_log(CUBE_LOG_ERROR, self->log_component, "api_export: expected a name of "
                 "[a-z0-9._-] (1..%d bytes), a version >= 1 and a table",
                 CUBE_API_NAME_MAX);
        return CUBE_EINVAL;
    }
    struct cube_ctx *ctx = self->ctx;
    struct cube_api_export *e = calloc(1, sizeof *e);
    if (!e || !(e->name = strdup(name))) {
        free(e);
        return CUBE_ENOMEM;
    }
    e->plugin = self;
    e->version = version;
    e->table = table;
    pthread_mutex_lock(&ctx->apis_mu);
    struct cube_api_export *taken = find_locked(ctx, name);
    const char *owner = taken ? taken->plugin->name : NULL;
    if (!taken) {
        e->next = ctx->apis;
        ctx->apis = e;
    }
    pthread_mutex_unlock(&ctx->apis_mu);
    if (taken) {
        cube_log(CUBE_LOG_ERROR, self->log_component, "api_export: API %s is already "
                 "exported by plugin %s", name, owner);
        free(e->name);
        free(e);
        return CUBE_EEXIST;
    }
    return CUBE_OK;
}

const void *cube_slot_api_get(cube_plugin *self, const char *name, uint32_t min_version,
                              uint32_t *version, int *rc)
{
    int dummy;
    if (!rc)
        rc = &dummy;
    if (version)
        *version = 0;
    if (!api_name_ok(name))
        return *rc = CUBE_EINVAL, NULL;
    struct cube_ctx *ctx = self->ctx;
    const void *table = NULL;
    char exporter[96] = "";
    uint32_t found = 0;
    pthread_mutex_lock(&ctx->apis_mu);
    struct cube_api_export *e = find_locked(ctx, name);
    if (e && (e->live || e->plugin == self)) {
        snprintf(exporter, sizeof exporter, "%s", e->plugin->name);
        found = e->version;
        if (e->plugin != self && !cube_deps_names(&self->desc, e->plugin->name))
            *rc = CUBE_EPERM;
        else if (e->version < min_version)
            *rc = CUBE_EVERSION;
        else
            *rc = CUBE_OK, table = e->table;
    } else {
        *rc = CUBE_ENOTFOUND;
    }
    pthread_mutex_unlock(&ctx->apis_mu);
    if (*rc == CUBE_EPERM)
        cube_log(CUBE_LOG_ERROR, self->log_component, "api_get: API %s is plugin %s's: "
                 "name \"%s\" in the descriptor's dependencies to use it", name, exporter,
                 exporter);
    else if (*rc == CUBE_EVERSION)
        cube_log(CUBE_LOG_ERROR, self->log_component, "api_get: API %s is version %u at "
                 "plugin %s, older than the %u asked for", name, (unsigned)found, exporter,
                 (unsigned)min_version);
    if (table && version)
        *version = found;
    return table;
}

void cube_plugin_apis_commit(struct cube_ctx *ctx, struct cube_plugin *p)
{
    pthread_mutex_lock(&ctx->apis_mu);
    for (struct cube_api_export *e = ctx->apis; e; e = e->next)
        if (e->plugin == p)
            e->live = 1;
    pthread_mutex_unlock(&ctx->apis_mu);
}

void cube_plugin_apis_drop(struct cube_ctx *ctx, struct cube_plugin *p)
{
    pthread_mutex_lock(&ctx->apis_mu);
    for (struct cube_api_export **at = &ctx->apis; *at;) {
        struct cube_api_export *e = *at;
        if (e->plugin != p) {
            at = &e->next;
            continue;
        }
        *at = e->next;
        free(e->name);
        free(e);
    }
    pthread_mutex_unlock(&ctx->apis_mu);
}

void cube_plugin_apis_free(struct cube_ctx *ctx)
{
    pthread_mutex_lock(&ctx->apis_mu);
    while (ctx->apis) {
        struct cube_api_export *e = ctx->apis;
        ctx->apis = e->next;
        free(e->name);
        free(e);
    }
    pthread_mutex_unlock(&ctx->apis_mu);
}
