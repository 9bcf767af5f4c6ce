/* watch.c — see watch.h. The objects seen so far are kept so that a
 * re-list after 410 Gone prints only what changed in between (ADDED,
 * MODIFIED, DELETED) instead of the whole list again. */
#include "watch.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "api.h"
#include "sse.h"
#include "url.h"

#define IDLE_S 120L   /* a stream silent this long (no ping) is resumed */

struct seen {
    char *name;
    cJSON *obj;
};

struct watch {
    struct cli *cli;
    const struct watch_opts *o;
    struct printer *p;
    struct seen *seen;
    size_t n, cap;
    char *rv;       /* where the next stream resumes */
    int gone;       /* the server asked for a re-list */
    int quick;      /* streams in a row that ended within a second */
    int failed;     /* stop with EXIT_FAIL */
};

static struct seen *find_seen(struct watch *w, const char *name)
{
    for (size_t i = 0; i < w->n; i++)
        if (!strcmp(w->seen[i].name, name))
            return &w->seen[i];
    return NULL;
}

static void forget(struct watch *w, struct seen *s)
{
    free(s->name);
    cJSON_Delete(s->obj);
    *s = w->seen[--w->n];
}

/* Records obj under name (replacing an older copy). Returns 0 or -1. */
static int remember(struct watch *w, const char *name, const cJSON *obj)
{
    cJSON *copy = cJSON_Duplicate(obj, 1);
    struct seen *s = find_seen(w, name);
    if (!copy)
        return -1;
    if (s) {
        cJSON_Delete(s->obj);
        s->obj = copy;
        return 0;
    }
    if (w->n == w->cap) {
        size_t cap = w->cap ? w->cap * 2 : 32;
        struct seen *p = realloc(w->seen, cap * sizeof *p);
        if (!p) {
            cJSON_Delete(copy);
            return -1;
        }
        w->seen = p;
        w->cap = cap;
    }
    w->seen[w->n].name = strdup(name);
    w->seen[w->n].obj = copy;
    if (!w->seen[w->n].name) {
        cJSON_Delete(copy);
        return -1;
    }
    w->n++;
    return 0;
}

static int same_rv(const cJSON *a, const cJSON *b)
{
    const char *ra = api_meta(a, "resourceVersion");
    const char *rb = api_meta(b, "resourceVersion");
    return ra && rb && !strcmp(ra, rb);
}

/* Applies one change to what was seen and prints it unless filtered out. */
static int apply_change(struct watch *w, const char *type, const cJSON *obj)
{
    const char *name = api_meta(obj, "name");
    if (!name || (w->o->name && strcmp(name, w->o->name)))
        return 0;
    struct seen *s = find_seen(w, name);
    if (!strcmp(type, "DELETED")) {
        if (s)
            forget(w, s);
    } else if (remember(w, name, obj)) {
        return -1;
    }
    return print_event(w->p, type, obj);
}

static int in_list(const cJSON *items, const char *name)
{
    const cJSON *item;
    cJSON_ArrayForEach(item, items) {
        const char *n = api_meta(item, "name");
        if (n && !strcmp(n, name))
            return 1;
    }
    return 0;
}

/* The highest resourceVersion among items (malloc'd), for a list that
 * carries none of its own; NULL when there is none. Versions are decimal
 * strings: longer is newer, else compare the digits. */
static char *newest_rv(const cJSON *items)
{
    const char *best = NULL;
    const cJSON *item;
    cJSON_ArrayForEach(item, items) {
        const char *rv = api_meta(item, "resourceVersion");
        if (rv && (!best || strlen(rv) > strlen(best) ||
                   (strlen(rv) == strlen(best) && strcmp(rv, best) > 0)))
            best = rv;
    }
    return best ? strdup(best) : NULL;
}

/* Lists again and prints the difference from what was seen. */
static int relist(struct watch *w)
{
    const struct watch_opts *o = w->o;
    cJSON *items = cJSON_CreateArray();
    char *rv = NULL;
    if (!items || api_list(w->cli, o->kind, o->project, o->selector, o->limit,
                           items, &rv)) {
        cJSON_Delete(items);
        return EXIT_FAIL;
    }
    int rc = 0;
    const cJSON *item;
    cJSON_ArrayForEach(item, items) {
        const char *name = api_meta(item, "name");
        struct seen *s = name ? find_seen(w, name) : NULL;
        if (name && (!s || !same_rv(s->obj, item)))
            rc |= apply_change(w, s ? "MODIFIED" : "ADDED", item);
    }
    for (size_t i = 0; i < w->n;) {
        if (in_list(items, w->seen[i].name)) {
            i++;
            continue;
        }
        rc |= print_event(w->p, "DELETED", w->seen[i].obj);
        forget(w, &w->seen[i]);
    }
    if (!rv)
        rv = newest_rv(items);
    cJSON_Delete(items);
    if (rv) {
        free(w->rv);
        w->rv = rv;
    }
    return rc ? cli_fail("cannot print the objects") : 0;
}

/* An ERROR event: 410 Gone (too old a resourceVersion) means re-list. */
static int stream_error(struct watch *w, const cJSON *obj)
{
    const cJSON *err = cJSON_GetObjectItemCaseSensitive(obj, "error");
    const cJSON *body = err ? err : obj;
    const cJSON *code = cJSON_GetObjectItemCaseSensitive(body, "code");
    const cJSON *msg = cJSON_GetObjectItemCaseSensitive(body, "message");
    if ((cJSON_IsNumber(code) && code->valueint == 410) ||
        (cJSON_IsString(code) && (!strcmp(code->valuestring, "Gone") ||
                                  !strcmp(code->valuestring, "Expired")))) {
        w->gone = 1;
    } else {
        cli_fail("watch: %s", cJSON_IsString(msg) ? msg->valuestring
                                                  : "the server sent an error");
        w->failed = 1;
    }
    return 1;   /* either way this stream is over */
}

static int on_event(void *ud, const char *event, const char *data)
{
    struct watch *w = ud;
    cJSON *ev = cJSON_Parse(data);
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(ev, "type");
    const cJSON *obj = cJSON_GetObjectItemCaseSensitive(ev, "object");
    const char *type = cJSON_IsString(t) ? t->valuestring : event;
    int rc = 0;
    if (!strcmp(type, "ERROR")) {
        rc = stream_error(w, obj ? obj : ev);
    } else if (cJSON_IsObject(obj)) {
        const char *rv = api_meta(obj, "resourceVersion");
        if (rv) {
            free(w->rv);
            w->rv = strdup(rv);
        }
        if (!strcmp(type, "ADDED") || !strcmp(type, "MODIFIED") ||
            !strcmp(type, "DELETED"))
            rc = apply_change(w, type, obj);
        w->failed = rc != 0;
    }
    cJSON_Delete(ev);
    return rc;
}

static int on_chunk(void *ud, const char *data, size_t n)
{
    return sse_feed(ud, data, n);
}

/* Follows one event stream until it ends. Returns 0 to go on. */
static int stream_once(struct watch *w)
{
    const struct watch_opts *o = w->o;
    struct url_list_opts q = {o->selector, 0, NULL, w->rv ? w->rv : ""};
    struct buf path = {0};
    struct sse sse;
    struct http_resp resp;
    if (url_collection(&path, o->kind->plural, o->kind->cluster, o->project) ||
        url_list_query(&path, &q)) {
        buf_free(&path);
        return cli_fail("out of memory");
    }
    sse_init(&sse, on_event, w);
    time_t t0 = time(NULL);
    int rc = http_stream(&w->cli->http, buf_str(&path), "text/event-stream",
                         IDLE_S, on_chunk, &sse, &resp);
    sse_free(&sse);
    buf_free(&path);
    if (!rc && resp.status == 410)
        w->gone = 1;
    else if (!rc && (resp.status < 200 || resp.status > 299))
        rc = api_fail_resp(&resp);
    http_resp_free(&resp);
    if (rc || w->failed)
        return EXIT_FAIL;
    /* a server that keeps ending streams (or answering 410) at once is
     * not hammered; one quick end (a first 410) is handled at once */
    w->quick = time(NULL) - t0 < 1 ? w->quick + 1 : 0;
    if (w->quick > 1)
        sleep(1);
    return 0;
}

int watch_run(struct cli *cli, const struct watch_opts *o, struct printer *p)
{
    struct watch w = {.cli = cli, .o = o, .p = p};
    int rc = relist(&w);
    while (!rc) {
        rc = stream_once(&w);
        if (!rc && w.gone) {
            w.gone = 0;
            rc = relist(&w);
        }
    }
    while (w.n)
        forget(&w, &w.seen[0]);
    free(w.seen);
    free(w.rv);
    return EXIT_FAIL;
}
