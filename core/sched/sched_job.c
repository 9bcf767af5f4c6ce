/* sched_job.c — jobs of the policy engine: checking a request, submit,
 * cancel, release and restore (sched_policy.h). */
#include "sched_priv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SP_AMOUNT_MAX (INT64_C(1) << 52) /* per replica, any unit */

void sp_job_free(struct sp_job *j)
{
    if (!j)
        return;
    free(j->id);
    free(j->allocs);
    free(j->sel);
    free(j->resv);
    free(j->victims);
    free(j);
}

int sp_queue_push(struct sp_queue *q, struct sp_job *j)
{
    if (q->n == q->cap) {
        size_t cap = q->cap ? q->cap * 2 : 16;
        struct sp_job **v = realloc(q->v, cap * sizeof *v);
        if (!v)
            return -1;
        q->v = v;
        q->cap = cap;
    }
    if (q->n && q->v[q->n - 1]->seq > j->seq)
        q->dirty = true;
    q->v[q->n++] = j;
    return 0;
}

void sp_run_unlink(struct sp_job *j)
{
    if (j->rprev)
        j->rprev->rnext = j->rnext;
    else
        j->pq->run[j->prio] = j->rnext;
    if (j->rnext)
        j->rnext->rprev = j->rprev;
    j->rprev = j->rnext = NULL;
}

void sp_run_link(struct cube_sched_policy *p, struct sp_job *j)
{
    j->state = SP_RUNNING;
    j->admit_seq = ++p->next_admit;
    j->rprev = NULL;
    j->rnext = j->pq->run[j->prio];
    if (j->rnext)
        j->rnext->rprev = j;
    j->pq->run[j->prio] = j;
    j->pq->n_running++;
    p->n_running++;
}

static int cmp_kv(const void *a, const void *b)
{
    const struct sp_kv *x = a, *y = b;
    return x->key != y->key ? (x->key > y->key) - (x->key < y->key)
                            : (x->value > y->value) - (x->value < y->value);
}

/* Checks one extended request and fills e. */
static int ext_check(struct cube_sched_policy *p, const struct cube_sp_ext *x,
                     struct sp_ereq *e)
{
    int r = x->resource ? cube_sp_resource_index(p, x->resource) : CUBE_ENOTFOUND;
    if (r < 0)
        return sp_fail(p, CUBE_EINVAL, "unknown resource \"%s\"",
                       x->resource ? x->resource : "");
    if (r < 2)
        return sp_fail(p, CUBE_EINVAL, "%s is not an extended resource", x->resource);
    if (x->milli <= 0)
        return sp_fail(p, CUBE_EINVAL, "%s: amount must be positive", x->resource);
    if (x->milli >= 1000 && x->milli % 1000)
        return sp_fail(p, CUBE_EINVAL, "%s: a share must be below one device, or whole "
                       "devices (got %lld.%03lld)", x->resource,
                       (long long)(x->milli / 1000), (long long)(x->milli % 1000));
    if (x->milli > 1000LL * CUBE_SP_MAX_DEVICES)
        return sp_fail(p, CUBE_ETOOBIG, "%s: more than %d devices per replica",
                       x->resource, CUBE_SP_MAX_DEVICES);
    if (x->mem_milli < 0 || x->mem_milli > 1000)
        return sp_fail(p, CUBE_EINVAL, "%s: memory fraction must be within 0..1",
                       x->resource);
    int model = sp_intern(p, x->model);
    if (model < 0)
        return sp_fail(p, CUBE_ENOMEM, "out of memory");
    e->res = r;
    e->milli = (int32_t)x->milli;
    e->mem_milli = x->milli >= 1000 ? 1000 : (int32_t)(x->mem_milli ? x->mem_milli : x->milli);
    e->model = model;
    return CUBE_OK;
}

/* Checks the scalar fields of a request. */
static int spec_check(struct cube_sched_policy *p, const struct cube_sp_job *s)
{
    if (!s->id || !*s->id)
        return sp_fail(p, CUBE_EINVAL, "job id is empty");
    if (s->priority < CUBE_SP_LOW || s->priority > CUBE_SP_HIGH)
        return sp_fail(p, CUBE_EINVAL, "job %s: priority %d is not 0 (low), 1 (normal) "
                       "or 2 (high)", s->id, s->priority);
    if (s->replicas < 1 || s->replicas > CUBE_SP_MAX_REPLICAS)
        return sp_fail(p, CUBE_EINVAL, "job %s: replicas must be within 1..%d (got %u)",
                       s->id, CUBE_SP_MAX_REPLICAS, s->replicas);
    if (s->cpu_milli < 0 || s->memory < 0 || s->cpu_milli > SP_AMOUNT_MAX ||
        s->memory > SP_AMOUNT_MAX)
        return sp_fail(p, CUBE_EINVAL, "job %s: cpu and memory must be within 0..2^52",
                       s->id);
    if (s->n_ext > CUBE_SP_MAX_EXT || (s->n_ext && !s->ext))
        return sp_fail(p, CUBE_EINVAL, "job %s: at most %d extended resources", s->id,
                       CUBE_SP_MAX_EXT);
    if (s->n_selector && !s->selector)
        return sp_fail(p, CUBE_EINVAL, "job %s: selector missing", s->id);
    if (cube_strmap_get(p->jobs, s->id))
        return sp_fail(p, CUBE_EEXIST, "job %s already exists", s->id);
    return CUBE_OK;
}

/* Fills the request part of j (extended requests and selector). */
static int job_request(struct cube_sched_policy *p, const struct cube_sp_job *s,
                       struct sp_job *j)
{
    int rc, fractional = 0;
    j->req.v[CUBE_SP_CPU] = s->cpu_milli;
    j->req.v[CUBE_SP_MEMORY] = s->memory;
    for (size_t i = 0; i < s->n_ext; i++) {
        struct sp_ereq *e = &j->ext[j->n_ext];
        if ((rc = ext_check(p, &s->ext[i], e)) < 0)
            return rc;
        if (j->req.v[e->res])
            return sp_fail(p, CUBE_EINVAL, "job %s: %s requested twice", s->id,
                           s->ext[i].resource);
        if (e->milli < 1000 && fractional++)
            return sp_fail(p, CUBE_EINVAL, "job %s: at most one fractional device "
                           "share per replica", s->id);
        j->req.v[e->res] = e->milli;
        j->n_ext++;
    }
    if (s->n_selector && !(j->sel = calloc(s->n_selector, sizeof *j->sel)))
        return sp_fail(p, CUBE_ENOMEM, "out of memory");
    for (size_t i = 0; i < s->n_selector; i++) {
        const struct sp_kv kv = {sp_intern(p, s->selector[i].key),
                                 sp_intern(p, s->selector[i].value)};
        if (kv.key < 0 || kv.value < 0)
            return sp_fail(p, CUBE_ENOMEM, "out of memory");
        if (kv.key == 0)
            return sp_fail(p, CUBE_EINVAL, "job %s: empty selector key", s->id);
        j->sel[j->n_sel++] = kv;
    }
    if (j->n_sel)
        qsort(j->sel, j->n_sel, sizeof *j->sel, cmp_kv);
    return CUBE_OK;
}

/* Makes a pending job from a request; *out is NULL on error. */
static int job_build(struct cube_sched_policy *p, const struct cube_sp_job *s,
                     struct sp_job **out)
{
    int rc;
    *out = NULL;
    if ((rc = spec_check(p, s)) < 0)
        return rc;
    struct sp_project *pr = s->project ? cube_strmap_get(p->projects, s->project) : NULL;
    if (!pr)
        return sp_fail(p, CUBE_ENOTFOUND, "job %s: unknown project \"%s\"", s->id,
                       s->project ? s->project : "");
    struct sp_pool *pool = sp_pool_get(p, s->pool, false);
    if (!pool)
        return sp_fail(p, CUBE_ENOTFOUND, "job %s: unknown pool \"%s\"", s->id, s->pool);
    struct sp_job *j = calloc(1, sizeof *j);
    if (!j || !(j->id = strdup(s->id)) || !(j->pq = sp_pq_get(p, pr, pool))) {
        rc = sp_fail(p, CUBE_ENOMEM, "out of memory");
        goto fail;
    }
    j->prio = s->priority;
    j->replicas = s->replicas;
    j->seq = s->seq ? s->seq : p->next_seq;
    if (j->seq >= p->next_seq)
        p->next_seq = j->seq + 1;
    if ((rc = job_request(p, s, j)) < 0)
        goto fail;
    j->shape = sp_shape_hash(j);
    *out = j;
    return CUBE_OK;
fail:
    sp_job_free(j);
    return rc;
}

/* CUBE_OK when some node of the pool could ever hold a replica (or the
 * pool has none); else CUBE_ETOOBIG with what is too large. */
static int fit_check(struct cube_sched_policy *p, const struct sp_job *j)
{
    struct sp_pool *pool = j->pq->pool;
    sp_res most = {{0}};
    bool matched = false;
    if (!pool->n_nodes || sp_pool_could_hold(j))
        return CUBE_OK;
    int miss = sp_selector_missing(j);
    if (miss >= 0)
        return sp_fail(p, CUBE_ETOOBIG, "job %s: no node of pool %s has label %s=%s",
                       j->id, pool->name, p->str[j->sel[miss].key],
                       p->str[j->sel[miss].value]);
    for (const struct sp_class *c = pool->classes; c; c = c->next)
        if (c->n_nodes && sp_class_match(c, j)) {
            matched = true;
            for (int r = 0; r < CUBE_SP_NRES; r++)
                most.v[r] = c->max_cap.v[r] > most.v[r] ? c->max_cap.v[r] : most.v[r];
        }
    for (unsigned i = 0; !matched && i < j->n_ext; i++) {
        struct sp_job one = *j;      /* which request no class serves */
        one.ext[0] = j->ext[i];
        one.n_ext = 1;
        bool any = false;
        for (const struct sp_class *c = pool->classes; c && !any; c = c->next)
            any = c->n_nodes && sp_class_match(c, &one);
        if (!any)
            return sp_fail(p, CUBE_ETOOBIG, "job %s: no node of pool %s has %s%s%s", j->id,
                           pool->name, p->res_name[j->ext[i].res],
                           j->ext[i].model ? " of model " : " devices",
                           j->ext[i].model ? p->str[j->ext[i].model] : "");
    }
    for (int r = 0; r < p->n_res; r++) {
        char need[32], have[32];
        if (j->req.v[r] <= most.v[r] || (r >= 2 && j->req.v[r] < 1000 && most.v[r] >= 1000))
            continue;
        sp_fmt_amount(p, r, j->req.v[r], need, sizeof need);
        sp_fmt_amount(p, r, most.v[r], have, sizeof have);
        return sp_fail(p, CUBE_ETOOBIG, "job %s: %s %s per replica is more than any "
                       "node of pool %s has (largest: %s)", j->id, p->res_name[r], need,
                       pool->name, have);
    }
    return sp_fail(p, CUBE_ETOOBIG, "job %s: no node of pool %s has room for one replica "
                   "(cpu, memory and devices together)", j->id, pool->name);
}

int cube_sp_submit(struct cube_sched_policy *p, const struct cube_sp_job *s)
{
    struct sp_job *j;
    int rc = job_build(p, s, &j);
    if (rc < 0)
        return rc;
    if (!(s->flags & CUBE_SP_NO_FIT_CHECK) && (rc = fit_check(p, j)) < 0)
        goto fail;
    if (sp_queue_push(&j->pq->q[j->prio], j) < 0 ||
        cube_strmap_put(p->jobs, j->id, j, NULL) < 0) {
        rc = sp_fail(p, CUBE_ENOMEM, "out of memory");
        if (j->pq->q[j->prio].n && j->pq->q[j->prio].v[j->pq->q[j->prio].n - 1] == j)
            j->pq->q[j->prio].n--;
        goto fail;
    }
    j->state = SP_PENDING;
    j->pq->n_pending++;
    j->pq->proj->n_jobs++;
    p->n_pending++;
    return CUBE_OK;
fail:
    sp_job_free(j);
    return rc;
}

void sp_queue_compact(struct sp_queue *q)
{
    size_t w = 0;
    for (size_t i = 0; i < q->n; i++) {
        if (q->v[i]->state == SP_GONE)
            sp_job_free(q->v[i]);
        else
            q->v[w++] = q->v[i];
    }
    q->n = w;
    q->dead = 0;
}

int cube_sp_cancel(struct cube_sched_policy *p, const char *id)
{
    struct sp_job *j = id ? cube_strmap_get(p->jobs, id) : NULL;
    if (!j)
        return sp_fail(p, CUBE_ENOTFOUND, "unknown job \"%s\"", id ? id : "");
    if (j->state != SP_PENDING)
        return sp_fail(p, CUBE_ESTATE, "job %s is running: release it", id);
    sp_resv_drop(p, j);
    sp_victims_forget(j);
    if (j->pq->pool->head == j)
        j->pq->pool->head = NULL;
    cube_strmap_del(p->jobs, id);
    j->state = SP_GONE;
    j->pq->n_pending--;
    j->pq->proj->n_jobs--;
    p->n_pending--;
    struct sp_queue *q = &j->pq->q[j->prio];
    if (++q->dead > q->n / 2 + 16)
        sp_queue_compact(q);
    return CUBE_OK;
}

int cube_sp_release(struct cube_sched_policy *p, const char *id)
{
    struct sp_job *j = id ? cube_strmap_get(p->jobs, id) : NULL;
    if (!j)
        return sp_fail(p, CUBE_ENOTFOUND, "unknown job \"%s\"", id ? id : "");
    if (j->state != SP_RUNNING)
        return sp_fail(p, CUBE_ESTATE, "job %s is pending: cancel it", id);
    if (j->preemptor)
        sp_victim_gone(j);
    sp_job_unapply(j);
    sp_run_unlink(j);
    j->pq->n_running--;
    j->pq->proj->n_jobs--;
    p->n_running--;
    cube_strmap_del(p->jobs, id);
    sp_job_free(j);
    return CUBE_OK;
}

/* The device index of id on n, or -1. */
static int dev_find(const struct sp_node *n, const char *id)
{
    for (unsigned i = 0; id && i < n->n_dev; i++)
        if (strcmp(n->devs[i].id, id) == 0)
            return (int)i;
    return -1;
}

/* Fills and checks one restored device of allocation a. */
static int restore_dev(struct cube_sched_policy *p, const struct sp_job *j,
                       struct sp_alloc *a, const struct cube_sp_dev_alloc *d)
{
    const struct sp_node *n = a->node;
    int i = dev_find(n, d->id);
    if (i < 0)
        return sp_fail(p, CUBE_ENOTFOUND, "job %s: node %s has no device \"%s\"", j->id,
                       n->name, d->id ? d->id : "");
    const struct sp_dev *dv = &n->devs[i];
    int32_t share = d->share_milli ? d->share_milli
                    : (j->req.v[dv->res] > 0 && j->req.v[dv->res] < 1000
                       ? (int32_t)j->req.v[dv->res] : 1000);
    int32_t mem = d->mem_milli ? d->mem_milli : share;
    if (share <= 0 || share > 1000 || mem < 0 || mem > 1000)
        return sp_fail(p, CUBE_EINVAL, "job %s: share of device %s must be within 0..1",
                       j->id, d->id);
    bool clash = (a->devs >> i & 1) || a->frac_dev == i;
    if (share == 1000)
        clash = clash || dv->used || dv->mem_used;
    else
        clash = clash || a->frac_dev >= 0 || dv->used + share > 1000 ||
                dv->mem_used + mem > 1000;
    if (clash)
        return sp_fail(p, CUBE_ECONFLICT, "job %s: device %s of node %s is taken",
                       j->id, d->id, n->name);
    if (share == 1000) {
        a->devs |= UINT64_C(1) << i;
    } else {
        a->frac_dev = i;
        a->share = share;
        a->mem_share = mem;
    }
    a->amount.v[dv->res] += share;
    return CUBE_OK;
}

/* Fills allocation a of a restored replica and applies it. */
static int restore_replica(struct cube_sched_policy *p, struct sp_job *j,
                           struct sp_alloc *a, const struct cube_sp_replica *r)
{
    struct sp_node *n = r->node ? cube_strmap_get(p->nodes, r->node) : NULL;
    if (!n)
        return sp_fail(p, CUBE_ENOTFOUND, "job %s: unknown node \"%s\"", j->id,
                       r->node ? r->node : "");
    if (n->pool != j->pq->pool)
        return sp_fail(p, CUBE_ECONFLICT, "job %s: node %s is in pool %s, not %s", j->id,
                       n->name, n->pool->name, j->pq->pool->name);
    a->job = j;
    a->node = n;
    a->frac_dev = -1;
    a->amount.v[CUBE_SP_CPU] = j->req.v[CUBE_SP_CPU];
    a->amount.v[CUBE_SP_MEMORY] = j->req.v[CUBE_SP_MEMORY];
    for (size_t k = 0; k < r->n_devices; k++) {
        int rc = restore_dev(p, j, a, &r->devices[k]);
        if (rc < 0)
            return rc;
    }
    for (int k = 0; k < 2; k++)
        if (n->cap.v[k] - n->used.v[k] < a->amount.v[k])
            return sp_fail(p, CUBE_ECONFLICT, "job %s: node %s lacks the %s for it",
                           j->id, n->name, p->res_name[k]);
    sp_alloc_apply(a);
    return CUBE_OK;
}

int cube_sp_restore(struct cube_sched_policy *p, const struct cube_sp_job *s,
                    const struct cube_sp_replica *placement)
{
    struct sp_job *j;
    unsigned done = 0;
    int rc = job_build(p, s, &j);
    if (rc < 0)
        return rc;
    if (!placement) {
        rc = sp_fail(p, CUBE_EINVAL, "job %s: no placement", s->id);
        goto fail;
    }
    if (!(j->allocs = calloc(j->replicas, sizeof *j->allocs))) {
        rc = sp_fail(p, CUBE_ENOMEM, "out of memory");
        goto fail;
    }
    for (; done < j->replicas; done++)
        if ((rc = restore_replica(p, j, &j->allocs[done], &placement[done])) < 0)
            goto fail;
    if (cube_strmap_put(p->jobs, j->id, j, NULL) < 0) {
        rc = sp_fail(p, CUBE_ENOMEM, "out of memory");
        goto fail;
    }
    for (unsigned i = 0; i < j->replicas; i++)
        for (int r = 0; r < CUBE_SP_NRES; r++)
            j->pq->used.v[r] += j->allocs[i].amount.v[r];
    sp_run_link(p, j);
    j->pq->proj->n_jobs++;
    return CUBE_OK;
fail:
    while (done-- > 0)
        sp_alloc_unapply(&j->allocs[done]);
    sp_job_free(j);
    return rc;
}
