/* test_sched_policy_fx.c — fixtures of the policy engine's tests (see
 * test_sched_policy.h), and the bookkeeping checks that look inside. */
#include "test_sched_policy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched/sched_priv.h"

struct cube_sched_policy *fx_new(void)
{
    struct cube_sched_policy *p = cube_sp_new();
    assert_non_null(p);
    assert_int_equal(cube_sp_resource_add(p, GPU), 2);
    return p;
}

void fx_node(struct cube_sched_policy *p, const char *name, const char *pool, int ngpu,
             const char *model, ...)
{
    struct cube_sp_device devs[CUBE_SP_MAX_DEVICES];
    struct cube_sp_label labels[8];
    char ids[CUBE_SP_MAX_DEVICES][16];
    size_t nl = 0;
    va_list ap;
    va_start(ap, model);
    const char *k;
    while (nl < 8 && (k = va_arg(ap, const char *))) {
        labels[nl].key = k;
        labels[nl++].value = va_arg(ap, const char *);
    }
    va_end(ap);
    for (int i = 0; i < ngpu; i++) {
        snprintf(ids[i], sizeof ids[i], "%d", i);
        devs[i] = (struct cube_sp_device){ids[i], GPU, model ? model : "H200",
                                          i < ngpu / 2 ? "nvl-0" : "nvl-1", 141 * GI,
                                          i < ngpu / 2 ? 0 : 1, 1};
    }
    struct cube_sp_node n = {name, pool, labels, nl, 64000, 512 * GI, devs, (size_t)ngpu, 0, NULL};
    assert_int_equal(cube_sp_node_set(p, &n, NULL, NULL), CUBE_OK);
}

void fx_project(struct cube_sched_policy *p, const char *name, double guar, double max)
{
    struct cube_sp_quota q;
    cube_sp_quota_init(&q);
    q.guaranteed.v[2] = (int64_t)(guar * 1000);
    if (max >= 0)
        q.max.v[2] = (int64_t)(max * 1000);
    assert_int_equal(cube_sp_project_set(p, name, 1), CUBE_OK);
    assert_int_equal(cube_sp_quota_set(p, name, NULL, &q), CUBE_OK);
}

int fx_submit(struct cube_sched_policy *p, const char *id, const char *project, int prio,
              int64_t gpu_milli, unsigned replicas)
{
    struct cube_sp_ext e = {GPU, gpu_milli, 0, NULL};
    struct cube_sp_job j = {.id = id, .project = project, .priority = prio,
                            .replicas = replicas, .ext = gpu_milli ? &e : NULL,
                            .n_ext = gpu_milli ? 1 : 0};
    return cube_sp_submit(p, &j);
}

const struct cube_sp_result *fx_decide(struct cube_sched_policy *p)
{
    const struct cube_sp_result *r = NULL;
    assert_int_equal(cube_sp_decide(p, &r), CUBE_OK);
    assert_non_null(r);
    fx_invariants(p);
    return r;
}

const struct cube_sp_admission *fx_adm(const struct cube_sp_result *r, const char *id)
{
    for (size_t i = 0; i < r->n_admitted; i++)
        if (strcmp(r->admitted[i].job, id) == 0)
            return &r->admitted[i];
    return NULL;
}

const char *fx_reason(struct cube_sched_policy *p, const char *id)
{
    static char buf[512];
    struct cube_sp_job_info info;
    assert_int_equal(cube_sp_job_info(p, id, &info, buf, sizeof buf), CUBE_OK);
    return buf;
}

int fx_state(struct cube_sched_policy *p, const char *id)
{
    struct cube_sp_job_info info;
    return cube_sp_job_info(p, id, &info, NULL, 0) == CUBE_OK ? info.state : 0;
}

int64_t fx_used_gpu(struct cube_sched_policy *p, const char *project)
{
    struct cube_sp_usage u;
    assert_int_equal(cube_sp_usage(p, project, NULL, &u), CUBE_OK);
    return u.used.v[2];
}

/* -- invariants ----------------------------------------------------------- */

static int node_check(void *cls, const char *key, void *value)
{
    (void)cls;
    (void)key;
    const struct sp_node *n = value;
    sp_res used = {{0}};
    int32_t dev[CUBE_SP_MAX_DEVICES] = {0}, mem[CUBE_SP_MAX_DEVICES] = {0};
    for (const struct sp_alloc *a = n->allocs; a; a = a->nnext) {
        assert_ptr_equal(a->node, n);
        for (int r = 0; r < CUBE_SP_NRES; r++)
            used.v[r] += a->amount.v[r];
        for (unsigned i = 0; i < n->n_dev; i++)
            if (a->devs >> i & 1) {
                assert_int_equal(dev[i], 0);
                dev[i] = mem[i] = 1000;
            }
        if (a->frac_dev >= 0) {
            dev[a->frac_dev] += a->share;
            mem[a->frac_dev] += a->mem_share;
        }
    }
    assert_memory_equal(&used, &n->used, sizeof used);
    for (unsigned i = 0; i < n->n_dev; i++) {
        assert_int_equal(dev[i], n->devs[i].used);
        assert_int_equal(mem[i], n->devs[i].mem_used);
        assert_true(dev[i] <= 1000 && mem[i] <= 1000);
    }
    assert_int_equal(n->bkey, (int)sp_node_free_primary(n));
    assert_int_equal(n->ckey, sp_cpu_level(n->cap.v[0] - n->used.v[0]));
    assert_true(n->cls->levels[n->bkey] >> n->ckey & 1);
    const struct sp_node *m = n->cls->whole[n->bkey][n->ckey].head;
    while (m && m != n)
        m = m->bnext;
    assert_ptr_equal(m, n);
    return 0;
}

static int job_check(void *cls, const char *key, void *value)
{
    (void)key;
    struct sp_job *j = value;
    sp_res *sum = cls;
    if (j->state != SP_RUNNING)
        return 0;
    for (unsigned i = 0; i < j->replicas; i++)
        if (j->allocs[i].node)
            for (int r = 0; r < CUBE_SP_NRES; r++)
                sum[j->pq->order].v[r] += j->allocs[i].amount.v[r];
    return 0;
}

void fx_invariants(struct cube_sched_policy *p)
{
    sp_res *sum = calloc(p->n_pq_made + 1, sizeof *sum);
    assert_non_null(sum);
    cube_strmap_each(p->nodes, node_check, NULL);
    cube_strmap_each(p->jobs, job_check, sum);
    for (size_t i = 0; i < p->n_pools; i++)
        for (size_t k = 0; k < p->pool_v[i]->n_pqs; k++) {
            const struct sp_pq *pq = p->pool_v[i]->pqs[k];
            assert_memory_equal(&sum[pq->order], &pq->used, sizeof pq->used);
        }
    free(sum);
}

struct missed {
    struct cube_sched_policy *p;
    size_t n;
};

static int missed_check(void *cls, const char *key, void *value)
{
    (void)key;
    struct missed *m = cls;
    struct sp_job *j = value;
    static const struct sp_opts plain = {0};
    /* Room a reservation freed after j's decision is offered next cycle. */
    if (j->state != SP_PENDING || j->n_resv || j->pos <= j->pq->pool->drop_rank ||
        (j->reason.why != W_NOFIT && j->reason.why != W_NEVER))
        return 0;
    if (sp_place(m->p, j, &plain) == 1) {
        sp_unplace(j);
        m->n++;
    }
    return 0;
}

size_t fx_missed(struct cube_sched_policy *p)
{
    struct missed m = {p, 0};
    cube_strmap_each(p->jobs, missed_check, &m);
    return m.n;
}

