/* statekv.c — a test plugin exercising the ABI 1.5 plugin state slots
 * through a real cubed: its key-value store, its secrets, log resume, and
 * an API it exports ("statekv.greeter", statekv_api.h). Routes (admin):
 *   PUT|GET|DELETE /api/v1/statekv/kv/{key}       kv_put / kv_get / kv_delete
 *   GET            /api/v1/statekv/kv?prefix=     kv_list
 *   PUT|GET|DELETE /api/v1/statekv/secret/{name}  secret_*
 *   GET            /api/v1/statekv/secret?prefix= secret_list
 *   POST /api/v1/statekv/log/{name}?offset=N      log_append_at (kind Job,
 *        project public, stream "out"); without offset, log_append
 *   POST /api/v1/statekv/logclose/{name}          log_close
 *   GET  /api/v1/statekv/logstat/{name}           log_stat
 * A value answers as bytes; everything else as {"rc":n,...} (200 when rc
 * is CUBE_OK, 404 for CUBE_ENOTFOUND, else 400). Never built into a
 * release. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cube/cube.h>

#include "statekv_api.h"

static const struct cube_host *H;
static cube_plugin *SELF;
static int CALLS;

static const char *greet(void)
{
    CALLS++;
    return "hello from statekv";
}

static int calls(void)
{
    return CALLS;
}

static const struct statekv_api API = {sizeof API, greet, calls};

static int answer_rc(cube_req *req, int rc)
{
    char body[64];
    snprintf(body, sizeof body, "{\"rc\":%d}", rc);
    return H->resp_json(req, rc == CUBE_OK ? 200 : rc == CUBE_ENOTFOUND ? 404 : 400, body);
}

static int answer_value(cube_req *req, char *value, size_t len, int rc, int secret)
{
    if (!value)
        return answer_rc(req, rc);
    int out = H->resp_bytes(req, 200, "application/octet-stream", value, len);
    if (secret)
        memset(value, 0, len);   /* as the ABI asks of a secret's reader */
    H->free(value);
    return out;
}

static int answer_list(cube_req *req, char *list, int rc)
{
    if (!list)
        return answer_rc(req, rc);
    int out = H->resp_json(req, 200, list);
    H->free(list);
    return out;
}

/* One handler for a key's three methods; secret chooses the namespace. */
static int one(cube_req *req, int secret)
{
    const char *m = H->req_method(req), *key = H->req_param(req, secret ? "name" : "key");
    size_t len = 0;
    int rc = CUBE_OK;
    if (!strcmp(m, "PUT")) {
        const char *body = H->req_body(req, &len);
        rc = secret ? H->secret_put(SELF, key, body, len) : H->kv_put(SELF, key, body, len);
        return answer_rc(req, rc);
    }
    if (!strcmp(m, "DELETE"))
        return answer_rc(req, secret ? H->secret_delete(SELF, key) : H->kv_delete(SELF, key));
    char *v = secret ? H->secret_get(SELF, key, &len, &rc) : H->kv_get(SELF, key, &len, &rc);
    return answer_value(req, v, len, rc, secret);
}

static int kv_one(void *state, cube_req *req)
{
    (void)state;
    return one(req, 0);
}

static int secret_one(void *state, cube_req *req)
{
    (void)state;
    return one(req, 1);
}

static int kv_list(void *state, cube_req *req)
{
    (void)state;
    int rc = CUBE_OK;
    char *l = H->kv_list(SELF, H->req_query(req, "prefix"), &rc);
    return answer_list(req, l, rc);
}

static int secret_list(void *state, cube_req *req)
{
    (void)state;
    int rc = CUBE_OK;
    char *l = H->secret_list(SELF, H->req_query(req, "prefix"), &rc);
    return answer_list(req, l, rc);
}

static int log_post(void *state, cube_req *req)
{
    (void)state;
    size_t len = 0;
    const char *body = H->req_body(req, &len), *off = H->req_query(req, "offset");
    const char *name = H->req_param(req, "name");
    int rc = off ? H->log_append_at(SELF, "Job", "public", name, "out",
                                    strtoull(off, NULL, 10), body, len)
                 : H->log_append(SELF, "Job", "public", name, "out", body, len);
    return answer_rc(req, rc);
}

static int log_close(void *state, cube_req *req)
{
    (void)state;
    return answer_rc(req, H->log_close(SELF, "Job", "public", H->req_param(req, "name"),
                                       "out"));
}

static int log_stat(void *state, cube_req *req)
{
    (void)state;
    uint64_t size = 0;
    int closed = -1;
    int rc = H->log_stat(SELF, "Job", "public", H->req_param(req, "name"), "out", &size,
                         &closed);
    char body[128];
    snprintf(body, sizeof body, "{\"rc\":%d,\"size\":%llu,\"closed\":%d}", rc,
             (unsigned long long)size, closed);
    return H->resp_json(req, rc == CUBE_OK ? 200 : rc == CUBE_ENOTFOUND ? 404 : 400, body);
}

static int init(const struct cube_host *host, cube_plugin *self, void **state)
{
    H = host;
    SELF = self;
    *state = NULL;
    static const struct cube_route_desc routes[] = {
        {sizeof routes[0], "PUT", "/api/v1/statekv/kv/{key}", CUBE_PERM_ADMIN, kv_one, NULL, 0, 0, NULL},
        {sizeof routes[0], "GET", "/api/v1/statekv/kv/{key}", CUBE_PERM_ADMIN, kv_one, NULL, 0, 0, NULL},
        {sizeof routes[0], "DELETE", "/api/v1/statekv/kv/{key}", CUBE_PERM_ADMIN, kv_one,
         NULL, 0, 0, NULL},
        {sizeof routes[0], "GET", "/api/v1/statekv/kv", CUBE_PERM_ADMIN, kv_list, NULL, 0, 0, NULL},
        {sizeof routes[0], "PUT", "/api/v1/statekv/secret/{name}", CUBE_PERM_ADMIN, secret_one,
         NULL, 0, 0, NULL},
        {sizeof routes[0], "GET", "/api/v1/statekv/secret/{name}", CUBE_PERM_ADMIN, secret_one,
         NULL, 0, 0, NULL},
        {sizeof routes[0], "DELETE", "/api/v1/statekv/secret/{name}", CUBE_PERM_ADMIN,
         secret_one, NULL, 0, 0, NULL},
        {sizeof routes[0], "GET", "/api/v1/statekv/secret", CUBE_PERM_ADMIN, secret_list,
         NULL, 0, 0, NULL},
        {sizeof routes[0], "POST", "/api/v1/statekv/log/{name}", CUBE_PERM_ADMIN, log_post,
         NULL, 0, 0, NULL},
        {sizeof routes[0], "POST", "/api/v1/statekv/logclose/{name}", CUBE_PERM_ADMIN, log_close,
         NULL, 0, 0, NULL},
        {sizeof routes[0], "GET", "/api/v1/statekv/logstat/{name}", CUBE_PERM_ADMIN, log_stat,
         NULL, 0, 0, NULL},
    };
    for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++)
        if (host->register_route(self, &routes[i]) != CUBE_OK) {
            host->set_error(self, "route %s %s refused", routes[i].method, routes[i].path);
            return CUBE_EINVAL;
        }
    int rc = host->api_export(self, STATEKV_API_NAME, STATEKV_API_VERSION, &API);
    if (rc != CUBE_OK) {
        host->set_error(self, "api_export: %d", rc);
        return rc;
    }
    return CUBE_OK;
}

CUBE_PLUGIN_DEFINE(statekv,
    .name = "statekv", .version = "1.4.0", .vendor = "Cube tests",
    .license = "Apache-2.0", .description = "Tests the plugin state slots (ABI 1.5)",
    .init = init);
