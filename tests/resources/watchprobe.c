/* watchprobe.c — a test plugin driving the ABI 1.5 watch and paged-list
 * slots in a real cubed (tests/resources/test_watch.py, tests/bench/watch.sh).
 * Kind: Tick (project scope, any spec). Routes (admin):
 *   POST   /api/v1/watchprobe/watches?kind=&project=&selector=&rv=&max=
 *          &involved=&reason=&slow_ms=&cancel_in_cb=1  -> {"id":N}
 *   GET    /api/v1/watchprobe/watches/{id}  -> {"seen":[{"type","name","rv","t"}]}
 *          (t: CLOCK_REALTIME of the callback, ns; name: metadata.name, or
 *          the reason of an Event, or the Status reason of an ERROR)
 *   DELETE /api/v1/watchprobe/watches/{id}  -> watch_cancel
 *   GET    /api/v1/watchprobe/pages?kind=&limit=&pause_ms= -> every page read
 *          with obj_list_page: {"pages":n,"items":["project/name",...]}
 *   POST   /api/v1/watchprobe/events?kind=&project=&name=&reason= -> obj_event */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <cube/cube.h>

#define MAX_WATCHES 256

struct probe_watch {
    pthread_mutex_t mu;
    cube_watch *w;
    cJSON *seen;             /* array of records */
    unsigned slow_ms;
    int cancel_in_cb, in_cb, used;
};

struct probe {
    const struct cube_host *host;
    cube_plugin *self;
    pthread_mutex_t mu;      /* guards slots' allocation */
    struct probe_watch watches[MAX_WATCHES];
};

static struct probe P;

static const char *meta(const cJSON *o, const char *key)
{
    return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(o, "metadata"), key));
}

static void on_change(void *state, void *arg, const char *type, const char *json)
{
    (void)state;
    struct probe_watch *pw = arg;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    cJSON *o = cJSON_Parse(json), *rec = cJSON_CreateObject();
    const char *name = meta(o, "name");
    if (!name)
        name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, "reason"));
    cJSON_AddStringToObject(rec, "type", type);
    cJSON_AddStringToObject(rec, "name", name ? name : "");
    cJSON_AddStringToObject(rec, "rv", meta(o, "resourceVersion") ? meta(o, "resourceVersion") : "");
    cJSON_AddNumberToObject(rec, "t", (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec);
    cJSON_Delete(o);
    pthread_mutex_lock(&pw->mu);
    if (pw->in_cb)
        cJSON_AddStringToObject(rec, "overlap", "yes"); /* must never happen */
    pw->in_cb = 1;
    cJSON_AddItemToArray(pw->seen, rec);
    int cancel = pw->cancel_in_cb;
    pw->cancel_in_cb = 0;
    pthread_mutex_unlock(&pw->mu);
    if (pw->slow_ms)
        usleep(pw->slow_ms * 1000u);
    if (cancel)
        P.host->watch_cancel(P.self, pw->w); /* returns at once, from inside */
    pthread_mutex_lock(&pw->mu);
    if (cancel)
        pw->w = NULL; /* the handle is invalid now */
    pw->in_cb = 0;
    pthread_mutex_unlock(&pw->mu);
}

static const char *q(cube_req *req, const char *name)
{
    const char *v = P.host->req_query(req, name);
    return v && *v ? v : NULL;
}

static int add_watch(void *state, cube_req *req)
{
    (void)state;
    int id = -1, rc;
    pthread_mutex_lock(&P.mu);
    for (int i = 0; i < MAX_WATCHES && id < 0; i++)
        if (!P.watches[i].used)
            id = i, P.watches[i].used = 1;
    pthread_mutex_unlock(&P.mu);
    if (id < 0)
        return P.host->resp_error(req, 409, "Conflict", "no free watch slot");
    struct probe_watch *pw = &P.watches[id];
    pw->seen = cJSON_CreateArray();
    pw->slow_ms = q(req, "slow_ms") ? (unsigned)atoi(q(req, "slow_ms")) : 0;
    pw->cancel_in_cb = q(req, "cancel_in_cb") != NULL;
    const struct cube_watch_desc d = {
        .size = sizeof d, .kind = q(req, "kind"), .project = q(req, "project"),
        .label_selector = q(req, "selector"), .resource_version = q(req, "rv"),
        .involved_kind = q(req, "involved"), .reason = q(req, "reason"),
        .max_pending = q(req, "max") ? (unsigned)atoi(q(req, "max")) : 0,
        .fn = on_change, .arg = pw,
    };
    pthread_mutex_lock(&pw->mu); /* the first callback may come at once */
    pw->w = P.host->watch(P.self, &d, &rc);
    pthread_mutex_unlock(&pw->mu);
    if (!pw->w) {
        cJSON_Delete(pw->seen);
        pw->seen = NULL;
        pthread_mutex_lock(&P.mu);
        pw->used = 0;
        pthread_mutex_unlock(&P.mu);
        return P.host->resp_error(req, 400, "BadRequest", "watch refused");
    }
    char body[32];
    snprintf(body, sizeof body, "{\"id\":%d}", id);
    return P.host->resp_json(req, 201, body);
}

static struct probe_watch *by_id(cube_req *req)
{
    const char *s = P.host->req_param(req, "id");
    int id = s ? atoi(s) : -1;
    return id >= 0 && id < MAX_WATCHES && P.watches[id].used ? &P.watches[id] : NULL;
}

static int get_watch(void *state, cube_req *req)
{
    (void)state;
    struct probe_watch *pw = by_id(req);
    if (!pw)
        return P.host->resp_error(req, 404, "NotFound", "no such watch");
    cJSON *doc = cJSON_CreateObject();
    pthread_mutex_lock(&pw->mu);
    cJSON_AddItemToObject(doc, "seen", cJSON_Duplicate(pw->seen, 1));
    pthread_mutex_unlock(&pw->mu);
    char *text = cJSON_PrintUnformatted(doc);
    cJSON_Delete(doc);
    int rc = P.host->resp_json(req, 200, text);
    free(text);
    return rc;
}

static int del_watch(void *state, cube_req *req)
{
    (void)state;
    struct probe_watch *pw = by_id(req);
    if (!pw)
        return P.host->resp_error(req, 404, "NotFound", "no such watch");
    P.host->watch_cancel(P.self, pw->w); /* no callback after this */
    pthread_mutex_lock(&pw->mu);
    int n = cJSON_GetArraySize(pw->seen);
    cJSON_Delete(pw->seen);
    pw->seen = NULL;
    pw->w = NULL;
    pthread_mutex_unlock(&pw->mu);
    pthread_mutex_lock(&P.mu);
    pw->used = 0;
    pthread_mutex_unlock(&P.mu);
    char body[40];
    snprintf(body, sizeof body, "{\"seen\":%d}", n);
    return P.host->resp_json(req, 200, body);
}

static int read_pages(void *state, cube_req *req)
{
    (void)state;
    unsigned limit = q(req, "limit") ? (unsigned)atoi(q(req, "limit")) : 0;
    unsigned pause_ms = q(req, "pause_ms") ? (unsigned)atoi(q(req, "pause_ms")) : 0;
    cJSON *out = cJSON_CreateObject(), *names = cJSON_AddArrayToObject(out, "items");
    char *token = NULL;
    int pages = 0, rc = CUBE_OK;
    do {
        char *text = P.host->obj_list_page(P.self, q(req, "kind"), q(req, "project"),
                                           q(req, "selector"), limit, token, &rc);
        free(token);
        token = NULL;
        if (!text)
            break;
        cJSON *doc = cJSON_Parse(text), *it;
        P.host->free(text);
        pages++;
        cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(doc, "items")) {
            char key[300];
            snprintf(key, sizeof key, "%s/%s", meta(it, "project") ? meta(it, "project") : "",
                     meta(it, "name") ? meta(it, "name") : "");
            cJSON_AddItemToArray(names, cJSON_CreateString(key));
        }
        const char *next = meta(doc, "continue");
        token = next ? strdup(next) : NULL;
        cJSON_Delete(doc);
        if (token && pause_ms)
            usleep(pause_ms * 1000u);
    } while (token);
    cJSON_AddNumberToObject(out, "pages", pages);
    cJSON_AddNumberToObject(out, "rc", rc);
    char *text = cJSON_PrintUnformatted(out);
    cJSON_Delete(out);
    int r = P.host->resp_json(req, rc == CUBE_OK ? 200 : 400, text);
    free(text);
    return r;
}

static int add_event(void *state, cube_req *req)
{
    (void)state;
    int rc = P.host->obj_event(P.self, q(req, "kind") ? q(req, "kind") : "Tick",
                               q(req, "project"), q(req, "name"), "Normal", q(req, "reason"),
                               "from watchprobe");
    return rc == CUBE_OK ? P.host->resp_json(req, 201, "{}")
                         : P.host->resp_error(req, 400, "BadRequest", "obj_event refused");
}

static int probe_init(const struct cube_host *host, cube_plugin *self, void **state)
{
    if (!CUBE_HOST_HAS(host, obj_list_page)) {
        host->set_error(self, "needs a host with ABI 1.5 watches");
        return CUBE_EVERSION;
    }
    P.host = host;
    P.self = self;
    pthread_mutex_init(&P.mu, NULL);
    for (int i = 0; i < MAX_WATCHES; i++)
        pthread_mutex_init(&P.watches[i].mu, NULL);
    *state = &P;
    const struct cube_kind_desc tick = {
        .size = sizeof tick, .kind = "Tick", .plural = "ticks", .scope = CUBE_SCOPE_PROJECT,
        .spec_schema = "{\"type\":\"object\"}"};
    const struct cube_route_desc routes[] = {
        {.size = sizeof routes[0], .method = "POST", .path = "/api/v1/watchprobe/watches",
         .permission = CUBE_PERM_ADMIN, .handler = add_watch},
        {.size = sizeof routes[0], .method = "GET", .path = "/api/v1/watchprobe/watches/{id}",
         .permission = CUBE_PERM_ADMIN, .handler = get_watch},
        {.size = sizeof routes[0], .method = "DELETE", .path = "/api/v1/watchprobe/watches/{id}",
         .permission = CUBE_PERM_ADMIN, .handler = del_watch},
        {.size = sizeof routes[0], .method = "GET", .path = "/api/v1/watchprobe/pages",
         .permission = CUBE_PERM_ADMIN, .handler = read_pages},
        {.size = sizeof routes[0], .method = "POST", .path = "/api/v1/watchprobe/events",
         .permission = CUBE_PERM_ADMIN, .handler = add_event},
    };
    int rc = host->register_kind(self, &tick);
    for (size_t i = 0; rc == CUBE_OK && i < sizeof routes / sizeof routes[0]; i++)
        rc = host->register_route(self, &routes[i]);
    return rc;
}

CUBE_PLUGIN_DEFINE(watchprobe, .name = "watchprobe", .version = "1.0.0", .vendor = "Cube",
                   .license = "Apache-2.0", .description = "Drives the 1.5 watch slots",
                   .init = probe_init);
