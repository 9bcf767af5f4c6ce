/* vendor_hello.c — a Cube plugin as a third party writes it: built outside
 * the Cube tree with nothing but the installed headers and cube-plugin.pc
 * (see Makefile). One public route, GET /api/v1/vendor-hello, answers with
 * the host's version and a configured greeting. */
#include <stdlib.h>

#include <cjson/cJSON.h>
#include <cube/cube.h>
#include <cube/util/json.h>   /* libcube-util: linked in, not part of the ABI */
#include <cube/util/str.h>

/* The host validates our conf.d `config:` section against this and fills
 * in the default, so init always finds a greeting. */
static const char SCHEMA[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"greeting\":{\"type\":\"string\",\"pattern\":\"^[A-Za-z ,.!-]{1,64}$\","
    "\"default\":\"Hello from a vendor\","
    "\"description\":\"Text returned by GET /api/v1/vendor-hello\"}}}";

struct vendor_hello {
    const struct cube_host *host;
    char greeting[65];
};

static int say_hello(void *state, cube_req *req)
{
    struct vendor_hello *v = state;
    cJSON *doc = cJSON_CreateObject();
    cu_set_str(doc, "plugin", "vendor-hello");
    cu_set_str(doc, "greeting", v->greeting);
    cu_set_str(doc, "host_version", v->host->host_version());
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
    cu_copy(v->greeting, sizeof v->greeting,
            host->config_string(self, "greeting", "Hello from a vendor"));
    *state = v;
    const struct cube_route_desc route = {
        .size = sizeof route, .method = "GET", .path = "/api/v1/vendor-hello",
        .permission = CUBE_PERM_PUBLIC, .handler = say_hello,
        .summary = "Greeting and host version from an out-of-tree plugin",
    };
    int rc = host->register_route(self, &route);
    if (rc != CUBE_OK) {
        host->set_error(self, "cannot register GET /api/v1/vendor-hello");
        free(v);
        *state = NULL;
        return rc;
    }
    return CUBE_OK;
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
    .description = "Out-of-tree example: a greeting and the host version",
    .config_schema = SCHEMA,
    .init = vendor_hello_init,
    .fini = vendor_hello_fini)
