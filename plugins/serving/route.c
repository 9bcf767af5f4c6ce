/* route.c — the routing table the proxy's resolve reads: per service its
 * predictors with their traffic weights and ready replicas, and per
 * replica a slot holding its in-flight count. The controller writes it
 * (ctrl_rollout.c) and resolve and done read it, under one mutex held
 * only for a lookup; in-flight counts and statistics are atomics, so done
 * takes no lock. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serving.h"

const double sv_lat_bounds_ms[SV_LAT_BUCKETS] = {1, 2, 5, 10, 20, 50, 100, 200, 500, 1000,
                                                 5000, 1e18};

int sv_table_init(struct sv_table *t)
{
    memset(t, 0, sizeof *t);
    return pthread_mutex_init(&t->mu, NULL) ? -1 : 0;
}

void sv_table_fini(struct sv_table *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->svcs[i]);
    free(t->svcs);
    pthread_mutex_destroy(&t->mu);
}

void sv_key(const char *project, const char *name, char *out, size_t len)
{
    snprintf(out, len, "%s/%s", project, name);
}

struct sv_svc *sv_table_find(struct sv_table *t, const char *key, int create)
{
    for (size_t i = 0; i < t->n; i++)
        if (!strcmp(t->svcs[i]->key, key))
            return t->svcs[i];
    if (!create)
        return NULL;
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 16;
        struct sv_svc **v = realloc(t->svcs, cap * sizeof *v);
        if (!v)
            return NULL;
        t->svcs = v;
        t->cap = cap;
    }
    struct sv_svc *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    snprintf(s->key, sizeof s->key, "%s", key);
    const char *slash = strchr(key, '/');
    snprintf(s->project, sizeof s->project, "%.*s", slash ? (int)(slash - key) : 0, key);
    snprintf(s->name, sizeof s->name, "%s", slash ? slash + 1 : key);
    s->mirror = -1;
    s->as_min = -1;
    t->svcs[t->n++] = s;
    return s;
}

void sv_table_remove(struct sv_table *t, const char *key)
{
    for (size_t i = 0; i < t->n; i++) {
        struct sv_svc *s = t->svcs[i];
        if (strcmp(s->key, key))
            continue;
        for (int p = 0; p < s->n_preds; p++)
            for (int r = 0; r < s->preds[p].n_reps; r++)
                sv_slot_release(t, s->preds[p].reps[r].slot);
        for (int d = 0; d < s->n_drain; d++)
            sv_slot_release(t, s->drain[d].slot);
        free(s);
        t->svcs[i] = t->svcs[--t->n];
        return;
    }
}

int sv_stat_of(struct sv_table *t, const char *project, const char *service,
               const char *predictor)
{
    for (int i = 0; i < t->n_stats; i++) {
        struct sv_stat *s = &t->stats[i];
        if (!strcmp(s->project, project) && !strcmp(s->service, service) &&
            !strcmp(s->predictor, predictor))
            return i;
    }
    if (t->n_stats == SV_STATS)
        return SV_STATS - 1;    /* the last entry collects the rest */
    struct sv_stat *s = &t->stats[t->n_stats];
    snprintf(s->project, sizeof s->project, "%s", project);
    snprintf(s->service, sizeof s->service, "%s", service);
    snprintf(s->predictor, sizeof s->predictor, "%s", predictor);
    return t->n_stats++;
}

int sv_slot_take(struct sv_table *t, int stat)
{
    for (unsigned i = 1; i < SV_SLOTS; i++) {   /* slot 0 stays unused: tag 0 is "none" */
        struct sv_slot *s = &t->slots[i];
        if (s->used || atomic_load(&s->inflight) > 0)
            continue;
        s->used = 1;
        s->stat = stat;
        atomic_store(&s->inflight, 0);
        atomic_fetch_add(&s->gen, 1);
        return (int)i;
    }
    return -1;
}

void sv_slot_release(struct sv_table *t, unsigned slot)
{
    if (slot && slot < SV_SLOTS)
        t->slots[slot].used = 0;
}

uint64_t sv_tag(struct sv_table *t, unsigned slot)
{
    return (uint64_t)atomic_load(&t->slots[slot].gen) << 32 | slot;
}

int sv_tag_slot(struct sv_table *t, uint64_t tag)
{
    unsigned slot = (unsigned)(tag & 0xffffffffu);
    if (!slot || slot >= SV_SLOTS || atomic_load(&t->slots[slot].gen) != (uint32_t)(tag >> 32))
        return -1;
    return (int)slot;
}

int sv_pick_pred(struct sv_svc *s)
{
    int best = -1, total = 0;
    for (int i = 0; i < s->n_preds; i++) {
        struct sv_pred *p = &s->preds[i];
        if (p->weight <= 0 || !p->n_reps)
            continue;
        p->cw += p->weight;
        total += p->weight;
        if (best < 0 || p->cw > s->preds[best].cw)
            best = i;
    }
    if (best >= 0)
        s->preds[best].cw -= total;
    return best;
}

int sv_pick_rep(struct sv_table *t, struct sv_pred *p)
{
    if (!p->n_reps)
        return -1;
    unsigned start = p->rr++;
    int best = -1;
    int64_t least = 0;
    for (int k = 0; k < p->n_reps; k++) {
        int i = (int)((start + (unsigned)k) % (unsigned)p->n_reps);
        int64_t n = atomic_load(&t->slots[p->reps[i].slot].inflight);
        if (best < 0 || n < least) {
            best = i;
            least = n;
        }
    }
    return best;
}

/* The slot of job among a predictor's current replicas or the draining
 * ones; 0 when none. */
static unsigned slot_of(struct sv_svc *s, const char *job, int *draining)
{
    for (int p = 0; p < s->n_preds; p++)
        for (int r = 0; r < s->preds[p].n_reps; r++)
            if (!strcmp(s->preds[p].reps[r].job, job)) {
                *draining = 0;
                return s->preds[p].reps[r].slot;
            }
    for (int d = 0; d < s->n_drain; d++)
        if (!strcmp(s->drain[d].job, job)) {
            *draining = 1;
            return s->drain[d].slot;
        }
    return 0;
}

static void drain_add(struct sv_table *t, struct sv_svc *s, const struct sv_rep *r)
{
    if (s->n_drain == SV_MAX_REP) {        /* full: the oldest is let go */
        sv_slot_release(t, s->drain[0].slot);
        memmove(s->drain, s->drain + 1, sizeof s->drain[0] * (SV_MAX_REP - 1));
        s->n_drain--;
    }
    s->drain[s->n_drain++] = *r;
}

static void drain_drop(struct sv_svc *s, int d)
{
    s->drain[d] = s->drain[--s->n_drain];
}

int sv_table_set_pred(struct sv_table *t, struct sv_svc *s, int pi, const char *name,
                      int weight, const struct sv_rep *reps, int n)
{
    struct sv_pred *p = &s->preds[pi];
    struct sv_rep next[SV_MAX_REP];
    int m = 0, rc = 0;
    if (pi >= s->n_preds)
        s->n_preds = pi + 1;
    if (strcmp(p->name, name)) {     /* another predictor now sits at this index */
        for (int r = 0; r < p->n_reps; r++)
            drain_add(t, s, &p->reps[r]);
        p->n_reps = 0;
        snprintf(p->name, sizeof p->name, "%s", name);
        p->cw = 0;
    }
    p->stat = sv_stat_of(t, s->project, s->name, name);
    p->weight = weight;
    for (int i = 0; i < n && m < SV_MAX_REP; i++) {
        int draining = 0;
        unsigned slot = slot_of(s, reps[i].job, &draining);
        if (draining) {               /* back in the rotation */
            for (int d = 0; d < s->n_drain; d++)
                if (!strcmp(s->drain[d].job, reps[i].job))
                    drain_drop(s, d);
        }
        if (!slot) {
            int taken = sv_slot_take(t, p->stat);
            if (taken < 0) {
                rc = -1;
                continue;
            }
            slot = (unsigned)taken;
        }
        next[m] = reps[i];
        next[m++].slot = slot;
    }
    for (int r = 0; r < p->n_reps; r++) {   /* those that left: draining */
        int kept = 0;
        for (int i = 0; i < m; i++)
            kept |= !strcmp(next[i].job, p->reps[r].job);
        if (!kept)
            drain_add(t, s, &p->reps[r]);
    }
    memcpy(p->reps, next, sizeof next[0] * (size_t)m);
    p->n_reps = m;
    return rc;
}

int64_t sv_table_job_inflight(struct sv_table *t, struct sv_svc *s, const char *job)
{
    int draining;
    unsigned slot = slot_of(s, job, &draining);
    return slot ? atomic_load(&t->slots[slot].inflight) : 0;
}

void sv_table_forget_job(struct sv_table *t, struct sv_svc *s, const char *job)
{
    for (int d = 0; d < s->n_drain; d++)
        if (!strcmp(s->drain[d].job, job)) {
            sv_slot_release(t, s->drain[d].slot);
            drain_drop(s, d);
            return;
        }
}
