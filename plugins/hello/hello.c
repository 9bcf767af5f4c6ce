/* hello.c — the in-tree example plugin: a route with a path parameter, a
 * config value, a metric, an admin-only route, a ~1 KiB JSON route (used
 * by the HTTP benchmark), a Server-Sent Events stream fed by a timer and a
 * console page (ui/page.js) under a menu entry. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cube/cube.h>

#include "hello.h"
#include "config_schema.h"   /* HELLO_CONFIG_SCHEMA: config.schema.json, embedded at build time */

/* Writes s as a JSON string body (without quotes) into out; ASCII-safe. */
static void json_escape(char *out, size_t len, const char *s)
{
    size_t o = 0;
    for (; *s && o + 7 < len; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            o += (size_t)snprintf(out + o, len - o, "\\%c", c);
        else if (c < 0x20)
            o += (size_t)snprintf(out + o, len - o, "\\u%04x", c);
        else
            out[o++] = (char)c;
    }
    out[o] = '\0';
}

static int greet(void *state, cube_req *req)
{
    struct hello *h = state;
    const struct cube_host *host = h->host;
    char name[256], greeting[130], body[512];
    json_escape(name, sizeof name, host->req_param(req, "name"));
    pthread_mutex_lock(&h->mu);
    json_escape(greeting, sizeof greeting, h->greeting);
    pthread_mutex_unlock(&h->mu);
    snprintf(body, sizeof body, "{\"message\":\"%s, %s!\"}", greeting, name);
    const char *lang = host->req_query(req, "lang");
    host->metric_add(h->greetings, (const char *const[]){lang ? "custom" : "default"}, 1);
    return host->resp_json(req, 200, body);
}

static int catalog(void *state, cube_req *req)
{
    struct hello *h = state;
    return h->host->resp_json(req, 200, h->catalog);
}

/* Admin only: replaces the greeting with the request body (plain text). */
static int set_greeting(void *state, cube_req *req)
{
    struct hello *h = state;
    size_t len;
    const char *body = h->host->req_body(req, &len);
    if (len == 0 || len > 64 || strlen(body) != len)
        return h->host->resp_error(req, 400, "BadRequest",
                                   "body: a greeting of 1 to 64 bytes");
    pthread_mutex_lock(&h->mu);
    memcpy(h->greeting, body, len);
    h->greeting[len] = '\0';
    pthread_mutex_unlock(&h->mu);
    return h->host->resp_json(req, 200, "{\"status\":\"updated\"}");
}

static void build_catalog(struct hello *h)
{
    size_t o = (size_t)snprintf(h->catalog, sizeof h->catalog, "{\"items\":[");
    for (int i = 0; i < 16 && o < sizeof h->catalog - 80; i++)
        o += (size_t)snprintf(h->catalog + o, sizeof h->catalog - o,
                              "%s{\"id\":%d,\"name\":\"model-%02d\",\"phase\":\"Ready\",\"owner\":\"demo\"}",
                              i ? "," : "", i, i);
    snprintf(h->catalog + o, sizeof h->catalog - o, "],\"total\":16}");
}

static int register_routes(struct hello *h)
{
    const struct cube_route_desc routes[] = {
        {.size = sizeof routes[0], .method = "GET", .path = "/api/v1/hello/{name}",
         .permission = CUBE_PERM_PUBLIC, .handler = greet,
         .summary = "Greets {name} with the configured greeting"},
        {.size = sizeof routes[0], .method = "GET", .path = "/api/v1/hello",
         .permission = CUBE_PERM_PUBLIC, .handler = catalog,
         .summary = "A fixed ~1 KiB JSON document"},
        {.size = sizeof routes[0], .method = "PUT", .path = "/api/v1/hello/greeting",
         .permission = CUBE_PERM_ADMIN, .handler = set_greeting,
         .summary = "Replaces the greeting (admin)"},
        {.size = sizeof routes[0], .method = "GET", .path = "/api/v1/hello-ticks",
         .permission = CUBE_PERM_PUBLIC, .handler = hello_ticks,
         .summary = "Server-Sent Events: one tick per 20 ms"},
    };
    for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++)
        if (h->host->register_route(h->self, &routes[i]) != CUBE_OK)
            return -1;
    return 0;
}

/* The console page (ui/page.js next to the .so). Optional for an example:
 * when the host refuses it (it logs which field), the plugin runs on. */
static void register_page(struct hello *h)
{
    const struct cube_ui_desc page = {
        .size = sizeof page, .id = "hello", .group = "Examples",
        .label = "Hello", .label_zh = "你好", .permission = CUBE_PERM_USER,
        .module = "page.js", .order = 100,
    };
    if (h->host->register_ui(h->self, &page) != CUBE_OK)
        h->host->log(h->self, CUBE_LOG_WARN, "console page not registered (see above)");
}

static int hello_init(const struct cube_host *host, cube_plugin *self, void **state)
{
    struct hello *h = calloc(1, sizeof *h);
    if (!h) {
        host->set_error(self, "out of memory");
        return CUBE_ENOMEM;
    }
    *state = h;
    h->host = host;
    h->self = self;
    pthread_mutex_init(&h->mu, NULL);
    snprintf(h->greeting, sizeof h->greeting, "%s",
             host->config_string(self, "greeting", "Hello"));
    h->ticks = (int)host->config_int(self, "ticks", 3);
    build_catalog(h);
    static const char *const labels[] = {"kind"};
    const struct cube_metric_desc m = {
        .size = sizeof m, .type = CUBE_METRIC_COUNTER,
        .name = "cube_hello_greetings_total", .help = "Greetings sent by the hello plugin",
        .label_names = labels, .label_count = 1,
    };
    h->greetings = host->metric_register(self, &m);
    if (!h->greetings || register_routes(h) < 0) {
        host->set_error(self, "cannot register the metric or routes (see above)");
        pthread_mutex_destroy(&h->mu);
        free(h);
        *state = NULL;
        return CUBE_EINVAL;
    }
    register_page(h);
    host->log(self, CUBE_LOG_INFO, "greeting is \"%s\"", h->greeting);
    return CUBE_OK;
}

static void hello_fini(void *state)
{
    struct hello *h = state;
    pthread_mutex_destroy(&h->mu);
    free(h);
}

CUBE_PLUGIN_DEFINE(hello,
    .name = "hello",
    .version = "1.0.0",
    .vendor = "Cube",
    .license = "Apache-2.0",
    .description = "Example plugin: a greeting route, a metric, an SSE stream",
    .config_schema = HELLO_CONFIG_SCHEMA,
    .init = hello_init,
    .fini = hello_fini)
