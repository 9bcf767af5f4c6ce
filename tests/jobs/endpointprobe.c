/* endpointprobe.c — a test plugin for replica endpoints (ABI 1.5): a
 * reverse-proxied prefix /ep/{project}/{name} (project:view, allow_remote)
 * whose resolve names the endpoint "http" of replica 0 of Job {name}, read
 * from the Job's status (obj_get), as a serving plugin would, and
 * GET /api/v1/projects/{project}/endpointprobe/{name}, which answers the
 * upstream resolve would pick ({"host":"10.88.0.1","port":29517}) or 404.
 * Never built into a release. */
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <cube/cube.h>
#include <cube/util/endpoint.h>
#include <cube/util/json.h>

static const struct cube_host *H;
static cube_plugin *SELF;

/* The endpoint "http" of replica 0 of Job project/name into host and
 * *port: 0, or -1 when it has none (yet). */
static int pick(const char *project, const char *name, char *host, size_t hlen,
                unsigned *port)
{
    int rc;
    cJSON *job = cu_json_take(H, H->obj_get(SELF, "Job", project, name, &rc));
    const cJSON *rep = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(job, "status"), "replicas"), 0);
    const char *hp = cu_str(cJSON_GetObjectItemCaseSensitive(rep, "endpoints"), "http");
    int ok = hp && cu_hostport_split(hp, host, hlen, port, NULL) == 0;
    cJSON_Delete(job);
    return ok ? 0 : -1;
}

static int resolve(void *state, cube_req *req, struct cube_proxy_upstream *up)
{
    (void)state;
    return pick(H->req_param(req, "project"), H->req_param(req, "name"), up->host,
                sizeof up->host, &up->port) == 0 ? CUBE_OK : CUBE_EUNAVAIL;
}

static int upstream(void *state, cube_req *req)
{
    (void)state;
    char host[64], body[160];
    unsigned port;
    if (pick(H->req_param(req, "project"), H->req_param(req, "name"), host, sizeof host,
             &port) < 0)
        return H->resp_error(req, 404, "NotFound", "no endpoint http reported for replica 0");
    snprintf(body, sizeof body, "{\"host\":\"%s\",\"port\":%u}", host, port);
    return H->resp_json(req, 200, body);
}

static int init(const struct cube_host *host, cube_plugin *self, void **state)
{
    H = host;
    SELF = self;
    *state = NULL;
    if (!CUBE_HOST_HAS(host, replica_endpoints))
        return CUBE_EVERSION;
    const struct cube_proxy_desc ep = {.size = sizeof ep, .prefix = "/ep/{project}/{name}",
                                       .permission = CUBE_PERM_PROJECT_VIEW, .kind = "Job",
                                       .allow_remote = 1, .resolve = resolve};
    const struct cube_route_desc route = {
        sizeof route, "GET", "/api/v1/projects/{project}/endpointprobe/{name}",
        CUBE_PERM_PROJECT_VIEW, upstream, "The upstream /ep/{project}/{name} resolves to", 0, 0, NULL};
    if (host->register_proxy(self, &ep) != CUBE_OK || host->register_route(self, &route))
        return CUBE_EINVAL;
    return CUBE_OK;
}

CUBE_PLUGIN_DEFINE(endpointprobe,
    .name = "endpointprobe", .version = "1.0.0", .vendor = "Cube", .license = "Apache-2.0",
    .description = "Proxies to Jobs' reported endpoints in tests", .init = init)
