/* old_plugin.c — a plugin built against the frozen headers of one released
 * ABI minor (tests/abi/v1.N), loaded into today's cubed by load_plugin.py.
 * It touches the 1.0 slots a typical plugin uses (config with defaults,
 * logging, metrics, routes, request accessors, responses, lifecycle
 * callbacks) and one or two slots of each later minor its headers have, so
 * a host that moved or changed any of them answers wrongly or crashes here.
 *
 * Built once per frozen minor: PROBE_NAME ("abi-old" by default, the 1.0
 * build) names the plugin and its route /api/v1/<PROBE_NAME>, PROBE_IDENT
 * its entry symbol. Built against today's headers with
 * CUBE_PLUGIN_MIN_MINOR below CUBE_ABI_MINOR it declares an older host
 * minor and guards the newer slot with CUBE_HOST_HAS. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cube/cube.h>

#ifndef PROBE_NAME
#define PROBE_NAME "abi-old"
#define PROBE_IDENT abi_old
#endif

/* The host minor this build declares (the descriptor's abi_minor). */
#ifdef CUBE_PLUGIN_MIN_MINOR
#define PROBE_MIN_MINOR CUBE_PLUGIN_MIN_MINOR
#else
#define PROBE_MIN_MINOR CUBE_ABI_MINOR
#endif

static const char SCHEMA[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"greeting\":{\"type\":\"string\",\"default\":\"hello from ABI 1.0\"},"
    "\"times\":{\"type\":\"integer\",\"minimum\":1,\"default\":1}}}";

struct old {
    const struct cube_host *host;
    cube_plugin *self;
    cube_metric *hits;
    int started;
    int ui_rc;        /* register_ui's answer (1.4), 1 when not built */
};

#if CUBE_ABI_MINOR >= 1
/* 1.1: a cluster kind of its own, listed by the route. */
static const struct cube_kind_desc PROBE_KIND = {
    .size = sizeof PROBE_KIND, .kind = "AbiProbe", .plural = "abiprobes",
    .scope = CUBE_SCOPE_CLUSTER, .spec_schema = "{\"type\":\"object\"}",
};
#endif

/* The answers of the slots after 1.0 this build has, as JSON members
 * (each starting with ','); "" for the 1.0 build. */
static void later_slots(struct old *o, cube_req *req, char *out, size_t len)
{
    const struct cube_host *h = o->host;
    size_t n = 0;
    out[0] = '\0';
    (void)h, (void)req, (void)n, (void)len;
#if CUBE_ABI_MINOR >= 1
    int rc = CUBE_EINTERNAL;
    char *list = h->obj_list(o->self, "AbiProbe", NULL, NULL, &rc);
    n += (size_t)snprintf(out + n, len - n, ",\"objects\":%s",
                          list && strstr(list, "\"items\":[]") ? "true" : "false");
    h->free(list);
#endif
#if CUBE_ABI_MINOR >= 2
    const char *user = h->req_user(req);
    n += (size_t)snprintf(out + n, len - n, ",\"user\":\"%s\"", user ? user : "anonymous");
#endif
#if CUBE_ABI_MINOR >= 3
    rc = CUBE_EINTERNAL;
    char *devices = h->local_devices(o->self, &rc);
    n += (size_t)snprintf(out + n, len - n, ",\"devices\":%s",
                          devices && devices[0] == '[' ? "true" : "false");
    h->free(devices);
#endif
#if CUBE_ABI_MINOR >= 4
    n += (size_t)snprintf(out + n, len - n, ",\"ui\":%s", o->ui_rc == CUBE_OK ? "true" : "false");
#endif
#if CUBE_ABI_MINOR >= 5
    /* A 1.5 slot: guarded only when this build declares an older host. */
    rc = CUBE_EINTERNAL;
    if (PROBE_MIN_MINOR >= 5 || CUBE_HOST_HAS(h, obj_create_for)) {
        char *made = h->obj_create_for(o->self, req,
            "{\"kind\":\"AbiProbe\",\"metadata\":{\"name\":\"p\"},\"spec\":{}}", &rc);
        h->free(made);
    }
    /* The caller is anonymous: the host refuses to create for nobody. */
    n += (size_t)snprintf(out + n, len - n, ",\"create_for\":\"%s\"",
                          rc == CUBE_EPERM ? "refused" : "unexpected");
#endif
}

static int answer(void *state, cube_req *req)
{
    struct old *o = state;
    const struct cube_host *h = o->host;
    const char *who = h->req_query(req, "who");
    char *config = h->config_json(o->self);
    char body[2048], later[512];
    h->metric_add(o->hits, NULL, 1);
    later_slots(o, req, later, sizeof later);
    /* The config values are schema-checked plain words: no escaping needed. */
    snprintf(body, sizeof body,
             "{\"plugin\":\"%s\",\"built_abi\":\"%d.%d\",\"declared_abi\":\"%d.%d\","
             "\"host_abi\":\"%u.%u\",\"host_version\":\"%s\",\"host_table_ok\":%s,"
             "\"started\":%s,\"method\":\"%s\",\"who\":\"%s\",\"config\":%s%s}",
             PROBE_NAME, CUBE_ABI_MAJOR, CUBE_ABI_MINOR, CUBE_ABI_MAJOR, PROBE_MIN_MINOR,
             (unsigned)h->abi_major, (unsigned)h->abi_minor, h->host_version(),
             h->size >= sizeof(struct cube_host) ? "true" : "false",
             o->started ? "true" : "false", h->req_method(req),
             who ? who : "", config ? config : "null", later);
    h->free(config);
    return h->resp_json(req, 200, body);
}

/* Registers what the later minors add (a kind, a console entry). */
static int register_later(struct old *o)
{
    o->ui_rc = 1;
#if CUBE_ABI_MINOR >= 1
    if (o->host->register_kind(o->self, &PROBE_KIND) != CUBE_OK)
        return CUBE_EINVAL;
#endif
#if CUBE_ABI_MINOR >= 4
    const struct cube_ui_desc ui = {
        .size = sizeof ui, .id = "probe", .group = "Tests", .label = "ABI probe",
        .permission = "user", .link = "/jobs",
    };
    o->ui_rc = o->host->register_ui(o->self, &ui);
#endif
    return CUBE_OK;
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
        .name = "cube_abi_old_hits_total", .help = "Requests to the ABI probe plugin",
    };
    const struct cube_route_desc r = {
        .size = sizeof r, .method = "GET", .path = "/api/v1/" PROBE_NAME,
        .permission = CUBE_PERM_PUBLIC, .handler = answer,
        .summary = "ABI compatibility probe",
    };
    o->hits = host->metric_register(self, &m);
    if (!o->hits || host->register_route(self, &r) != CUBE_OK ||
        register_later(o) != CUBE_OK) {
        host->set_error(self, "cannot register the metric, route or kind");
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

CUBE_PLUGIN_DEFINE(PROBE_IDENT,
    .name = PROBE_NAME,
    .version = "1.0.0",
    .vendor = "Cube tests",
    .license = "Apache-2.0",
    .description = "Built against the frozen headers of one ABI minor",
    .config_schema = SCHEMA,
    .init = old_init,
    .start = old_start,
    .fini = old_fini)
