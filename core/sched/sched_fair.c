/* sched_fair.c — the scheduling cycle of the policy engine: per pool,
 * projects in dominant-share order (a heap), jobs by priority then FIFO,
 * one decision per pending job, with a memo of shapes found not to fit
 * (sched_policy.h: ORDER, RESERVATION AND BACKFILL). */
#include "sched_priv.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SP_HEAD_TRIES 4   /* reservations a pool tries per cycle */

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* -- shapes and the memo -------------------------------------------------- */

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    return h * 0xff51afd7ed558ccdULL;
}

uint64_t sp_shape_hash(const struct sp_job *j)
{
    uint64_t h = mix(0, j->replicas);
    for (int r = 0; r < CUBE_SP_NRES; r++)
        h = mix(h, (uint64_t)j->req.v[r]);
    for (unsigned i = 0; i < j->n_ext; i++)
        h = mix(mix(h, (uint64_t)j->ext[i].mem_milli), (uint64_t)j->ext[i].model);
    for (size_t i = 0; i < j->n_sel; i++)
        h = mix(mix(h, (uint64_t)j->sel[i].key), (uint64_t)j->sel[i].value);
    return h;
}

static bool shape_eq(const struct sp_job *a, const struct sp_job *b)
{
    if (a->replicas != b->replicas || a->n_ext != b->n_ext || a->n_sel != b->n_sel ||
        a->pq->pool != b->pq->pool || memcmp(&a->req, &b->req, sizeof a->req))
        return false;
    for (unsigned i = 0; i < a->n_ext; i++)
        if (a->ext[i].res != b->ext[i].res || a->ext[i].mem_milli != b->ext[i].mem_milli ||
            a->ext[i].model != b->ext[i].model)
            return false;
    return a->n_sel == 0 || memcmp(a->sel, b->sel, a->n_sel * sizeof *a->sel) == 0;
}

void sp_memo_clear(struct cube_sched_policy *p)
{
    if (++p->memo_gen == 0 && p->memo) {
        memset(p->memo, 0, p->memo_cap * sizeof *p->memo);
        p->memo_gen = 1;
    }
    p->memo_n = 0;
}

/* The job of j's shape that found no room this cycle, or NULL. */
static struct sp_job *memo_get(struct cube_sched_policy *p, const struct sp_job *j)
{
    size_t mask = p->memo_cap - 1;
    for (size_t i = j->shape & mask; p->memo_cap; i = (i + 1) & mask) {
        struct sp_memo_slot *s = &p->memo[i];
        if (s->gen != p->memo_gen)
            return NULL;
        if (s->shape == j->shape && shape_eq(s->rep, j))
            return s->rep;
    }
    return NULL;
}

/* Remembers that j's shape found no room (silently not when out of memory). */
static void memo_put(struct cube_sched_policy *p, struct sp_job *j)
{
    if (2 * (p->memo_n + 1) > p->memo_cap) {
        size_t cap = p->memo_cap ? 2 * p->memo_cap : 256;
        struct sp_memo_slot *old = p->memo, *v = calloc(cap, sizeof *v);
        if (!v)
            return;
        size_t old_cap = p->memo_cap;
        p->memo = v;
        p->memo_cap = cap;
        p->memo_n = 0;
        for (size_t i = 0; i < old_cap; i++)
            if (old[i].gen == p->memo_gen)
                memo_put(p, old[i].rep);
        free(old);
    }
    size_t i = j->shape & (p->memo_cap - 1);
    while (p->memo[i].gen == p->memo_gen)
        i = (i + 1) & (p->memo_cap - 1);
    p->memo[i] = (struct sp_memo_slot){j->shape, j, p->memo_gen};
    p->memo_n++;
}

/* -- the project heap (lowest dominant share on top) ---------------------- */

static bool before(const struct sp_pq *a, const struct sp_pq *b)
{
    return a->share < b->share || (a->share == b->share && a->order < b->order);
}

static void sift_down(struct cube_sched_policy *p, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, best = i;
        if (l < p->heap_n && before(p->heap[l], p->heap[best]))
            best = l;
        if (l + 1 < p->heap_n && before(p->heap[l + 1], p->heap[best]))
            best = l + 1;
        if (best == i)
            return;
        struct sp_pq *t = p->heap[i];
        p->heap[i] = p->heap[best];
        p->heap[best] = t;
        i = best;
    }
}

static int heap_build(struct cube_sched_policy *p, struct sp_pool *pool)
{
    if (pool->n_pqs > p->heap_cap) {
        struct sp_pq **v = realloc(p->heap, pool->n_pqs * sizeof *v);
        if (!v)
            return -1;
        p->heap = v;
        p->heap_cap = pool->n_pqs;
    }
    p->heap_n = 0;
    for (size_t i = 0; i < pool->n_pqs; i++)
        if (pool->pqs[i]->n_pending) {
            sp_pq_share(pool->pqs[i]);
            p->heap[p->heap_n++] = pool->pqs[i];
        }
    for (size_t i = p->heap_n / 2; i-- > 0;)
        sift_down(p, i);
    return 0;
}

/* -- queues --------------------------------------------------------------- */

static int cmp_seq(const void *a, const void *b)
{
    const struct sp_job *x = *(struct sp_job *const *)a, *y = *(struct sp_job *const *)b;
    if (x->seq != y->seq)
        return (x->seq > y->seq) - (x->seq < y->seq);
    return strcmp(x->id, y->id);
}

/* Readies a pq's queues for a pass: sorted, cursors at the start. */
static void queues_start(struct sp_pq *pq)
{
    for (int k = 0; k < SP_NPRIO; k++) {
        struct sp_queue *q = &pq->q[k];
        if (q->dirty) {
            sp_queue_compact(q);
            if (q->n > 1)
                qsort(q->v, q->n, sizeof *q->v, cmp_seq);
            q->dirty = false;
        }
        pq->qi[k] = pq->wi[k] = 0;
    }
}

/* The pq's next pending job (high priority first), or NULL when every
 * queue is done (then the queues keep only the jobs left waiting). */
static struct sp_job *queue_next(struct sp_pq *pq)
{
    for (int k = SP_NPRIO - 1; k >= 0; k--) {
        struct sp_queue *q = &pq->q[k];
        while (pq->qi[k] < q->n) {
            struct sp_job *j = q->v[pq->qi[k]++];
            if (j->state == SP_PENDING)
                return j;
            if (j->state == SP_GONE)
                sp_job_free(j);
        }
    }
    for (int k = 0; k < SP_NPRIO; k++) {
        pq->q[k].n = pq->wi[k];
        pq->q[k].dead = 0;
    }
    return NULL;
}

/* j stays in its queue (it is still pending). */
static void queue_keep(struct sp_job *j)
{
    j->pq->q[j->prio].v[j->pq->wi[j->prio]++] = j;
}

/* -- results -------------------------------------------------------------- */

/* Memory valid until the next cycle (bump allocation), or NULL. */
static void *arena_alloc(struct cube_sched_policy *p, size_t size)
{
    size = (size + 15) & ~(size_t)15;
    if (!p->n_arena || p->arena_used + size > p->arena_size) {
        size_t bs = size > 65536 ? size : 65536;
        if (p->n_arena == p->cap_arena) {
            size_t cap = p->cap_arena ? 2 * p->cap_arena : 16;
            void **v = realloc(p->arena, cap * sizeof *v);
            if (!v)
                return NULL;
            p->arena = v;
            p->cap_arena = cap;
        }
        if (!(p->arena[p->n_arena] = malloc(bs)))
            return NULL;
        p->n_arena++;
        p->arena_used = 0;
        p->arena_size = bs;
    }
    void *m = (char *)p->arena[p->n_arena - 1] + p->arena_used;
    p->arena_used += size;
    return m;
}

static void results_reset(struct cube_sched_policy *p)
{
    for (size_t i = 0; i < p->n_arena; i++)
        free(p->arena[i]);
    p->n_arena = p->arena_used = p->arena_size = 0;
    p->n_adm = p->n_pre = 0;
    memset(&p->result, 0, sizeof p->result);
}

/* Fills one replica's placement for the caller. */
static int replica_out(struct cube_sched_policy *p, const struct sp_alloc *a,
                       struct cube_sp_replica *out)
{
    const struct sp_node *n = a->node;
    size_t k = (size_t)__builtin_popcountll(a->devs) + (a->frac_dev >= 0), i = 0;
    struct cube_sp_dev_alloc *d = k ? arena_alloc(p, k * sizeof *d) : NULL;
    if (k && !d)
        return -1;
    for (uint64_t m = a->devs; m; m &= m - 1) {
        const struct sp_dev *dv = &n->devs[__builtin_ctzll(m)];
        d[i++] = (struct cube_sp_dev_alloc){dv->id, p->res_name[dv->res], 1000, 1000};
    }
    if (a->frac_dev >= 0) {
        const struct sp_dev *dv = &n->devs[a->frac_dev];
        d[i++] = (struct cube_sp_dev_alloc){dv->id, p->res_name[dv->res], a->share,
                                            a->mem_share};
    }
    *out = (struct cube_sp_replica){n->name, k, d};
    return 0;
}

static int admission_out(struct cube_sched_policy *p, const struct sp_job *j)
{
    if (p->n_adm == p->cap_adm) {
        size_t cap = p->cap_adm ? 2 * p->cap_adm : 64;
        struct cube_sp_admission *v = realloc(p->adm, cap * sizeof *v);
        if (!v)
            return -1;
        p->adm = v;
        p->cap_adm = cap;
    }
    struct cube_sp_replica *r = arena_alloc(p, j->replicas * sizeof *r);
    if (!r)
        return -1;
    for (unsigned i = 0; i < j->replicas; i++)
        if (replica_out(p, &j->allocs[i], &r[i]) < 0)
            return -1;
    p->adm[p->n_adm++] = (struct cube_sp_admission){j->id, j->pq->pool->name, j->replicas, r};
    return 0;
}

/* -- one decision --------------------------------------------------------- */

/* j runs: it is placed already; bookkeeping and the result. */
static int admit(struct cube_sched_policy *p, struct sp_job *j)
{
    struct sp_pool *pool = j->pq->pool;
    sp_resv_drop(p, j);
    if (pool->head == j) {
        pool->head = NULL;
        pool->head_decided = false;
    }
    sp_victims_forget(j);
    j->pq->n_pending--;
    p->n_pending--;
    sp_run_link(p, j);
    return admission_out(p, j);
}

static void wait_why(struct sp_job *j, int why)
{
    memset(&j->reason, 0, sizeof j->reason);
    j->reason.why = (uint8_t)why;
}

/* 1 when j's project has quota for it; else sets the reason. */
static bool quota_fits(struct sp_job *j)
{
    const struct sp_pq *pq = j->pq;
    if (!pq->has_quota) {
        wait_why(j, W_NO_QUOTA);
        return false;
    }
    for (int r = 0; r < CUBE_SP_NRES; r++) {
        int64_t need = j->req.v[r] * j->replicas;
        if (need && pq->used.v[r] + need > pq->max.v[r]) {
            j->reason = (struct sp_reason){W_QUOTA, (uint8_t)r, pq->used.v[r],
                                           pq->max.v[r], need};
            return false;
        }
    }
    return true;
}

/* j is over its project's max: it waits for its victims, or may preempt
 * lower-priority work of its project; it holds no other reservation. */
static int quota_blocked(struct cube_sched_policy *p, struct sp_job *j)
{
    struct sp_pool *pool = j->pq->pool;
    if (j->n_victims) {
        wait_why(j, W_PREEMPTING);
        return 0;
    }
    if (j->n_resv && pool->head != j)
        sp_resv_drop(p, j);
    if (!pool->preempt_budget || !sp_may_preempt(j, true))
        return 0;
    int rc = sp_preempt(p, j, true);
    if (rc == 1)
        wait_why(j, W_PREEMPTING);
    return rc < 0 ? -1 : 0;
}

/* j found no room: it may become the pool's head and reserve. */
static int try_head(struct cube_sched_policy *p, struct sp_job *j)
{
    struct sp_pool *pool = j->pq->pool;
    if (pool->head == j && j->n_resv) {
        pool->head_decided = true;
        return 0;
    }
    if (pool->head_decided || pool->head_tries >= SP_HEAD_TRIES)
        return 0;
    pool->head_tries++;
    if (pool->head && pool->head != j) {
        sp_resv_drop(p, pool->head);
        pool->head = NULL;
    }
    int rc = sp_resv_head(p, j);
    if (rc == 1) {
        pool->head = j;
        pool->head_decided = true;
    }
    return rc < 0 ? -1 : 0;
}

/* Tries to run j: 1 admitted, 0 waiting (reason set), -1 out of memory. */
static int try_admit(struct cube_sched_policy *p, struct sp_job *j)
{
    static const struct sp_opts plain = {0};
    struct sp_pool *pool = j->pq->pool;
    struct sp_job *rep;
    if (!pool->n_nodes) {
        wait_why(j, W_NO_NODES);
        return 0;
    }
    if (!quota_fits(j))
        return quota_blocked(p, j);
    bool owner = j->n_resv > 0;
    if (!owner && (rep = memo_get(p, j))) {
        j->reason = rep->reason;
    } else {
        int rc = sp_place(p, j, &plain);
        if (rc != 0)
            return rc < 0 ? -1 : 1;
        wait_why(j, sp_pool_could_hold(j) ? W_NOFIT : W_NEVER);
        if (!owner)
            memo_put(p, j);
    }
    if (j->n_victims) {                     /* its victims still run */
        wait_why(j, W_PREEMPTING);
        return 0;
    }
    if (owner && pool->head != j)           /* victims gone, still no room */
        sp_resv_drop(p, j);
    if (j->reason.why == W_NEVER)
        return 0;
    if (pool->preempt_budget && sp_may_preempt(j, false)) {
        int rc = sp_preempt(p, j, false);
        if (rc == 1) {
            wait_why(j, W_PREEMPTING);
            if (pool->head == j)
                pool->head = NULL;
            return 0;
        }
        if (rc < 0)
            return -1;
    }
    return try_head(p, j);
}

/* Decides one job: admits it or leaves it waiting with a reason. */
static int decide_one(struct cube_sched_policy *p, struct sp_job *j)
{
    uint64_t t0 = now_ns();
    int rc = try_admit(p, j);
    if (rc == 1 && admit(p, j) < 0)
        rc = -1;
    uint64_t ns = now_ns() - t0;
    p->decisions++;
    p->result.n_decisions++;
    sp_hist_add(p->hist, ns);
    if (j->state == SP_RUNNING) {
        p->admitted++;
        sp_hist_add(p->ahist, ns);
    } else {
        p->waiting++;
        p->result.n_waiting++;
        j->pos = ++j->pq->pool->rank;
    }
    return rc < 0 ? -1 : 0;
}

static int cycle_pool(struct cube_sched_policy *p, struct sp_pool *pool)
{
    int rc = 0;
    pool->preempt_budget = CUBE_SP_PREEMPT_PER_CYCLE;
    pool->rank = pool->drop_rank = pool->head_tries = 0;
    pool->head_decided = false;
    sp_memo_clear(p);
    for (size_t i = 0; i < pool->n_pqs; i++)
        if (pool->pqs[i]->n_pending)
            queues_start(pool->pqs[i]);
    if (heap_build(p, pool) < 0)
        return -1;
    while (p->heap_n) {
        struct sp_pq *pq = p->heap[0];
        struct sp_job *j = queue_next(pq);
        if (!j) {
            p->heap[0] = p->heap[--p->heap_n];
            sift_down(p, 0);
            continue;
        }
        if (decide_one(p, j) < 0)
            rc = -1;
        if (j->state == SP_PENDING) {
            queue_keep(j);
        } else {
            sp_pq_share(pq);
            sift_down(p, 0);
        }
    }
    if (!pool->head_decided && pool->head) {   /* nobody blocked: no head */
        sp_resv_drop(p, pool->head);
        pool->head = NULL;
    }
    return rc;
}

int cube_sp_decide(struct cube_sched_policy *p, const struct cube_sp_result **out)
{
    int rc = CUBE_OK;
    results_reset(p);
    for (size_t i = 0; i < p->n_pools; i++)
        if (cycle_pool(p, p->pool_v[i]) < 0)
            rc = sp_fail(p, CUBE_ENOMEM, "out of memory during a cycle");
    p->cycles++;
    p->result.n_admitted = p->n_adm;
    p->result.admitted = p->adm;
    p->result.n_preemptions = p->n_pre;
    p->result.preemptions = p->pre;
    if (out)
        *out = &p->result;
    return rc;
}
