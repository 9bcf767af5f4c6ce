/* job_loop.c — the scheduling loop and the scheduler's life cycle: a
 * thread that runs the policy engine whenever something changed (a Job
 * queued or ended, a node or quota changed; at least once a second),
 * carries out its admissions and preemption orders outside the lock, and
 * keeps each pending Job's "why it waits" and queue position in its status.
 * Project quotas reach the engine from the Project objects. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "auth/auth_priv.h"
#include "ctx/ctx.h"
#include "job_status.h"
#include "jobs.h"
#include "objects/kinds.h"
#include "base/log.h"
#include "objects/objects.h"
#include "base/quantity.h"
#include "base/strmap.h"

#define REASONS_EVERY_MS 1000

/* -- projects and quotas ---------------------------------------------------- */

/* One resource list of a quota ({"cpu": "8", "nvidia.com/gpu": 4}) into v
 * (unset slots keep their value). */
static void quota_vector(struct cube_sched_policy *p, const cJSON *list, struct cube_sp_res *v)
{
    const cJSON *q;
    const char *why;
    cJSON_ArrayForEach(q, list) {
        int slot = cube_sp_resource_index(p, q->string);
        if (slot < 0)
            slot = cube_sp_resource_add(p, q->string);
        if (slot < 0)
            continue;
        int64_t val;
        if ((slot == CUBE_SP_MEMORY ? cube_qty_bytes(q, &val, &why)
                                    : cube_qty_milli(q, &val, &why)) == 0)
            v->v[slot] = val;
    }
}

/* Sets a project's quotas from its spec (caller holds mu). No quotas at
 * all means no limits in any pool the project uses (pool NULL: default). */
static void apply_quotas(struct cube_sched *s, const char *name, const cJSON *spec,
                         const char *pool)
{
    const cJSON *quotas = cJSON_GetObjectItemCaseSensitive(spec, "quotas"), *q;
    struct cube_sp_quota quota;
    cube_sp_project_set(s->policy, name, 1);
    if (!quotas || !quotas->child) {
        cube_sp_quota_init(&quota);
        cube_sp_quota_set(s->policy, name, pool && *pool ? pool : CUBE_SP_DEFAULT_POOL, &quota);
        return;
    }
    cJSON_ArrayForEach(q, quotas) {
        cube_sp_quota_init(&quota);
        quota_vector(s->policy, cJSON_GetObjectItemCaseSensitive(q, "guaranteed"),
                     &quota.guaranteed);
        quota_vector(s->policy, cJSON_GetObjectItemCaseSensitive(q, "max"), &quota.max);
        if (cube_sp_quota_set(s->policy, name, q->string, &quota) != CUBE_OK)
            cube_log(CUBE_LOG_WARN, "jobs", "project %s: quota of pool %s: %s", name, q->string,
                     cube_sp_errmsg(s->policy));
    }
}

static void free_pools(void *pools) { cJSON_Delete(pools); }

/* Remembers a project's spec.pools (spec NULL: the project is gone);
 * caller holds mu. */
static void remember_pools(struct cube_sched *s, const char *name, const cJSON *spec)
{
    const cJSON *pools = cJSON_GetObjectItemCaseSensitive(spec, "pools");
    cJSON *copy = cJSON_GetArraySize(pools) > 0 ? cJSON_Duplicate(pools, 1) : NULL;
    void *old = NULL;
    if (!copy)
        old = cube_strmap_del(s->pools, name);
    else if (cube_strmap_put(s->pools, name, copy, &old) < 0) {
        cube_log(CUBE_LOG_WARN, "jobs", "project %s: out of memory for its pools", name);
        cJSON_Delete(copy);
    }
    cJSON_Delete(old);
}

int sched_pool_allowed(struct cube_sched *s, const char *project, const char *pool)
{
    return sched_pools_allow(cube_strmap_get(s->pools, project),
                             pool && *pool ? pool : CUBE_SP_DEFAULT_POOL);
}

void cube_sched_project(struct cube_ctx *ctx, const char *name, const cJSON *obj)
{
    struct cube_sched *s = ctx->sched;
    if (!s)
        return;
    pthread_mutex_lock(&s->mu);
    remember_pools(s, name, obj ? cJSON_GetObjectItemCaseSensitive(obj, "spec") : NULL);
    if (obj)
        apply_quotas(s, name, cJSON_GetObjectItemCaseSensitive(obj, "spec"), NULL);
    else
        cube_sp_project_remove(s->policy, name);
    s->dirty = 1;
    pthread_cond_signal(&s->wake);
    pthread_mutex_unlock(&s->mu);
}

const struct cube_auth_projects cube_sched_projects = {
    job_env_check, job_mounts_refuse, cube_sched_project,
};

void sched_project_ensure(struct cube_sched *s, const char *project, const char *pool)
{
    struct cube_kind *pk = s->ctx->auth ? s->ctx->auth->project_kind : NULL;
    cJSON *p = NULL;
    struct cube_op_error e;
    if (!pk || cube_obj_get(s->ctx, pk, NULL, project, &p, &e) < 0)
        return;
    pthread_mutex_lock(&s->mu);
    remember_pools(s, project, cJSON_GetObjectItemCaseSensitive(p, "spec"));
    apply_quotas(s, project, cJSON_GetObjectItemCaseSensitive(p, "spec"), pool);
    pthread_mutex_unlock(&s->mu);
    cJSON_Delete(p);
}

/* -- the loop ------------------------------------------------------------- */

void sched_poke(struct cube_sched *s)
{
    pthread_mutex_lock(&s->mu);
    s->dirty = 1;
    pthread_cond_signal(&s->wake);
    pthread_mutex_unlock(&s->mu);
}

/* A cycle's results, copied out of the engine (its pointers die with the
 * next call) so they can be carried out without the lock. */
struct cycle {
    struct cube_sp_admission *adm;
    size_t n_adm;
    char **victims, **for_jobs;
    size_t n_pre;
};

static char *dup_or_empty(const char *s) { return strdup(s ? s : ""); }

/* Deep copy of one admission (strings and replica arrays). */
static int copy_admission(struct cube_sp_admission *to, const struct cube_sp_admission *from)
{
    struct cube_sp_replica *reps = calloc(from->n_replicas, sizeof *reps);
    *to = (struct cube_sp_admission){dup_or_empty(from->job), dup_or_empty(from->pool),
                                     from->n_replicas, reps};
    for (unsigned i = 0; reps && i < from->n_replicas; i++) {
        const struct cube_sp_replica *r = &from->replicas[i];
        struct cube_sp_dev_alloc *d = calloc(r->n_devices ? r->n_devices : 1, sizeof *d);
        reps[i] = (struct cube_sp_replica){dup_or_empty(r->node), r->n_devices, d};
        for (size_t k = 0; d && k < r->n_devices; k++)
            d[k] = (struct cube_sp_dev_alloc){dup_or_empty(r->devices[k].id),
                                              dup_or_empty(r->devices[k].resource),
                                              r->devices[k].share_milli,
                                              r->devices[k].mem_milli};
    }
    return reps ? 0 : -1;
}

static void free_admission(struct cube_sp_admission *a)
{
    for (unsigned i = 0; a->replicas && i < a->n_replicas; i++) {
        const struct cube_sp_replica *r = &a->replicas[i];
        for (size_t k = 0; r->devices && k < r->n_devices; k++) {
            free((char *)r->devices[k].id);
            free((char *)r->devices[k].resource);
        }
        free((void *)r->devices);
        free((char *)r->node);
    }
    free((void *)a->replicas);
    free((char *)a->job);
    free((char *)a->pool);
}

/* Runs the engine once (caller holds mu) and copies what it decided. */
static void run_cycle(struct cube_sched *s, struct cycle *c)
{
    const struct cube_sp_result *res = NULL;
    memset(c, 0, sizeof *c);
    if (cube_sp_decide(s->policy, &res) != CUBE_OK && !res)
        return;
    c->adm = calloc(res->n_admitted ? res->n_admitted : 1, sizeof *c->adm);
    c->victims = calloc(res->n_preemptions + 1, sizeof *c->victims);
    c->for_jobs = calloc(res->n_preemptions + 1, sizeof *c->for_jobs);
    for (size_t i = 0; c->adm && i < res->n_admitted; i++)
        if (copy_admission(&c->adm[c->n_adm], &res->admitted[i]) == 0)
            c->n_adm++;
    for (size_t i = 0; c->victims && c->for_jobs && i < res->n_preemptions; i++) {
        c->victims[i] = dup_or_empty(res->preemptions[i].victim);
        c->for_jobs[i] = dup_or_empty(res->preemptions[i].beneficiary);
        c->n_pre++;
    }
}

static void carry_out(struct cube_sched *s, struct cycle *c)
{
    for (size_t i = 0; i < c->n_adm; i++) {
        job_admitted(s, &c->adm[i]);
        free_admission(&c->adm[i]);
    }
    for (size_t i = 0; i < c->n_pre; i++) {
        job_preempt(s, c->victims[i], c->for_jobs[i]);
        free(c->victims[i]);
        free(c->for_jobs[i]);
    }
    free(c->adm);
    free(c->victims);
    free(c->for_jobs);
}

void sched_cycle_now(struct cube_sched *s)
{
    struct cycle c;
    pthread_mutex_lock(&s->mu);
    run_cycle(s, &c);
    pthread_mutex_unlock(&s->mu);
    carry_out(s, &c);
}

/* -- why pending Jobs wait ------------------------------------------------ */

void sched_pending_track(struct cube_sched *s, const char *id)
{
    void *old = NULL;
    char *none = strdup("");
    if (none && cube_strmap_put(s->pending, id, none, &old) < 0)
        free(none);
    free(old);
}

void sched_pending_untrack(struct cube_sched *s, const char *id)
{
    free(cube_strmap_del(s->pending, id));
}

struct waiting {
    char id[140], reason[300];
    unsigned position;
};

struct changed {
    struct cube_sched *s;
    struct waiting *w;
    size_t n, cap;
};

/* Collects pending Jobs whose reason changed since last written. */
static int collect_changed(void *cls, const char *id, void *value)
{
    struct changed *c = cls;
    struct cube_sp_job_info info;
    char reason[300];
    if (c->n == c->cap ||
        cube_sp_job_info(c->s->policy, id, &info, reason, sizeof reason) != CUBE_OK ||
        info.state != CUBE_SP_PENDING || !reason[0] || !strcmp(reason, value))
        return 0;
    struct waiting *w = &c->w[c->n++];
    snprintf(w->id, sizeof w->id, "%s", id);
    snprintf(w->reason, sizeof w->reason, "%s", reason);
    w->position = info.position;
    return 0;
}

static int mark_waiting(void *cls, const cJSON *job, cJSON *status)
{
    const struct waiting *w = cls;
    if (strcmp(job_status_str(job, "phase"), "Pending") != 0)
        return 1;
    job_set_str(status, "waiting", w->reason);
    job_set_str(status, "message", w->reason);   /* what lists show */
    job_set_num(status, "queuePosition", w->position);
    return 0;
}

/* Writes "why it waits" of up to cap Jobs whose reason changed. */
static void refresh_reasons(struct cube_sched *s, size_t cap)
{
    struct changed c = {s, calloc(cap, sizeof(struct waiting)), 0, cap};
    if (!c.w)
        return;
    pthread_mutex_lock(&s->mu);
    cube_strmap_each(s->pending, collect_changed, &c);
    for (size_t i = 0; i < c.n; i++) {
        char *copy = strdup(c.w[i].reason);
        void *old = NULL;
        if (copy && cube_strmap_put(s->pending, c.w[i].id, copy, &old) < 0)
            free(copy);
        free(old);
    }
    pthread_mutex_unlock(&s->mu);
    for (size_t i = 0; i < c.n; i++) {
        char project[64], name[64];
        if (job_id_split(c.w[i].id, project, name) == 0)
            job_update_status(s, project, name, mark_waiting, &c.w[i]);
    }
    free(c.w);
}

static uint64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void *loop(void *arg)
{
    struct cube_sched *s = arg;
    uint64_t last_reasons = 0;
    pthread_mutex_lock(&s->mu);
    while (!s->stopping) {
        if (!s->dirty) {
            struct timespec until;
            clock_gettime(CLOCK_REALTIME, &until);
            until.tv_sec += 1;
            pthread_cond_timedwait(&s->wake, &s->mu, &until);
            if (s->stopping)
                break;
        }
        s->dirty = 0;
        struct cycle c;
        run_cycle(s, &c);
        pthread_mutex_unlock(&s->mu);
        carry_out(s, &c);
        if (mono_ms() - last_reasons >= REASONS_EVERY_MS) {
            refresh_reasons(s, 256);
            sched_metrics_refresh(s);
            last_reasons = mono_ms();
        }
        pthread_mutex_lock(&s->mu);
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

/* -- life cycle ------------------------------------------------------------- */

int cube_sched_init(struct cube_ctx *ctx)
{
    struct cube_sched *s = calloc(1, sizeof *s);
    if (!s)
        return -1;
    ctx->sched = s;
    s->ctx = ctx;
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->wake, NULL);
    s->nodes = cube_strmap_new();
    s->engines = cube_strmap_new();
    s->early = cube_strmap_new();
    s->early_status = cube_strmap_new();
    s->pending = cube_strmap_new();
    s->ports = cube_strmap_new();
    s->pools = cube_strmap_new();
    s->policy = cube_sp_new();
    pthread_mutex_init(&s->node_mu, NULL);
    s->health = cube_strmap_new();
    if (!s->nodes || !s->engines || !s->early || !s->early_status || !s->pending || !s->ports || !s->pools ||
        !s->policy || !s->health) {
        cube_log(CUBE_LOG_ERROR, "jobs", "out of memory");
        return -1;
    }
    return job_kind_register(s) < 0 || job_actions_register(s) < 0 ||
           job_points_register(s) < 0 || job_infra_routes_register(s) < 0 ||
           sched_metrics_init(s) < 0 ? -1 : 0;
}

int cube_sched_start(struct cube_ctx *ctx)
{
    struct cube_sched *s = ctx->sched;
    job_points_purge(s);
    if (job_parts_start(s) < 0 || job_starter_init(s) < 0)
        return -1;
    if (pthread_create(&s->loop, NULL, loop, s) != 0) {
        cube_log(CUBE_LOG_ERROR, "jobs", "cannot start the scheduling loop");
        return -1;
    }
    s->loop_running = 1;
    return 0;
}

void cube_sched_stop(struct cube_ctx *ctx)
{
    struct cube_sched *s = ctx->sched;
    if (s) {
        job_starter_stop(s);
        job_parts_stop(s);   /* after the starts: none queues a release meanwhile */
    }
    if (!s || !s->loop_running)
        return;
    pthread_mutex_lock(&s->mu);
    s->stopping = 1;
    pthread_cond_signal(&s->wake);
    pthread_mutex_unlock(&s->mu);
    pthread_join(s->loop, NULL);
    s->loop_running = 0;
}

void cube_sched_free(struct cube_ctx *ctx)
{
    struct cube_sched *s = ctx->sched;
    if (!s)
        return;
    cube_sched_stop(ctx);
    job_starter_free(s);
    job_parts_free(s);
    sched_registry_free(s);
    cube_strmap_free(s->health, free);
    pthread_mutex_destroy(&s->node_mu);
    cube_strmap_free(s->engines, free);
    cube_strmap_free(s->early, free);
    cube_strmap_free(s->early_status, job_report_free);
    cube_strmap_free(s->pending, free);
    cube_strmap_free(s->ports, free);
    cube_strmap_free(s->pools, free_pools);
    cube_sp_free(s->policy);
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->wake);
    free(s);
    ctx->sched = NULL;
}
