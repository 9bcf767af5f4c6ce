/* sim_run.c — running replicas: a table by engine id and a min-heap by end
 * time, both under the plugin's mutex, and one repeating host timer that
 * reports the replicas whose time has come. A replica started (or adopted)
 * between two ticks waits in `pending` and joins the heap at the next tick,
 * so its end is never reported before start() has returned its engine id.
 *
 * Engine ids read "sim:<boot>:<seq>:<end ms>": the end time travels with
 * the id, so a replica adopted after a restart keeps it. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim.h"

#define PENDING SIZE_MAX   /* heap_idx of a replica not yet in the heap */
#define BATCH 256          /* replicas reported per lock round */

uint64_t sim_wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* -- the heap (caller holds mu) ------------------------------------------ */

static int before(const struct sim_rep *a, const struct sim_rep *b)
{
    return a->end_ms < b->end_ms || (a->end_ms == b->end_ms && a->seq < b->seq);
}

static void place(struct sim *s, size_t i, struct sim_rep *r)
{
    s->heap[i] = r;
    r->heap_idx = i;
}

static void sift_up(struct sim *s, size_t i)
{
    struct sim_rep *r = s->heap[i];
    while (i > 0 && before(r, s->heap[(i - 1) / 2])) {
        place(s, i, s->heap[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    place(s, i, r);
}

static void sift_down(struct sim *s, size_t i)
{
    struct sim_rep *r = s->heap[i];
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= s->n_heap)
            break;
        if (c + 1 < s->n_heap && before(s->heap[c + 1], s->heap[c]))
            c++;
        if (!before(s->heap[c], r))
            break;
        place(s, i, s->heap[c]);
        i = c;
    }
    place(s, i, r);
}

int sim_reserve(struct sim_rep ***arr, size_t n, size_t *cap)
{
    if (n < *cap)
        return 0;
    size_t want = *cap ? *cap * 2 : 64;
    struct sim_rep **grown = realloc(*arr, want * sizeof *grown);
    if (!grown)
        return -1;
    *arr = grown;
    *cap = want;
    return 0;
}

/* Takes r out of the heap or the pending list. */
static void unlink_rep(struct sim *s, struct sim_rep *r)
{
    if (r->heap_idx == SIM_HELD) {
        sim_unhold(s, r);
        return;
    }
    if (r->heap_idx == PENDING) {
        for (size_t i = 0; i < s->n_pending; i++)
            if (s->pending[i] == r) {
                s->pending[i] = s->pending[--s->n_pending];
                break;
            }
        return;
    }
    size_t i = r->heap_idx;
    struct sim_rep *last = s->heap[--s->n_heap];
    if (i < s->n_heap) {
        place(s, i, last);
        sift_up(s, i);
        sift_down(s, last->heap_idx);
    }
}

/* -- logs and reports (caller does NOT hold mu) -------------------------- */

static void log_line(struct sim *s, const struct sim_plan *p, const char *line, int close)
{
    const struct cube_host *h = s->host;
    if (!p->has_log)
        return;
    const char *proj = p->log_project[0] ? p->log_project : NULL;
    h->log_append(s->self, p->log_kind, proj, p->log_name, p->log_stream, line, strlen(line));
    if (close)
        h->log_close(s->self, p->log_kind, proj, p->log_name, p->log_stream);
}

/* Writes the exit line, reports the end and frees r. */
static void finish(struct sim *s, struct sim_rep *r)
{
    char line[160];
    const struct sim_plan *p = &r->plan;
    int plain = strcmp(p->reason, CUBE_EXIT_COMPLETED) == 0;
    snprintf(line, sizeof line, "sim: exited %d%s%s%s\n", p->exit_code,
             plain ? "" : " (", plain ? "" : p->reason, plain ? "" : ")");
    log_line(s, p, line, 1);
    int rc = s->host->replica_exited(s->self, r->id, p->exit_code, p->reason, p->message);
    if (rc != CUBE_OK)
        s->host->log(s->self, CUBE_LOG_WARN, "replica_exited(%s): %d", r->id, rc);
    free(r);
}

void sim_tick(void *state, void *arg)
{
    (void)state;
    struct sim *s = arg;
    struct sim_rep *due[BATCH];
    size_t n;
    sim_queue_tick(s);
    do {
        n = 0;
        pthread_mutex_lock(&s->mu);
        uint64_t now = s->now_ms();
        while (n < BATCH && s->n_heap && s->heap[0]->end_ms <= now) {
            struct sim_rep *r = due[n++] = s->heap[0];
            unlink_rep(s, r);
            sim_map_del(&s->reps, r->id);
        }
        if (n < BATCH) /* the heap is drained of due work: admit newcomers */
            for (; s->n_pending && sim_reserve(&s->heap, s->n_heap, &s->cap_heap) == 0;
                 s->n_pending--) {
                place(s, s->n_heap++, s->pending[s->n_pending - 1]);
                sift_up(s, s->n_heap - 1);
            }
        pthread_mutex_unlock(&s->mu);
        for (size_t i = 0; i < n; i++)
            finish(s, due[i]);
    } while (n == BATCH);
}

/* -- the executor callbacks ---------------------------------------------- */

/* Wall milliseconds a simulated run of run_s seconds takes. */
static uint64_t wall_span(const struct sim *s, double run_s)
{
    double ms = run_s * 1000.0 / s->conf.time_scale;
    return ms > 1e15 ? (uint64_t)1e15 : (uint64_t)llround(ms);
}

/* Adds r (its id set) to the table and the pending list (or, with
 * engine_queue, the queue); CUBE_OK or CUBE_ENOMEM. The caller holds mu. */
int sim_admit(struct sim *s, struct sim_rep *r)
{
    int oom;
    if (sim_reserve(&s->pending, s->n_pending, &s->cap_pending) < 0)
        return CUBE_ENOMEM;
    sim_map_put(&s->reps, r->id, r, &oom);
    if (oom)
        return CUBE_ENOMEM;
    r->heap_idx = PENDING;
    s->pending[s->n_pending++] = r;
    return CUBE_OK;
}

int sim_start(void *state, const char *json, char *engine_id, size_t id_len,
              char *msg, size_t msg_len)
{
    struct sim *s = state;
    struct sim_rep *r = calloc(1, sizeof *r);
    if (!r) {
        snprintf(msg, msg_len, "out of memory");
        return CUBE_ENOMEM;
    }
    int rc = sim_plan_parse(json, s->conf.run_seconds, &r->plan, msg, msg_len);
    if (rc == CUBE_OK && !sim_node_known(s, r->plan.node)) {
        snprintf(msg, msg_len, "%s is not a node of executor sim", r->plan.node);
        rc = CUBE_ENOTFOUND;
    } else if (rc == CUBE_OK && strcmp(r->plan.reason, CUBE_EXIT_FAILED) == 0) {
        snprintf(msg, msg_len, "simulated start failure on %s", r->plan.node);
        rc = CUBE_EIO;
    }
    if (rc == CUBE_OK) {
        pthread_mutex_lock(&s->mu);
        r->seq = ++s->seq;
        r->end_ms = s->now_ms() + wall_span(s, r->plan.run_s) +
                    (s->conf.engine_queue ? (uint64_t)s->conf.held_ms : 0);
        snprintf(r->id, sizeof r->id, "sim:%s:%" PRIu64 ":%" PRIu64, s->boot, r->seq, r->end_ms);
        rc = strlen(r->id) < id_len ? (s->conf.engine_queue ? sim_hold(s, r) : sim_admit(s, r))
                                    : CUBE_EINVAL;
        if (rc == CUBE_OK)
            snprintf(engine_id, id_len, "%s", r->id);
        pthread_mutex_unlock(&s->mu);
        if (rc != CUBE_OK)
            snprintf(msg, msg_len, "%s", rc == CUBE_EINVAL ? "engine_id buffer too small"
                                                           : "out of memory");
    }
    if (rc != CUBE_OK) {
        free(r);
        return rc;
    }
    char line[1200], env[800];
    sim_env_line(json, env, sizeof env);
    snprintf(line, sizeof line, "sim: started on %s devices %s%s\n", r->plan.node,
             r->plan.devices[0] ? r->plan.devices : "none", env);
    log_line(s, &r->plan, line, 0);
    /* before start returns: the host keeps it until the start is recorded */
    sim_report_endpoints(s, json, engine_id, r->plan.node);
    if (s->conf.engine_queue) {   /* before start returns: the host keeps it */
        if (s->conf.held_ms)
            snprintf(line, sizeof line, "held in the simulated queue for %d ms",
                     s->conf.held_ms);
        else
            snprintf(line, sizeof line, "held in the simulated queue until released");
        s->host->replica_status(s->self, engine_id, "Pending", r->plan.node, line);
    }
    return CUBE_OK;
}

int sim_stop(void *state, const char *engine_id, unsigned grace_seconds)
{
    (void)grace_seconds; /* a simulated process honours the polite signal */
    struct sim *s = state;
    pthread_mutex_lock(&s->mu);
    struct sim_rep *r = sim_map_get(&s->reps, engine_id);
    if (r && !r->stopping) {
        r->stopping = 1;
        uint64_t now = s->now_ms();
        r->end_ms = r->end_ms < now ? r->end_ms : now;
        r->plan.exit_code = -1;
        snprintf(r->plan.reason, sizeof r->plan.reason, "%s", CUBE_EXIT_STOPPED);
        snprintf(r->plan.message, sizeof r->plan.message, "stopped on request");
        if (r->heap_idx == SIM_HELD) {   /* ends from the queue */
            sim_unhold(s, r);
            r->heap_idx = PENDING;
            if (sim_reserve(&s->pending, s->n_pending, &s->cap_pending) == 0)
                s->pending[s->n_pending++] = r;
        } else if (r->heap_idx != PENDING)
            sift_up(s, r->heap_idx);
    }
    pthread_mutex_unlock(&s->mu);
    return r ? CUBE_OK : CUBE_ENOTFOUND;
}

/* The end time recorded in one of our engine ids, or -1. */
static int64_t id_end(const char *id)
{
    const char *last = strrchr(id, ':');
    char *end;
    if (strncmp(id, "sim:", 4) != 0 || !last)
        return -1;
    unsigned long long v = strtoull(last + 1, &end, 10);
    return end > last + 1 && !*end && v < (unsigned long long)INT64_MAX ? (int64_t)v : -1;
}

/* When an adopted replica ends: the id's end, a recorded end, its start
 * plus its run time, else a whole run from now. */
static uint64_t adopted_end(struct sim *s, const char *id, const struct sim_plan *p)
{
    int64_t end = id_end(id);
    if (end < 0)
        end = p->end_ms;
    if (end < 0 && p->started_ms >= 0)
        end = p->started_ms + (int64_t)wall_span(s, p->run_s);
    return end >= 0 ? (uint64_t)end : s->now_ms() + wall_span(s, p->run_s);
}

int sim_adopt(void *state, const char *engine_id, const char *json)
{
    struct sim *s = state;
    char msg[256];
    struct sim_rep *r = calloc(1, sizeof *r);
    if (!r || strlen(engine_id) >= sizeof r->id ||
        sim_plan_parse(json, s->conf.run_seconds, &r->plan, msg, sizeof msg) != CUBE_OK ||
        !sim_node_known(s, r->plan.node)) {
        free(r);
        return CUBE_ENOTFOUND;
    }
    snprintf(r->id, sizeof r->id, "%s", engine_id);
    r->end_ms = adopted_end(s, engine_id, &r->plan);
    pthread_mutex_lock(&s->mu);
    int rc = sim_map_get(&s->reps, engine_id) ? CUBE_EEXIST : CUBE_OK;
    r->seq = ++s->seq;
    if (rc == CUBE_OK)
        rc = sim_admit(s, r);
    pthread_mutex_unlock(&s->mu);
    if (rc != CUBE_OK) {
        free(r);
        return rc == CUBE_EEXIST ? CUBE_OK : rc;
    }
    char line[160];
    snprintf(line, sizeof line, "sim: adopted on %s after a restart\n", r->plan.node);
    log_line(s, &r->plan, line, 0);
    if (s->conf.engine_queue)   /* adopted replicas run (the queue is not kept) */
        s->host->replica_status(s->self, engine_id, "Running", r->plan.node, "adopted");
    return CUBE_OK;
}

struct forget { struct sim *s; const char *node; struct sim_rep **out; size_t n, cap; };

static void collect(const char *key, void *val, void *arg)
{
    (void)key;
    struct forget *f = arg;
    struct sim_rep *r = val;
    if (strcmp(r->plan.node, f->node) == 0 && sim_reserve(&f->out, f->n, &f->cap) == 0)
        f->out[f->n++] = r;
}

int sim_forget_node(struct sim *s, const char *node)
{
    struct forget f = {s, node, NULL, 0, 0};
    sim_map_each(&s->reps, collect, &f);
    for (size_t i = 0; i < f.n; i++) {
        unlink_rep(s, f.out[i]);
        sim_map_del(&s->reps, f.out[i]->id);
        free(f.out[i]);
    }
    free(f.out);
    return (int)f.n;
}

size_t sim_running(struct sim *s)
{
    pthread_mutex_lock(&s->mu);
    size_t n = s->reps.n;
    pthread_mutex_unlock(&s->mu);
    return n;
}

static void free_rep(const char *key, void *val, void *arg)
{
    (void)key;
    (void)arg;
    free(val);
}

void sim_run_free(struct sim *s)
{
    sim_map_each(&s->reps, free_rep, NULL);
    sim_map_free(&s->reps);
    free(s->heap);
    free(s->pending);
    free(s->held);
    s->heap = s->pending = s->held = NULL;
    s->n_heap = s->n_pending = s->n_held = 0;
}
