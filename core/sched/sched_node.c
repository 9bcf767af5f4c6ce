/* sched_node.c — nodes of the policy engine: adding, replacing and
 * removing them, their classes, and allocations on them. */
#include "sched_priv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sp_node_free(struct sp_node *n)
{
    if (!n)
        return;
    for (unsigned i = 0; i < n->n_dev; i++)
        free(n->devs[i].id);
    free(n->devs);
    free(n->labels);
    free(n->name);
    free(n->unsched_msg);
    free(n);
}

void sp_pool_free_classes(struct sp_pool *pool)
{
    for (struct sp_class *c = pool->classes, *next; c; c = next) {
        next = c->next;
        free(c->pairs);
        free(c->key);
        free(c);
    }
    cube_strmap_free(pool->labels, NULL);
}

/* -- allocations ---------------------------------------------------------- */

static void dev_take(struct sp_node *n, const struct sp_alloc *a, int sign)
{
    for (uint64_t m = a->devs; m; m &= m - 1) {
        struct sp_dev *d = &n->devs[__builtin_ctzll(m)];
        d->used = d->mem_used = sign > 0 ? 1000 : 0;
    }
    if (a->frac_dev >= 0) {
        n->devs[a->frac_dev].used += sign * a->share;
        n->devs[a->frac_dev].mem_used += sign * a->mem_share;
    }
}

void sp_alloc_apply(struct sp_alloc *a)
{
    struct sp_node *n = a->node;
    bool bf = n->resv_owner && a->bf_epoch && a->bf_epoch == n->epoch;
    for (int r = 0; r < CUBE_SP_NRES; r++) {
        n->used.v[r] += a->amount.v[r];
        if (bf)
            n->bf.v[r] += a->amount.v[r];
    }
    dev_take(n, a, 1);
    a->nprev = NULL;
    a->nnext = n->allocs;
    if (n->allocs)
        n->allocs->nprev = a;
    n->allocs = a;
    sp_index_update(n);
}

void sp_alloc_unapply(struct sp_alloc *a)
{
    struct sp_node *n = a->node;
    bool bf = n->resv_owner && a->bf_epoch && a->bf_epoch == n->epoch;
    for (int r = 0; r < CUBE_SP_NRES; r++) {
        n->used.v[r] -= a->amount.v[r];
        if (bf)
            n->bf.v[r] -= a->amount.v[r];
    }
    dev_take(n, a, -1);
    if (a->nprev)
        a->nprev->nnext = a->nnext;
    else
        n->allocs = a->nnext;
    if (a->nnext)
        a->nnext->nprev = a->nprev;
    a->nprev = a->nnext = NULL;
    sp_index_update(n);
}

void sp_job_apply(struct sp_job *j)
{
    for (unsigned i = 0; i < j->replicas; i++)
        if (j->allocs[i].node) {
            sp_alloc_apply(&j->allocs[i]);
            for (int r = 0; r < CUBE_SP_NRES; r++)
                j->pq->used.v[r] += j->allocs[i].amount.v[r];
        }
}

void sp_job_unapply(struct sp_job *j)
{
    for (unsigned i = 0; i < j->replicas; i++)
        if (j->allocs[i].node) {
            sp_alloc_unapply(&j->allocs[i]);
            for (int r = 0; r < CUBE_SP_NRES; r++)
                j->pq->used.v[r] -= j->allocs[i].amount.v[r];
        }
}

/* -- labels --------------------------------------------------------------- */

static void label_key(const struct sp_kv *kv, char *buf, size_t len)
{
    snprintf(buf, len, "%d=%d", kv->key, kv->value);
}

int sp_selector_missing(const struct sp_job *j)
{
    char key[32];
    for (size_t i = 0; i < j->n_sel; i++) {
        label_key(&j->sel[i], key, sizeof key);
        if (!j->pq->pool->labels || !cube_strmap_get(j->pq->pool->labels, key))
            return (int)i;
    }
    return -1;
}

/* -- building a node ------------------------------------------------------ */

/* The index of id in ids[0..*n), appended when new. */
static int local_index(int *ids, unsigned *n, int id)
{
    for (unsigned i = 0; i < *n; i++)
        if (ids[i] == id)
            return (int)i;
    ids[*n] = id;
    return (int)(*n)++;
}

static int cmp_kv(const void *a, const void *b)
{
    const struct sp_kv *x = a, *y = b;
    return (x->key > y->key) - (x->key < y->key);
}

static int node_devices(struct cube_sched_policy *p, const struct cube_sp_node *s,
                        struct sp_node *n)
{
    int doms[CUBE_SP_MAX_DEVICES], numas[CUBE_SP_MAX_DEVICES];
    if (s->n_devices && !(n->devs = calloc(s->n_devices, sizeof *n->devs)))
        return sp_fail(p, CUBE_ENOMEM, "out of memory");
    for (size_t i = 0; i < s->n_devices; i++, n->n_dev++) {
        const struct cube_sp_device *d = &s->devices[i];
        struct sp_dev *v = &n->devs[i];
        if (!d->id || !*d->id)
            return sp_fail(p, CUBE_EINVAL, "node %s: device %zu has no id", s->name, i);
        for (size_t k = 0; k < i; k++)
            if (strcmp(n->devs[k].id, d->id) == 0)
                return sp_fail(p, CUBE_EINVAL, "node %s: device id %s twice", s->name, d->id);
        int r = cube_sp_resource_add(p, d->resource);
        if (r < 0)
            return r;
        int model = sp_intern(p, d->model), dom = sp_intern(p, d->domain);
        if (model < 0 || dom < 0 || !(v->id = strdup(d->id)))
            return sp_fail(p, CUBE_ENOMEM, "out of memory");
        v->res = r;
        v->model = model;
        v->dom = local_index(doms, &n->n_dom, dom);
        v->numa = local_index(numas, &n->n_numa, d->numa < 0 ? -1 : d->numa);
        v->memory = d->memory;
        v->healthy = d->healthy != 0;
        if (v->healthy)
            n->cap.v[r] += 1000;
    }
    return CUBE_OK;
}

/* A detached node from its description. */
static int node_build(struct cube_sched_policy *p, const struct cube_sp_node *s,
                      struct sp_node **out)
{
    int rc;
    struct sp_node *n = calloc(1, sizeof *n);
    *out = NULL;
    if (!n || !(n->name = strdup(s->name)) ||
        (s->n_labels && !(n->labels = calloc(s->n_labels, sizeof *n->labels)))) {
        rc = sp_fail(p, CUBE_ENOMEM, "out of memory");
        goto fail;
    }
    for (size_t i = 0; i < s->n_labels; i++, n->n_labels++) {
        n->labels[i].key = sp_intern(p, s->labels[i].key);
        n->labels[i].value = sp_intern(p, s->labels[i].value);
        if (n->labels[i].key <= 0 || n->labels[i].value < 0) {
            rc = sp_fail(p, n->labels[i].key ? CUBE_ENOMEM : CUBE_EINVAL,
                         "node %s: bad label %zu", s->name, i);
            goto fail;
        }
    }
    if (n->n_labels)
        qsort(n->labels, n->n_labels, sizeof *n->labels, cmp_kv);
    n->cap.v[CUBE_SP_CPU] = s->cpu_milli;
    n->cap.v[CUBE_SP_MEMORY] = s->memory;
    n->unsched = s->unschedulable;
    if (n->unsched && s->message && *s->message && !(n->unsched_msg = strdup(s->message))) {
        rc = sp_fail(p, CUBE_ENOMEM, "out of memory");
        goto fail;
    }
    n->bkey = n->ckey = n->fkey = -1;
    n->epoch = 1;
    if ((rc = node_devices(p, s, n)) < 0)
        goto fail;
    *out = n;
    return CUBE_OK;
fail:
    sp_node_free(n);
    return rc;
}

/* -- classes and attachment ----------------------------------------------- */

/* The class for n's device (resource, model) set in pool, made if new. */
static struct sp_class *class_get(struct sp_pool *pool, const struct sp_node *n)
{
    int pairs[2 * CUBE_SP_MAX_DEVICES], counts[CUBE_SP_NRES] = {0};
    size_t np = 0, len = 0;
    char key[16 * CUBE_SP_MAX_DEVICES + 1] = "";
    for (unsigned i = 0; i < n->n_dev; i++) {
        size_t k = 0;
        counts[n->devs[i].res]++;
        while (k < np &&
               (pairs[2 * k] != n->devs[i].res || pairs[2 * k + 1] != n->devs[i].model))
            k++;
        if (k == np) {
            pairs[2 * np] = n->devs[i].res;
            pairs[2 * np++ + 1] = n->devs[i].model;
            len += (size_t)snprintf(key + len, sizeof key - len, "%d:%d,", n->devs[i].res,
                                    n->devs[i].model);
        }
    }
    for (struct sp_class *c = pool->classes; c; c = c->next)
        if (strcmp(c->key, key) == 0)
            return c;
    struct sp_class *c = calloc(1, sizeof *c);
    if (!c || !(c->key = strdup(key)) || (np && !(c->pairs = malloc(np * 2 * sizeof(int))))) {
        if (c)
            free(c->key);
        free(c);
        return NULL;
    }
    if (np)
        memcpy(c->pairs, pairs, np * 2 * sizeof(int));
    c->n_pairs = np;
    c->pool = pool;
    c->primary = -1;
    for (int r = 2; r < CUBE_SP_NRES; r++)
        if (counts[r] && (c->primary < 0 || counts[r] > counts[c->primary]))
            c->primary = r;
    struct sp_class **at = &pool->classes;
    while (np && *at)
        at = &(*at)->next;   /* device-less classes first, others in order */
    c->next = *at;
    *at = c;
    return c;
}

/* Counts n's first k labels in its pool (delta +1 or -1); returns how
 * many it counted (fewer when out of memory). */
static size_t labels_count(struct sp_pool *pool, const struct sp_node *n, int delta,
                           size_t k)
{
    char key[32];
    for (size_t i = 0; i < k; i++) {
        label_key(&n->labels[i], key, sizeof key);
        intptr_t c = (intptr_t)cube_strmap_get(pool->labels, key) + delta;
        if (c <= 0)
            cube_strmap_del(pool->labels, key);
        else if (cube_strmap_put(pool->labels, key, (void *)c, NULL) < 0)
            return i;
    }
    return k;
}

static int node_attach(struct sp_pool *pool, struct sp_node *n)
{
    if (!pool->labels && !(pool->labels = cube_strmap_new()))
        return -1;
    size_t counted = labels_count(pool, n, 1, n->n_labels);
    if (counted < n->n_labels || !(n->cls = class_get(pool, n))) {
        labels_count(pool, n, -1, counted);
        return -1;
    }
    n->pool = pool;
    n->cls->n_nodes++;
    for (int r = 0; r < CUBE_SP_NRES; r++) {
        pool->cap.v[r] += n->cap.v[r];
        if (n->cap.v[r] > n->cls->max_cap.v[r])
            n->cls->max_cap.v[r] = n->cap.v[r];
    }
    pool->n_nodes++;
    pool->n_unsched += n->unsched;
    sp_index_update(n);
    return 0;
}

static void node_detach(struct sp_node *n)
{
    sp_index_remove(n);
    labels_count(n->pool, n, -1, n->n_labels);
    n->cls->n_nodes--;
    for (int r = 0; r < CUBE_SP_NRES; r++)
        n->pool->cap.v[r] -= n->cap.v[r];
    n->pool->n_nodes--;
    n->pool->n_unsched -= n->unsched;
}

/* -- losing work ---------------------------------------------------------- */

struct lost_list {
    struct sp_job **v;
    size_t n, cap;
};

/* Remembers a job that lost work (once). */
static void lose_note(struct lost_list *l, struct sp_job *j)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->v[i] == j)
            return;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 8;
        struct sp_job **v = realloc(l->v, cap * sizeof *v);
        if (!v)
            return;   /* the job still lost its place; it goes unreported */
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = j;
}

/* Takes allocation a off its node for good; remembers its job. */
static void lose(struct lost_list *l, struct sp_alloc *a)
{
    sp_alloc_unapply(a);
    a->node = NULL;
    for (int r = 0; r < CUBE_SP_NRES; r++)
        a->job->pq->used.v[r] -= a->amount.v[r];
    lose_note(l, a->job);
}

static void report(struct lost_list *l, cube_sp_lost_fn fn, void *cls)
{
    for (size_t i = 0; fn && i < l->n; i++)
        fn(cls, l->v[i]->id);
    free(l->v);
}

/* Moves a's devices from node `from` to `to` by id; false when one is gone. */
static bool remap(struct sp_alloc *a, const struct sp_node *from, const struct sp_node *to)
{
    uint64_t devs = 0;
    int frac = -1;
    for (unsigned i = 0; i < from->n_dev; i++) {
        bool whole = a->devs >> i & 1, part = a->frac_dev == (int)i;
        if (!whole && !part)
            continue;
        unsigned k = 0;
        while (k < to->n_dev && strcmp(to->devs[k].id, from->devs[i].id) != 0)
            k++;
        if (k == to->n_dev || to->devs[k].res != from->devs[i].res)
            return false;
        if (whole)
            devs |= UINT64_C(1) << k;
        else
            frac = (int)k;
    }
    a->devs = devs;
    a->frac_dev = frac;
    return true;
}

/* -- API ------------------------------------------------------------------ */

/* Takes the work off old (the node n replaces): what n still has the
 * devices for comes back as a list (linked by nnext) to apply on n; the
 * rest is lost. */
static struct sp_alloc *migrate(struct cube_sched_policy *p, struct sp_node *old,
                                const struct sp_node *n, struct sp_pool *pool,
                                struct lost_list *l)
{
    struct sp_alloc *a, *moved = NULL;
    if (old->resv_owner)
        sp_resv_drop(p, old->resv_owner);
    while ((a = old->allocs)) {
        sp_alloc_unapply(a);
        if (old->pool != pool || !remap(a, old, n)) {
            sp_alloc_apply(a);          /* back, for lose() to take off */
            lose(l, a);
            continue;
        }
        a->bf_epoch = 0;
        a->nnext = moved;
        moved = a;
    }
    node_detach(old);
    return moved;
}

/* Out of memory while replacing: the node is gone, its work lost. */
static int node_set_failed(struct cube_sched_policy *p, struct sp_node *n,
                           struct sp_alloc *moved, struct lost_list *l)
{
    if (n->cls)
        node_detach(n);
    for (struct sp_alloc *a = moved, *next; a; a = next) {
        next = a->nnext;
        for (int r = 0; r < CUBE_SP_NRES; r++)
            a->job->pq->used.v[r] -= a->amount.v[r];
        a->node = NULL;
        lose_note(l, a->job);
    }
    cube_strmap_del(p->nodes, n->name);
    sp_node_free(n);
    return sp_fail(p, CUBE_ENOMEM, "out of memory");
}

int cube_sp_node_set(struct cube_sched_policy *p, const struct cube_sp_node *s,
                     cube_sp_lost_fn lost, void *cls)
{
    struct sp_node *n = NULL, *old;
    struct lost_list l = {0};
    struct sp_alloc *moved = NULL;
    int rc;
    if (!s || !s->name || !*s->name)
        return sp_fail(p, CUBE_EINVAL, "node name is empty");
    if (s->n_devices > CUBE_SP_MAX_DEVICES || s->cpu_milli < 0 || s->memory < 0)
        return sp_fail(p, s->n_devices > CUBE_SP_MAX_DEVICES ? CUBE_ETOOBIG : CUBE_EINVAL,
                       "node %s: at most %d devices, cpu and memory not negative",
                       s->name, CUBE_SP_MAX_DEVICES);
    struct sp_pool *pool = sp_pool_get(p, s->pool, true);
    if (!pool)
        return sp_fail(p, CUBE_ENOMEM, "out of memory");
    if ((rc = node_build(p, s, &n)) < 0)
        return rc;
    if ((old = cube_strmap_get(p->nodes, s->name)))
        moved = migrate(p, old, n, pool, &l);
    sp_node_free(old);
    if (node_attach(pool, n) < 0 || cube_strmap_put(p->nodes, n->name, n, NULL) < 0)
        rc = node_set_failed(p, n, moved, &l);
    else
        for (struct sp_alloc *a = moved, *next; a; a = next) {
            next = a->nnext;
            a->node = n;
            sp_alloc_apply(a);
        }
    report(&l, lost, cls);
    return rc;
}

int cube_sp_node_remove(struct cube_sched_policy *p, const char *name,
                        cube_sp_lost_fn lost, void *cls)
{
    struct sp_node *n = name ? cube_strmap_get(p->nodes, name) : NULL;
    struct lost_list l = {0};
    if (!n)
        return sp_fail(p, CUBE_ENOTFOUND, "unknown node \"%s\"", name ? name : "");
    if (n->resv_owner)
        sp_resv_drop(p, n->resv_owner);
    while (n->allocs)
        lose(&l, n->allocs);
    node_detach(n);
    cube_strmap_del(p->nodes, name);
    sp_node_free(n);
    report(&l, lost, cls);
    return CUBE_OK;
}
