/* controller.c — see controller.h. One queue per kind that has a
 * reconcile or finalize callback. An item is a (project, name) key with
 * its state: queued, being processed, dirty (changed while processed),
 * failures (for back-off) and a pending retry timer. */
#include "controller.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/callerr.h"
#include "ctx/ctx.h"
#include "kinds.h"
#include "base/log.h"
#include "objects.h"
#include "objects_priv.h"
#include "store/store.h"
#include "base/tasks.h"

#define BUCKETS 4096
#define MAX_WORKERS 2          /* reconciles of one kind running at once */
#define BACKOFF_BASE_MS 50
#define BACKOFF_MAX_MS 60000

struct item {
    char *project, *name;
    int queued, processing, dirty;
    int timer_pending;          /* retry timers still to fire */
    uint64_t due_ms;            /* when the earliest of them fires; 0: not known */
    unsigned failures;
    struct item *hnext, *qnext;
};

struct cube_queue {
    struct cube_ctx *ctx;
    struct cube_kind *k;
    pthread_mutex_t mu;
    pthread_cond_t idle;
    struct item *buckets[BUCKETS];
    struct item *head, *tail;
    int active, stopping;
    struct cube_timer *resync;
};

static unsigned hash_key(const char *project, const char *name)
{
    unsigned h = 2166136261u;
    for (const char *p = project; *p; p++)
        h = (h ^ (unsigned char)*p) * 16777619u;
    h = (h ^ '/') * 16777619u;
    for (const char *p = name; *p; p++)
        h = (h ^ (unsigned char)*p) * 16777619u;
    return h % BUCKETS;
}

/* Finds or creates the item for a key. Caller holds mu. */
static struct item *item_get(struct cube_queue *q, const char *project, const char *name)
{
    unsigned h = hash_key(project, name);
    for (struct item *it = q->buckets[h]; it; it = it->hnext)
        if (strcmp(it->project, project) == 0 && strcmp(it->name, name) == 0)
            return it;
    struct item *it = calloc(1, sizeof *it);
    if (!it || !(it->project = strdup(project)) || !(it->name = strdup(name))) {
        if (it)
            free(it->project);
        free(it);
        return NULL;
    }
    it->hnext = q->buckets[h];
    q->buckets[h] = it;
    return it;
}

/* Drops an idle item so the table holds only live work. Caller holds mu. */
static void item_forget(struct cube_queue *q, struct item *it)
{
    if (it->queued || it->processing || it->timer_pending || it->failures)
        return;
    for (struct item **p = &q->buckets[hash_key(it->project, it->name)]; *p; p = &(*p)->hnext)
        if (*p == it) {
            *p = it->hnext;
            break;
        }
    free(it->project), free(it->name), free(it);
}

static void worker(void *a, void *b);

/* Queues an item and starts a worker if fewer than MAX_WORKERS run.
 * Caller holds mu. */
static void push(struct cube_queue *q, struct item *it)
{
    if (it->processing) {
        it->dirty = 1;
        return;
    }
    if (it->queued || q->stopping)
        return;
    it->queued = 1;
    it->qnext = NULL;
    if (q->tail)
        q->tail->qnext = it;
    else
        q->head = it;
    q->tail = it;
    if (q->active < MAX_WORKERS && cube_tasks_submit(q->ctx->tasks, worker, q, NULL) == 0)
        q->active++;
}

static uint64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void retry_fired(void *a, void *b)
{
    struct cube_queue *q = a;
    struct item *it = b;
    pthread_mutex_lock(&q->mu);
    it->timer_pending--;
    it->due_ms = 0;   /* which one fired is not known: the next request adds one */
    push(q, it);
    item_forget(q, it);   /* an earlier timer may have done its work */
    pthread_mutex_unlock(&q->mu);
}

/* Schedules the item again after ms, unless a timer fires by then already:
 * a later one does not hold back a sooner request (a reconcile that asks
 * again in 10 ms while a retry in 250 ms is pending gets both). Caller
 * holds mu. */
static void requeue_after(struct cube_queue *q, struct item *it, uint64_t ms)
{
    uint64_t due = mono_ms() + ms;
    if ((it->timer_pending && it->due_ms && it->due_ms <= due) || q->stopping)
        return;
    if (cube_tasks_timer_add(q->ctx->tasks, ms, 0, retry_fired, q, it, q)) {
        it->timer_pending++;
        it->due_ms = due;
    }
}

/* One reconcile (or finalize) of an object. Returns as reconcile does
 * (CUBE_EAGAIN already turned into its delay); a failed reconcile's
 * explanation (set_error) goes into why. */
static int reconcile_one(struct cube_queue *q, const char *project, const char *name,
                         char *why, size_t why_len)
{
    struct cube_ctx *ctx = q->ctx;
    struct cube_kind *k = q->k;
    struct cube_op_error e;
    char *doc = NULL;
    int64_t doc_rv = 0;
    /* Through the object cache: no database read when the object is hot. */
    if (cube_obj_load_text(ctx, k, project, name, &doc, &doc_rv, &e) < 0 && e.status != 404)
        return e.status == 503 ? CUBE_EUNAVAIL : CUBE_EIO;
    void *state = k->plugin ? k->plugin->state : ctx;
    const char *proj = k->scope == CUBE_SCOPE_PROJECT ? project : NULL;
    int rc = CUBE_OK;
    if (doc && k->desc.finalize && strstr(doc, "\"deletionTimestamp\"")) {
        cJSON *obj = cJSON_Parse(doc);
        const cJSON *meta = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
        if (cJSON_GetObjectItemCaseSensitive(meta, "deletionTimestamp")) {
            rc = k->desc.finalize(state, doc);
            struct cube_actor who = {"system:finalizer", 1, NULL};
            if (rc == CUBE_OK && cube_obj_remove(ctx, k, proj, name, doc_rv, &who, &e) < 0 &&
                e.status != 404)
                rc = CUBE_EUNAVAIL;
            cJSON_Delete(obj);
            free(doc);
            return rc;
        }
        cJSON_Delete(obj);
    }
    if (k->desc.reconcile) {
        struct cube_callerr ce;
        cube_callerr_begin(&ce, k->plugin);
        rc = k->desc.reconcile(state, k->kind, proj, name, doc);
        cube_callerr_end(&ce);
        if (rc == CUBE_EAGAIN)  /* since 1.5: "again after retry_after's delay" */
            rc = ce.has_retry ? (ce.retry_ms ? (int)ce.retry_ms : 1) : 1000;
        else if (rc < 0)
            snprintf(why, why_len, "%s", ce.msg);
    }
    free(doc);
    return rc;
}

/* After a reconcile: retry with back-off, requeue later, or forget. */
static void settle(struct cube_queue *q, struct item *it, int rc, const char *why)
{
    it->processing = 0;
    if (rc < 0) {
        unsigned shift = it->failures < 20 ? it->failures : 20;
        uint64_t ms = (uint64_t)BACKOFF_BASE_MS << shift;
        it->failures++;
        if (it->failures == 1 || it->failures % 10 == 0)
            cube_log(CUBE_LOG_WARN, "controller", "%s %s/%s: reconcile failed (%d%s%s), "
                     "retry %u in %llu ms", q->k->kind, it->project, it->name, rc,
                     why[0] ? ": " : "", why, it->failures,
                     (unsigned long long)(ms < BACKOFF_MAX_MS ? ms : BACKOFF_MAX_MS));
        requeue_after(q, it, ms < BACKOFF_MAX_MS ? ms : BACKOFF_MAX_MS);
    } else {
        it->failures = 0;
        if (rc > 0)
            requeue_after(q, it, (uint64_t)rc);
    }
    if (it->dirty) {
        it->dirty = 0;
        push(q, it);
    }
    item_forget(q, it);
}

static void worker(void *a, void *b)
{
    (void)b;
    struct cube_queue *q = a;
    pthread_mutex_lock(&q->mu);
    while (q->head && !q->stopping) {
        struct item *it = q->head;
        q->head = it->qnext;
        if (!q->head)
            q->tail = NULL;
        it->queued = 0;
        it->processing = 1;
        pthread_mutex_unlock(&q->mu);
        char why[512] = "";
        int rc = reconcile_one(q, it->project, it->name, why, sizeof why);
        pthread_mutex_lock(&q->mu);
        settle(q, it, rc, why);
    }
    q->active--;
    pthread_cond_broadcast(&q->idle);
    pthread_mutex_unlock(&q->mu);
}

void cube_ctrl_enqueue(struct cube_ctx *ctx, const struct cube_kind *k,
                       const char *project, const char *name)
{
    (void)ctx;
    struct cube_queue *q = k->queue;
    if (!q)
        return;
    pthread_mutex_lock(&q->mu);
    struct item *it = item_get(q, project ? project : "", name);
    if (it)
        push(q, it);
    pthread_mutex_unlock(&q->mu);
}

void cube_ctrl_enqueue_owners(struct cube_ctx *ctx, const char *project,
                              const void *object)
{
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive((const cJSON *)object, "metadata");
    const cJSON *ref;
    cJSON_ArrayForEach(ref, cJSON_GetObjectItemCaseSensitive(meta, "ownerReferences")) {
        const char *kind = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ref, "kind"));
        const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ref, "name"));
        const struct cube_kind *k = kind ? cube_kinds_by_kind(&ctx->kinds, kind) : NULL;
        if (k && name)
            cube_ctrl_enqueue(ctx, k, k->scope == CUBE_SCOPE_PROJECT ? project : NULL, name);
    }
}

int cube_ctrl_init(struct cube_ctx *ctx)
{
    for (size_t i = 0; i < ctx->kinds.n; i++) {
        struct cube_kind *k = ctx->kinds.items[i];
        if (!k->desc.reconcile && !k->desc.finalize)
            continue;
        struct cube_queue *q = calloc(1, sizeof *q);
        if (!q)
            return -1;
        q->ctx = ctx;
        q->k = k;
        pthread_mutex_init(&q->mu, NULL);
        pthread_cond_init(&q->idle, NULL);
        k->queue = q;
    }
    return 0;
}

static int enqueue_row(void *cls, const struct cube_store_obj *o)
{
    struct cube_queue *q = cls;
    cube_ctrl_enqueue(q->ctx, q->k, o->project, o->name);
    return 0;
}

/* Queues every stored object of the kind (start-up and resync). */
static void enqueue_all(void *a, void *b)
{
    (void)b;
    struct cube_queue *q = a;
    int rc = cube_store_list(q->ctx->store, q->k->kind, NULL, NULL, NULL, 0, enqueue_row, q);
    if (rc != CUBE_OK)
        cube_log(CUBE_LOG_WARN, "controller", "%s: cannot list objects to resync (%d)",
                 q->k->kind, rc);
}

int cube_ctrl_start(struct cube_ctx *ctx)
{
    for (size_t i = 0; i < ctx->kinds.n; i++) {
        struct cube_queue *q = ctx->kinds.items[i]->queue;
        if (!q)
            continue;
        enqueue_all(q, NULL);
        unsigned every = ctx->kinds.items[i]->desc.resync_seconds;
        if (every)
            q->resync = cube_tasks_timer_add(ctx->tasks, (uint64_t)every * 1000,
                                             (uint64_t)every * 1000, enqueue_all, q, NULL, q);
    }
    return 0;
}

void cube_ctrl_shutdown(struct cube_ctx *ctx)
{
    for (size_t i = 0; i < ctx->kinds.n; i++) {
        struct cube_queue *q = ctx->kinds.items[i]->queue;
        if (!q)
            continue;
        pthread_mutex_lock(&q->mu);
        q->stopping = 1;
        while (q->active > 0)
            pthread_cond_wait(&q->idle, &q->mu);
        pthread_mutex_unlock(&q->mu);
        cube_tasks_cancel_owner(ctx->tasks, q);
    }
}

void cube_ctrl_free(struct cube_ctx *ctx)
{
    for (size_t i = 0; i < ctx->kinds.n; i++) {
        struct cube_queue *q = ctx->kinds.items[i]->queue;
        if (!q)
            continue;
        for (size_t b = 0; b < BUCKETS; b++)
            while (q->buckets[b]) {
                struct item *it = q->buckets[b];
                q->buckets[b] = it->hnext;
                free(it->project), free(it->name), free(it);
            }
        pthread_mutex_destroy(&q->mu);
        pthread_cond_destroy(&q->idle);
        free(q);
        ctx->kinds.items[i]->queue = NULL;
    }
}
