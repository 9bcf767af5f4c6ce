/* sched_index.c — the node index of the policy engine. Each class keeps
 * its nodes in buckets by free whole devices of its primary resource and,
 * within those, by the bit length of their free cpu; nodes with a partly
 * used device are also in buckets by the largest share left on one. A
 * search walks buckets from the tightest fit up (devices, then cpu), so it
 * bin-packs and skips nodes that cannot fit; each bucket keeps upper
 * bounds of its nodes' free cpu and memory to skip it whole. */
#include "sched_priv.h"

#include <stdlib.h>
#include <string.h>

#define SP_TOPO_PATIENCE 64   /* nodes looked at for a better topology */

int sp_cpu_level(int64_t milli)
{
    int l = milli > 0 ? 64 - __builtin_clzll((uint64_t)milli) : 0;
    return l < SP_NLEVEL ? l : SP_NLEVEL - 1;
}

unsigned sp_node_free_primary(const struct sp_node *n)
{
    unsigned free = 0;
    int r = n->cls ? n->cls->primary : -1;
    for (unsigned i = 0; r >= 0 && i < n->n_dev; i++)
        free += n->devs[i].res == r && n->devs[i].healthy && !n->devs[i].used &&
                !n->devs[i].mem_used;
    return free;
}

/* The frac bucket of n: the most one partly used primary device has left,
 * in sixteenths; -1 when none is partly used. */
static int frac_key(const struct sp_node *n)
{
    int best = -1, r = n->cls->primary;
    for (unsigned i = 0; r >= 0 && i < n->n_dev; i++) {
        const struct sp_dev *d = &n->devs[i];
        if (d->res != r || !d->healthy || (!d->used && !d->mem_used) || d->used >= 1000)
            continue;
        int left = 1000 - (d->used > d->mem_used ? d->used : d->mem_used);
        if (left > best)
            best = left;
    }
    return best < 0 ? -1 : best * SP_NFRAC / 1000;
}

static void unlink_b(struct sp_node *n)
{
    struct sp_bucket *b = &n->cls->whole[n->bkey][n->ckey];
    if (n->bprev)
        n->bprev->bnext = n->bnext;
    else
        b->head = n->bnext;
    if (n->bnext)
        n->bnext->bprev = n->bprev;
    n->bprev = n->bnext = NULL;
    if (!b->head)
        n->cls->levels[n->bkey] &= ~(UINT32_C(1) << n->ckey);
}

static void unlink_f(struct sp_node *n, struct sp_bucket *b)
{
    if (n->fprev)
        n->fprev->fnext = n->fnext;
    else
        b->head = n->fnext;
    if (n->fnext)
        n->fnext->fprev = n->fprev;
    n->fprev = n->fnext = NULL;
}

void sp_index_remove(struct sp_node *n)
{
    if (n->bkey >= 0)
        unlink_b(n);
    if (n->fkey >= 0)
        unlink_f(n, &n->cls->frac[n->fkey]);
    n->bkey = n->ckey = n->fkey = -1;
}

/* Raises a bucket's bounds to cover n. */
static void bound(struct sp_bucket *b, const struct sp_node *n)
{
    int64_t cpu = n->cap.v[CUBE_SP_CPU] - n->used.v[CUBE_SP_CPU];
    int64_t mem = n->cap.v[CUBE_SP_MEMORY] - n->used.v[CUBE_SP_MEMORY];
    if (cpu > b->bound_cpu)
        b->bound_cpu = cpu;
    if (mem > b->bound_mem)
        b->bound_mem = mem;
}

void sp_index_update(struct sp_node *n)
{
    if (!n->cls)
        return;
    if (n->unsched) {   /* no new work: out of every bucket */
        sp_index_remove(n);
        return;
    }
    int bk = (int)sp_node_free_primary(n), fk = frac_key(n);
    int ck = sp_cpu_level(n->cap.v[CUBE_SP_CPU] - n->used.v[CUBE_SP_CPU]);
    if (bk != n->bkey || ck != n->ckey) {
        if (n->bkey >= 0)
            unlink_b(n);
        struct sp_bucket *b = &n->cls->whole[bk][ck];
        n->bnext = b->head;
        if (b->head)
            b->head->bprev = n;
        b->head = n;
        n->bkey = bk;
        n->ckey = ck;
        n->cls->levels[bk] |= UINT32_C(1) << ck;
    }
    bound(&n->cls->whole[bk][ck], n);
    if (fk != n->fkey) {
        if (n->fkey >= 0)
            unlink_f(n, &n->cls->frac[n->fkey]);
        if (fk >= 0) {
            struct sp_bucket *b = &n->cls->frac[fk];
            n->fnext = b->head;
            if (b->head)
                b->head->fprev = n;
            b->head = n;
        }
        n->fkey = fk;
    }
    if (fk >= 0)
        bound(&n->cls->frac[fk], n);
}

/* -- search --------------------------------------------------------------- */

struct search {
    struct sp_job *job;
    const struct sp_opts *o;
    struct sp_node *fallback;       /* fits, but with a worse topology */
    struct sp_pick fpick;
    unsigned after;                 /* nodes looked at since the fallback */
};

/* Scans one bucket list (whole: bnext links, else fnext). Returns a node
 * with a perfect fit, or NULL (s->fallback may have been set). */
static struct sp_node *scan(struct search *s, struct sp_bucket *b, bool whole,
                            struct sp_pick *pick)
{
    const sp_res *req = &s->job->req;
    int64_t max_cpu = 0, max_mem = 0;
    if (req->v[CUBE_SP_CPU] > b->bound_cpu || req->v[CUBE_SP_MEMORY] > b->bound_mem)
        return NULL;
    for (struct sp_node *n = b->head; n; n = whole ? n->bnext : n->fnext) {
        int64_t cpu = n->cap.v[CUBE_SP_CPU] - n->used.v[CUBE_SP_CPU];
        int64_t mem = n->cap.v[CUBE_SP_MEMORY] - n->used.v[CUBE_SP_MEMORY];
        max_cpu = cpu > max_cpu ? cpu : max_cpu;
        max_mem = mem > max_mem ? mem : max_mem;
        if (s->fallback && ++s->after > SP_TOPO_PATIENCE)
            return NULL;
        if (cpu < req->v[CUBE_SP_CPU] || mem < req->v[CUBE_SP_MEMORY] ||
            !sp_node_fit(n, s->job, s->o, pick))
            continue;
        if (pick->perfect)
            return n;
        if (!s->fallback) {
            s->fallback = n;
            s->fpick = *pick;
        }
    }
    b->bound_cpu = max_cpu;   /* looked at every node: the bounds are exact */
    b->bound_mem = max_mem;
    return NULL;
}

/* The classes of the job's pool that can serve it, in p->cls_v. */
static size_t matching(struct cube_sched_policy *p, const struct sp_job *j)
{
    size_t n = 0;
    for (struct sp_class *c = j->pq->pool->classes; c; c = c->next) {
        if (!c->n_nodes || !sp_class_match(c, j))
            continue;
        if (n == p->cls_cap) {
            size_t cap = p->cls_cap ? 2 * p->cls_cap : 16;
            struct sp_class **v = realloc(p->cls_v, cap * sizeof *v);
            if (!v)
                break;   /* search fewer classes */
            p->cls_v = v;
            p->cls_cap = cap;
        }
        p->cls_v[n++] = c;
    }
    return n;
}

/* What j asks of class c's primary resource: milli (0: nothing). */
static int32_t primary_ask(const struct sp_job *j, const struct sp_class *c)
{
    return c->primary >= 0 ? (int32_t)j->req.v[c->primary] : 0;
}

struct sp_node *sp_find_node(struct cube_sched_policy *p, struct sp_job *j,
                             const struct sp_opts *o, struct sp_pick *pick)
{
    struct search s = {.job = j, .o = o};
    struct sp_node *n;
    size_t nc = matching(p, j);
    for (int f = 0; f < SP_NFRAC; f++)        /* shares: partly used first */
        for (size_t i = 0; i < nc; i++) {
            int32_t ask = primary_ask(j, p->cls_v[i]);
            if (ask > 0 && ask < 1000 && f >= ask * SP_NFRAC / 1000 &&
                (n = scan(&s, &p->cls_v[i]->frac[f], false, pick)))
                return n;
        }
    int lmin = sp_cpu_level(j->req.v[CUBE_SP_CPU]);   /* fewer bits: too little */
    uint32_t lmask = ~((UINT32_C(1) << lmin) - 1);
    for (int b = 0; b < SP_NBUCKET; b++)
        for (size_t i = 0; i < nc; i++) {
            int32_t ask = primary_ask(j, p->cls_v[i]);
            int start = ask >= 1000 ? ask / 1000 : ask > 0;
            if (b < start)
                continue;
            for (uint32_t m = p->cls_v[i]->levels[b] & lmask; m; m &= m - 1)
                if ((n = scan(&s, &p->cls_v[i]->whole[b][__builtin_ctz(m)], true, pick)))
                    return n;
            if (s.fallback && s.after > SP_TOPO_PATIENCE)
                goto done;
        }
done:
    if (s.fallback)
        *pick = s.fpick;
    return s.fallback;
}
