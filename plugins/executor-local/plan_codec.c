/* plan_codec.c — a replica's plan as the command line of the supervisor
 * program (cube-xl-supervisor), and back. cubed starts the supervisor by
 * exec() right after a vfork-style clone, or has its launcher fork one
 * with the same argv and environment (launcher.c), so the plan cannot
 * travel in memory; the command line carries it, the replica's environment
 * is the supervisor's environment, and the output file and run directory
 * are fds 3 and 4.
 *
 *   cube-xl-supervisor --plan-v1 SLOT WORKDIR DROP UID GID TIMEOUT_S GRACE_S
 *       OOM_FILE FAILCNT_FILE NGROUPS GID... NPROCS PROCS_FILE...
 *       NHIDE DIR... NBIND DIR... NEXEC PATH... -- ARGV...
 *
 * Both ends are built from this file, so they always agree; the version
 * tag makes a supervisor from another build refuse clearly. So are the
 * names of the start steps a status file may name (enum xl_step). */
#include "executor_local.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PLAN_TAG "--plan-v1"

static const char *const STEP[XL_STEP_COUNT] = {
    "start", "fork", "set up file descriptors", "join the cgroup",
    "set up the mount view", "set the supplementary groups", "set the group id",
    "set the user id", "enter the workdir", "set no_new_privs", "exec the command",
    "read the supervisor's plan",
};

const char *xl_step_name(int step)
{
    return step >= 0 && step < XL_STEP_COUNT ? STEP[step] : "start";
}

int xl_slot_valid(const char *slot)
{
    size_t n = strlen(slot);
    return n >= 1 && n <= 63 && strspn(slot, "0123456789abcdefghijklmnopqrstuvwxyz-") == n;
}

/* -- encoding (in cubed) ---------------------------------------------------- */

/* A growing NULL-terminated vector of malloc()ed strings. */
struct vec {
    char **v;
    size_t n, cap;
    int oom;
};

static void push(struct vec *a, const char *s)
{
    if (a->oom)
        return;
    if (a->n + 2 > a->cap) {
        size_t cap = a->cap ? a->cap * 2 : 64;
        char **v = realloc(a->v, cap * sizeof *v);
        if (!v) {
            a->oom = 1;
            return;
        }
        a->v = v;
        a->cap = cap;
    }
    if (!(a->v[a->n] = strdup(s))) {
        a->oom = 1;
        return;
    }
    a->v[++a->n] = NULL;
}

static void push_num(struct vec *a, long long v)
{
    char buf[24];
    snprintf(buf, sizeof buf, "%lld", v);
    push(a, buf);
}

/* Pushes a count and then each of the n strings. */
static void push_list(struct vec *a, int n, const char *first, size_t stride)
{
    push_num(a, n);
    for (int i = 0; i < n; i++)
        push(a, first + (size_t)i * stride);
}

char **xl_plan_encode(const struct xl_plan *p, const char *program)
{
    struct vec a = {0};
    push(&a, program);
    push(&a, PLAN_TAG);
    push(&a, p->slot);
    push(&a, p->workdir);
    push_num(&a, p->drop);
    push_num(&a, (long long)p->uid);
    push_num(&a, (long long)p->gid);
    push_num(&a, p->timeout_s);
    push_num(&a, p->grace_s);
    push(&a, p->oom_file);
    push(&a, p->failcnt_file);
    push_num(&a, p->ngroups);
    for (int i = 0; i < p->ngroups; i++)
        push_num(&a, (long long)p->groups[i]);
    push_list(&a, p->nprocs, p->procs[0], sizeof p->procs[0]);
    const struct xl_view *v = p->view;
    push_list(&a, v ? v->nhide : 0, v ? v->hide[0] : "", sizeof v->hide[0]);
    push_list(&a, v ? v->nbind : 0, v ? v->bind[0] : "", sizeof v->bind[0]);
    int nexec = 0;
    while (p->exec_paths[nexec])
        nexec++;
    push_num(&a, nexec);
    for (int i = 0; i < nexec; i++)
        push(&a, p->exec_paths[i]);
    push(&a, "--");
    for (char *const *s = p->argv; *s; s++)
        push(&a, *s);
    if (a.oom) {
        for (size_t i = 0; a.v && i < a.n; i++)
            free(a.v[i]);
        free(a.v);
        return NULL;
    }
    return a.v;
}

/* -- decoding (in the supervisor) ------------------------------------------ */

/* A cursor over the command line; the first error sticks. */
struct cur {
    char **arg;
    int at, argc;
    const char *err;
};

static const char *next(struct cur *c, const char *what)
{
    if (c->err)
        return NULL;
    if (c->at >= c->argc) {
        c->err = what;
        return NULL;
    }
    return c->arg[c->at++];
}

static long long next_num(struct cur *c, const char *what, long long lo, long long hi)
{
    const char *s = next(c, what);
    char *end;
    errno = 0;
    long long v = s ? strtoll(s, &end, 10) : 0;
    if (s && (errno || end == s || *end || v < lo || v > hi))
        c->err = what;
    return c->err ? 0 : v;
}

/* Copies a string into a fixed buffer; too long is an error. */
static void next_into(struct cur *c, const char *what, char *out, size_t len)
{
    const char *s = next(c, what);
    if (s && strlen(s) >= len)
        c->err = what;
    if (!c->err)
        memcpy(out, s, strlen(s) + 1);
}

/* A count, then that many strings into out[i] (each len bytes). */
static int next_list(struct cur *c, const char *what, int max, char *out, size_t len)
{
    int n = (int)next_num(c, what, 0, max);
    for (int i = 0; i < n && !c->err; i++)
        next_into(c, what, out + (size_t)i * len, len);
    return c->err ? 0 : n;
}

/* The groups; stored in a malloc()ed array the plan points to. */
static void next_groups(struct cur *c, struct xl_plan *p)
{
    int n = (int)next_num(c, "groups", 0, 65536);
    gid_t *g = n && !c->err ? calloc((size_t)n, sizeof *g) : NULL;
    if (n && !c->err && !g)
        c->err = "groups (out of memory)";
    for (int i = 0; i < n && !c->err; i++)
        g[i] = (gid_t)next_num(c, "groups", 0, 4294967294LL);
    p->groups = g;
    p->ngroups = c->err ? 0 : n;
}

int xl_plan_decode(int argc, char **argv, char **envp, struct xl_plan *p, struct xl_view *v,
                   const char **err)
{
    struct cur c = {.arg = argv, .at = 1, .argc = argc};
    memset(p, 0, sizeof *p);
    memset(v, 0, sizeof *v);
    const char *tag = next(&c, "the plan (this supervisor is from another build)");
    if (tag && strcmp(tag, PLAN_TAG) != 0)
        c.err = "the plan (this supervisor is from another build)";
    next_into(&c, "slot", p->slot, sizeof p->slot);
    if (!c.err && !xl_slot_valid(p->slot))
        c.err = "slot";
    p->workdir = next(&c, "workdir");
    p->drop = (int)next_num(&c, "drop", 0, 1);
    p->uid = (uid_t)next_num(&c, "uid", 0, 4294967294LL);
    p->gid = (gid_t)next_num(&c, "gid", 0, 4294967294LL);
    p->timeout_s = (unsigned)next_num(&c, "timeout", 0, 4294967295LL);
    p->grace_s = (unsigned)next_num(&c, "grace", 0, 4294967295LL);
    next_into(&c, "oom file", p->oom_file, sizeof p->oom_file);
    next_into(&c, "failcnt file", p->failcnt_file, sizeof p->failcnt_file);
    next_groups(&c, p);
    p->nprocs = next_list(&c, "cgroup files", XL_CG_NCTL, p->procs[0], sizeof p->procs[0]);
    v->nhide = next_list(&c, "hidden dirs", XL_VIEW_MAX, v->hide[0], sizeof v->hide[0]);
    v->nbind = next_list(&c, "bound dirs", XL_VIEW_MAX, v->bind[0], sizeof v->bind[0]);
    int nexec = (int)next_num(&c, "exec paths", 1, argc);
    if (!c.err) {
        p->exec_paths = argv + c.at;   /* made NULL-terminated below */
        c.at += nexec;
        if (c.at >= argc || strcmp(argv[c.at], "--") != 0)
            c.err = "exec paths";
        else
            argv[c.at++] = NULL;
    }
    if (!c.err && c.at >= argc)
        c.err = "argv";
    if (c.err) {
        free((void *)p->groups);
        p->groups = NULL;
        if (!xl_slot_valid(p->slot))   /* the end is announced only for a good slot */
            p->slot[0] = '\0';
        *err = c.err;
        return -1;
    }
    p->argv = argv + c.at;
    p->envp = envp;
    p->view = v->nhide ? v : NULL;
    p->out_fd = XL_SUP_FD_OUT;
    p->dir_fd = XL_SUP_FD_DIR;
    return 0;
}

unsigned long long xl_stat_start_time(const char *stat)
{
    const char *p = strrchr(stat, ')');
    if (!p)
        return 0;
    /* The k-th space after ')' precedes field k + 2: 20 spaces to field 22. */
    for (int k = 0; k < 20; k++)
        if (!(p = strchr(p + 1, ' ')))
            return 0;
    unsigned long long v = 0;
    for (p++; *p >= '0' && *p <= '9'; p++)
        v = v * 10 + (unsigned long long)(*p - '0');
    return v;
}
