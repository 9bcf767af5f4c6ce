/* sched_place.c — placement of the policy engine: whether one replica fits
 * a node and with which devices (topology, shares), whether a class, a
 * node or a pool could ever serve a job, and gang placement of a job. */
#include "sched_priv.h"

#include <stdlib.h>
#include <string.h>

uint64_t sp_serving(const struct sp_node *n, const struct sp_ereq *e, uint64_t avoid)
{
    uint64_t m = 0;
    for (unsigned i = 0; i < n->n_dev; i++) {
        const struct sp_dev *d = &n->devs[i];
        if (d->res == e->res && d->healthy && (!e->model || d->model == e->model))
            m |= UINT64_C(1) << i;
    }
    return m & ~avoid;
}

uint64_t sp_unused(const struct sp_node *n)
{
    uint64_t m = 0;
    for (unsigned i = 0; i < n->n_dev; i++)
        if (!n->devs[i].used && !n->devs[i].mem_used)
            m |= UINT64_C(1) << i;
    return m;
}

/* The lowest k devices of cand in group g (dom or numa). */
static uint64_t take(const struct sp_node *n, uint64_t cand, bool by_dom, int g, unsigned k)
{
    uint64_t out = 0;
    for (uint64_t m = cand; m && k; m &= m - 1) {
        int i = __builtin_ctzll(m);
        if ((by_dom ? n->devs[i].dom : n->devs[i].numa) == g) {
            out |= UINT64_C(1) << i;
            k--;
        }
    }
    return out;
}

/* The group (dom or numa) with the fewest members of cand that still has
 * k, or -1. Fewest: keeps fuller groups whole for larger requests. */
static int tightest(const struct sp_node *n, uint64_t cand, bool by_dom, unsigned k)
{
    unsigned cnt[CUBE_SP_MAX_DEVICES] = {0}, groups = by_dom ? n->n_dom : n->n_numa;
    int best = -1;
    for (uint64_t m = cand; m; m &= m - 1) {
        int i = __builtin_ctzll(m);
        cnt[by_dom ? n->devs[i].dom : n->devs[i].numa]++;
    }
    for (unsigned g = 0; g < groups; g++)
        if (cnt[g] >= k && (best < 0 || cnt[g] < cnt[best]))
            best = (int)g;
    return best;
}

/* The most devices of resource res one domain of n has. */
static unsigned largest_domain(const struct sp_node *n, int res)
{
    unsigned cnt[CUBE_SP_MAX_DEVICES] = {0}, best = 0;
    for (unsigned i = 0; i < n->n_dev; i++)
        if (n->devs[i].res == res && ++cnt[n->devs[i].dom] > best)
            best = cnt[n->devs[i].dom];
    return best;
}

bool sp_pick_whole(const struct sp_node *n, const struct sp_ereq *e,
                   uint64_t cand, uint64_t *out, bool *perfect)
{
    unsigned k = (unsigned)e->milli / 1000;
    if ((unsigned)__builtin_popcountll(cand) < k)
        return false;
    int g = tightest(n, cand, true, k);
    *perfect = true;
    if (g >= 0) {
        *out = take(n, cand, true, g, k);
        return true;
    }
    *perfect = k > largest_domain(n, e->res);
    if ((g = tightest(n, cand, false, k)) >= 0) {
        *out = take(n, cand, false, g, k);
        return true;
    }
    /* Spread over the fewest domains: the fullest first. */
    *out = 0;
    while (k) {
        unsigned cnt[CUBE_SP_MAX_DEVICES] = {0};
        int best = 0;
        for (uint64_t m = cand & ~*out; m; m &= m - 1)
            cnt[n->devs[__builtin_ctzll(m)].dom]++;
        for (unsigned d = 1; d < n->n_dom; d++)
            best = cnt[d] > cnt[best] ? (int)d : best;
        uint64_t got = take(n, cand & ~*out, true, best, k < cnt[best] ? k : cnt[best]);
        k -= (unsigned)__builtin_popcountll(got);
        *out |= got;
    }
    return true;
}

/* A device of n for share e: a partly used one with room (the fullest),
 * else a free one in the tightest domain; -1 when none. */
static int pick_share(const struct sp_node *n, const struct sp_ereq *e, uint64_t cand,
                      uint64_t free)
{
    int best = -1, left = 1001;
    for (uint64_t m = cand & ~free; m; m &= m - 1) {
        int i = __builtin_ctzll(m);
        const struct sp_dev *d = &n->devs[i];
        if (d->used + e->milli > 1000 || d->mem_used + e->mem_milli > 1000)
            continue;
        if (1000 - d->used - e->milli < left) {
            left = 1000 - d->used - e->milli;
            best = i;
        }
    }
    if (best >= 0 || !(cand & free))
        return best;
    int g = tightest(n, cand & free, true, 1);
    return __builtin_ctzll(take(n, cand & free, true, g, 1));
}

bool sp_node_fit(const struct sp_node *n, const struct sp_job *j,
                 const struct sp_opts *o, struct sp_pick *pick)
{
    uint64_t avoid = 0;
    if (n->unsched)
        return false;
    if (n->cap.v[CUBE_SP_CPU] - n->used.v[CUBE_SP_CPU] < j->req.v[CUBE_SP_CPU] ||
        n->cap.v[CUBE_SP_MEMORY] - n->used.v[CUBE_SP_MEMORY] < j->req.v[CUBE_SP_MEMORY])
        return false;
    if (n->resv_owner && n->resv_owner != j) {
        if (o->avoid_reserved)
            return false;
        for (int r = 0; r < 2; r++)   /* keep the head's share of what drains */
            if (n->cap.v[r] - n->bf.v[r] - j->req.v[r] < n->resv.v[r])
                return false;
        avoid = n->resv_devs;
    }
    if (j->n_sel && !sp_labels_match(n, j))
        return false;
    pick->devs = 0;
    pick->frac_dev = -1;
    pick->perfect = true;
    uint64_t free = j->n_ext ? sp_unused(n) : 0;
    for (unsigned i = 0; i < j->n_ext; i++) {
        const struct sp_ereq *e = &j->ext[i];
        uint64_t cand = sp_serving(n, e, avoid | pick->devs);
        if (e->milli < 1000) {
            if ((pick->frac_dev = pick_share(n, e, cand, free)) < 0)
                return false;
            continue;
        }
        uint64_t got;
        bool perfect;
        if (!sp_pick_whole(n, e, cand & free, &got, &perfect))
            return false;
        pick->devs |= got;
        pick->perfect = pick->perfect && perfect;
    }
    return true;
}

/* -- matching ------------------------------------------------------------- */

bool sp_class_match(const struct sp_class *c, const struct sp_job *j)
{
    for (unsigned i = 0; i < j->n_ext; i++) {
        bool ok = false;
        for (size_t k = 0; k < c->n_pairs && !ok; k++)
            ok = c->pairs[2 * k] == j->ext[i].res &&
                 (!j->ext[i].model || c->pairs[2 * k + 1] == j->ext[i].model);
        if (!ok)
            return false;
    }
    return true;
}

bool sp_labels_match(const struct sp_node *n, const struct sp_job *j)
{
    size_t k = 0;
    for (size_t i = 0; i < j->n_sel; i++) {
        while (k < n->n_labels && n->labels[k].key < j->sel[i].key)
            k++;
        if (k == n->n_labels || n->labels[k].key != j->sel[i].key ||
            n->labels[k].value != j->sel[i].value)
            return false;
    }
    return true;
}

bool sp_pool_could_hold(const struct sp_job *j)
{
    if (sp_selector_missing(j) >= 0)
        return false;
    for (const struct sp_class *c = j->pq->pool->classes; c; c = c->next) {
        bool all = c->n_nodes && sp_class_match(c, j);
        for (int r = 0; r < CUBE_SP_NRES && all; r++) {
            int64_t need = j->req.v[r];
            if (r >= 2 && need > 0 && need < 1000)
                need = 1000;   /* a share needs one device */
            all = need <= c->max_cap.v[r];
        }
        if (all)
            return true;
    }
    return false;
}

/* The share request of j (or NULL). */
static const struct sp_ereq *share_req(const struct sp_job *j)
{
    for (unsigned i = 0; i < j->n_ext; i++)
        if (j->ext[i].milli < 1000)
            return &j->ext[i];
    return NULL;
}

int sp_place(struct cube_sched_policy *p, struct sp_job *j, const struct sp_opts *o)
{
    struct sp_alloc *allocs = calloc(j->replicas, sizeof *allocs);
    const struct sp_ereq *sh = share_req(j);
    unsigned i;
    if (!allocs)
        return -1;
    for (i = 0; i < j->replicas; i++) {
        struct sp_pick pick;
        struct sp_node *n = sp_find_node(p, j, o, &pick);
        if (!n)
            break;
        struct sp_alloc *a = &allocs[i];
        a->job = j;
        a->node = n;
        a->amount = j->req;
        a->devs = pick.devs;
        a->frac_dev = pick.frac_dev;
        if (sh) {
            a->share = sh->milli;
            a->mem_share = sh->mem_milli;
        }
        a->bf_epoch = n->resv_owner && n->resv_owner != j ? n->epoch : 0;
        sp_alloc_apply(a);
    }
    if (i < j->replicas) {
        while (i-- > 0)
            sp_alloc_unapply(&allocs[i]);
        free(allocs);
        return 0;
    }
    j->allocs = allocs;
    for (int r = 0; r < CUBE_SP_NRES; r++)
        j->pq->used.v[r] += j->req.v[r] * j->replicas;
    return 1;
}

void sp_unplace(struct sp_job *j)
{
    sp_job_unapply(j);
    free(j->allocs);
    j->allocs = NULL;
}
