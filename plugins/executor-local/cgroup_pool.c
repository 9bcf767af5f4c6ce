/* cgroup_pool.c — empty cgroups kept for the next replica with the same
 * limits. Making a replica's cgroup is a mkdir in each hierarchy (v1:
 * memory, cpu and pids: the kernel creates every control file of each)
 * and a write per limit, and removing it a rmdir in each, plus the
 * kernel's deferred clean-up of the groups: about 15% of cubed's CPU on a
 * DAG of short tasks. A group whose replica ended is reused as it is when
 * the next replica asks for exactly the same limits, so nothing is written.
 *
 * Only groups made here (poolable) are kept, and only when they are empty
 * after the straggler kill, have no OOM kill recorded (the counter cannot
 * be reset, and a replica's verdict reads it) and, with a memory limit,
 * have at most 1/CHARGED_MAX_PART of it still charged (page cache and
 * tmpfs files of the last replica stay charged to the group, and would
 * count against the next one's limit); memory.failcnt (v1) is reset to 0,
 * since the verdict reads it as well. A group with a CPU limit gets its
 * quota written again when taken: that refills the period's runtime, which
 * the last replica may have used up (the next one would be throttled for
 * the rest of the period). Other counters of the group (CPU time, peak
 * usage) are not read by the plugin. At most
 * POOL_MAX groups are kept (then one of the older goes); xl_cgpool_fini
 * removes them all, and xl_cgroups_sweep at start-up removes those a
 * cubed that died left behind: empty groups named like our slots whose
 * cubed (the pid in the name) is gone and that no run directory names (a
 * replica being started when cubed died has not joined its group yet). A
 * kept group somebody removed meanwhile is noticed when taken, and made
 * anew. */
#include "executor_local.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define POOL_MAX 64
#define CHARGED_MAX_PART 16   /* a kept group has at most 1/16 of its limit charged */

void xl_cgpool_init(struct xl_cgpool *p)
{
    memset(p, 0, sizeof *p);
    pthread_mutex_init(&p->mu, NULL);
}

void xl_cgpool_fini(struct xl_cgpool *p)
{
    for (int i = 0; i < p->n; i++)
        xl_cgroup_destroy(&p->v[i]);
    free(p->v);
    pthread_mutex_destroy(&p->mu);
    memset(p, 0, sizeof *p);
}

/* Nonzero when every directory of g is still there (nobody removed it
 * while it was kept). */
static int still_there(const struct xl_cgroup *g)
{
    struct stat st;
    for (int i = 0; i < XL_CG_NCTL; i++)
        if (*g->dir[i] && stat(g->dir[i], &st) < 0)
            return 0;
    return 1;
}

/* Gives a kept group with a CPU limit its whole quota again: the last
 * replica's use in the current period would otherwise count against the
 * next (writing the quota refills the runtime and lifts a throttle). */
static int refill(const struct xl_cgroup *g)
{
    char path[PATH_MAX + 32], v[64];
    if (!g->cpu_millis)
        return 0;
    if (g->version == 2) {
        snprintf(v, sizeof v, "%lld 100000", (long long)(g->cpu_millis * 100));
        return xl_path_join(path, sizeof path, g->dir[0], "cpu.max") < 0 ? -1
               : xl_write_file(path, v);
    }
    snprintf(v, sizeof v, "%lld", (long long)(g->cpu_millis * 100));
    return xl_path_join(path, sizeof path, g->dir[XL_CG_CPU], "cpu.cfs_quota_us") < 0 ? -1
           : xl_write_file(path, v);
}

int xl_cgroup_take(struct xl_cgpool *p, const struct xl_cgroups *cg, const char *slot,
                   int64_t memory_bytes, int64_t cpu_millis, int64_t pids_max,
                   struct xl_cgroup *out, char *msg, size_t len)
{
    int found = 0;
    pthread_mutex_lock(&p->mu);
    for (int i = p->n - 1; i >= 0 && !found; i--) {   /* the newest first: warm pages */
        const struct xl_cgroup *g = &p->v[i];
        found = g->version == cg->version && g->memory_bytes == memory_bytes &&
                g->cpu_millis == cpu_millis && g->pids_max == pids_max;
        if (found) {
            *out = *g;
            p->v[i] = p->v[--p->n];
        }
    }
    pthread_mutex_unlock(&p->mu);
    if (found && still_there(out) && refill(out) == 0)
        return CUBE_OK;
    if (found)
        xl_cgroup_destroy(out);
    return xl_cgroup_create(cg, slot, memory_bytes, cpu_millis, pids_max, out, msg, len);
}

/* Bytes still charged to g's memory group (page cache, files left in a
 * tmpfs); -1 when unknown. */
static long long memory_charged(const struct xl_cgroup *g)
{
    char path[PATH_MAX + 32], buf[32];
    int v2 = g->version == 2;
    const char *dir = g->dir[v2 ? 0 : XL_CG_MEMORY];
    if (!*dir || xl_path_join(path, sizeof path, dir,
                              v2 ? "memory.current" : "memory.usage_in_bytes") < 0 ||
        xl_read_file(path, buf, sizeof buf) <= 0)
        return -1;
    return strtoll(buf, NULL, 10);
}

/* Nonzero when the emptied group g can serve another replica as it is. */
static int reusable(const struct xl_cgroup *g)
{
    char oom[PATH_MAX + 32], failcnt[PATH_MAX + 32], buf[1024];
    if (g->memory_bytes) {   /* what stays charged would count against the next limit */
        long long charged = memory_charged(g);
        if (charged < 0 || charged > g->memory_bytes / CHARGED_MAX_PART)
            return 0;
    }
    xl_cgroup_oom_files(g, oom, failcnt, sizeof oom);
    if (*oom && (xl_read_file(oom, buf, sizeof buf) <= 0 ||
                 xl_kv_number(buf, "oom_kill", -1) != 0))
        return 0;   /* also when unreadable or without the counter */
    if (*failcnt && (xl_read_file(failcnt, buf, sizeof buf) <= 0 ||
                     (strtoll(buf, NULL, 10) != 0 && xl_write_file(failcnt, "0") < 0)))
        return 0;
    return 1;
}

void xl_cgroup_release(struct xl_cgpool *p, const struct xl_cgroup *g)
{
    if (!g->version || !g->poolable || !xl_cgroup_emptied(g) || !reusable(g)) {
        xl_cgroup_destroy(g);
        return;
    }
    struct xl_cgroup oldest = {0};
    pthread_mutex_lock(&p->mu);
    if (!p->v && !(p->v = calloc(POOL_MAX, sizeof *p->v))) {
        pthread_mutex_unlock(&p->mu);
        xl_cgroup_destroy(g);
        return;
    }
    if (p->n == POOL_MAX) {   /* one goes (the first: among the oldest) */
        oldest = p->v[0];
        p->v[0] = p->v[--p->n];
    }
    p->v[p->n++] = *g;
    pthread_mutex_unlock(&p->mu);
    if (oldest.version)
        xl_cgroup_destroy(&oldest);
}

/* The pid in a slot name "<ms>-<pid>-<seq>" (hex; start.c), or 0 when the
 * name is not one. */
static pid_t slot_pid(const char *name)
{
    const char *p = name;
    unsigned long long part[3];
    for (int i = 0; i < 3; i++) {
        char *end;
        if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
            return 0;
        part[i] = strtoull(p, &end, 16);
        if (*end != (i < 2 ? '-' : '\0'))
            return 0;
        p = end + 1;
    }
    return part[1] > 1 && part[1] <= 4194304 ? (pid_t)part[1] : 0;
}

/* Nonzero when path is one of keep[0..n). */
static int listed(const char *path, char *const *keep, int n)
{
    for (int i = 0; i < n; i++)
        if (strcmp(path, keep[i]) == 0)
            return 1;
    return 0;
}

void xl_cgroups_sweep(const struct xl_cgroups *cg, char *const *keep, int nkeep)
{
    for (int i = 0; i < XL_CG_NCTL && cg->version; i++) {
        DIR *d = *cg->parent[i] ? opendir(cg->parent[i]) : NULL;
        struct dirent *e;
        char path[PATH_MAX + 256];
        while (d && (e = readdir(d))) {
            pid_t pid = e->d_type == DT_DIR ? slot_pid(e->d_name) : 0;
            /* another live cubed's kept groups are its own business */
            if (!pid || pid == getpid() || kill(pid, 0) == 0 || errno != ESRCH)
                continue;
            snprintf(path, sizeof path, "%s/%s", cg->parent[i], e->d_name);
            if (!listed(path, keep, nkeep))
                unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR);   /* busy ones stay */
        }
        if (d)
            closedir(d);
    }
}
