/* proxy.c — cubed's reverse proxy in front of the servers: the core serves
 * them from its apps origin and checks the caller (the apps origin's
 * cookie or a bearer token, project:operate on the Notebook, which admits
 * its owner and project ops/creators), and `resolve` then admits ops only
 * with ops_access and names the endpoint of a server this plugin started
 * (its Job's reported endpoint, kept in the table by the controller: a
 * table lookup, no name is looked up here), with the server's secret as
 * the one added header; a notebook that is not running is answered with
 * what to do. The prefixes allow remote upstreams only with allow_remote
 * (servers on other nodes, reached over the cluster network and guarded by
 * their secret alone); without it the controller fails a server whose
 * endpoint is not loopback, so resolve never names one. Jupyter knows its
 * base URL and gets the path unchanged; code-server gets it with the
 * prefix removed. */
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <cube/util/json.h>

#include "notebook.h"

/* Owner-only mode: ops and creators (and administrators) are refused. */
static int owner_only_refuses(struct nb *nb, cube_req *req, const struct nb_entry *e)
{
    if (nb->conf.ops_access)
        return 0;
    const char *user = nb->host->req_user(req);
    return !user || strcmp(user, e->owner);
}

void nb_auth_header(const struct nb_entry *e, char *name, size_t nlen, char *value, size_t vlen)
{
    if (!strcmp(e->ide, "vscode")) {
        snprintf(name, nlen, "Cookie");
        snprintf(value, vlen, "code-server-session=%s", e->token);
    } else {
        snprintf(name, nlen, "Authorization");
        snprintf(value, vlen, "token %s", e->token);
    }
}

/* The notebook exists (the core checked) but no server of it runs:
 * answers 503 saying whether it is on its way or how to start it. */
static int not_running(struct nb *nb, cube_req *req, const char *p, const char *n)
{
    int rc;
    char *text = nb->host->obj_get(nb->self, NB_KIND, p, n, &rc);
    cJSON *obj = cu_json_take(nb->host, text);
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(obj, "status");
    const char *phase = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(st, "phase"));
    const char *reason = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(st, "reason"));
    char msg[400];
    if (!phase || !strcmp(phase, "Pending") || !strcmp(phase, "Starting")) {
        snprintf(msg, sizeof msg, "notebook %s/%s is starting (phase %s): try again in a "
                 "few seconds", p, n, phase ? phase : "Pending");
        nb->host->resp_header(req, "Retry-After", "2");
    } else {
        snprintf(msg, sizeof msg, "notebook %s/%s is not running (phase %s%s%s): start it "
                 "with POST /api/v1/projects/%s/notebooks/%s/restart (Restart in the "
                 "console)", p, n, phase, reason ? ", " : "", reason ? reason : "", p, n);
    }
    cJSON_Delete(obj);
    nb->host->resp_error(req, 503, "Unavailable", msg);
    return CUBE_EUNAVAIL;
}

static int resolve(struct nb *nb, cube_req *req, struct cube_proxy_upstream *up,
                   const char *ide)
{
    const char *p = nb->host->req_param(req, "project"), *n = nb->host->req_param(req, "name");
    char key[NB_KEY_LEN];
    struct nb_entry e;
    if (!p || !n)
        return CUBE_ENOTFOUND;
    nb_key(p, n, key, sizeof key);
    if (nb_table_get(&nb->table, key, &e) < 0)
        return not_running(nb, req, p, n);
    if (strcmp(e.ide, ide))
        return CUBE_ENOTFOUND;
    if (owner_only_refuses(nb, req, &e))
        return CUBE_EPERM;
    if (!*e.token || !*e.host || !e.port)
        return CUBE_EUNAVAIL;                 /* still starting (no secret or endpoint yet) */
    snprintf(up->host, sizeof up->host, "%s", e.host);
    up->port = e.port;
    nb_auth_header(&e, up->header_name, sizeof up->header_name, up->header_value,
                   sizeof up->header_value);
    return CUBE_OK;
}

static int resolve_jupyter(void *state, cube_req *req, struct cube_proxy_upstream *up)
{
    return resolve(state, req, up, "jupyter");
}

static int resolve_vscode(void *state, cube_req *req, struct cube_proxy_upstream *up)
{
    return resolve(state, req, up, "vscode");
}

int nb_register_proxy(struct nb *nb)
{
    const int remote = nb->conf.allow_remote;
    const struct cube_proxy_desc d[] = {
        {.size = sizeof d[0], .prefix = "/notebook/{project}/{name}",
         .permission = CUBE_PERM_PROJECT_OPERATE, .kind = NB_KIND, .login_redirect = 1,
         .strip_prefix = 0, .allow_remote = remote, .resolve = resolve_jupyter},
        {.size = sizeof d[0], .prefix = "/vscode/{project}/{name}",
         .permission = CUBE_PERM_PROJECT_OPERATE, .kind = NB_KIND, .login_redirect = 1,
         .strip_prefix = 1, .allow_remote = remote, .resolve = resolve_vscode},
    };
    for (size_t i = 0; i < sizeof d / sizeof d[0]; i++) {
        int rc = nb->host->register_proxy(nb->self, &d[i]);
        if (rc != CUBE_OK) {
            nb->host->log(nb->self, CUBE_LOG_WARN, "cubed refused the proxy prefix %s (%d): "
                          "notebooks run but cannot be opened through cubed", d[i].prefix, rc);
            return 0;
        }
    }
    nb->proxied = 1;
    return 0;
}
