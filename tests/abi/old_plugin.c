/* old_plugin.c — a plugin built against the frozen ABI 1.0 headers
 * (tests/abi/v1.0), loaded into today's cubed by load_plugin.py. It touches
 * the 1.0 slots a typical plugin uses (config with defaults, logging,
 * metrics, routes, request accessors, responses, lifecycle callbacks), so a
 * host that moved or changed any of them answers wrongly or crashes here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cube/cube.h>

static const char SCHEMA[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"greeting\":{\"type\":\"string\",\"default\":\"hello from ABI 1.0\"},"
    "\"times\":{\"type\":\"integer\",\"minimum\":1,\"default\":1}}}";

struct old {
    const struct cube_host *host;
    cube_plugin *self;
    cube_metric *hits;
    int started;
};

static int answer(void *state, cube_req *req)
{
    struct old *o = state;
    const struct cube_host *h = o->host;
    const char *who = h->req_query(req, "who");
    char *config = h->config_json(o->self);
    char body[1024];
    h->metric_add(o->hits, NULL, 1);
    /* The config values are schema-checked plain words: no escaping needed. */
    snprintf(body, sizeof body,
             "{\"plugin\":\"abi-old\",\"built_abi\":\"%d.%d\",\"host_abi\":\"%u.%u\","
             "\"host_version\":\"%s\",\"host_table_ok\":%s,\"started\":%s,"
             "\"method\":\"%s\",\"who\":\"%s\",\"config\":%s}",
             CUBE_ABI_MAJOR, CUBE_ABI_MINOR, (unsigned)h->abi_major,
             (unsigned)h->abi_minor, h->host_version(),
             h->size >= sizeof(struct cube_host) ? "true" : "false",
             o->started ? "true" : "false", h->req_method(req),
             who ? who : "", config ? config : "null");
    h->free(config);
    return h->resp_json(req, 200, body);
}

static int old_init(const struct cube_host *host, cube_plugin *self, void **state)
{
    struct old *o = calloc(1, sizeof *o);
    if (!o) {
        host->set_error(self, "out of memory");
        return CUBE_ENOMEM;
    }
    *state = o;
    o->host = host;
    o->self = self;
    const struct cube_metric_desc m = {
        .size = sizeof m, .type = CUBE_METRIC_COUNTER,
        .name = "cube_abi_old_hits_total", .help = "Requests to the ABI 1.0 test plugin",
    };
    const struct cube_route_desc r = {
        .size = sizeof r, .method = "GET", .path = "/api/v1/abi-old",
        .permission = CUBE_PERM_PUBLIC, .handler = answer,
        .summary = "ABI 1.0 compatibility probe",
    };
    o->hits = host->metric_register(self, &m);
    if (!o->hits || host->register_route(self, &r) != CUBE_OK) {
        host->set_error(self, "cannot register the metric or route");
        free(o);
        *state = NULL;
        return CUBE_EINVAL;
    }
    host->log(self, CUBE_LOG_INFO, "built for ABI %d.%d, greeting \"%s\"",
              CUBE_ABI_MAJOR, CUBE_ABI_MINOR,
              host->config_string(self, "greeting", "?"));
    return CUBE_OK;
}

static int old_start(void *state)
{
    ((struct old *)state)->started = 1;
    return CUBE_OK;
}

static void old_fini(void *state)
{
    free(state);
}

CUBE_PLUGIN_DEFINE(abi_old,
    .name = "abi-old",
    .version = "1.0.0",
    .vendor = "Cube tests",
    .license = "Apache-2.0",
    .description = "Built against the frozen ABI 1.0 headers",
    .config_schema = SCHEMA,
    .init = old_init,
    .start = old_start,
    .fini = old_fini)
