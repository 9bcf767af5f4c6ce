/* testkinds.c — a plugin for the resource API tests: kinds Widget (project
 * scope, with a controller that copies spec.size into status and owns a
 * Gadget-free child count) and Gadget (cluster scope), a kind with a
 * finalizer (Lock), and an action. Built only for tests. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cube/cube.h>

#include <pthread.h>

#define MAX_COUNTED 256

/* Reconcile calls per object since start, for the restart test. */
struct tk {
    const struct cube_host *host;
    cube_plugin *self;
    pthread_mutex_t mu;
    char names[MAX_COUNTED][128];
    int counts[MAX_COUNTED];
    int n;
};

static void count_call(struct tk *t, const char *project, const char *name)
{
    char key[128];
    snprintf(key, sizeof key, "%s/%s", project ? project : "", name);
    pthread_mutex_lock(&t->mu);
    int i = 0;
    while (i < t->n && strcmp(t->names[i], key) != 0)
        i++;
    if (i == t->n && t->n < MAX_COUNTED)
        snprintf(t->names[t->n++], sizeof t->names[0], "%s", key);
    if (i < t->n)
        t->counts[i]++;
    pthread_mutex_unlock(&t->mu);
}

/* GET /api/v1/testkinds/reconciles: {"project/name": calls, ...}. */
static int get_counts(void *state, cube_req *req)
{
    struct tk *t = state;
    char body[MAX_COUNTED * 160] = "{";
    size_t o = 1;
    pthread_mutex_lock(&t->mu);
    for (int i = 0; i < t->n; i++)
        o += (size_t)snprintf(body + o, sizeof body - o, "%s\"%s\":%d", i ? "," : "",
                              t->names[i], t->counts[i]);
    pthread_mutex_unlock(&t->mu);
    snprintf(body + o, sizeof body - o, "}");
    return t->host->resp_json(req, 200, body);
}

static const char WIDGET_SPEC[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"size\":{\"type\":\"integer\",\"minimum\":0,\"default\":1,\"description\":\"How big\"},"
    "\"color\":{\"type\":\"string\",\"enum\":[\"red\",\"green\",\"blue\"]},"
    "\"note\":{\"type\":\"string\",\"maxLength\":1000},"
    "\"tasks\":{\"type\":\"array\",\"maxItems\":50,\"items\":{\"type\":\"object\","
    "\"required\":[\"name\"],\"properties\":{\"name\":{\"type\":\"string\"},"
    "\"retries\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":10}}}}}}";

static const char WIDGET_STATUS[] =
    "{\"type\":\"object\",\"properties\":{\"phase\":{\"type\":\"string\"},"
    "\"observedSize\":{\"type\":\"integer\"},\"reconciles\":{\"type\":\"integer\"}}}";

static const char WIDGET_COLUMNS[] =
    "[{\"name\":\"Size\",\"jsonPath\":\".spec.size\",\"type\":\"integer\"},"
    "{\"name\":\"Phase\",\"jsonPath\":\".status.phase\",\"type\":\"string\"}]";

/* Note: a project kind with no controller (the resource benchmark's). */
static const char NOTE_SPEC[] =
    "{\"type\":\"object\",\"properties\":{\"size\":{\"type\":\"integer\"},"
    "\"color\":{\"type\":\"string\"},\"note\":{\"type\":\"string\",\"maxLength\":4096}}}";

static const char GADGET_SPEC[] =
    "{\"type\":\"object\",\"properties\":{\"model\":{\"type\":\"string\"}}}";

static const char LOCK_SPEC[] =
    "{\"type\":\"object\",\"properties\":{\"holdFinalizer\":{\"type\":\"boolean\"}}}";

/* Semantic check the schema cannot express: blue widgets are never size 13
 * (a fixed rule, so tests can trigger a plugin validation error). */
static int widget_validate(void *state, const char *obj, const char *old,
                           char *field, size_t flen, char *msg, size_t mlen)
{
    (void)state, (void)old;
    if (strstr(obj, "\"color\":\"blue\"") && strstr(obj, "\"size\":13")) {
        snprintf(field, flen, "spec.size");
        snprintf(msg, mlen, "blue widgets cannot be size 13");
        return CUBE_EINVAL;
    }
    return CUBE_OK;
}

/* The controller: status.phase Ready, observedSize = spec.size. */
static int widget_reconcile(void *state, const char *kind, const char *project,
                            const char *name, const char *obj)
{
    struct tk *t = state;
    (void)kind;
    count_call(t, project, name);
    if (!obj)
        return CUBE_OK; /* deleted: nothing to clean up */
    const char *p = strstr(obj, "\"size\":");
    long size = p ? strtol(p + 7, NULL, 10) : 0;
    char status[128];
    snprintf(status, sizeof status, "{\"phase\":\"Ready\",\"observedSize\":%ld}", size);
    int rc;
    char *out = t->host->obj_update_status(t->self, "Widget", project, name, status, NULL, &rc);
    t->host->free(out);
    return rc == CUBE_ENOTFOUND ? CUBE_OK : rc;
}

/* Gauge (ABI 1.5's error channel): check refuses a target that is not a
 * multiple of step, naming spec.target; the controller polls, returning
 * CUBE_EAGAIN with retry_after(spec.everyMs) until it has been called
 * spec.target / spec.step times, then writes status.phase Done. */
static const char GAUGE_SPEC[] =
    "{\"type\":\"object\",\"required\":[\"target\"],\"properties\":{"
    "\"target\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":100},"
    "\"step\":{\"type\":\"integer\",\"minimum\":1,\"default\":1},"
    "\"everyMs\":{\"type\":\"integer\",\"minimum\":0,\"default\":100},"
    "\"fail\":{\"type\":\"boolean\"}}}";

static long spec_int(const char *obj, const char *key, long def)
{
    char pat[32];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    const char *p = strstr(obj, pat);
    return p ? strtol(p + strlen(pat), NULL, 10) : def;
}

static int gauge_check(void *state, const char *obj, const char *old)
{
    struct tk *t = state;
    (void)old;
    long target = spec_int(obj, "target", 1), step = spec_int(obj, "step", 1);
    if (step > 0 && target % step != 0) {
        t->host->set_error_field(t->self, "spec.target", "must be a multiple of spec.step "
                                 "(%ld)", step);
        return CUBE_EINVAL;
    }
    return CUBE_OK;
}

static int gauge_calls(struct tk *t, const char *project, const char *name)
{
    char key[128];
    snprintf(key, sizeof key, "%s/%s", project ? project : "", name);
    count_call(t, project, name);
    pthread_mutex_lock(&t->mu);
    int n = 0;
    for (int i = 0; i < t->n; i++)
        if (strcmp(t->names[i], key) == 0)
            n = t->counts[i];
    pthread_mutex_unlock(&t->mu);
    return n;
}

static int gauge_reconcile(void *state, const char *kind, const char *project,
                           const char *name, const char *obj)
{
    struct tk *t = state;
    (void)kind;
    if (!obj || strstr(obj, "\"phase\":\"Done\""))
        return CUBE_OK;
    if (strstr(obj, "\"fail\":true")) {
        t->host->set_error(t->self, "gauge %s asked to fail", name);
        return CUBE_EIO;
    }
    int calls = gauge_calls(t, project, name);
    long want = spec_int(obj, "target", 1) / spec_int(obj, "step", 1);
    if (calls < want) {
        t->host->retry_after(t->self, (unsigned)spec_int(obj, "everyMs", 100));
        return CUBE_EAGAIN;
    }
    char status[96];
    snprintf(status, sizeof status, "{\"phase\":\"Done\",\"calls\":%d}", calls);
    int rc;
    t->host->free(t->host->obj_update_status(t->self, "Gauge", project, name, status, NULL, &rc));
    return rc == CUBE_ENOTFOUND ? CUBE_OK : rc;
}

static int lock_finalize(void *state, const char *obj)
{
    (void)state;
    return strstr(obj, "\"holdFinalizer\":true") ? CUBE_EUNAVAIL : CUBE_OK;
}

/* POST .../widgets/{name}/poke: records an event and answers. */
static int widget_poke(void *state, cube_req *req)
{
    struct tk *t = state;
    const char *name = t->host->req_param(req, "name");
    t->host->obj_event(t->self, "Widget", t->host->req_param(req, "project"), name,
                       "Normal", "Poked", "someone poked it");
    return t->host->resp_json(req, 200, "{\"poked\":true}");
}

/* POST .../widgets/{name}/say?text=T appends "T\n" to its "main" log;
 * ?close=1 finishes the stream. */
static int widget_say(void *state, cube_req *req)
{
    struct tk *t = state;
    const char *project = t->host->req_param(req, "project");
    const char *name = t->host->req_param(req, "name");
    const char *text = t->host->req_query(req, "text");
    const char *close = t->host->req_query(req, "close");
    char line[512];
    int rc = CUBE_OK;
    if (text) {
        snprintf(line, sizeof line, "%s\n", text);
        rc = t->host->log_append(t->self, "Widget", project, name, "main", line, strlen(line));
    }
    if (rc == CUBE_OK && close)
        rc = t->host->log_close(t->self, "Widget", project, name, "main");
    if (rc != CUBE_OK)
        return t->host->resp_error(req, 400, "BadRequest", "log append failed");
    return t->host->resp_json(req, 200, "{\"said\":true}");
}

static int register_all(struct tk *t)
{
    const struct cube_kind_desc kinds[] = {
        {.size = sizeof kinds[0], .kind = "Widget", .plural = "widgets",
         .scope = CUBE_SCOPE_PROJECT, .group = "Testing", .description = "A test widget",
         .spec_schema = WIDGET_SPEC, .status_schema = WIDGET_STATUS,
         .printer_columns = WIDGET_COLUMNS, .validate = widget_validate,
         .reconcile = widget_reconcile},
        {.size = sizeof kinds[0], .kind = "Gadget", .plural = "gadgets",
         .scope = CUBE_SCOPE_CLUSTER, .group = "Testing", .description = "A cluster gadget",
         .spec_schema = GADGET_SPEC},
        {.size = sizeof kinds[0], .kind = "Note", .plural = "notes",
         .scope = CUBE_SCOPE_PROJECT, .group = "Testing", .description = "No controller",
         .spec_schema = NOTE_SPEC},
        {.size = sizeof kinds[0], .kind = "Gauge", .plural = "gauges",
         .scope = CUBE_SCOPE_PROJECT, .group = "Testing", .description = "Polls (ABI 1.5)",
         .spec_schema = GAUGE_SPEC, .check = gauge_check, .reconcile = gauge_reconcile},
        {.size = sizeof kinds[0], .kind = "Lock", .plural = "locks",
         .scope = CUBE_SCOPE_PROJECT, .group = "Testing", .description = "Has a finalizer",
         .spec_schema = LOCK_SPEC, .finalize = lock_finalize},
    };
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (t->host->register_kind(t->self, &kinds[i]) != CUBE_OK)
            return -1;
    const struct cube_action_desc poke = {
        .size = sizeof poke, .kind = "Widget", .method = "POST", .action = "poke",
        .permission = CUBE_PERM_ADMIN, .handler = widget_poke, .summary = "Poke it"};
    const struct cube_route_desc counts = {
        .size = sizeof counts, .method = "GET", .path = "/api/v1/testkinds/reconciles",
        .permission = CUBE_PERM_PUBLIC, .handler = get_counts, .summary = "Reconcile calls"};
    if (t->host->register_route(t->self, &counts) != CUBE_OK)
        return -1;
    const struct cube_action_desc say = {
        .size = sizeof say, .kind = "Widget", .method = "POST", .action = "say",
        .permission = CUBE_PERM_ADMIN, .handler = widget_say, .summary = "Append to its log"};
    if (t->host->register_action(t->self, &say) != CUBE_OK)
        return -1;
    return t->host->register_action(t->self, &poke) == CUBE_OK ? 0 : -1;
}

static int tk_init(const struct cube_host *host, cube_plugin *self, void **state)
{
    if (!CUBE_HOST_HAS(host, register_kind)) {
        host->set_error(self, "needs a host with ABI 1.1");
        return CUBE_EVERSION;
    }
    struct tk *t = calloc(1, sizeof *t);
    if (!t)
        return CUBE_ENOMEM;
    *state = t;
    t->host = host;
    t->self = self;
    pthread_mutex_init(&t->mu, NULL);
    if (register_all(t) < 0) {
        host->set_error(self, "cannot register the test kinds (see above)");
        free(t);
        *state = NULL;
        return CUBE_EINVAL;
    }
    return CUBE_OK;
}

static void tk_fini(void *state)
{
    free(state);
}

CUBE_PLUGIN_DEFINE(testkinds,
    .name = "testkinds", .version = "1.0.0", .vendor = "Cube", .license = "Apache-2.0",
    .description = "Kinds for the resource API tests",
    .init = tk_init, .fini = tk_fini)
