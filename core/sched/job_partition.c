/* job_partition.c — partitions made around a replica (ABI 1.5, G10):
 * cube_accel_desc.prepare before the replica starts, release after it
 * ended. See "Partitions" in cube_sched.h.
 *
 * Each prepared partition is a LEASE, kept in the store (namespace
 * "sched-partition", key a random id, owner the accelerator's name) from
 * the moment prepare answered until release succeeded, so none is
 * forgotten across a restart:
 *   {"accel": "sim", "resource": "sim.cube.dev/gpu", "request": {...},
 *    "prepared": {...}, "engine": "<engine id, once started>"}
 * The Job's status holds none of it (its owner may write the status; a
 * forged lease would make an accelerator destroy someone else's slice).
 * In memory, the leases of a running replica hang off its engine id; its
 * end (job_parts_ended, from job_exit.c) moves them to the release queue,
 * worked by one thread of its own: a release that fails is retried after
 * 1 s, doubling to every 5 minutes. At start, leases whose replica the
 * store's Jobs still show running wait for its end (its adoption); the
 * others are released. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"
#include "base/callerr.h"
#include "base/log.h"
#include "base/random.h"
#include "base/strmap.h"
#include "ctx/ctx.h"
#include "jobs.h"
#include "objects/objects.h"
#include "store/store.h"

#define NS "sched-partition"
#define PREPARED_MAX (16 * 1024)
#define PIN_IDS_MAX 64
#define RETRY_FIRST_MS 1000
#define RETRY_MAX_MS (300 * 1000)

struct part_item {
    cJSON *lease;
    uint64_t due_ms;
    unsigned tries;
    struct part_item *next;
};

struct job_parts {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pthread_t thread;
    int running, stopping;
    struct cube_strmap *by_engine;    /* engine id -> cJSON array of leases */
    struct part_item *queue;          /* releases, soonest first */
};

static const char *str(const cJSON *o, const char *key)
{
    return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, key));
}

static uint64_t now_ms(void)
{
    return cube_now_ns() / 1000000u;
}

/* The accelerator named name: its descriptor and state (copied). */
static int accel_named(struct cube_sched *s, const char *name, struct cube_accel_desc *d,
                       void **state, const void **who)
{
    int found = 0;
    pthread_mutex_lock(&s->mu);
    for (size_t i = 0; name && i < s->n_accels && !found; i++)
        if (!strcmp(s->accels[i]->desc.name, name)) {
            *d = s->accels[i]->desc;
            *state = s->accels[i]->plugin->state;
            *who = s->accels[i]->plugin;
            found = 1;
        }
    pthread_mutex_unlock(&s->mu);
    return found;
}

static int lease_store(struct cube_sched *s, const cJSON *lease)
{
    cJSON *doc = cJSON_Duplicate(lease, 1);
    cJSON_DeleteItemFromObjectCaseSensitive(doc, "key");
    char *text = cJSON_PrintUnformatted(doc);
    cJSON_Delete(doc);
    int rc = text ? cube_store_kv_put(s->ctx->store, NS, str(lease, "key"), str(lease, "accel"),
                                      text, 0) : CUBE_ENOMEM;
    free(text);
    return rc;
}

/* -- the release queue ------------------------------------------------------- */

/* Queues lease (taken) for release at due (ms). */
static void queue_at(struct job_parts *p, cJSON *lease, uint64_t due, unsigned tries)
{
    struct part_item *it = p ? calloc(1, sizeof *it) : NULL, **at;
    if (!it) {
        cJSON_Delete(lease);   /* still in the store: released at the next start */
        return;
    }
    *it = (struct part_item){lease, due, tries, NULL};
    pthread_mutex_lock(&p->mu);
    for (at = &p->queue; *at && (*at)->due_ms <= due; at = &(*at)->next)
        ;
    it->next = *at;
    *at = it;
    pthread_cond_signal(&p->cv);
    pthread_mutex_unlock(&p->mu);
}

/* Queues every lease of an array (taken) for release now. */
static void queue_all(struct job_parts *p, cJSON *leases)
{
    while (leases && cJSON_GetArraySize(leases) > 0)
        queue_at(p, cJSON_DetachItemFromArray(leases, 0), now_ms(), 0);
    cJSON_Delete(leases);
}

/* Calls release for one lease; 1 when it is gone (or must wait for its
 * plugin's next start), 0 to retry. */
static int release_one(struct cube_sched *s, const cJSON *lease, unsigned tries)
{
    struct cube_accel_desc d;
    void *state;
    const char *accel = str(lease, "accel");
    const void *who = NULL;
    if (!accel_named(s, accel, &d, &state, &who) || !d.release) {
        cube_log(CUBE_LOG_WARN, "jobs", "partition %s: accelerator %s is not loaded; released "
                 "at its next start", str(lease, "key"), accel ? accel : "?");
        return 1;
    }
    char *req = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(lease, "request"));
    char *prep = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(lease, "prepared"));
    char why[256] = "";
    int rc = CUBE_ENOMEM;
    if (req && prep) {
        struct cube_callerr ce;
        cube_callerr_begin(&ce, who);
        rc = d.release(state, req, prep);
        cube_callerr_end(&ce);
        snprintf(why, sizeof why, "%.*s", (int)sizeof why - 1, ce.msg);
    }
    free(req);
    free(prep);
    if (rc == CUBE_OK || rc == CUBE_ENOTFOUND) {
        int drc = cube_store_kv_delete(s->ctx->store, NS, str(lease, "key"));
        if (drc != CUBE_OK && drc != CUBE_ENOTFOUND)
            cube_log(CUBE_LOG_WARN, "jobs", "partition %s released; its record stays (%d): "
                     "released again at the next start", str(lease, "key"), drc);
        return 1;
    }
    cube_log(tries ? CUBE_LOG_DEBUG : CUBE_LOG_WARN, "jobs",
             "release (accelerator %s) of partition %s failed (%d): %s; trying again", accel,
             str(lease, "key"), rc, why[0] ? why : "no reason given");
    return 0;
}

static void *releaser(void *arg)
{
    struct cube_sched *s = arg;
    struct job_parts *p = s->parts;
    pthread_mutex_lock(&p->mu);
    while (!p->stopping) {
        uint64_t now = now_ms();
        if (!p->queue || p->queue->due_ms > now) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            uint64_t wait = p->queue ? p->queue->due_ms - now : 60000;
            ts.tv_sec += (time_t)(wait / 1000);
            ts.tv_nsec += (long)(wait % 1000) * 1000000L;
            if (ts.tv_nsec >= 1000000000L) {
                ts.tv_sec++;
                ts.tv_nsec -= 1000000000L;
            }
            pthread_cond_timedwait(&p->cv, &p->mu, &ts);
            continue;
        }
        struct part_item *it = p->queue;
        p->queue = it->next;
        pthread_mutex_unlock(&p->mu);
        int done = release_one(s, it->lease, it->tries);
        if (done) {
            cJSON_Delete(it->lease);
        } else {
            uint64_t delay = (uint64_t)RETRY_FIRST_MS << (it->tries < 9 ? it->tries : 9);
            queue_at(p, it->lease, now_ms() + (delay < RETRY_MAX_MS ? delay : RETRY_MAX_MS),
                     it->tries + 1);
        }
        free(it);
        pthread_mutex_lock(&p->mu);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

/* -- prepare ------------------------------------------------------------------ */

/* The request prepare gets for resource res of job's replica i. */
static cJSON *request_doc(const cJSON *job, int i, const cJSON *rep, const char *res,
                          double *share)
{
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(job, "metadata"), *d;
    const cJSON *status = cJSON_GetObjectItemCaseSensitive(job, "status");
    cJSON *r = cJSON_CreateObject(), *j = cJSON_AddObjectToObject(r, "job");
    cJSON_AddStringToObject(j, "project", str(meta, "project") ? str(meta, "project") : "");
    cJSON_AddStringToObject(j, "name", str(meta, "name") ? str(meta, "name") : "");
    cJSON_AddStringToObject(j, "uid", str(meta, "uid") ? str(meta, "uid") : "");
    cJSON_AddNumberToObject(r, "replica", i);
    const cJSON *att = cJSON_GetObjectItemCaseSensitive(status, "attempts");
    cJSON_AddNumberToObject(r, "attempt", cJSON_IsNumber(att) ? att->valuedouble : 1);
    cJSON_AddStringToObject(r, "node", str(rep, "node") ? str(rep, "node") : "");
    cJSON_AddStringToObject(r, "resource", res);
    cJSON *ids = cJSON_AddArrayToObject(r, "devices");
    *share = 0;
    cJSON_ArrayForEach(d, cJSON_GetObjectItemCaseSensitive(rep, "devices"))
        if (str(d, "resource") && !strcmp(str(d, "resource"), res)) {
            cJSON_AddItemToArray(ids, cJSON_CreateString(str(d, "id") ? str(d, "id") : ""));
            if (*share <= 0)
                *share = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(d, "share"));
        }
    if (!(*share > 0 && *share <= 1))
        *share = 1;
    cJSON_AddNumberToObject(r, "share", *share);
    return r;
}

/* NULL when prepare's answer keeps the rules, else why not. */
static const char *answer_bad(const cJSON *ans, size_t len)
{
    const cJSON *devs = cJSON_GetObjectItemCaseSensitive(ans, "devices"), *d;
    int n = cJSON_GetArraySize(devs);
    if (!cJSON_IsObject(ans) || len > PREPARED_MAX)
        return "the answer must be a JSON object of at most 16 KiB";
    if (!cJSON_IsArray(devs) || n < 1 || n > PIN_IDS_MAX)
        return "devices: must be an array of 1 to 64 device ids";
    cJSON_ArrayForEach(d, devs)
        if (!cJSON_IsString(d) || !*d->valuestring || strlen(d->valuestring) > 255)
            return "devices: each must be a non-empty string of at most 255 bytes";
    return NULL;
}

/* Prepares one resource; a lease goes into leases. 1 nothing to prepare,
 * 0 prepared, -1 failed (msg). */
static int prepare_one(struct cube_sched *s, const struct sched_accel *copy, void *state,
                       cJSON *req, cJSON *leases, cJSON *ids, char *msg, size_t len)
{
    char *text = cJSON_PrintUnformatted(req), *out = NULL, why[256] = "";
    if (!text)
        return snprintf(msg, len, "out of memory"), -1;
    struct cube_callerr ce;
    cube_callerr_begin(&ce, copy->plugin);
    int rc = copy->desc.prepare(state, text, &out);
    cube_callerr_end(&ce);
    snprintf(why, sizeof why, "%.*s", (int)sizeof why - 1, ce.msg);
    free(text);
    if (rc == CUBE_DECLINED) {
        free(out);
        return 1;
    }
    if (rc != CUBE_OK) {
        free(out);
        if (why[0])
            return snprintf(msg, len, "prepare (accelerator %s): %s", copy->desc.name, why), -1;
        return snprintf(msg, len, "prepare (accelerator %s) failed (%d)", copy->desc.name, rc),
               -1;
    }
    size_t n = out ? strlen(out) : 0;
    cJSON *ans = out ? cJSON_Parse(out) : NULL;
    free(out);
    const char *bad = answer_bad(ans, n);
    char key[33];
    cube_random_hex(key, 16);
    cJSON *lease = cJSON_CreateObject();
    cJSON_AddStringToObject(lease, "key", key);
    cJSON_AddStringToObject(lease, "accel", copy->desc.name);
    cJSON_AddStringToObject(lease, "resource", copy->desc.resource);
    cJSON_AddItemToObject(lease, "request", cJSON_Duplicate(req, 1));
    cJSON_AddItemToObject(lease, "prepared", ans ? ans : cJSON_CreateObject());
    cJSON_AddItemToArray(leases, lease);
    if (bad)
        return snprintf(msg, len, "prepare (accelerator %s): %s", copy->desc.name, bad), -1;
    int src = lease_store(s, lease);
    if (src != CUBE_OK)
        return snprintf(msg, len, "prepare (accelerator %s): the partition could not be "
                        "recorded (%d)", copy->desc.name, src), -1;
    cJSON_AddItemToObject(ids, copy->desc.resource,
                          cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(ans, "devices"), 1));
    return 0;
}

int job_parts_prepare(struct cube_sched *s, const cJSON *job, int i, cJSON **ids,
                      cJSON **leases_out, char *msg, size_t len)
{
    const cJSON *rep = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(job, "status"), "replicas"), i), *d;
    const cJSON *devs = cJSON_GetObjectItemCaseSensitive(rep, "devices");
    cJSON *leases = cJSON_CreateArray(), *got = cJSON_CreateObject();
    cJSON *seen = cJSON_CreateObject();   /* one prepare per resource */
    int rc = 0;
    *ids = *leases_out = NULL;
    cJSON_ArrayForEach(d, devs) {
        const char *res = str(d, "resource");
        if (!res || cJSON_HasObjectItem(seen, res) || rc < 0)
            continue;
        cJSON_AddTrueToObject(seen, res);
        pthread_mutex_lock(&s->mu);
        struct sched_accel *a = sched_accel_for(s, res), copy = {0};
        void *state = a ? a->plugin->state : NULL;
        if (a)
            copy = *a;
        pthread_mutex_unlock(&s->mu);
        if (!a || !copy.desc.prepare || !copy.desc.release)
            continue;
        double share;
        cJSON *req = request_doc(job, i, rep, res, &share);
        rc = prepare_one(s, &copy, state, req, leases, got, msg, len);
        cJSON_Delete(req);
    }
    cJSON_Delete(seen);
    if (rc < 0) {
        queue_all(s->parts, leases);
        cJSON_Delete(got);
        return CUBE_EUNAVAIL;
    }
    if (cJSON_GetArraySize(leases) == 0) {
        cJSON_Delete(leases);
        cJSON_Delete(got);
        return CUBE_OK;
    }
    *ids = got;
    *leases_out = leases;
    return CUBE_OK;
}

/* -- starts and ends ---------------------------------------------------------- */

void job_parts_started(struct cube_sched *s, cJSON *leases, const char *engine)
{
    struct job_parts *p = s->parts;
    cJSON *l;
    if (!leases || !p) {
        cJSON_Delete(leases);   /* kept by the store: released at the next start */
        return;
    }
    cJSON_ArrayForEach(l, leases) {
        cJSON_DeleteItemFromObjectCaseSensitive(l, "engine");
        cJSON_AddStringToObject(l, "engine", engine);
        if (lease_store(s, l) != CUBE_OK)   /* released at its end all the same */
            cube_log(CUBE_LOG_WARN, "jobs", "partition %s: its replica %s is not recorded",
                     str(l, "key"), engine);
    }
    void *old = NULL;
    pthread_mutex_lock(&p->mu);
    if (cube_strmap_put(p->by_engine, engine, leases, &old) < 0) {
        pthread_mutex_unlock(&p->mu);
        queue_all(p, leases);   /* cannot wait for its end: the store keeps it */
        return;
    }
    pthread_mutex_unlock(&p->mu);
    if (old)
        queue_all(p, old);
}

void job_parts_abort(struct cube_sched *s, cJSON *leases)
{
    queue_all(s->parts, leases);
}

void job_parts_ended(struct cube_sched *s, const char *engine)
{
    struct job_parts *p = s->parts;
    if (!p || !engine)
        return;
    pthread_mutex_lock(&p->mu);
    cJSON *leases = cube_strmap_del(p->by_engine, engine);
    pthread_mutex_unlock(&p->mu);
    queue_all(p, leases);
}

cJSON *job_parts_ids(struct cube_sched *s, const char *engine)
{
    struct job_parts *p = s->parts;
    cJSON *ids = NULL;
    const cJSON *l;
    if (!p || !engine)
        return NULL;
    pthread_mutex_lock(&p->mu);
    cJSON_ArrayForEach(l, (cJSON *)cube_strmap_get(p->by_engine, engine)) {
        if (!ids)
            ids = cJSON_CreateObject();
        cJSON_AddItemToObject(ids, str(l, "resource"), cJSON_Duplicate(
            cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(l, "prepared"),
                                             "devices"), 1));
    }
    pthread_mutex_unlock(&p->mu);
    return ids;
}

/* -- start and stop ----------------------------------------------------------- */

/* 1 when the Job of lease shows its replica running as the lease's engine. */
static int still_running(struct cube_sched *s, const cJSON *lease)
{
    const cJSON *req = cJSON_GetObjectItemCaseSensitive(lease, "request");
    const cJSON *job = cJSON_GetObjectItemCaseSensitive(req, "job");
    const char *engine = str(lease, "engine"), *project = str(job, "project");
    const char *name = str(job, "name");
    cJSON *obj = NULL;
    struct cube_op_error e;
    if (!engine || !project || !name ||
        cube_obj_get(s->ctx, s->job_kind, project, name, &obj, &e) < 0)
        return 0;
    const cJSON *rep = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(obj, "status"), "replicas"),
        (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(req, "replica")));
    const char *phase = str(rep, "phase"), *eng = str(rep, "engineId");
    int running = eng && !strcmp(eng, engine) && phase &&
                  (!strcmp(phase, "Running") || !strcmp(phase, "Pending"));
    cJSON_Delete(obj);
    return running;
}

static int load_one(void *cls, const struct cube_kv *kv)
{
    cJSON *list = cls, *lease = cJSON_Parse(kv->doc);
    if (!cJSON_IsObject(lease)) {
        cJSON_Delete(lease);
        return 0;
    }
    cJSON_AddStringToObject(lease, "key", kv->key);
    cJSON_AddItemToArray(list, lease);
    return 0;
}

int job_parts_start(struct cube_sched *s)
{
    struct job_parts *p = s->parts;
    cJSON *list = cJSON_CreateArray();
    if (!p && !(p = s->parts = calloc(1, sizeof *p)))
        return -1;
    if (!p->by_engine) {
        pthread_mutex_init(&p->mu, NULL);
        pthread_cond_init(&p->cv, NULL);
        if (!(p->by_engine = cube_strmap_new()))
            return -1;
    }
    if (s->ctx->store && cube_store_kv_list(s->ctx->store, NS, NULL, load_one, list) != CUBE_OK)
        cube_log(CUBE_LOG_WARN, "jobs", "partitions left by the last run could not be read");
    while (cJSON_GetArraySize(list) > 0) {
        cJSON *lease = cJSON_DetachItemFromArray(list, 0), *one;
        if (still_running(s, lease)) {
            one = cJSON_CreateArray();
            cJSON_AddItemToArray(one, cJSON_Duplicate(lease, 1));
            void *old = NULL;
            pthread_mutex_lock(&p->mu);
            cJSON *have = cube_strmap_get(p->by_engine, str(lease, "engine"));
            if (have)
                cJSON_AddItemToArray(have, cJSON_DetachItemFromArray(one, 0));
            else if (cube_strmap_put(p->by_engine, str(lease, "engine"), one, &old) == 0)
                one = NULL;
            pthread_mutex_unlock(&p->mu);
            cJSON_Delete(one);
            cJSON_Delete(lease);
        } else {
            queue_at(p, lease, now_ms(), 0);
        }
    }
    cJSON_Delete(list);
    if (pthread_create(&p->thread, NULL, releaser, s) != 0) {
        cube_log(CUBE_LOG_ERROR, "jobs", "cannot start the thread that releases partitions");
        return -1;
    }
    p->running = 1;
    return 0;
}

void job_parts_stop(struct cube_sched *s)
{
    struct job_parts *p = s->parts;
    if (!p || !p->running)
        return;
    pthread_mutex_lock(&p->mu);
    p->stopping = 1;
    pthread_cond_signal(&p->cv);
    pthread_mutex_unlock(&p->mu);
    pthread_join(p->thread, NULL);
    p->running = 0;
}

static void free_leases(void *v)
{
    cJSON_Delete(v);
}

void job_parts_free(struct cube_sched *s)
{
    struct job_parts *p = s->parts;
    if (!p)
        return;
    job_parts_stop(s);
    while (p->queue) {
        struct part_item *it = p->queue;
        p->queue = it->next;
        cJSON_Delete(it->lease);
        free(it);
    }
    if (p->by_engine) {
        cube_strmap_free(p->by_engine, free_leases);
        pthread_mutex_destroy(&p->mu);
        pthread_cond_destroy(&p->cv);
    }
    free(p);
    s->parts = NULL;
}
