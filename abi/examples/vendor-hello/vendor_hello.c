/* vendor_hello.c — a Cube plugin as a third party writes it: built outside
 * the Cube tree with nothing but the installed headers and cube-plugin.pc
 * (see Makefile). One public route, GET /api/v1/vendor-hello, answers with
 * the host's version, a configured greeting and the projects it greeted
 * (notify.c: a watch, outbound HTTP, its key-value store and a secret); a
 * console page (ui/) shows it. */
#include <stdlib.h>

#include <cjson/cJSON.h>
#include <cube/cube.h>
#include <cube/util/json.h>   /* libcube-util: linked in, not part of the ABI */
#include <cube/util/str.h>

#include "vendor_hello.h"

/* The host validates our conf.d `config:` section against this and fills
 * in the default, so init always finds a greeting. */
static const char SCHEMA[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"greeting\":{\"type\":\"string\",\"pattern\":\"^[A-Za-z ,.!-]{1,64}$\","
    "\"default\":\"Hello from a vendor\","
    "\"description\":\"Text returned by GET /api/v1/vendor-hello\"},"
    "\"notify_url\":{\"type\":\"string\",\"maxLength\":500,\"default\":\"\","
    "\"pattern\":\"^(https?://.+)?$\","
    "\"description\":\"Webhook POSTed a notice for each new project (cube.yaml's "
    "egress must allow it); empty: none\"}}}";

static int say_hello(void *state, cube_req *req)
{
    struct vendor_hello *v = state;
    cJSON *doc = cJSON_CreateObject();
    cu_set_str(doc, "plugin", "vendor-hello");
    cu_set_str(doc, "greeting", v->greeting);
    cu_set_str(doc, "host_version", v->host->host_version());
    vh_add_notices(v, doc);
    char *body = cJSON_PrintUnformatted(doc);
    cJSON_Delete(doc);
    if (!body)
        return v->host->resp_error(req, 500, "Internal", "out of memory");
    int rc = v->host->resp_json(req, 200, body);
    free(body);
    return rc;
}

static int vendor_hello_init(const struct cube_host *host, cube_plugin *self,
                             void **state)
{
    struct vendor_hello *v = calloc(1, sizeof *v);
    if (!v) {
        host->set_error(self, "out of memory");
        return CUBE_ENOMEM;
    }
    v->host = host;
    v->self = self;
    cu_copy(v->greeting, sizeof v->greeting,
            host->config_string(self, "greeting", "Hello from a vendor"));
    cu_copy(v->notify_url, sizeof v->notify_url, host->config_string(self, "notify_url", ""));
    *state = v;
    const struct cube_route_desc routes[] = {
        {.size = sizeof routes[0], .method = "GET", .path = "/api/v1/vendor-hello",
         .permission = CUBE_PERM_PUBLIC, .handler = say_hello,
         .summary = "Greeting, host version and greeted projects from an out-of-tree plugin"},
        {.size = sizeof routes[0], .method = "POST", .path = "/api/v1/vendor-hello/token",
         .permission = CUBE_PERM_ADMIN, .handler = vh_set_token,
         .summary = "Stores the webhook's bearer token (a secret)"},
    };
    for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++) {
        int rc = host->register_route(self, &routes[i]);
        if (rc != CUBE_OK) {
            host->set_error(self, "cannot register %s %s", routes[i].method, routes[i].path);
            free(v);
            *state = NULL;
            return rc;
        }
    }
    /* The console page, ui/page.js beside the .so (`make page`), at
     * /x/vendor-hello/hello. Without it the route works on. */
    const struct cube_ui_desc page = {
        .size = sizeof page, .id = "hello", .group = "Examples",
        .label = "Vendor hello", .label_zh = "厂商问候", .permission = CUBE_PERM_USER,
        .module = "page.js", .order = 110,
    };
    if (host->register_ui(self, &page) != CUBE_OK)
        host->log(self, CUBE_LOG_WARN, "console page not registered (make page builds it)");
    return CUBE_OK;
}

static int vendor_hello_start(void *state)
{
    return vh_notify_start(state);
}

static void vendor_hello_stop(void *state)
{
    vh_notify_stop(state);
}

static void vendor_hello_fini(void *state)
{
    free(state);
}

/* Exports cube_plugin_vendor_hello: the loader looks for the plugin name
 * with '-' written as '_'. */
CUBE_PLUGIN_DEFINE(vendor_hello,
    .name = "vendor-hello",
    .version = "1.0.0",
    .vendor = "Example Vendor Ltd",
    .license = "MIT",
    .description = "Out-of-tree example: a greeting, the host version, welcome notices",
    .config_schema = SCHEMA,
    .init = vendor_hello_init,
    .start = vendor_hello_start,
    .stop = vendor_hello_stop,
    .fini = vendor_hello_fini)
