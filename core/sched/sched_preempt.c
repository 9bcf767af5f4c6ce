/* sched_preempt.c — reservations (the head job's room, a preemptor's
 * room) and the search for preemption victims (sched_policy.h). */
#include "sched_priv.h"

#include <stdlib.h>
#include <string.h>

/* -- reservations --------------------------------------------------------- */

void sp_resv_drop(struct cube_sched_policy *p, struct sp_job *j)
{
    if (!j->n_resv)
        return;
    sp_memo_clear(p);
    j->pq->pool->drop_rank = j->pq->pool->rank;
    for (size_t i = 0; i < j->n_resv; i++) {
        struct sp_node *n = j->resv[i].node;
        if (n->resv_owner != j)
            continue;
        n->resv_owner = NULL;
        memset(&n->resv, 0, sizeof n->resv);
        memset(&n->bf, 0, sizeof n->bf);
        n->resv_devs = 0;
        n->epoch++;
    }
    free(j->resv);
    j->resv = NULL;
    j->n_resv = 0;
}

/* Adds amount and devs on n to the list being built for j. */
static int resv_add(struct sp_resv **v, size_t *nv, struct sp_node *n,
                    const sp_res *amount, uint64_t devs)
{
    size_t i = 0;
    while (i < *nv && (*v)[i].node != n)
        i++;
    if (i == *nv) {
        struct sp_resv *nvv = realloc(*v, (*nv + 1) * sizeof *nvv);
        if (!nvv)
            return -1;
        *v = nvv;
        memset(&nvv[i], 0, sizeof nvv[i]);
        nvv[i].node = n;
        (*nv)++;
    }
    for (int r = 0; r < CUBE_SP_NRES; r++)
        (*v)[i].amount.v[r] += amount->v[r];
    (*v)[i].devs |= devs;
    return 0;
}

/* Makes v (n entries, owned) j's reservation and marks its nodes. */
static void resv_set(struct cube_sched_policy *p, struct sp_job *j, struct sp_resv *v,
                     size_t n)
{
    sp_resv_drop(p, j);
    j->resv = v;
    j->n_resv = n;
    for (size_t i = 0; i < n; i++) {
        struct sp_node *nd = v[i].node;
        nd->resv_owner = j;
        nd->resv = v[i].amount;
        nd->resv_devs = v[i].devs;
        memset(&nd->bf, 0, sizeof nd->bf);
        nd->epoch++;
    }
}

/* The devices j would take on n for one more replica, given `taken`
 * already reserved there for it: free ones first. false: cannot ever. */
static bool resv_devs(const struct sp_node *n, const struct sp_job *j, uint64_t taken,
                      uint64_t *out)
{
    uint64_t free = sp_unused(n);
    *out = 0;
    for (unsigned i = 0; i < j->n_ext; i++) {
        const struct sp_ereq *e = &j->ext[i];
        uint64_t cand = sp_serving(n, e, taken | *out), got;
        unsigned k = e->milli >= 1000 ? (unsigned)e->milli / 1000 : 1;
        bool perfect;
        if ((unsigned)__builtin_popcountll(cand) < k)
            return false;
        if (e->milli >= 1000 && sp_pick_whole(n, e, cand & free, &got, &perfect)) {
            *out |= got;
            continue;
        }
        got = cand & free;   /* every free one, then the least used */
        while ((unsigned)__builtin_popcountll(got) > k)
            got &= got - 1;
        for (unsigned have = (unsigned)__builtin_popcountll(got); have < k; have++) {
            int best = -1;
            for (uint64_t m = cand & ~got; m; m &= m - 1) {
                int d = __builtin_ctzll(m);
                if (best < 0 || n->devs[d].used < n->devs[best].used)
                    best = d;
            }
            got |= UINT64_C(1) << best;
        }
        *out |= got;
    }
    return true;
}

/* 1 when n can hold one more replica of head j, besides what v reserves
 * there already for it (capacity, labels, devices: see resv_devs). */
static bool resv_fits(const struct sp_node *n, const struct sp_job *j,
                      const struct sp_resv *v, size_t nv, uint64_t *devs)
{
    if (n->resv_owner && n->resv_owner != j)
        return false;
    size_t i = 0;
    while (i < nv && v[i].node != n)
        i++;
    const struct sp_resv *had = i < nv ? &v[i] : NULL;
    bool room = sp_labels_match(n, j);
    for (int r = 0; r < 2 && room; r++)
        room = n->cap.v[r] - (had ? had->amount.v[r] : 0) >= j->req.v[r];
    return room && resv_devs(n, j, had ? had->devs : 0, devs);
}

/* A node for one more replica of head j (most free devices first, not
 * reserved by another job, capacity enough besides what j reserved). */
static struct sp_node *resv_node(struct sp_job *j,
                                 struct sp_resv *v, size_t nv, uint64_t *devs)
{
    for (int b = SP_NBUCKET - 1; b >= 0; b--)
        for (struct sp_class *c = j->pq->pool->classes; c; c = c->next) {
            if (!c->levels[b] || !sp_class_match(c, j))
                continue;
            for (int l = SP_NLEVEL - 1; l >= 0; l--)
                for (struct sp_node *n = c->whole[b][l].head; n; n = n->bnext)
                    if (resv_fits(n, j, v, nv, devs))
                        return n;
        }
    return NULL;
}

int sp_resv_head(struct cube_sched_policy *p, struct sp_job *j)
{
    struct sp_resv *v = NULL;
    size_t nv = 0;
    sp_resv_drop(p, j);
    for (unsigned i = 0; i < j->replicas; i++) {
        uint64_t devs;
        struct sp_node *n = resv_node(j, v, nv, &devs);
        if (!n) {
            free(v);
            return 0;
        }
        if (resv_add(&v, &nv, n, &j->req, devs) < 0) {
            free(v);
            return -1;
        }
    }
    resv_set(p, j, v, nv);
    return 1;
}

/* -- victims -------------------------------------------------------------- */

void sp_victim_gone(struct sp_job *v)
{
    struct sp_job *h = v->preemptor;
    for (size_t i = 0; h && i < h->n_victims; i++)
        if (h->victims[i] == v) {
            h->victims[i] = h->victims[--h->n_victims];
            break;
        }
    v->preemptor = NULL;
}

void sp_victims_forget(struct sp_job *j)
{
    for (size_t i = 0; i < j->n_victims; i++)
        j->victims[i]->preemptor = NULL;
    free(j->victims);
    j->victims = NULL;
    j->n_victims = 0;
}

/* 1 when r is a resource reclaim looks at for j: the extended resources
 * it asks for, or cpu and memory when it asks for none. */
static bool relevant(const struct sp_job *j, int r)
{
    return j->n_ext ? r >= 2 && j->req.v[r] > 0 : r < 2 && j->req.v[r] > 0;
}

/* 1 when j's project stays within its guarantee if j runs. */
static bool within_guarantee(const struct sp_job *j)
{
    for (int r = 0; r < CUBE_SP_NRES; r++)
        if (relevant(j, r) && j->pq->used.v[r] + j->req.v[r] * j->replicas > j->pq->guar.v[r])
            return false;
    return true;
}

/* 1 when pq uses more than its guarantee of something j needs. */
static bool borrowing(const struct sp_pq *pq, const struct sp_job *j)
{
    for (int r = 0; r < CUBE_SP_NRES; r++)
        if (relevant(j, r) && pq->used.v[r] > pq->guar.v[r])
            return true;
    return false;
}

bool sp_may_preempt(const struct sp_job *j, bool quota_blocked)
{
    for (int r = 0; quota_blocked && r < CUBE_SP_NRES; r++)
        if (j->req.v[r] * j->replicas > j->pq->max.v[r])
            return false;   /* over its max on its own: nobody can help */
    for (int pr = 0; pr < j->prio; pr++)
        if (j->pq->run[pr])
            return true;
    if (quota_blocked || !within_guarantee(j))
        return false;
    const struct sp_pool *pool = j->pq->pool;
    for (size_t i = 0; i < pool->n_pqs; i++)
        if (pool->pqs[i] != j->pq && pool->pqs[i]->n_running && borrowing(pool->pqs[i], j))
            return true;
    return false;
}

static bool quota_ok(const struct sp_job *j)
{
    for (int r = 0; r < CUBE_SP_NRES; r++)
        if (j->req.v[r] && j->pq->used.v[r] + j->req.v[r] * j->replicas > j->pq->max.v[r])
            return false;
    return j->pq->has_quota;
}

struct cands {
    struct sp_job *v[SP_PREEMPT_CANDIDATES];
    size_t n;
};

static void collect_list(struct cands *c, struct sp_job *run)
{
    for (struct sp_job *v = run; v && c->n < SP_PREEMPT_CANDIDATES; v = v->rnext)
        if (!v->preemptor)
            c->v[c->n++] = v;
}

static int cmp_victim(const void *a, const void *b)
{
    const struct sp_job *x = *(struct sp_job *const *)a, *y = *(struct sp_job *const *)b;
    if (x->prio != y->prio)
        return x->prio - y->prio;
    return (x->admit_seq < y->admit_seq) - (x->admit_seq > y->admit_seq);
}

/* Running jobs j may preempt, cheapest first. */
static void collect(struct cands *c, struct sp_job *j, bool quota_blocked)
{
    c->n = 0;
    for (int pr = 0; pr < j->prio; pr++)
        collect_list(c, j->pq->run[pr]);
    if (!quota_blocked && within_guarantee(j)) {
        struct sp_pool *pool = j->pq->pool;
        for (size_t i = 0; i < pool->n_pqs; i++)
            if (pool->pqs[i] != j->pq && borrowing(pool->pqs[i], j))
                for (int pr = 0; pr < SP_NPRIO; pr++)
                    collect_list(c, pool->pqs[i]->run[pr]);
    }
    if (c->n > 1)
        qsort(c->v, c->n, sizeof c->v[0], cmp_victim);
}

/* 1 when j fits (quota and room) with the current state; undone. */
static int fits(struct cube_sched_policy *p, struct sp_job *j)
{
    static const struct sp_opts avoid = {.avoid_reserved = true};
    if (!quota_ok(j))
        return 0;
    int rc = sp_place(p, j, &avoid);
    if (rc == 1)
        sp_unplace(j);
    return rc;
}

/* Takes victims off greedily until j fits; how many were taken (0: none
 * suffice, all put back). *rc -1 when out of memory. */
static size_t greedy(struct cube_sched_policy *p, struct sp_job *j, struct cands *c, int *rc)
{
    size_t k = 0;
    for (size_t i = 0; i < c->n; i++) {
        struct sp_job *v = c->v[i];
        if (v->pq != j->pq && !borrowing(v->pq, j))
            continue;   /* that project is back within its guarantee */
        sp_job_unapply(v);
        c->v[k++] = v;
        if ((*rc = fits(p, j)) != 0)
            break;
    }
    if (*rc == 1)
        return k;
    while (k-- > 0)
        sp_job_apply(c->v[k]);
    return 0;
}

/* Builds j's reservation from where it would go now (victims off). */
static int resv_from_place(struct cube_sched_policy *p, struct sp_job *j)
{
    static const struct sp_opts avoid = {.avoid_reserved = true};
    struct sp_resv *v = NULL;
    size_t nv = 0;
    int rc = sp_place(p, j, &avoid);
    for (unsigned i = 0; rc == 1 && i < j->replicas; i++) {
        const struct sp_alloc *a = &j->allocs[i];
        uint64_t devs = a->devs | (a->frac_dev >= 0 ? UINT64_C(1) << a->frac_dev : 0);
        if (resv_add(&v, &nv, a->node, &a->amount, devs) < 0)
            rc = -1;
    }
    if (j->allocs)
        sp_unplace(j);
    if (rc == 1)
        resv_set(p, j, v, nv);
    else
        free(v);
    return rc;
}

/* Records the orders: victims[0..k) stop for j. */
static int order(struct cube_sched_policy *p, struct sp_job *j, struct sp_job **victims,
                 size_t k)
{
    if (p->n_pre + k > p->cap_pre) {
        size_t cap = (p->n_pre + k) * 2;
        struct cube_sp_preemption *v = realloc(p->pre, cap * sizeof *v);
        if (!v)
            return -1;
        p->pre = v;
        p->cap_pre = cap;
    }
    sp_victims_forget(j);   /* an empty list left by earlier victims */
    if (!(j->victims = malloc(k * sizeof *j->victims)))
        return -1;
    for (size_t i = 0; i < k; i++) {
        victims[i]->preemptor = j;
        j->victims[i] = victims[i];
        p->pre[p->n_pre++] = (struct cube_sp_preemption){
            victims[i]->id, j->id,
            victims[i]->pq == j->pq ? CUBE_SP_BY_PRIORITY : CUBE_SP_BY_RECLAIM};
    }
    j->n_victims = k;
    p->preemptions += k;
    return 0;
}

int sp_preempt(struct cube_sched_policy *p, struct sp_job *j, bool quota_blocked)
{
    struct cands *c = NULL;
    int rc = 0;
    size_t k;
    if (!j->pq->pool->preempt_budget)
        return 0;
    j->pq->pool->preempt_budget--;
    if (!(c = malloc(sizeof *c)))
        return -1;
    collect(c, j, quota_blocked);
    if (!(k = greedy(p, j, c, &rc)))
        goto out;
    /* Prune: put back every victim j can do without (latest first). */
    for (size_t i = k - 1; i-- > 0;) {
        sp_job_apply(c->v[i]);
        if (fits(p, j) == 1)
            c->v[i] = NULL;              /* not needed: stays where it is */
        else
            sp_job_unapply(c->v[i]);
    }
    size_t m = 0;
    for (size_t i = 0; i < k; i++)
        if (c->v[i])
            c->v[m++] = c->v[i];
    k = m;
    rc = resv_from_place(p, j);
    for (size_t i = 0; i < k; i++)
        sp_job_apply(c->v[i]);
    if (rc == 1 && order(p, j, c->v, k) < 0)
        rc = -1;
out:
    free(c);
    return rc < 0 ? -1 : rc;
}
