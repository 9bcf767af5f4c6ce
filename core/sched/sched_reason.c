/* sched_reason.c — texts of the policy engine: why a job waits, amounts
 * as users write them, and the decision-latency histogram. */
#include "sched_priv.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Writes milli-units as a decimal ("4", "0.25"). */
static void fmt_milli(int64_t v, char *out, size_t len)
{
    const char *sign = v < 0 ? "-" : "";
    uint64_t a = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    if (a % 1000 == 0) {
        snprintf(out, len, "%s%llu", sign, (unsigned long long)(a / 1000));
        return;
    }
    char frac[4];
    snprintf(frac, sizeof frac, "%03llu", (unsigned long long)(a % 1000));
    for (int i = 2; i > 0 && frac[i] == '0'; i--)
        frac[i] = '\0';
    snprintf(out, len, "%s%llu.%s", sign, (unsigned long long)(a / 1000), frac);
}

/* Writes bytes in the largest binary unit ("16Gi", "1.5Gi", "512"). */
static void fmt_bytes(int64_t v, char *out, size_t len)
{
    static const char *unit[] = {"Ki", "Mi", "Gi", "Ti", "Pi"};
    int u = -1;
    double d = (double)v;
    while (u < 4 && (d >= 1024 || d <= -1024)) {
        d /= 1024;
        u++;
    }
    if (u < 0)
        snprintf(out, len, "%lld", (long long)v);
    else if (d == (double)(int64_t)d)
        snprintf(out, len, "%lld%s", (long long)d, unit[u]);
    else
        snprintf(out, len, "%.1f%s", d, unit[u]);
}

void sp_fmt_amount(const struct cube_sched_policy *p, int res, int64_t v, char *out,
                   size_t len)
{
    (void)p;
    if (v == CUBE_SP_UNLIMITED)
        snprintf(out, len, "unlimited");
    else if (res == CUBE_SP_MEMORY)
        fmt_bytes(v, out, len);
    else
        fmt_milli(v, out, len);
}

/* Appends to a text buffer, never past its end. */
struct text {
    char *s;
    size_t len, at;
};

__attribute__((format(printf, 2, 3))) static void put(struct text *t, const char *fmt, ...)
{
    if (t->at >= t->len)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t->s + t->at, t->len - t->at, fmt, ap);
    va_end(ap);
    if (n > 0)
        t->at += (size_t)n;
}

/* Writes one replica's request: "8 nvidia.com/gpu (H200), 4 cpu, 16Gi memory". */
static void put_request(const struct cube_sched_policy *p, const struct sp_job *j,
                        struct text *t)
{
    char a[32];
    const char *sep = "";
    for (unsigned i = 0; i < j->n_ext; i++, sep = ", ") {
        const struct sp_ereq *e = &j->ext[i];
        fmt_milli(e->milli, a, sizeof a);
        if (e->milli < 1000)
            put(t, "%s%s of one %s", sep, a, p->res_name[e->res]);
        else
            put(t, "%s%s %s", sep, a, p->res_name[e->res]);
        if (e->model)
            put(t, " (%s)", p->str[e->model]);
    }
    for (int r = 0; r < 2; r++)
        if (j->req.v[r]) {
            sp_fmt_amount(p, r, j->req.v[r], a, sizeof a);
            put(t, "%s%s %s", sep, a, p->res_name[r]);
            sep = ", ";
        }
    if (!*sep)
        put(t, "nothing");
    for (size_t i = 0; i < j->n_sel; i++)
        put(t, "%s%s=%s", i ? "," : " on nodes labelled ", p->str[j->sel[i].key],
            p->str[j->sel[i].value]);
}

/* The first node of pool (the cls) that is not schedulable, into *out. */
struct unsched_find {
    const struct sp_pool *pool;
    const struct sp_node *found;
};

static int find_unsched(void *cls, const char *name, void *value)
{
    (void)name;
    struct unsched_find *f = cls;
    const struct sp_node *n = value;
    if (n->unsched && n->pool == f->pool && !f->found)
        f->found = n;
    return f->found != NULL;
}

/* "; 2 nodes of pool slurm are not schedulable (n3: drained)" when some
 * are: why a Job that would fit on them waits. */
static void put_unsched(const struct cube_sched_policy *p, const struct sp_pool *pool,
                        struct text *t)
{
    if (!pool->n_unsched)
        return;
    struct unsched_find f = {pool, NULL};
    cube_strmap_each(p->nodes, find_unsched, &f);
    put(t, "; %zu node%s of pool %s %s not schedulable", pool->n_unsched,
        pool->n_unsched == 1 ? "" : "s", pool->name, pool->n_unsched == 1 ? "is" : "are");
    if (f.found)
        put(t, " (%s: %s)", f.found->name,
            f.found->unsched_msg ? f.found->unsched_msg : "no reason given");
}

static void put_nofit(const struct cube_sched_policy *p, const struct sp_job *j,
                      struct text *t)
{
    if (j->replicas > 1)
        put(t, "no room for all %u replicas (all or none): each needs ", j->replicas);
    else
        put(t, "no node fits: needs ");
    put_request(p, j, t);
    put(t, " on one node");
    const struct sp_job *head = j->pq->pool->head;
    if (j->n_resv)
        put(t, "; holds a reservation on %zu node%s until they drain", j->n_resv,
            j->n_resv == 1 ? "" : "s");
    else if (head && head->n_resv)
        put(t, "; %zu node%s reserved for job %s", head->n_resv,
            head->n_resv == 1 ? " is" : "s are", head->id);
    put_unsched(p, j->pq->pool, t);
}

void sp_reason_text(const struct cube_sched_policy *p, const struct sp_job *j, char *out,
                    size_t len)
{
    struct text t = {out, len, 0};
    const struct sp_reason *w = &j->reason;
    const char *pool = j->pq->pool->name;
    char u[32], m[32], n[32];
    out[0] = '\0';
    switch (w->why) {
    case W_NO_NODES:
        put(&t, "no nodes in pool %s", pool);
        break;
    case W_NO_QUOTA:
        put(&t, "quota: project %s has no quota in pool %s", j->pq->proj->name, pool);
        break;
    case W_QUOTA:
        sp_fmt_amount(p, w->res, w->used, u, sizeof u);
        sp_fmt_amount(p, w->res, w->max, m, sizeof m);
        sp_fmt_amount(p, w->res, w->need, n, sizeof n);
        put(&t, "quota: %s %s/%s used in pool %s (job needs %s)", p->res_name[w->res], u, m,
            pool, n);
        break;
    case W_NOFIT:
        put_nofit(p, j, &t);
        break;
    case W_NEVER:
        put(&t, "no node of pool %s can ever hold it: each replica needs ", pool);
        put_request(p, j, &t);
        put(&t, " on one node");
        break;
    case W_PREEMPTING:
        put(&t, "preempting %zu job%s to make room (waiting for them to stop)",
            j->n_victims, j->n_victims == 1 ? "" : "s");
        break;
    default:
        break;
    }
}

/* -- latency histogram: 8 slots per power of two -------------------------- */

void sp_hist_add(uint64_t *h, uint64_t ns)
{
    unsigned i;
    if (ns < 8) {
        i = (unsigned)ns;
    } else {
        unsigned msb = 63u - (unsigned)__builtin_clzll(ns);
        i = (msb - 2) * 8 + (unsigned)((ns >> (msb - 3)) & 7);
    }
    h[i < SP_HIST ? i : SP_HIST - 1]++;
}

/* The largest value slot i holds. */
static uint64_t slot_top(unsigned i)
{
    if (i < 8)
        return i;
    unsigned msb = i / 8 + 2, sub = i % 8;
    return ((uint64_t)(8 + sub + 1) << (msb - 3)) - 1;
}

uint64_t sp_hist_quantile(const uint64_t *h, double q)
{
    uint64_t total = 0, seen = 0;
    for (unsigned i = 0; i < SP_HIST; i++)
        total += h[i];
    if (!total)
        return 0;
    uint64_t want = (uint64_t)(q * (double)total + 0.999999);
    if (want < 1)
        want = 1;
    for (unsigned i = 0; i < SP_HIST; i++)
        if ((seen += h[i]) >= want)
            return slot_top(i);
    return slot_top(SP_HIST - 1);
}
