/* ctx.h — the host context: everything cubed owns, in one place.
 * There is one per process (tests may make several); nothing in the host
 * keeps mutable state outside it (the logger's settings excepted, see log.h). */
#ifndef CUBE_CTX_H
#define CUBE_CTX_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include <cjson/cJSON.h>
#include <cube/cube.h>

#include "config/config.h"

#include "objects/kinds.h"

struct cube_metrics;
struct cube_store;
struct cube_hub;
struct cube_logstore;
struct cube_files;
struct cube_tasks;
struct cube_router;
struct cube_http;
struct cube_auth;
struct cube_sched;
struct cube_proxies;
struct cube_net;
struct cube_ui_entry;
struct cube_secretbox;
struct cube_api_export;

/* The host's record of one plugin (the opaque `cube_plugin` of the ABI). */
struct cube_plugin {
    struct cube_ctx *ctx;
    char *name;
    char *file;                    /* the .so path; NULL for the core itself */
    char *log_component;           /* "plugin:<name>" */
    struct cube_plugin_desc desc;  /* copied into the host's size, zero-filled */
    void *handle;                  /* dlopen handle; never dlclosed */
    void *state;                   /* from init */
    cJSON *config;                 /* validated config, defaults applied */
    char *config_text;             /* the same, printed once */
    char *data_dir;
    char error[512];               /* set_error */
    int in_init;                   /* register_* allowed only while set */
    int initialised, started;
    int optional;
    /* Work handed to submit that has not returned yet, and whether submit
     * still takes more: the loader drains both before the plugin's fini,
     * so no submitted function runs on freed plugin state. */
    atomic_int tasks_inflight;
    atomic_int tasks_closed;
    struct cube_watch *watches;         /* open watches (plugins/host_watch.c) */
    struct cube_route_entry *pending;   /* routes registered during init */
    struct cube_router *scratch_router; /* validates them until committed */
    struct cube_plugin *next;
};

/* One registered route (owned by the context, target of the router). */
struct cube_route_entry {
    struct cube_plugin *plugin;    /* the core's own routes use ctx->core */
    cube_route_fn handler;
    int perm;                      /* enum cube_perm (auth.h) */
    char *method, *path, *summary;
    int stream_body;               /* since 1.5: the body goes to the plugin in chunks */
    uint64_t max_body_bytes;       /* its limit (stream_body only; 0: limits') */
    char *owner_kind;              /* since 1.5: {name}'s kind, owner may operate; or NULL */
    struct cube_route_entry *next;
};

struct cube_ctx {
    struct cube_config *cfg;       /* borrowed from main */
    int safe_mode;
    struct cube_host host;         /* the table handed to plugins */
    struct cube_plugin core;       /* pseudo-plugin for the core's routes */
    struct cube_plugin *plugins;   /* loaded plugins, load order */
    size_t n_plugins;
    struct cube_metrics *metrics;
    struct cube_tasks *tasks;
    struct cube_router *router;
    struct cube_route_entry *routes;
    struct cube_http *http;
    struct cube_kinds kinds;       /* resource kinds and actions */
    struct cube_store *store;      /* NULL until cube_ctx_open_store */
    struct cube_hub *hub;          /* resourceVersions and watches */
    struct cube_logstore *logs;    /* log streams (logstore.h) */
    struct cube_files *files;      /* project files (files.h) */
    struct cube_objcache *cache;   /* documents by name (objcache.h) */
    struct cube_auth *auth;        /* users, sessions, roles (auth.h) */
    struct cube_sched *sched;      /* Jobs, executors, nodes (jobs.h) */
    struct cube_proxies *proxies;  /* proxied prefixes (proxy.h); NULL: none */
    struct cube_net *net;          /* plugins' outbound HTTP (net.h) */
    struct cube_ui_entry *ui;      /* plugins' console entries (ui_ext.h) */
    struct cube_secretbox *secrets; /* the platform key sealing plugins'
                                       secrets (base/secretbox.h); NULL
                                       until cube_ctx_open_store */
    pthread_mutex_t apis_mu;       /* guards apis */
    struct cube_api_export *apis;  /* APIs plugins exported (plugin_api.c) */
    /* Writes to one object hold its stripe from taking a resourceVersion
     * to publishing the event, so per object the rv order is the commit
     * order (objects_util.c). */
    pthread_mutex_t obj_locks[64];
    atomic_int ready;              /* all plugins started, serving */
    atomic_int stopping;
    uint64_t started_ns;
    /* core metrics */
    struct cube_metric *m_requests, *m_latency, *m_plugins, *m_build;
    struct cube_metric *m_inflight;
};

/* Sets up an empty context over cfg (metrics, tasks, router, host table,
 * core routes). Returns 0 or -1 with a logged reason. */
int cube_ctx_init(struct cube_ctx *ctx, struct cube_config *cfg);
/* Stops plugins, frees everything the context owns (not cfg). */
void cube_ctx_free(struct cube_ctx *ctx);
/* Registers a route: the core's at once; a plugin's is checked now and
 * staged until cube_ctx_commit_routes, so a plugin whose init fails leaves
 * no route behind. */
int cube_ctx_add_route(struct cube_ctx *ctx, struct cube_plugin *plugin,
                       const struct cube_route_desc *desc, char *err,
                       size_t errlen);
/* Registers n of the core's own routes; logs and returns -1 on the first
 * refusal (what names the group in the message). */
int cube_ctx_add_core_routes(struct cube_ctx *ctx, const struct cube_route_desc *routes,
                             size_t n, const char *what);
/* Moves a plugin's staged routes into the live router, all or none (a
 * conflict with another plugin's route fails with err). */
int cube_ctx_commit_routes(struct cube_ctx *ctx, struct cube_plugin *plugin,
                           char *err, size_t errlen);
/* Frees a plugin's staged routes (its init failed). */
void cube_ctx_drop_routes(struct cube_plugin *plugin);
/* Registers /healthz, /readyz, /metrics (core_routes.c). */
int cube_core_routes_register(struct cube_ctx *ctx);
/* Registers the generic resource API (resources_http.c). */
int cube_resources_routes_register(struct cube_ctx *ctx);
/* Opens the store, seeds the hub and the log store (ctx.c). */
int cube_ctx_open_store(struct cube_ctx *ctx);

#endif
