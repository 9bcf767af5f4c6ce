/* sched_bench.c — throughput and latency of the scheduler's policy engine
 * (core/sched/sched_policy.h) on a simulated cluster; run by sched.sh.
 *
 * A cluster of BENCH_NODES nodes of 8 H200-like GPUs (two NVLink domains
 * of 4, one per NUMA node, 192 cores, 2Ti), BENCH_PROJECTS projects with
 * quotas (each guaranteed an equal part of the GPUs, half of them capped
 * at twice that), and BENCH_JOBS queued jobs of mixed shapes: 1, 2, 4 or 8
 * GPUs, 0.5 or 0.25 of one, or cpu only; 1-4 replicas; 10% high and 20%
 * low priority; 5% with a node selector. Each simulated tick, jobs whose
 * run ended are released, victims ordered to stop at the previous tick are
 * released and queued again, the queue is topped up to BENCH_JOBS, and
 * one cycle (cube_sp_decide) runs; only the cycles are timed.
 *
 * A decision is one pending job considered by a cycle: admitted (placed,
 * every replica) or left waiting with a reason. The engine times each one.
 * Prints "key=value" lines (sched.sh formats them). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sched/sched_policy.h"

#define GPU "nvidia.com/gpu"
#define GI (INT64_C(1) << 30)
#define TICKS_MAX 16   /* runs last 1..TICKS_MAX-1 ticks */

struct job {
    uint8_t kind, replicas, prio, sel, state;   /* state: 0 none, 1 queued, 2 running */
    uint16_t proj;
    uint32_t gen;
};

struct ring {            /* jobs ending at one tick: (index, generation) */
    uint32_t *v;
    size_t n, cap;
};

struct bench {
    struct cube_sched_policy *p;
    unsigned nodes, projects, queued_target, cycles;
    struct job *jobs;
    size_t n_jobs, cap_jobs, queued;
    struct ring end[TICKS_MAX];
    uint32_t *victims;
    size_t n_victims, cap_victims;
    unsigned seed;
    char (*proj_names)[8];
};

static void die(const char *what, struct cube_sched_policy *p)
{
    fprintf(stderr, "sched_bench: %s: %s\n", what, p ? cube_sp_errmsg(p) : "out of memory");
    exit(1);
}

static unsigned rnd(struct bench *b)
{
    b->seed = b->seed * 1103515245u + 12345u;
    return (b->seed >> 8) & 0xffffff;
}

static unsigned env_uint(const char *name, unsigned def)
{
    const char *v = getenv(name);
    return v && *v ? (unsigned)strtoul(v, NULL, 10) : def;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *grow(void *v, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return v;
    size_t c = *cap ? *cap : 1024;
    while (c < need)
        c *= 2;
    void *nv = realloc(v, c * size);
    if (!nv)
        die("grow", NULL);
    *cap = c;
    return nv;
}

static void add_nodes(struct bench *b)
{
    static const char *zones[] = {"a", "b", "c", "d"};
    struct cube_sp_device devs[8];
    char ids[8][4], name[32];
    for (int d = 0; d < 8; d++) {
        snprintf(ids[d], sizeof ids[d], "%d", d);
        devs[d] = (struct cube_sp_device){ids[d], GPU, "H200", d < 4 ? "nvl-0" : "nvl-1",
                                          141 * GI, d < 4 ? 0 : 1, 1};
    }
    for (unsigned i = 0; i < b->nodes; i++) {
        struct cube_sp_label labels[] = {{"zone", zones[i % 4]}, {"ib", "hdr"}};
        snprintf(name, sizeof name, "node-%05u", i);
        struct cube_sp_node n = {name, NULL, labels, i % 10 == 0 ? 2 : 1, 192000,
                                 2048 * GI, devs, 8, 0, NULL};
        if (cube_sp_node_set(b->p, &n, NULL, NULL) < 0)
            die("node_set", b->p);
    }
}

static void add_projects(struct bench *b)
{
    int64_t gpus = (int64_t)b->nodes * 8000, share = gpus / b->projects;
    b->proj_names = calloc(b->projects, sizeof *b->proj_names);
    if (!b->proj_names)
        die("projects", NULL);
    for (unsigned i = 0; i < b->projects; i++) {
        struct cube_sp_quota q;
        cube_sp_quota_init(&q);
        q.guaranteed.v[2] = share;
        if (i % 2)
            q.max.v[2] = 2 * share;
        q.guaranteed.v[CUBE_SP_CPU] = (int64_t)b->nodes * 192000 / b->projects;
        snprintf(b->proj_names[i], sizeof b->proj_names[i], "p%02u", i);
        if (cube_sp_project_set(b->p, b->proj_names[i], 1) < 0 ||
            cube_sp_quota_set(b->p, b->proj_names[i], NULL, &q) < 0)
            die("project", b->p);
    }
}

/* kind: 0-3 whole 1/2/4/8 GPUs, 4 half, 5 quarter, 6 cpu only. */
static void new_job(struct bench *b, struct job *j)
{
    /* cumulative percentages: 1 GPU 30, 2 GPUs 15, 4 GPUs 12, 8 GPUs 10,
     * a half 8, a quarter 7, cpu only 18 */
    static const unsigned upto[] = {30, 45, 57, 67, 75, 82, 100};
    unsigned r = rnd(b) % 100;
    memset(j, 0, sizeof *j);
    unsigned k = rnd(b) % 100;
    while (k >= upto[j->kind])
        j->kind++;
    j->replicas = r < 70 ? 1 : r < 85 ? 2 : r < 90 ? 3 : 4;
    r = rnd(b) % 100;
    j->prio = r < 20 ? CUBE_SP_LOW : r < 90 ? CUBE_SP_NORMAL : CUBE_SP_HIGH;
    j->sel = rnd(b) % 100 < 5 ? (uint8_t)(1 + rnd(b) % 4) : 0;
    j->proj = (uint16_t)(rnd(b) % b->projects);
}

static void submit(struct bench *b, uint32_t idx)
{
    static const int64_t milli[] = {1000, 2000, 4000, 8000, 500, 250, 0};
    static const char *zones[] = {"", "a", "b", "c", "d"};
    struct job *j = &b->jobs[idx];
    char id[16];
    snprintf(id, sizeof id, "j%07u", idx);
    int64_t g = milli[j->kind];
    struct cube_sp_ext e = {GPU, g, 0, NULL};
    struct cube_sp_label sel = {"zone", zones[j->sel]};
    struct cube_sp_job s = {
        .id = id, .project = b->proj_names[j->proj], .priority = j->prio, .seq = idx + 1,
        .replicas = j->replicas,
        .cpu_milli = g ? (g >= 1000 ? g * 8 : 2000) : 4000 * (1 + idx % 8),
        .memory = g ? (g >= 1000 ? g / 1000 * 32 * GI : 16 * GI) : 16 * GI * (1 + idx % 8),
        .ext = g ? &e : NULL, .n_ext = g ? 1 : 0,
        .selector = &sel, .n_selector = j->sel != 0};
    if (cube_sp_submit(b->p, &s) < 0)
        die("submit", b->p);
    j->state = 1;
    b->queued++;
}

static void top_up(struct bench *b)
{
    while (b->queued < b->queued_target) {
        b->jobs = grow(b->jobs, &b->cap_jobs, b->n_jobs + 1, sizeof *b->jobs);
        new_job(b, &b->jobs[b->n_jobs]);
        submit(b, (uint32_t)b->n_jobs++);
    }
}

static uint32_t idx_of(const char *id)
{
    return (uint32_t)strtoul(id + 1, NULL, 10);
}

static void release(struct bench *b, uint32_t idx)
{
    char id[16];
    snprintf(id, sizeof id, "j%07u", idx);
    if (cube_sp_release(b->p, id) < 0)
        die("release", b->p);
    b->jobs[idx].state = 0;
    b->jobs[idx].gen++;
}

/* Carries out a cycle's answer: runs get an end tick, victims stop next tick. */
static void after_cycle(struct bench *b, const struct cube_sp_result *r, unsigned tick)
{
    for (size_t i = 0; i < r->n_admitted; i++) {
        uint32_t idx = idx_of(r->admitted[i].job);
        struct ring *e = &b->end[(tick + 1 + rnd(b) % (TICKS_MAX - 1)) % TICKS_MAX];
        e->v = grow(e->v, &e->cap, e->n + 2, sizeof *e->v);
        e->v[e->n++] = idx;
        e->v[e->n++] = b->jobs[idx].gen;
        b->jobs[idx].state = 2;
        b->queued--;
    }
    b->victims = grow(b->victims, &b->cap_victims, r->n_preemptions, sizeof *b->victims);
    b->n_victims = 0;
    for (size_t i = 0; i < r->n_preemptions; i++)
        b->victims[b->n_victims++] = idx_of(r->preemptions[i].victim);
}

/* The tick's bookkeeping: ended runs, stopped victims (queued again). */
static void before_cycle(struct bench *b, unsigned tick)
{
    struct ring *e = &b->end[tick % TICKS_MAX];
    for (size_t i = 0; i < e->n; i += 2)
        if (b->jobs[e->v[i]].state == 2 && b->jobs[e->v[i]].gen == e->v[i + 1])
            release(b, e->v[i]);
    e->n = 0;
    for (size_t i = 0; i < b->n_victims; i++)
        if (b->jobs[b->victims[i]].state == 2) {
            release(b, b->victims[i]);
            submit(b, b->victims[i]);
        }
    b->n_victims = 0;
    top_up(b);
}

int main(void)
{
    struct bench b = {.seed = env_uint("BENCH_SEED", 42)};
    b.nodes = env_uint("BENCH_NODES", 10000);
    b.projects = env_uint("BENCH_PROJECTS", 50);
    b.queued_target = env_uint("BENCH_JOBS", 100000);
    b.cycles = env_uint("BENCH_CYCLES", 30);
    if (!b.nodes || !b.projects || b.projects > 1000 || !b.cycles)
        die("BENCH_NODES, BENCH_PROJECTS (<= 1000) and BENCH_CYCLES must be positive", NULL);
    if (!(b.p = cube_sp_new()) || cube_sp_resource_add(b.p, GPU) < 0)
        die("engine", b.p);
    double t0 = now_s();
    add_nodes(&b);
    add_projects(&b);
    top_up(&b);
    double setup = now_s() - t0, busy = 0, first = 0, worst = 0;
    uint64_t first_dec = 0;
    for (unsigned tick = 0; tick < b.cycles; tick++) {
        if (tick)
            before_cycle(&b, tick);
        const struct cube_sp_result *r;
        double c0 = now_s();
        if (cube_sp_decide(b.p, &r) < 0)
            die("decide", b.p);
        double dt = now_s() - c0;
        busy += dt;
        worst = dt > worst ? dt : worst;
        if (!tick) {
            first = dt;
            first_dec = r->n_decisions;
        }
        after_cycle(&b, r, tick);
    }
    struct cube_sp_stats st;
    cube_sp_stats(b.p, &st);
    struct cube_sp_usage u;
    int64_t used = 0, cap = 0;
    for (unsigned i = 0; i < b.projects; i++)
        if (cube_sp_usage(b.p, b.proj_names[i], NULL, &u) == CUBE_OK) {
            used += u.used.v[2];
            cap = u.capacity.v[2];
        }
    printf("nodes=%u\ngpus=%u\nprojects=%u\nqueued=%u\ncycles=%u\njobs_made=%zu\n", b.nodes,
           b.nodes * 8, b.projects, b.queued_target, b.cycles, b.n_jobs);
    printf("setup_s=%.3f\ndecide_s=%.3f\nfirst_cycle_s=%.3f\nfirst_cycle_decisions=%llu\n"
           "worst_cycle_s=%.3f\n", setup, busy, first, (unsigned long long)first_dec, worst);
    printf("decisions=%llu\nadmitted=%llu\nwaiting=%llu\npreemptions=%llu\n",
           (unsigned long long)st.decisions, (unsigned long long)st.admitted,
           (unsigned long long)st.waiting, (unsigned long long)st.preemptions);
    printf("decisions_per_s=%.0f\nadmissions_per_s=%.0f\n", (double)st.decisions / busy,
           (double)st.admitted / busy);
    printf("p50_ns=%llu\np99_ns=%llu\nmax_ns=%llu\nadmission_p99_ns=%llu\n",
           (unsigned long long)st.decision_p50_ns, (unsigned long long)st.decision_p99_ns,
           (unsigned long long)st.decision_max_ns, (unsigned long long)st.admission_p99_ns);
    printf("gpu_utilization=%.3f\nrunning=%zu\npending=%zu\n",
           cap ? (double)used / (double)cap : 0.0, st.running, st.pending);
    cube_sp_free(b.p);
    for (int i = 0; i < TICKS_MAX; i++)
        free(b.end[i].v);
    free(b.victims);
    free(b.jobs);
    free(b.proj_names);
    return 0;
}
