/* actions.c — an InferenceService's sub-resources:
 *   POST rollback {"revision": N}  the spec of an earlier revision again
 *                                  (a new revision, rolled out as any change)
 *   POST apikey                    a new API key for a public service, shown
 *                                  once; only its SHA-256 is kept (the
 *                                  plugin's key-value store) and handed to
 *                                  the proxy (proxy_credential_set)
 *   POST register {"job","token"}  a replica's runtime reports the secret it
 *                                  made (once per Job), which the proxy then
 *                                  sends it (X-Cube-Serving-Token)
 *   POST test                      the console's "try it": the body goes to
 *                                  a ready replica (?path=, default the v2
 *                                  infer path), its answer comes back;
 *                                  400 when the body is not JSON, 409
 *                                  when no replica is ready; counted in
 *                                  its predictor's figures as a request
 *   GET  samples                   the charts' series (scale.c) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include <cjson/cJSON.h>
#include <cube/util/http.h>
#include <cube/util/json.h>
#include <openssl/crypto.h>
#include <openssl/sha.h>

#include "serving.h"

static void hex(const unsigned char *b, size_t n, char *out)
{
    static const char H[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = H[b[i] >> 4];
        out[2 * i + 1] = H[b[i] & 15];
    }
    out[2 * n] = '\0';
}

int sv_apikey_hash(struct sv *sv, const char *project, const char *name, char *out)
{
    char k[CUBE_KV_KEY_MAX];
    size_t len;
    int rc;
    snprintf(k, sizeof k, "key/%s/%s", project, name);
    char *v = sv->host->kv_get(sv->self, k, &len, &rc);
    int ok = v && len == 64;
    if (ok)
        memcpy(out, v, 65);
    sv->host->free(v);
    return ok ? 0 : -1;
}

int sv_token_get(struct sv *sv, const char *project, const char *job, char *out, size_t len)
{
    char k[CUBE_KV_KEY_MAX];
    size_t n;
    int rc;
    snprintf(k, sizeof k, "tok/%s/%s", project, job);
    char *v = sv->host->kv_get(sv->self, k, &n, &rc);
    int ok = v && n > 0 && n < len;
    if (ok)
        memcpy(out, v, n + 1);
    sv->host->free(v);
    return ok ? 0 : -1;
}

static cJSON *load(struct sv *sv, cube_req *req, const char *p, const char *n)
{
    int rc;
    cJSON *obj = cu_json_take(sv->host, sv->host->obj_get(sv->self, SV_KIND, p, n, &rc));
    if (!obj)
        sv->host->resp_error(req, 404, "NotFound", "no such inference service");
    return obj;
}

static cJSON *body_json(struct sv *sv, cube_req *req)
{
    size_t len;
    const char *b = sv->host->req_body(req, &len);
    cJSON *doc = cJSON_ParseWithLength(b, len);
    if (!cJSON_IsObject(doc)) {
        cJSON_Delete(doc);
        sv->host->resp_error(req, 400, "BadRequest", "the body must be a JSON object");
        return NULL;
    }
    return doc;
}

static int rollback_action(void *state, cube_req *req)
{
    struct sv *sv = state;
    const char *p = sv->host->req_param(req, "project"), *n = sv->host->req_param(req, "name");
    cJSON *doc = body_json(sv, req), *obj = doc ? load(sv, req, p, n) : NULL;
    int rc = CUBE_OK;
    if (!obj)
        goto out;
    const cJSON *want = cJSON_GetObjectItemCaseSensitive(doc, "revision"), *rev, *found = NULL;
    if (!cJSON_IsNumber(want)) {
        sv->host->resp_error(req, 422, "Invalid", "revision: the number of an earlier revision "
                             "(status.revisions[].revision)");
        goto out;
    }
    cJSON_ArrayForEach(rev, cJSON_GetObjectItemCaseSensitive(
                                cJSON_GetObjectItemCaseSensitive(obj, "status"), "revisions"))
        if (cu_num(rev, "revision", -1) == want->valuedouble)
            found = rev;
    if (!found) {
        char msg[160];
        snprintf(msg, sizeof msg, "revision: %g is not among this service's recorded "
                 "revisions (status.revisions)", want->valuedouble);
        sv->host->resp_error(req, 422, "Invalid", msg);
        goto out;
    }
    cu_set_item(obj, "spec", cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(found, "spec"), 1));
    cJSON_DeleteItemFromObjectCaseSensitive(obj, "status");
    char *text = cJSON_PrintUnformatted(obj);
    char *out = text ? sv->host->obj_update(sv->self, text, &rc) : NULL;
    free(text);
    if (!out) {
        sv->host->resp_error(req, rc == CUBE_ECONFLICT ? 409 : 503,
                             rc == CUBE_ECONFLICT ? "Conflict" : "Unavailable",
                             "the service changed meanwhile or cannot be written; retry");
        goto out;
    }
    char msg[120];
    snprintf(msg, sizeof msg, "the spec of revision %g is rolled out again", want->valuedouble);
    sv->host->obj_event(sv->self, SV_KIND, p, n, "Normal", "RolledBack", msg);
    sv->host->resp_json(req, 200, out);
    sv->host->free(out);
out:
    cJSON_Delete(doc);
    cJSON_Delete(obj);
    return CUBE_OK;
}

static int apikey_action(void *state, cube_req *req)
{
    struct sv *sv = state;
    const char *p = sv->host->req_param(req, "project"), *n = sv->host->req_param(req, "name");
    unsigned char raw[24], digest[SHA256_DIGEST_LENGTH];
    char key[8 + 2 * sizeof raw + 1], hash[65], k[CUBE_KV_KEY_MAX], body[160];
    if (getrandom(raw, sizeof raw, 0) != (ssize_t)sizeof raw)
        return sv->host->resp_error(req, 503, "Unavailable", "no randomness; retry");
    memcpy(key, "cube_sk_", 8);
    hex(raw, sizeof raw, key + 8);
    SHA256((const unsigned char *)key, strlen(key), digest);
    hex(digest, sizeof digest, hash);
    snprintf(k, sizeof k, "key/%s/%s", p, n);
    int rc = sv->host->kv_put(sv->self, k, hash, 64);
    if (rc == CUBE_OK) {
        cJSON *obj = cu_json_take(sv->host, sv->host->obj_get(sv->self, SV_KIND, p, n, &rc));
        char ck[160];
        sv_key(p, n, ck, sizeof ck);
        if (sv->proxied && cu_bool(cJSON_GetObjectItemCaseSensitive(obj, "spec"), "public", 0))
            sv->host->proxy_credential_set(sv->self, SV_PREFIX, ck, hash);
        cJSON_Delete(obj);
        sv->host->obj_event(sv->self, SV_KIND, p, n, "Normal", "ApiKeyIssued",
                            "a new API key replaces the previous one");
        snprintf(body, sizeof body, "{\"apiKey\":\"%s\",\"header\":\"X-Api-Key\"}", key);
        sv->host->resp_json(req, 201, body);
    } else {
        sv->host->resp_error(req, 503, "Unavailable", "the key could not be stored; retry");
    }
    OPENSSL_cleanse(key, sizeof key);
    OPENSSL_cleanse(body, sizeof body);
    OPENSSL_cleanse(raw, sizeof raw);
    return CUBE_OK;
}

/* 1 when job is one of service obj's replica Jobs. */
static int replica_of(struct sv *sv, const char *p, const cJSON *obj, const char *job)
{
    int rc, mine = 0;
    cJSON *j = cu_json_take(sv->host, sv->host->obj_get(sv->self, "Job", p, job, &rc));
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(j, "metadata"), *ref;
    const char *uid = cu_meta(obj, "uid");
    cJSON_ArrayForEach(ref, cJSON_GetObjectItemCaseSensitive(meta, "ownerReferences"))
        mine |= cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ref, "controller")) && uid &&
                !strcmp(cu_str_or(ref, "kind", ""), SV_KIND) &&
                !strcmp(cu_str_or(ref, "uid", ""), uid);
    cJSON_Delete(j);
    return mine;
}

static int register_action(void *state, cube_req *req)
{
    struct sv *sv = state;
    const char *p = sv->host->req_param(req, "project"), *n = sv->host->req_param(req, "name");
    cJSON *doc = body_json(sv, req), *obj = doc ? load(sv, req, p, n) : NULL;
    char k[CUBE_KV_KEY_MAX], have[80];
    if (!obj)
        goto out;
    const char *job = cu_str(doc, "job"), *tok = cu_str(doc, "token");
    size_t tl = tok ? strlen(tok) : 0;
    int ok = tl >= 32 && tl <= 64;
    for (size_t i = 0; ok && i < tl; i++)
        ok = (tok[i] >= '0' && tok[i] <= '9') || (tok[i] >= 'a' && tok[i] <= 'f');
    if (!job || !ok) {
        sv->host->resp_error(req, 422, "Invalid", "job: the replica's Job; token: 32 to 64 "
                             "lowercase hex digits");
    } else if (!replica_of(sv, p, obj, job)) {
        sv->host->resp_error(req, 403, "Forbidden", "job: not a replica of this service");
    } else if (sv_token_get(sv, p, job, have, sizeof have) == 0) {
        sv->host->resp_error(req, 409, "Conflict", "this replica's secret is set already");
    } else {
        snprintf(k, sizeof k, "tok/%s/%s", p, job);
        if (sv->host->kv_put(sv->self, k, tok, tl) == CUBE_OK)
            sv->host->resp_json(req, 200, "{}");
        else
            sv->host->resp_error(req, 503, "Unavailable", "cannot store it now; retry");
    }
out:
    cJSON_Delete(doc);
    cJSON_Delete(obj);
    return CUBE_OK;
}

static int test_action(void *state, cube_req *req)
{
    struct sv *sv = state;
    const char *p = sv->host->req_param(req, "project"), *n = sv->host->req_param(req, "name");
    const char *path = sv->host->req_query(req, "path");
    char key[160], dflt[200], hdr[128], pname[24] = "";
    struct sv_rep rep;
    int found = 0, stat = -1;
    size_t len;
    const char *body = sv->host->req_body(req, &len);
    snprintf(dflt, sizeof dflt, "/v2/models/%s/infer", n);
    if (!path)
        path = dflt;
    if (path[0] != '/' || strpbrk(path, " \r\n") || strlen(path) > 512)
        return sv->host->resp_error(req, 422, "Invalid", "path: an absolute path of the server");
    if (len) {
        cJSON *probe = cJSON_ParseWithLength(body, len);
        cJSON_Delete(probe);
        if (!probe)
            return sv->host->resp_error(req, 400, "BadRequest", "body: not JSON (the request "
                                        "the replica is sent, e.g. a v2 infer body)");
    }
    sv_key(p, n, key, sizeof key);
    pthread_mutex_lock(&sv->table.mu);
    struct sv_svc *s = sv_table_find(&sv->table, key, 0);
    int pi = s ? sv_pick_pred(s) : -1;
    int ri = pi >= 0 ? sv_pick_rep(&sv->table, &s->preds[pi]) : -1;
    if (ri >= 0) {
        rep = s->preds[pi].reps[ri];
        snprintf(pname, sizeof pname, "%s", s->preds[pi].name);
        stat = s->preds[pi].stat;
        found = 1;
    }
    pthread_mutex_unlock(&sv->table.mu);
    if (!found)      /* the service's state, not the server's: a 4xx */
        return sv->host->resp_error(req, 409, "NotReady", "no replica of this service is "
                                    "ready (see its status and events)");
    snprintf(hdr, sizeof hdr, "%s: %s", SV_TOKEN_HEADER, rep.token);
    int status = 0;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    char *answer = cu_http_request(len ? "POST" : "GET", rep.host, rep.port, path, hdr,
                                   len ? body : NULL, SV_REPLICA_MAX_BODY, 10000, &status);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    /* a try is a request its predictor answered: it shows in the charts */
    sv_count_request(sv, stat, answer ? status : 502, !answer,
                     (uint64_t)((t1.tv_sec - t0.tv_sec) * 1000000 +
                                (t1.tv_nsec - t0.tv_nsec) / 1000));
    if (!answer)
        return sv->host->resp_error(req, 502, "BadGateway", "the replica did not answer");
    cJSON *doc = cJSON_Parse(answer);
    cJSON *out = cJSON_CreateObject();
    cJSON_AddNumberToObject(out, "status", status);
    cJSON_AddStringToObject(out, "predictor", pname);
    if (doc)
        cJSON_AddItemToObject(out, "body", doc);
    else
        cJSON_AddStringToObject(out, "text", answer);
    char *text = cJSON_PrintUnformatted(out);
    sv->host->resp_json(req, 200, text ? text : "{}");
    free(text);
    free(answer);
    cJSON_Delete(out);
    return CUBE_OK;
}

static int samples_action(void *state, cube_req *req)
{
    struct sv *sv = state;
    char key[160];
    sv_key(sv->host->req_param(req, "project"), sv->host->req_param(req, "name"), key,
           sizeof key);
    char *text = sv_samples_json(sv, key);
    int rc = sv->host->resp_json(req, 200, text ? text : "{}");
    free(text);
    return rc;
}

int sv_register_actions(struct sv *sv)
{
    const struct cube_action_desc d[] = {
        {.size = sizeof d[0], .kind = SV_KIND, .method = "POST", .action = "rollback",
         .permission = CUBE_PERM_PROJECT_OPERATE, .handler = rollback_action,
         .summary = "Roll the spec of an earlier revision out again"},
        {.size = sizeof d[0], .kind = SV_KIND, .method = "POST", .action = "apikey",
         .permission = CUBE_PERM_PROJECT_OPERATE, .handler = apikey_action,
         .summary = "Issue a new API key for a public service (shown once)"},
        {.size = sizeof d[0], .kind = SV_KIND, .method = "POST", .action = "register",
         .permission = CUBE_PERM_PROJECT_OPERATE, .handler = register_action,
         .summary = "A replica's runtime reports its secret"},
        {.size = sizeof d[0], .kind = SV_KIND, .method = "POST", .action = "test",
         .permission = CUBE_PERM_PROJECT_VIEW, .handler = test_action,
         .summary = "Send a request to a ready replica (the console's try-it panel)"},
        {.size = sizeof d[0], .kind = SV_KIND, .method = "GET", .action = "samples",
         .permission = CUBE_PERM_PROJECT_VIEW, .handler = samples_action,
         .summary = "Requests, errors, latency, in-flight and replicas over time"},
    };
    for (size_t i = 0; i < sizeof d / sizeof d[0]; i++)
        if (sv->host->register_action(sv->self, &d[i]) != CUBE_OK)
            return -1;
    return 0;
}
