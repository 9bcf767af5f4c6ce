/* http_apps.c — the apps listener's life (apps.h): a second set of HTTP threads
 * with cubed's handlers, whose requests carry http->apps so that only the
 * proxied prefixes and the handshake answer there (cube_proxy_begin takes
 * every one of them; nothing reaches the router). It starts only when a
 * plugin registered a prefix. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apps_priv.h"
#include "ctx/ctx.h"
#include "http/http_req.h"
#include "base/log.h"
#include "proxy_priv.h"

static struct cube_apps *apps_of(struct cube_ctx *ctx)
{
    return ctx->proxies ? ctx->proxies->apps : NULL;
}

/* Where the apps listener binds: apps_listen, else listen's host and the
 * next port (0 stays 0: a free port). 0, or -1 logged. */
static int apps_address(const struct cube_config *cfg, int main_port, const char **host,
                        int *port)
{
    *host = cfg->apps_listen_set ? cfg->apps_listen_host : cfg->listen_host;
    *port = cfg->apps_listen_set ? cfg->apps_listen_port
            : cfg->listen_port ? cfg->listen_port + 1 : 0;
    if (*port > 65535) {
        cube_log(CUBE_LOG_ERROR, "http", "apps_listen: listen's port + 1 is past 65535; "
                 "set apps_listen in cube.yaml");
        return -1;
    }
    if (*port && *port == main_port && !strcmp(*host, cfg->listen_host)) {
        cube_log(CUBE_LOG_ERROR, "http", "apps_listen: must differ from listen (the apps "
                 "origin is an origin of its own)");
        return -1;
    }
    return 0;
}

static void listener_free(struct cube_http *h)
{
    if (!h)
        return;
    free(h->tls_cert);
    free(h->tls_key);
    pthread_mutex_destroy(&h->stream_mu);
    pthread_cond_destroy(&h->stream_cv);
    free(h);
}

/* A cube_http for the apps listener, with copies of main's TLS files. */
static struct cube_http *listener_new(struct cube_ctx *ctx, const struct cube_http *main)
{
    struct cube_http *h = calloc(1, sizeof *h);
    if (!h)
        return NULL;
    h->ctx = ctx;
    h->apps = 1;
    pthread_mutex_init(&h->stream_mu, NULL);
    pthread_cond_init(&h->stream_cv, NULL);
    if (main->tls_cert && (!(h->tls_cert = strdup(main->tls_cert)) ||
                           !(h->tls_key = strdup(main->tls_key)))) {
        listener_free(h);
        return NULL;
    }
    return h;
}

int cube_apps_listen_start(struct cube_ctx *ctx, struct cube_http *main)
{
    struct cube_proxies *px = ctx->proxies;
    const struct cube_config *cfg = ctx->cfg;
    const char *host;
    int port;
    if (!px || !px->prefixes)
        return 0;
    if (apps_address(cfg, main->port, &host, &port) < 0)
        return -1;
    struct cube_apps *a = px->apps ? px->apps : apps_new(ctx);
    struct cube_http *h = a ? listener_new(ctx, main) : NULL;
    if (!h) {
        apps_free(px->apps ? NULL : a);
        cube_log(CUBE_LOG_ERROR, "http", "apps listener: out of memory");
        return -1;
    }
    px->apps = a;
    if (cube_http_listen(h, host, port) < 0) {
        cube_log(CUBE_LOG_ERROR, "http", "cannot listen on %s:%d for the apps origin "
                 "(apps_listen): %m", host, port);
        listener_free(h);
        return -1;
    }
    a->http = h;
    cube_log(CUBE_LOG_INFO, "http", "apps origin: proxied servers only on %s://%s:%d%s%s",
             h->tls_cert ? "https" : "http", host, h->port,
             cfg->apps_origin ? ", seen as " : "", cfg->apps_origin ? cfg->apps_origin : "");
    return 0;
}

void cube_apps_listen_quiesce(struct cube_ctx *ctx)
{
    struct cube_apps *a = apps_of(ctx);
    if (a && a->http) {
        atomic_store(&a->http->stopping, 1);   /* its accept policy refuses */
        cube_http_listen_release(a->http);  /* its held requests answer 503 */
    }
}

void cube_apps_listen_stop(struct cube_ctx *ctx, unsigned grace_ms)
{
    struct cube_apps *a = apps_of(ctx);
    if (!a || !a->http || !a->http->loops)
        return;
    struct cube_http *h = a->http;
    for (unsigned waited = 0; waited < grace_ms && atomic_load(&h->inflight); waited += 10)
        usleep(10000);
    cube_http_listen_end(h);
}

void cube_apps_free(struct cube_ctx *ctx)
{
    struct cube_apps *a = apps_of(ctx);
    if (!a)
        return;
    /* The listener's record outlives its daemon: requests the console
     * listener still finishes read its port. */
    if (a->http)
        cube_http_listen_end(a->http);
    listener_free(a->http);
    ctx->proxies->apps = NULL;
    apps_free(a);
}
