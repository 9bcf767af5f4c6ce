/* cube_mock_watch.c — the fake host's ABI 1.5 watches and paged lists.
 * Changes are kept in a bounded history (cube_mock_set_watch_history) as
 * the host's hub keeps them; watches are delivered only when the test
 * calls cube_mock_run_watches (the test's thread stands for the host's
 * worker), in resourceVersion order, with the same ERROR rules as cubed.
 * Test-only code: global state is fine here. */
#include "cube_mock.h"
#include "cube_mock_priv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

struct change {
    long long rv;
    char *type, *kind, *project, *involved, *reason, *json;
    cJSON *labels;
};

struct cube_watch {
    char *kind, *project, *selector, *involved, *reason;
    long long cursor;
    unsigned max_pending;
    cube_watch_fn fn;
    void *arg;
    int gone, ended, cancelled, in_callback;
    struct cube_watch *next;
};

static struct {
    struct change *ring;     /* ring[i % cap] */
    size_t cap, count;       /* count: changes ever recorded */
    long long floor;         /* resuming below this is gone */
    struct cube_watch *watches;
} W;

static const char GONE_STATUS[] =
    "{\"apiVersion\":\"cube/v1\",\"kind\":\"Status\",\"code\":410,\"reason\":\"Gone\","
    "\"message\":\"too old resource version or too far behind: relist and watch again\"}";

static void change_clear(struct change *c)
{
    free(c->type), free(c->kind), free(c->project), free(c->involved), free(c->reason);
    free(c->json), cJSON_Delete(c->labels);
    memset(c, 0, sizeof *c);
}

void cube_mock_set_watch_history(size_t n)
{
    for (size_t i = 0; i < W.cap; i++)
        change_clear(&W.ring[i]);
    free(W.ring);
    W.cap = n ? n : 4096;
    W.ring = calloc(W.cap, sizeof *W.ring);
    W.count = 0;
}

void mock_watch_publish(long long rv, const char *type, const char *kind, const char *project,
                        const cJSON *doc, const char *involved_kind, const char *reason)
{
    if (!W.ring)
        cube_mock_set_watch_history(0);
    if (!W.ring)
        return;
    struct change *c = &W.ring[W.count % W.cap];
    if (c->type)
        W.floor = c->rv;
    change_clear(c);
    *c = (struct change){rv, mock_strdup(type), mock_strdup(kind), mock_strdup(project),
                         mock_strdup(involved_kind), mock_strdup(reason),
                         cJSON_PrintUnformatted(doc),
                         cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(
                             cJSON_GetObjectItemCaseSensitive(doc, "metadata"), "labels"), 1)};
    W.count++;
}

/* The first kept change with rv > cursor (index in recording order). */
static size_t first_after(long long cursor)
{
    size_t i = W.count > W.cap ? W.count - W.cap : 0;
    while (i < W.count && W.ring[i % W.cap].rv <= cursor)
        i++;
    return i;
}

static int matches(const struct cube_watch *w, const struct change *c)
{
    return !strcmp(w->kind, c->kind) && (!w->project || !strcmp(w->project, c->project)) &&
           (!w->involved || (c->involved && !strcmp(w->involved, c->involved))) &&
           (!w->reason || (c->reason && !strcmp(w->reason, c->reason))) &&
           mock_selector_match(w->selector, c->labels) == 1;
}

static void watch_free(struct cube_watch *w)
{
    free(w->kind), free(w->project), free(w->selector), free(w->involved), free(w->reason);
    free(w);
}

static long long parse_rv(const char *s)
{
    if (!s || !*s)
        return 0;
    char *end;
    long long v = strtoll(s, &end, 10);
    return *end || v < 0 || *s == '-' || *s == '+' || *s == ' ' ? -1 : v;
}

static cube_watch *watch(cube_plugin *self, const struct cube_watch_desc *desc, int *rc)
{
    (void)self;
    struct cube_watch_desc d = {0};
    if (!desc || desc->size < offsetof(struct cube_watch_desc, arg) + sizeof desc->arg)
        return mock_logf("watch: desc.size too small"), *rc = CUBE_EINVAL, NULL;
    memcpy(&d, desc, desc->size < sizeof d ? desc->size : sizeof d);
    int events = d.kind && !strcmp(d.kind, CUBE_WATCH_EVENTS);
    const struct cube_kind_desc *k = events ? NULL : mock_find_kind(d.kind);
    long long rv = parse_rv(d.resource_version);
    const char *why = !d.fn ? "fn is required"
                      : !events && !k ? "kind: not a registered kind"
                      : rv < 0 ? "resource_version: not a resourceVersion"
                      : events && d.label_selector && *d.label_selector
                          ? "label_selector: Events have no labels"
                      : !events && (d.involved_kind || d.reason)
                          ? "involved_kind, reason: for Events only"
                      : mock_selector_match(d.label_selector, NULL) < 0
                          ? "label_selector: not one the mock understands" : NULL;
    if (why)
        return mock_logf("watch: %s", why), *rc = CUBE_EINVAL, NULL;
    struct cube_watch *w = calloc(1, sizeof *w);
    if (!w)
        return *rc = CUBE_ENOMEM, NULL;
    w->kind = mock_strdup(events ? "Event" : k->kind);
    w->project = k && k->scope == CUBE_SCOPE_CLUSTER ? NULL : mock_strdup(d.project);
    w->selector = mock_strdup(d.label_selector);
    w->involved = mock_strdup(d.involved_kind);
    w->reason = mock_strdup(d.reason);
    w->max_pending = d.max_pending ? d.max_pending : 1024;
    w->fn = d.fn, w->arg = d.arg;
    long long now = W.count ? W.ring[(W.count - 1) % W.cap].rv : 0;
    w->cursor = rv > 0 ? rv : now;
    w->gone = rv > 0 && rv < W.floor;
    w->next = W.watches;
    W.watches = w;
    *rc = CUBE_OK;
    return w;
}

static void unlink_watch(struct cube_watch *w)
{
    for (struct cube_watch **p = &W.watches; *p; p = &(*p)->next)
        if (*p == w) {
            *p = w->next;
            return;
        }
}

static void watch_cancel(cube_plugin *self, cube_watch *w)
{
    (void)self;
    if (!w)
        return;
    w->cancelled = 1;
    if (!w->in_callback) { /* else freed when its callback returns */
        unlink_watch(w);
        watch_free(w);
    }
}

static void call(struct cube_watch *w, const char *type, const char *json)
{
    w->in_callback = 1;
    w->fn(mock_state(), w->arg, type, json);
    w->in_callback = 0;
}

/* Delivers what w has pending; returns the number of callbacks. */
static int deliver(struct cube_watch *w)
{
    int calls = 0;
    size_t i = first_after(w->cursor);
    if (!w->gone && (w->cursor < W.floor || W.count - i > w->max_pending))
        w->gone = 1;
    if (w->gone) {
        w->ended = 1;
        call(w, "ERROR", GONE_STATUS);
        return 1;
    }
    for (; i < W.count && !w->cancelled; i++) {
        const struct change *c = &W.ring[i % W.cap];
        w->cursor = c->rv;
        if (matches(w, c))
            call(w, c->type, c->json), calls++;
    }
    return calls;
}

int cube_mock_run_watches(void)
{
    int calls = 0, round;
    do { /* callbacks may write: deliver until nothing is left */
        round = 0;
        for (struct cube_watch *w = W.watches, *next; w; w = next) {
            if (!w->cancelled && !w->ended &&
                (w->gone || first_after(w->cursor) < W.count || w->cursor < W.floor))
                round += deliver(w);
            next = w->next;
            if (w->cancelled)
                unlink_watch(w), watch_free(w);
        }
        calls += round;
    } while (round);
    return calls;
}

int cube_mock_watch_count(void)
{
    int n = 0;
    for (const struct cube_watch *w = W.watches; w; w = w->next)
        n++;
    return n;
}

/* -- paged lists ------------------------------------------------------ */

/* The continue token: "<project>\n<name>" hex-encoded, as cubed's. */
static char *encode_token(const char *project, const char *name)
{
    size_t n = strlen(project) + strlen(name) + 1;
    char *out = malloc(2 * n + 1), *p = out;
    for (const char *s = project; out && *s; s++)
        p += sprintf(p, "%02x", (unsigned char)*s);
    if (out)
        p += sprintf(p, "0a");
    for (const char *s = name; out && *s; s++)
        p += sprintf(p, "%02x", (unsigned char)*s);
    return out;
}

static int decode_token(const char *tok, char *project, char *name, size_t len)
{
    size_t n = strlen(tok);
    char raw[600];
    if (n % 2 || n / 2 >= sizeof raw)
        return -1;
    for (size_t i = 0; i < n / 2; i++) {
        unsigned v;
        if (sscanf(tok + 2 * i, "%2x", &v) != 1 || v == 0)
            return -1;
        raw[i] = (char)v;
    }
    raw[n / 2] = '\0';
    char *nl = strchr(raw, '\n');
    if (!nl || strlen(nl + 1) >= len || (size_t)(nl - raw) >= len)
        return -1;
    *nl = '\0';
    memcpy(project, raw, strlen(raw) + 1); /* lengths checked above */
    memcpy(name, nl + 1, strlen(nl + 1) + 1);
    return 0;
}

static const char *meta_str(const cJSON *obj, const char *key)
{
    const char *v = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(obj, "metadata"), key));
    return v ? v : "";
}

/* Items of the whole list after (ap, an) in (project, name) order. */
static char *obj_list_page(cube_plugin *self, const char *kind, const char *project,
                           const char *selector, unsigned limit, const char *cont, int *rc)
{
    char ap[256] = "", an[256] = "";
    int have = cont && *cont;
    if (limit > 5000)
        return mock_logf("limit: at most 5000"), *rc = CUBE_EINVAL, NULL;
    if (have && decode_token(cont, ap, an, sizeof ap) < 0)
        return mock_logf("continue: not a token this server issued"), *rc = CUBE_EINVAL, NULL;
    char *all = mock_host()->obj_list(self, kind, project, selector, rc);
    cJSON *doc = all ? cJSON_Parse(all) : NULL;
    free(all);
    if (!doc)
        return *rc != CUBE_OK ? NULL : (*rc = CUBE_ENOMEM, NULL);
    cJSON *items = cJSON_GetObjectItemCaseSensitive(doc, "items"), *page = cJSON_CreateArray();
    size_t want = limit ? limit : 500, got = 0;
    int more = 0;
    char lp[256] = "", ln[256] = "";
    for (cJSON *it = items ? items->child : NULL, *next; it; it = next) {
        next = it->next;
        const char *p = meta_str(it, "project"), *n = meta_str(it, "name");
        int c = strcmp(p, ap);
        if (have && (c < 0 || (c == 0 && strcmp(n, an) <= 0)))
            continue;
        if (got == want) {
            more = 1;
            break;
        }
        snprintf(lp, sizeof lp, "%s", p), snprintf(ln, sizeof ln, "%s", n);
        cJSON_AddItemToArray(page, cJSON_DetachItemViaPointer(items, it));
        got++;
    }
    cJSON_ReplaceItemInObjectCaseSensitive(doc, "items", page);
    if (more) {
        char *tok = encode_token(lp, ln);
        cJSON_AddStringToObject(cJSON_GetObjectItemCaseSensitive(doc, "metadata"), "continue",
                                tok ? tok : "");
        free(tok);
    }
    char *text = cJSON_PrintUnformatted(doc);
    cJSON_Delete(doc);
    *rc = text ? CUBE_OK : CUBE_ENOMEM;
    return text;
}

void mock_watch_install(struct cube_host *h)
{
    h->watch = watch;
    h->watch_cancel = watch_cancel;
    h->obj_list_page = obj_list_page;
}

void mock_watch_reset(void)
{
    while (W.watches) {
        struct cube_watch *w = W.watches;
        W.watches = w->next;
        watch_free(w);
    }
    for (size_t i = 0; i < W.cap; i++)
        change_clear(&W.ring[i]);
    free(W.ring);
    memset(&W, 0, sizeof W);
}
