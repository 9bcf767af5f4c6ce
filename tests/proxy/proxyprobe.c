/* proxyprobe.c — a test plugin exercising register_proxy (ABI 1.4) end to
 * end. It registers
 *   /probe/{project}/{name}    project:view, login redirect, path kept
 *   /probeop/{project}/{name}  project:operate on kind ProbeApp, prefix
 *                              stripped
 * both resolving to the test's upstream (config `port`), except the names
 * "starting" (not ready: 503), "down" (config `down_port`, nothing
 * listening: 502) and "gone" (CUBE_ENOTFOUND), "remote" (a non-loopback
 * address). It adds "X-Probe-Token: token-<name>" upstream, or, with
 * config `token`, "Authorization: token <token>" (a Jupyter server's own
 * token, replacing the caller's Cube credential). During init it
 * also tries invalid registrations and publishes what each returned at
 * GET /api/v1/proxyprobe/registrations. Never built into a release. */
#include <stdio.h>
#include <string.h>

#include <cube/cube.h>

static const struct cube_host *H;
static cube_plugin *SELF;
static char RESULTS[1024];

static const char SCHEMA[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"port\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":65535},"
    "\"down_port\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":65535},"
    "\"token\":{\"type\":\"string\",\"maxLength\":200}}}";

static const char APP_SPEC[] = "{\"type\":\"object\",\"properties\":{}}";

static int resolve(void *state, cube_req *req, struct cube_proxy_upstream *up)
{
    (void)state;
    const char *name = H->req_param(req, "name");
    if (!strcmp(name, "starting"))
        return CUBE_EUNAVAIL;
    if (!strcmp(name, "gone"))
        return CUBE_ENOTFOUND;
    snprintf(up->host, sizeof up->host, "%s", strcmp(name, "remote") ? "127.0.0.1" : "192.0.2.1");
    up->port = (unsigned)H->config_int(SELF, strcmp(name, "down") ? "port" : "down_port", 1);
    const char *token = H->config_string(SELF, "token", NULL);
    snprintf(up->header_name, sizeof up->header_name, token ? "Authorization" : "X-Probe-Token");
    snprintf(up->header_value, sizeof up->header_value, "token%s%s", token ? " " : "-",
             token ? token : name);
    return CUBE_OK;
}

static int registrations(void *state, cube_req *req)
{
    (void)state;
    return H->resp_json(req, 200, RESULTS);
}

/* Tries a registration that must fail; appends "name":rc to RESULTS. */
static void try_bad(const char *label, const char *prefix, const char *perm, const char *kind)
{
    const struct cube_proxy_desc d = {.size = sizeof d, .prefix = prefix, .permission = perm,
                                      .kind = kind, .resolve = resolve};
    int rc = H->register_proxy(SELF, &d);
    size_t n = strlen(RESULTS);
    snprintf(RESULTS + n, sizeof RESULTS - n, "%s\"%s\":%d", n > 1 ? "," : "", label, rc);
}

static int init(const struct cube_host *host, cube_plugin *self, void **state)
{
    H = host;
    SELF = self;
    *state = NULL;
    if (!CUBE_HOST_HAS(host, register_proxy))
        return CUBE_EVERSION;
    const struct cube_kind_desc app = {.size = sizeof app, .kind = "ProbeApp",
                                       .plural = "probeapps", .scope = CUBE_SCOPE_PROJECT,
                                       .group = "Testing", .description = "A proxied app",
                                       .spec_schema = APP_SPEC};
    const struct cube_proxy_desc view = {.size = sizeof view, .prefix = "/probe/{project}/{name}",
                                         .permission = CUBE_PERM_PROJECT_VIEW,
                                         .login_redirect = 1, .resolve = resolve};
    const struct cube_proxy_desc op = {.size = sizeof op, .prefix = "/probeop/{project}/{name}",
                                       .permission = CUBE_PERM_PROJECT_OPERATE,
                                       .kind = "ProbeApp", .strip_prefix = 1,
                                       .resolve = resolve};
    const struct cube_route_desc route = {sizeof route, "GET", "/api/v1/proxyprobe/registrations",
                                          CUBE_PERM_PUBLIC, registrations,
                                          "What the invalid registrations returned", 0, 0, NULL};
    if (host->register_kind(self, &app) != CUBE_OK || host->register_proxy(self, &view) ||
        host->register_proxy(self, &op) || host->register_route(self, &route))
        return CUBE_EINVAL;
    strcpy(RESULTS, "{");
    try_bad("api", "/api/v1/x/{project}", CUBE_PERM_PROJECT_VIEW, NULL);
    try_bad("ui", "/ui/{project}", CUBE_PERM_PROJECT_VIEW, NULL);
    try_bad("param_first", "/{project}/x", CUBE_PERM_PROJECT_VIEW, NULL);
    try_bad("overlap", "/probe/{project}/{name}/deeper", CUBE_PERM_PROJECT_VIEW, NULL);
    try_bad("overlap_param", "/probe/{p}", CUBE_PERM_USER, NULL);
    try_bad("bad_perm", "/other/{project}", "root", NULL);
    try_bad("no_project", "/other/x", CUBE_PERM_PROJECT_VIEW, NULL);
    try_bad("bad_kind", "/other/{project}/{name}", CUBE_PERM_PROJECT_OPERATE, "Nope");
    try_bad("core_route", "/healthz/{project}", CUBE_PERM_PROJECT_VIEW, NULL);
    try_bad("trailing_slash", "/other/", CUBE_PERM_USER, NULL);
    try_bad("reserved", "/_cube/{project}", CUBE_PERM_PROJECT_VIEW, NULL);
    strcat(RESULTS, "}");
    return CUBE_OK;
}

CUBE_PLUGIN_DEFINE(proxyprobe,
    .name = "proxyprobe", .version = "1.0.0", .vendor = "Cube", .license = "Apache-2.0",
    .description = "Exercises register_proxy in tests", .config_schema = SCHEMA,
    .init = init)
