/* notify.c — vendor-hello's welcome notices, built on three ABI 1.5
 * services: a watch (G3) on the platform's Projects, the host's outbound
 * HTTP (G7) to a webhook, and the plugin's own key-value store and
 * secrets (G9).
 *
 * Each project created from now on is greeted once: its name is recorded
 * in the key-value store ("greeted/<project>", which survives restarts, so
 * a project is never greeted twice), and when `notify_url` is configured
 * a JSON notice {"project","greeting"} is POSTed there, with the bearer
 * token an administrator stored as the secret "notify-token" (never in
 * the config, an object or a log). The outcome of the last notice is kept
 * as "last-notify". Where the webhook may be is cube.yaml's egress rules'
 * business, not the plugin's.
 *
 * Threads: the watch callback and the fetch's done run on host workers;
 * they share nothing mutable with the HTTP threads except the key-value
 * store, which the host serialises. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <cube/cube.h>
#include <cube/util/json.h>

#include "vendor_hello.h"

#define TOKEN_MAX 512

/* What the fetch's done needs: the project it was about (malloc()ed). */
struct notice {
    char project[128];
};

static void record(struct vendor_hello *v, const char *key, const char *text)
{
    if (v->host->kv_put(v->self, key, text, strlen(text)) != CUBE_OK)
        v->host->log(v->self, CUBE_LOG_WARN, "cannot record %s", key);
}

static void notice_done(void *state, void *arg, const struct cube_fetch_result *res)
{
    struct vendor_hello *v = state;
    struct notice *n = arg;
    char text[256];
    if (res->error == CUBE_OK)
        snprintf(text, sizeof text, "%s: HTTP %d", n->project, res->status);
    else
        snprintf(text, sizeof text, "%s: %s", n->project, res->message);
    record(v, "last-notify", text);
    free(n);
}

/* POSTs the notice; the token, when set, only ever sits in a header. */
static void send_notice(struct vendor_hello *v, const char *project)
{
    struct notice *n = calloc(1, sizeof *n);
    cJSON *doc = cJSON_CreateObject();
    cu_set_str(doc, "project", project);
    cu_set_str(doc, "greeting", v->greeting);
    char *body = cJSON_PrintUnformatted(doc);
    cJSON_Delete(doc);
    size_t len = 0;
    int rc;
    char *token = v->host->secret_get(v->self, "notify-token", &len, &rc);
    char auth[TOKEN_MAX + 32] = "";
    if (token)
        snprintf(auth, sizeof auth, "Authorization: Bearer %s", token);
    const char *headers[] = {"Content-Type: application/json", auth[0] ? auth : NULL, NULL};
    if (n && body) {
        snprintf(n->project, sizeof n->project, "%s", project);
        const struct cube_fetch_desc f = {
            .size = sizeof f, .method = "POST", .url = v->notify_url, .headers = headers,
            .body = body, .body_len = strlen(body), .timeout_ms = 5000,
            .max_bytes = 4096, .done = notice_done, .arg = n,
        };
        if (v->host->fetch(v->self, &f, &rc) == 0) {
            record(v, "last-notify", "cannot start the fetch");
            free(n);
        }
    } else {
        free(n);
    }
    if (token) {
        memset(token, 0, len);   /* the host's copy is zeroed by the host */
        v->host->free(token);
    }
    memset(auth, 0, sizeof auth);
    free(body);
}

/* The watch: a Project ADDED that has not been greeted yet. */
static void on_project(void *state, void *arg, const char *type, const char *object_json)
{
    struct vendor_hello *v = state;
    (void)arg;
    if (strcmp(type, "ERROR") == 0) {   /* fell behind: what is missed stays ungreeted */
        v->host->log(v->self, CUBE_LOG_WARN, "project watch ended: %s", object_json);
        return;
    }
    if (strcmp(type, "ADDED") != 0)
        return;
    cJSON *obj = cJSON_Parse(object_json);
    const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(obj, "metadata"), "name"));
    char key[160];
    int rc;
    size_t len;
    if (name && snprintf(key, sizeof key, "greeted/%s", name) < (int)sizeof key) {
        char *seen = v->host->kv_get(v->self, key, &len, &rc);
        if (!seen && rc == CUBE_ENOTFOUND) {
            record(v, key, v->greeting);
            if (v->notify_url[0])
                send_notice(v, name);
        }
        v->host->free(seen);
    }
    cJSON_Delete(obj);
}

int vh_notify_start(struct vendor_hello *v)
{
    const struct cube_watch_desc w = {
        .size = sizeof w, .kind = "Project", .fn = on_project,
    };
    int rc;
    v->watch = v->host->watch(v->self, &w, &rc);
    if (!v->watch)
        v->host->set_error(v->self, "cannot watch projects (%d)", rc);
    return v->watch ? CUBE_OK : rc;
}

void vh_notify_stop(struct vendor_hello *v)
{
    v->host->watch_cancel(v->self, v->watch);
    v->watch = NULL;
}

/* POST /api/v1/vendor-hello/token (administrators): the body is the
 * webhook's bearer token, kept as a secret. */
int vh_set_token(void *state, cube_req *req)
{
    struct vendor_hello *v = state;
    size_t len = 0;
    const char *body = v->host->req_body(req, &len);
    if (!body || len == 0 || len > TOKEN_MAX || memchr(body, '\n', len) || memchr(body, '\r', len))
        return v->host->resp_error(req, 422, "Invalid",
                                   "body: the token, 1 to 512 bytes on one line");
    int rc = v->host->secret_put(v->self, "notify-token", body, len);
    if (rc != CUBE_OK)
        return v->host->resp_error(req, 503, "Unavailable", "the secret was not stored");
    return v->host->resp_json(req, 200, "{\"stored\":true}");
}

/* Adds "greeted" (project names) and "last_notify" to the greeting. */
void vh_add_notices(struct vendor_hello *v, cJSON *doc)
{
    int rc;
    char *keys = v->host->kv_list(v->self, "greeted/", &rc);
    cJSON *list = keys ? cJSON_Parse(keys) : NULL, *names = cJSON_CreateArray();
    const cJSON *k;
    cJSON_ArrayForEach(k, list)
        if (cJSON_IsString(k))
            cJSON_AddItemToArray(names, cJSON_CreateString(k->valuestring + strlen("greeted/")));
    cJSON_AddItemToObject(doc, "greeted", names);
    cJSON_Delete(list);
    v->host->free(keys);
    size_t len;
    char *last = v->host->kv_get(v->self, "last-notify", &len, &rc);
    cu_set_str(doc, "last_notify", last ? last : "");
    v->host->free(last);
}
