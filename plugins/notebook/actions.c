/* actions.c — a Notebook's sub-resources: stop, restart, renew, open (a
 * redirect to its own proxied path) and launch (the server's launcher reporting
 * the secret it made; accepted once per generation). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>
#include <cube/util/json.h>

#include "notebook.h"

/* Answers with the object as stored now. */
static int answer_object(struct nb *nb, cube_req *req, const char *project, const char *name)
{
    int rc;
    char *text = nb->host->obj_get(nb->self, NB_KIND, project, name, &rc);
    if (!text)
        return nb->host->resp_error(req, 404, "NotFound", "the notebook is gone");
    rc = nb->host->resp_json(req, 200, text);
    nb->host->free(text);
    return rc;
}

/* The stored object, parsed; NULL after answering 404. */
static cJSON *load(struct nb *nb, cube_req *req, const char *project, const char *name)
{
    int rc;
    char *text = nb->host->obj_get(nb->self, NB_KIND, project, name, &rc);
    cJSON *obj = cu_json_take(nb->host, text);
    if (!obj)
        nb->host->resp_error(req, 404, "NotFound", "no such notebook");
    return obj;
}

static const char *phase_of(const cJSON *obj)
{
    return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(obj, "status"), "phase"));
}

static int stop_action(void *state, cube_req *req)
{
    struct nb *nb = state;
    const char *p = nb->host->req_param(req, "project"), *n = nb->host->req_param(req, "name");
    const char *who = nb->host->req_user(req);
    char msg[160];
    snprintf(msg, sizeof msg, "stopped by %s", who ? who : "an administrator");
    int rc = nb_stop(nb, p, n, "Stopped", msg);
    if (rc != CUBE_OK)
        return nb->host->resp_error(req, 503, "Unavailable", "cannot stop the server now; retry");
    return answer_object(nb, req, p, n);
}

static int restart_action(void *state, cube_req *req)
{
    struct nb *nb = state;
    const char *p = nb->host->req_param(req, "project"), *n = nb->host->req_param(req, "name");
    char key[NB_KEY_LEN], patch[256];
    struct nb_entry e;
    cJSON *obj = load(nb, req, p, n);
    if (!obj)
        return CUBE_OK;
    double g = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(obj, "status"), "generation"));
    cJSON_Delete(obj);
    nb_key(p, n, key, sizeof key);
    int had = nb_table_get(&nb->table, key, &e) == 0;
    snprintf(patch, sizeof patch, "{\"phase\":\"Pending\",\"reason\":\"Restarting\","
             "\"message\":\"restarting the server\",\"generation\":%u,\"url\":null,"
             "\"expiryWarned\":null}", (g >= 1 && g < 1e9 ? (unsigned)g : 1) + 1);
    /* The new generation first, then the old Job goes: a reconcile that
     * sees the old Job end already follows the new one. */
    if (nb_status_merge(nb, p, n, patch) != CUBE_OK)
        return nb->host->resp_error(req, 503, "Unavailable", "cannot restart now; retry");
    nb->host->obj_event(nb->self, NB_KIND, p, n, "Normal", "Restarting", "restart requested");
    if (had) {
        nb->host->obj_delete(nb->self, "Job", p, e.job);
        struct nb_entry now;
        if (nb_table_get(&nb->table, key, &now) == 0 && now.generation == e.generation)
            nb_table_drop(&nb->table, key);
    }
    return answer_object(nb, req, p, n);
}

/* Pushes the hard expiry out by spec.expiresAfterSeconds from now. */
static int renew_action(void *state, cube_req *req)
{
    struct nb *nb = state;
    const char *p = nb->host->req_param(req, "project"), *n = nb->host->req_param(req, "name");
    cJSON *obj = load(nb, req, p, n);
    if (!obj)
        return CUBE_OK;
    double secs = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(obj, "spec"), "expiresAfterSeconds"));
    const char *phase = phase_of(obj);
    int running = phase && !strcmp(phase, "Running");
    cJSON_Delete(obj);
    if (!running)
        return nb->host->resp_error(req, 409, "Conflict", "only a Running notebook can be renewed");
    if (!(secs > 0))
        return nb->host->resp_error(req, 409, "Conflict",
                                    "spec.expiresAfterSeconds is 0: this notebook does not expire");
    char when[32], patch[160];
    nb_format_time(time(NULL) + (time_t)secs, when, sizeof when);
    snprintf(patch, sizeof patch, "{\"expires\":\"%s\",\"expiryWarned\":null}", when);
    if (nb_status_merge(nb, p, n, patch) != CUBE_OK)
        return nb->host->resp_error(req, 503, "Unavailable", "cannot renew now; retry");
    nb->host->obj_event(nb->self, NB_KIND, p, n, "Normal", "Renewed", when);
    return answer_object(nb, req, p, n);
}

static int open_action(void *state, cube_req *req)
{
    struct nb *nb = state;
    const char *p = nb->host->req_param(req, "project"), *n = nb->host->req_param(req, "name");
    cJSON *obj = load(nb, req, p, n);
    if (!obj)
        return CUBE_OK;
    const char *phase = phase_of(obj);
    const char *ide = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(obj, "spec"), "ide"));
    char msg[128], url[256];
    int rc;
    /* The notebook's own proxied path, never status.url: the redirect is
     * the server's to choose, not the writer of a status field's. The
     * console origin hands the browser over to the apps origin there. */
    nb_proxied_url(ide, p, n, url, sizeof url);
    if (!phase || strcmp(phase, "Running")) {
        snprintf(msg, sizeof msg, "the notebook is not running (phase %s)", phase ? phase : "none");
        rc = nb->host->resp_error(req, 409, "Conflict", msg);
    } else {
        nb->host->resp_header(req, "Location", url);
        rc = nb->host->resp_text(req, 302, NULL, url);
    }
    cJSON_Delete(obj);
    return rc;
}

/* A secret: 32 to 64 lowercase hex digits. */
static int valid_token(const char *t)
{
    size_t n = t ? strlen(t) : 0;
    for (size_t i = 0; i < n; i++)
        if (!isxdigit((unsigned char)t[i]) || isupper((unsigned char)t[i]))
            return 0;
    return n >= 32 && n <= NB_TOKEN_LEN;
}

static int launch_action(void *state, cube_req *req)
{
    struct nb *nb = state;
    const char *p = nb->host->req_param(req, "project"), *n = nb->host->req_param(req, "name");
    size_t len;
    cJSON *body = cJSON_Parse(nb->host->req_body(req, &len));
    const cJSON *gen = cJSON_GetObjectItemCaseSensitive(body, "generation");
    const char *tok = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(body, "token"));
    char key[NB_KEY_LEN];
    int rc;
    nb_key(p, n, key, sizeof key);
    if (!cJSON_IsNumber(gen) || gen->valuedouble < 1)
        rc = nb->host->resp_error(req, 400, "BadRequest", "generation: a positive integer");
    else if (!valid_token(tok))
        rc = nb->host->resp_error(req, 400, "BadRequest", "token: 32 to 64 hex digits");
    else if (nb_table_set_token(&nb->table, key, (unsigned)gen->valuedouble, tok) < 0)
        rc = nb->host->resp_error(req, 409, "Conflict",
                                  "this generation of the server was already launched");
    else {
        nb_status_merge(nb, p, n, "{\"message\":\"the server is starting\"}");
        rc = nb->host->resp_json(req, 200, "{\"status\":\"accepted\"}");
    }
    cJSON_Delete(body);
    return rc;
}

/* GET /api/v1/notebook/options: what the console may offer, from this
 * server's configuration: the IDEs and whether each is enabled (creating a
 * notebook with a disabled one is refused), the default idle timeout, and
 * the actions a user may take on a notebook by phase (launch is the
 * launcher's own and is never listed). */
static int options_route(void *state, cube_req *req)
{
    struct nb *nb = state;
    char text[640];
    snprintf(text, sizeof text,
             "{\"ides\":[{\"name\":\"jupyter\",\"enabled\":true},"
             "{\"name\":\"vscode\",\"enabled\":%s}],"
             "\"idleTimeoutSeconds\":%lld,"
             "\"actions\":{\"Pending\":[\"stop\"],\"Starting\":[\"stop\"],"
             "\"Running\":[\"open\",\"stop\",\"restart\",\"renew\"],"
             "\"Stopped\":[\"restart\"],\"Failed\":[\"restart\"]}}",
             nb->conf.vscode_enabled ? "true" : "false", (long long)nb->conf.idle_timeout);
    return nb->host->resp_json(req, 200, text);
}

int nb_register_actions(struct nb *nb)
{
    const struct cube_route_desc options = {
        .size = sizeof options, .method = "GET", .path = "/api/v1/notebook/options",
        .permission = CUBE_PERM_USER, .handler = options_route,
        .summary = "The IDEs this server offers (enabled or not) and the actions by phase"};
    if (nb->host->register_route(nb->self, &options) != CUBE_OK)
        return -1;
    const struct cube_action_desc a[] = {
        {sizeof a[0], NB_KIND, "POST", "stop", CUBE_PERM_PROJECT_OPERATE, stop_action,
         "Stops the notebook's server (its home is kept)"},
        {sizeof a[0], NB_KIND, "POST", "restart", CUBE_PERM_PROJECT_OPERATE, restart_action,
         "Starts the server again (a new generation)"},
        {sizeof a[0], NB_KIND, "POST", "renew", CUBE_PERM_PROJECT_OPERATE, renew_action,
         "Pushes the hard expiry out by spec.expiresAfterSeconds"},
        {sizeof a[0], NB_KIND, "GET", "open", CUBE_PERM_PROJECT_OPERATE, open_action,
         "Redirects to the notebook's proxied URL"},
        {sizeof a[0], NB_KIND, "POST", "launch", CUBE_PERM_PROJECT_OPERATE, launch_action,
         "Used by the notebook's own launcher: reports the server's secret once"},
    };
    for (size_t i = 0; i < sizeof a / sizeof a[0]; i++)
        if (nb->host->register_action(nb->self, &a[i]) != CUBE_OK)
            return -1;
    return 0;
}
