/* sched_policy.c — see sched_policy.h. The engine, its string table,
 * resources, pools, projects, quotas and the queries. Jobs are in
 * sched_job.c, the cycle in sched_fair.c. */
#include "sched_priv.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sp_fail(struct cube_sched_policy *p, int rc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->err, sizeof p->err, fmt, ap);
    va_end(ap);
    return rc;
}

int sp_intern(struct cube_sched_policy *p, const char *s)
{
    if (!s || !*s)
        return 0;
    void *v = cube_strmap_get(p->strs, s);
    if (v)
        return (int)(intptr_t)v;
    if (p->n_str == p->cap_str) {
        size_t cap = p->cap_str ? p->cap_str * 2 : 64;
        char **nv = realloc(p->str, cap * sizeof *nv);
        if (!nv)
            return -1;
        p->str = nv;
        p->cap_str = cap;
    }
    char *copy = strdup(s);
    if (!copy || cube_strmap_put(p->strs, s, (void *)(intptr_t)p->n_str, NULL) < 0) {
        free(copy);
        return -1;
    }
    p->str[p->n_str] = copy;
    return (int)p->n_str++;
}

struct cube_sched_policy *cube_sp_new(void)
{
    struct cube_sched_policy *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->pools = cube_strmap_new();
    p->projects = cube_strmap_new();
    p->nodes = cube_strmap_new();
    p->jobs = cube_strmap_new();
    p->strs = cube_strmap_new();
    p->res_name[CUBE_SP_CPU] = strdup("cpu");
    p->res_name[CUBE_SP_MEMORY] = strdup("memory");
    p->n_res = 2;
    p->next_seq = 1;
    p->str = calloc(p->cap_str = 64, sizeof *p->str);
    if (!p->pools || !p->projects || !p->nodes || !p->jobs || !p->strs ||
        !p->res_name[0] || !p->res_name[1] || !p->str || !(p->str[0] = strdup("")))
        goto fail;
    p->n_str = 1;
    if (!sp_pool_get(p, CUBE_SP_DEFAULT_POOL, true))
        goto fail;
    return p;
fail:
    cube_sp_free(p);
    return NULL;
}

static void free_job_cb(void *v)
{
    sp_job_free(v);
}

static void free_node_cb(void *v)
{
    sp_node_free(v);
}

/* Frees a pool, its pqs and the cancelled jobs their queues still hold. */
static void pool_free(struct sp_pool *pool)
{
    for (size_t i = 0; i < pool->n_pqs; i++) {
        struct sp_pq *pq = pool->pqs[i];
        for (int k = 0; k < SP_NPRIO; k++) {
            for (size_t m = 0; m < pq->q[k].n; m++)
                if (pq->q[k].v[m]->state == SP_GONE)
                    sp_job_free(pq->q[k].v[m]);
            free(pq->q[k].v);
        }
        free(pq);
    }
    sp_pool_free_classes(pool);
    free(pool->pqs);
    free(pool->name);
    free(pool);
}

static void project_free(void *v)
{
    struct sp_project *pr = v;
    free(pr->pqs);
    free(pr->name);
    free(pr);
}

void cube_sp_free(struct cube_sched_policy *p)
{
    if (!p)
        return;
    /* Pools first (they free the cancelled jobs their queues hold and read
     * the live ones), then the live jobs, then nodes: only memory. */
    for (size_t i = 0; i < p->n_pools; i++)
        pool_free(p->pool_v[i]);
    cube_strmap_free(p->jobs, free_job_cb);
    cube_strmap_free(p->nodes, free_node_cb);
    cube_strmap_free(p->pools, NULL);
    cube_strmap_free(p->projects, project_free);
    cube_strmap_free(p->strs, NULL);
    for (size_t i = 0; i < p->n_str; i++)
        free(p->str[i]);
    for (int i = 0; i < CUBE_SP_NRES; i++)
        free(p->res_name[i]);
    for (size_t i = 0; i < p->n_arena; i++)
        free(p->arena[i]);
    free(p->arena);
    free(p->str);
    free(p->pool_v);
    free(p->memo);
    free(p->heap);
    free(p->cls_v);
    free(p->adm);
    free(p->pre);
    free(p);
}

const char *cube_sp_errmsg(const struct cube_sched_policy *p)
{
    return p->err;
}

/* -- resources ------------------------------------------------------------ */

int cube_sp_resource_index(const struct cube_sched_policy *p, const char *name)
{
    for (int i = 0; name && i < p->n_res; i++)
        if (strcmp(p->res_name[i], name) == 0)
            return i;
    return CUBE_ENOTFOUND;
}

const char *cube_sp_resource_name(const struct cube_sched_policy *p, int slot)
{
    return slot >= 0 && slot < p->n_res ? p->res_name[slot] : NULL;
}

int cube_sp_resource_add(struct cube_sched_policy *p, const char *name)
{
    if (!name || !*name)
        return sp_fail(p, CUBE_EINVAL, "empty resource name");
    int i = cube_sp_resource_index(p, name);
    if (i == CUBE_SP_CPU || i == CUBE_SP_MEMORY)
        return sp_fail(p, CUBE_EINVAL, "%s is not an extended resource", name);
    if (i >= 0)
        return i;
    if (p->n_res == CUBE_SP_NRES)
        return sp_fail(p, CUBE_ETOOBIG, "too many extended resources (at most %d): %s",
                       CUBE_SP_NRES - 2, name);
    if (!(p->res_name[p->n_res] = strdup(name)))
        return sp_fail(p, CUBE_ENOMEM, "out of memory");
    return p->n_res++;
}

/* -- pools and projects --------------------------------------------------- */

struct sp_pool *sp_pool_get(struct cube_sched_policy *p, const char *name, bool make)
{
    if (!name || !*name)
        name = CUBE_SP_DEFAULT_POOL;
    struct sp_pool *pool = cube_strmap_get(p->pools, name);
    if (pool || !make)
        return pool;
    struct sp_pool **v = realloc(p->pool_v, (p->n_pools + 1) * sizeof *v);
    if (!v)
        return NULL;
    p->pool_v = v;
    if (!(pool = calloc(1, sizeof *pool)) || !(pool->name = strdup(name)))
        goto fail;
    if (cube_strmap_put(p->pools, name, pool, NULL) < 0)
        goto fail;
    p->pool_v[p->n_pools++] = pool;
    return pool;
fail:
    if (pool)
        free(pool->name);
    free(pool);
    return NULL;
}

int cube_sp_pool_add(struct cube_sched_policy *p, const char *name)
{
    if (!name || !*name)
        return sp_fail(p, CUBE_EINVAL, "empty pool name");
    return sp_pool_get(p, name, true) ? CUBE_OK : sp_fail(p, CUBE_ENOMEM, "out of memory");
}

struct sp_pq *sp_pq_get(struct cube_sched_policy *p, struct sp_project *pr,
                        struct sp_pool *pool)
{
    for (size_t i = 0; i < pr->n_pqs; i++)
        if (pr->pqs[i]->pool == pool)
            return pr->pqs[i];
    struct sp_pq *pq = calloc(1, sizeof *pq);
    struct sp_pq **a = realloc(pr->pqs, (pr->n_pqs + 1) * sizeof *a);
    if (a)
        pr->pqs = a;
    struct sp_pq **b = realloc(pool->pqs, (pool->n_pqs + 1) * sizeof *b);
    if (b)
        pool->pqs = b;
    if (!pq || !a || !b) {
        free(pq);
        return NULL;
    }
    pq->proj = pr;
    pq->pool = pool;
    pq->order = p->n_pq_made++;
    pr->pqs[pr->n_pqs++] = pq;
    pool->pqs[pool->n_pqs++] = pq;
    return pq;
}

void sp_pq_share(struct sp_pq *pq)
{
    double best = 0;
    for (int r = 0; r < CUBE_SP_NRES; r++)
        if (pq->pool->cap.v[r] > 0) {
            double s = (double)pq->used.v[r] / (double)pq->pool->cap.v[r];
            if (s > best)
                best = s;
        }
    pq->share = best / (double)pq->proj->weight;
}

int cube_sp_project_set(struct cube_sched_policy *p, const char *name, unsigned weight)
{
    if (!name || !*name)
        return sp_fail(p, CUBE_EINVAL, "empty project name");
    struct sp_project *pr = cube_strmap_get(p->projects, name);
    if (!pr) {
        if (!(pr = calloc(1, sizeof *pr)) || !(pr->name = strdup(name)) ||
            cube_strmap_put(p->projects, name, pr, NULL) < 0) {
            if (pr)
                free(pr->name);
            free(pr);
            return sp_fail(p, CUBE_ENOMEM, "out of memory");
        }
        pr->order = p->n_projects_made++;
    }
    pr->weight = weight ? weight : 1;
    return CUBE_OK;
}

int cube_sp_project_remove(struct cube_sched_policy *p, const char *name)
{
    struct sp_project *pr = name ? cube_strmap_get(p->projects, name) : NULL;
    if (!pr)
        return sp_fail(p, CUBE_ENOTFOUND, "unknown project \"%s\"", name ? name : "");
    if (pr->n_jobs)
        return sp_fail(p, CUBE_ESTATE, "project %s still has %zu job(s)", name, pr->n_jobs);
    for (size_t i = 0; i < pr->n_pqs; i++) {
        struct sp_pool *pool = pr->pqs[i]->pool;
        for (size_t k = 0; k < pool->n_pqs; k++)
            if (pool->pqs[k] == pr->pqs[i]) {
                pool->pqs[k] = pool->pqs[--pool->n_pqs];
                break;
            }
        for (int k = 0; k < SP_NPRIO; k++) {
            for (size_t m = 0; m < pr->pqs[i]->q[k].n; m++)
                sp_job_free(pr->pqs[i]->q[k].v[m]);   /* cancelled leftovers */
            free(pr->pqs[i]->q[k].v);
        }
        free(pr->pqs[i]);
    }
    cube_strmap_del(p->projects, name);
    project_free(pr);
    return CUBE_OK;
}

void cube_sp_quota_init(struct cube_sp_quota *q)
{
    memset(q, 0, sizeof *q);
    for (int r = 0; r < CUBE_SP_NRES; r++)
        q->max.v[r] = CUBE_SP_UNLIMITED;
}

int cube_sp_quota_set(struct cube_sched_policy *p, const char *project,
                      const char *pool_name, const struct cube_sp_quota *q)
{
    struct sp_project *pr = project ? cube_strmap_get(p->projects, project) : NULL;
    if (!pr)
        return sp_fail(p, CUBE_ENOTFOUND, "unknown project \"%s\"", project ? project : "");
    for (int r = 0; r < CUBE_SP_NRES; r++) {
        if (q->guaranteed.v[r] < 0 || q->max.v[r] < 0)
            return sp_fail(p, CUBE_EINVAL, "negative quota of %s",
                           r < p->n_res ? p->res_name[r] : "an unused slot");
        if (q->guaranteed.v[r] > q->max.v[r])
            return sp_fail(p, CUBE_EINVAL, "guaranteed %s above its max",
                           r < p->n_res ? p->res_name[r] : "slot");
    }
    struct sp_pool *pool = sp_pool_get(p, pool_name, true);
    struct sp_pq *pq = pool ? sp_pq_get(p, pr, pool) : NULL;
    if (!pq)
        return sp_fail(p, CUBE_ENOMEM, "out of memory");
    pq->guar = q->guaranteed;
    pq->max = q->max;
    pq->has_quota = true;
    return CUBE_OK;
}

/* -- queries -------------------------------------------------------------- */

int cube_sp_job_info(const struct cube_sched_policy *p, const char *id,
                     struct cube_sp_job_info *out, char *reason, size_t len)
{
    struct sp_job *j = id ? cube_strmap_get(p->jobs, id) : NULL;
    if (!j)
        return CUBE_ENOTFOUND;
    memset(out, 0, sizeof *out);
    out->state = j->state == SP_RUNNING ? CUBE_SP_RUNNING : CUBE_SP_PENDING;
    out->pool = j->pq->pool->name;
    if (j->state == SP_RUNNING) {
        out->preempted_by = j->preemptor ? j->preemptor->id : NULL;
    } else {
        out->position = j->pos;
        out->victims = (unsigned)j->n_victims;
        out->holds_reservation = j->n_resv > 0;
    }
    if (reason && len) {
        reason[0] = '\0';
        if (j->state == SP_PENDING)
            sp_reason_text(p, j, reason, len);
    }
    return CUBE_OK;
}

int cube_sp_usage(const struct cube_sched_policy *p, const char *project,
                  const char *pool_name, struct cube_sp_usage *out)
{
    struct sp_project *pr = project ? cube_strmap_get(p->projects, project) : NULL;
    struct sp_pool *pool = cube_strmap_get(p->pools, pool_name && *pool_name ? pool_name
                                                                 : CUBE_SP_DEFAULT_POOL);
    if (!pr || !pool)
        return CUBE_ENOTFOUND;
    memset(out, 0, sizeof *out);
    out->capacity = pool->cap;
    out->dominant_resource = -1;
    for (size_t i = 0; i < pr->n_pqs; i++) {
        struct sp_pq *pq = pr->pqs[i];
        if (pq->pool != pool)
            continue;
        out->used = pq->used;
        out->guaranteed = pq->guar;
        out->max = pq->max;
        out->pending = pq->n_pending;
        out->running = pq->n_running;
        double best = 0;
        for (int r = 0; r < CUBE_SP_NRES; r++)
            if (pool->cap.v[r] > 0 && pq->used.v[r] > 0) {
                double s = (double)pq->used.v[r] / (double)pool->cap.v[r];
                if (s > best) {
                    best = s;
                    out->dominant_resource = r;
                }
            }
        out->dominant_share = best / pr->weight;
    }
    return CUBE_OK;
}

void cube_sp_stats(const struct cube_sched_policy *p, struct cube_sp_stats *out)
{
    memset(out, 0, sizeof *out);
    out->cycles = p->cycles;
    out->decisions = p->decisions;
    out->admitted = p->admitted;
    out->waiting = p->waiting;
    out->preemptions = p->preemptions;
    out->decision_p50_ns = sp_hist_quantile(p->hist, 0.50);
    out->decision_p99_ns = sp_hist_quantile(p->hist, 0.99);
    out->decision_max_ns = sp_hist_quantile(p->hist, 1.0);
    out->admission_p99_ns = sp_hist_quantile(p->ahist, 0.99);
    out->pending = p->n_pending;
    out->running = p->n_running;
    out->nodes = cube_strmap_size(p->nodes);
}
