/* statedep.c — a test plugin that requires statekv and uses its API
 * (ABI 1.5: cube_plugin_desc.dependencies, api_get). Built in variants (the
 * macros below):
 *   statedep    requires "statekv>=1.2"; init fails unless api_get of
 *               statekv.greeter (version >= 2) succeeds
 *   stateneedy  requires "absent-plugin" (never loads)
 *   stateold    requires "statekv>=9.1" (statekv is too old)
 *   stateloose  requires nothing; its api_get must fail with CUBE_EPERM
 * Routes: GET /api/v1/<name>/hello (the greeting, the API's version and
 * api_get's result) and GET /api/v1/<name>/kv/{key} (its own kv_get: it
 * never sees statekv's keys). Never built into a release. */
#include <stdio.h>
#include <string.h>

#include <cube/cube.h>

#include "statekv_api.h"

#ifndef DEP_NAME
#define DEP_NAME "statedep"
#define DEP_IDENT statedep
#define DEP_REQUIRES "statekv>=1.2"
#endif

static const struct cube_host *H;
static cube_plugin *SELF;
static const struct statekv_api *API;
static uint32_t API_VERSION;
static int API_RC;

static int hello(void *state, cube_req *req)
{
    (void)state;
    char body[256];
    snprintf(body, sizeof body, "{\"rc\":%d,\"version\":%u,\"greet\":\"%s\",\"calls\":%d}",
             API_RC, (unsigned)API_VERSION, API ? API->greet() : "",
             API ? API->calls() : -1);
    return H->resp_json(req, 200, body);
}

static int kv_get(void *state, cube_req *req)
{
    (void)state;
    size_t len = 0;
    int rc = CUBE_OK;
    char *v = H->kv_get(SELF, H->req_param(req, "key"), &len, &rc);
    if (!v) {
        char body[32];
        snprintf(body, sizeof body, "{\"rc\":%d}", rc);
        return H->resp_json(req, rc == CUBE_ENOTFOUND ? 404 : 400, body);
    }
    int out = H->resp_bytes(req, 200, "application/octet-stream", v, len);
    H->free(v);
    return out;
}

static int init(const struct cube_host *host, cube_plugin *self, void **state)
{
    H = host;
    SELF = self;
    *state = NULL;
    const struct cube_route_desc routes[] = {
        {sizeof routes[0], "GET", "/api/v1/" DEP_NAME "/hello", CUBE_PERM_ADMIN, hello, NULL, 0, 0, NULL},
        {sizeof routes[0], "GET", "/api/v1/" DEP_NAME "/kv/{key}", CUBE_PERM_ADMIN, kv_get,
         NULL, 0, 0, NULL},
    };
    for (size_t i = 0; i < 2; i++)
        if (host->register_route(self, &routes[i]) != CUBE_OK)
            return CUBE_EINVAL;
    API = host->api_get(self, STATEKV_API_NAME, STATEKV_API_VERSION, &API_VERSION, &API_RC);
#ifdef DEP_LOOSE
    return API_RC == CUBE_EPERM ? CUBE_OK : CUBE_EINTERNAL;
#else
    if (!API) {
        host->set_error(self, "api_get(%s): %d", STATEKV_API_NAME, API_RC);
        return API_RC;
    }
    return CUBE_OK;
#endif
}

#ifdef DEP_REQUIRES
static const char *const REQUIRES[] = {DEP_REQUIRES, NULL};
#define DEP_REQUIRES_FIELD .dependencies = REQUIRES,
#else
#define DEP_REQUIRES_FIELD
#endif

CUBE_PLUGIN_DEFINE(DEP_IDENT,
    .name = DEP_NAME, .version = "0.1.0", .vendor = "Cube tests",
    .license = "Apache-2.0", .description = "Tests requires and api_get (ABI 1.5)",
    DEP_REQUIRES_FIELD
    .init = init);
