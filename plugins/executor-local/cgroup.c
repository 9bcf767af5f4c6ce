/* cgroup.c — resource limits through cgroups. cgroup v2 when its memory and
 * cpu controllers can be used, else cgroup v1 (memory, cpu, pids); detected
 * once at init from /proc/self/mountinfo and /proc/self/cgroup. Each replica
 * gets a group of its own under a parent: "<own cgroup>/executor-local" in
 * v1, a sibling of cubed's cgroup in v2 (v2 lets no group with processes
 * hand controllers to children), or the configured cgroup_parent. The
 * parent's own pids.max bounds all replicas together (pids_max_total). */
#include "executor_local.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *const CTL[XL_CG_NCTL] = {"memory", "cpu", "pids"};

ssize_t xl_read_file(const char *path, char *buf, size_t len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t got = 0;
    ssize_t k;
    while (got < len - 1 && (k = read(fd, buf + got, len - 1 - got)) > 0)
        got += (size_t)k;
    close(fd);
    buf[got] = '\0';
    return (ssize_t)got;
}

int xl_write_file(const char *path, const char *s)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        return -1;
    ssize_t n = write(fd, s, strlen(s));
    int e = errno;
    close(fd);
    errno = e;
    return n == (ssize_t)strlen(s) ? 0 : -1;
}

int xl_path_join(char *out, size_t len, const char *dir, const char *name)
{
    int n = snprintf(out, len, "%s/%s", dir, name);
    return n < 0 || (size_t)n >= len ? (errno = ENAMETOOLONG, -1) : 0;
}

/* Writes s into dir/file; 0 or -1 with errno. */
static int put(const char *dir, const char *file, const char *s)
{
    char path[PATH_MAX];
    if (xl_path_join(path, sizeof path, dir, file) < 0)
        return -1;
    return xl_write_file(path, s);
}

/* Nonzero when the space- or comma-separated list has the word. */
static int has_word(const char *list, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = list; (p = strstr(p, word)); p += n)
        if ((p == list || p[-1] == ' ' || p[-1] == ',') &&
            (p[n] == '\0' || p[n] == ' ' || p[n] == ',' || p[n] == '\n'))
            return 1;
    return 0;
}

/* Decodes mountinfo's octal escapes (\040) in place. */
static void unescape(char *s)
{
    char *o = s;
    for (; *s; s++) {
        if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] && s[3]) {
            *o++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
            s += 3;
        } else {
            *o++ = *s;
        }
    }
    *o = '\0';
}

/* One cgroup mount: its root inside the hierarchy and where it is. */
struct mnt { char root[PATH_MAX], point[PATH_MAX]; int found; };

/* Finds the cgroup2 mount (ctl NULL) or the v1 mount of controller ctl. */
static void find_mount(const char *mountinfo, const char *ctl, struct mnt *m)
{
    char line[4096];
    m->found = 0;
    for (const char *p = mountinfo; p && *p && !m->found;) {
        size_t n = strcspn(p, "\n");
        snprintf(line, sizeof line, "%.*s", (int)n, p);
        p += n + (p[n] == '\n');
        char root[PATH_MAX], point[PATH_MAX], type[64], opts[1024];
        const char *dash = strstr(line, " - ");
        if (!dash || sscanf(line, "%*s %*s %*s %4095s %4095s", root, point) != 2 ||
            sscanf(dash + 3, "%63s %*s %1023s", type, opts) != 2)
            continue;
        if (ctl ? strcmp(type, "cgroup") != 0 || !has_word(opts, ctl)
                : strcmp(type, "cgroup2") != 0)
            continue;
        unescape(root);
        unescape(point);
        snprintf(m->root, sizeof m->root, "%s", root);
        snprintf(m->point, sizeof m->point, "%s", point);
        m->found = 1;
    }
}

/* The path of our own cgroup in the v1 hierarchy of ctl (NULL: v2) from
 * /proc/self/cgroup text; "/" when not listed. */
static void own_path(const char *self_cgroup, const char *ctl, char *out, size_t len)
{
    char line[PATH_MAX + 256];
    snprintf(out, len, "/");
    for (const char *p = self_cgroup; p && *p;) {
        size_t n = strcspn(p, "\n");
        snprintf(line, sizeof line, "%.*s", (int)n, p);
        p += n + (p[n] == '\n');
        char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2)
            continue;
        *c2 = '\0';
        if (ctl ? has_word(c1 + 1, ctl) : (c1[1] == '\0' && strncmp(line, "0:", 2) == 0)) {
            snprintf(out, len, "%s", c2 + 1);
            return;
        }
    }
}

/* Where hierarchy path `path` is on disk under mount m. */
static void on_disk(const struct mnt *m, const char *path, char *out, size_t len)
{
    size_t r = strlen(m->root);
    if (strcmp(m->root, "/") != 0 && strncmp(path, m->root, r) == 0)
        path += r;
    int w = snprintf(out, len, "%s%s%s", m->point, *path == '/' ? "" : "/", path);
    size_t n = w < 0 ? 0 : (size_t)w < len ? (size_t)w : len - 1;
    out[n] = '\0';
    while (n > 1 && out[n - 1] == '/')
        out[--n] = '\0';
}

int xl_mkdir_p(const char *path, unsigned mode)
{
    char tmp[PATH_MAX];
    if (snprintf(tmp, sizeof tmp, "%s", path) >= (int)sizeof tmp)
        return errno = ENAMETOOLONG, -1;
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(tmp, mode) < 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    return mkdir(tmp, mode) < 0 && errno != EEXIST ? -1 : 0;
}

/* v2: enables memory, cpu (and pids) from the mount down to parent, which
 * it creates. note explains a failure. */
static int v2_prepare(const struct mnt *m, const char *parent, char *note, size_t len)
{
    char dir[PATH_MAX], path[PATH_MAX + 32], buf[1024];
    snprintf(dir, sizeof dir, "%s", m->point);
    const char *rest = parent + strlen(m->point);
    for (;;) {
        snprintf(path, sizeof path, "%s/cgroup.controllers", dir);
        if (xl_read_file(path, buf, sizeof buf) < 0 ||
            !has_word(buf, "memory") || !has_word(buf, "cpu"))
            return snprintf(note, len, "cgroup v2 at %s has no memory/cpu controllers", dir), -1;
        const char *want = has_word(buf, "pids") ? "+memory +cpu +pids" : "+memory +cpu";
        if (put(dir, "cgroup.subtree_control", want) < 0)
            return snprintf(note, len, "cannot enable controllers in %s: %s", dir,
                            strerror(errno)), -1;
        if (!*rest)
            return 0;
        size_t seg = strcspn(rest + 1, "/") + 1;
        snprintf(dir + strlen(dir), sizeof dir - strlen(dir), "%.*s", (int)seg, rest);
        rest += seg;
        if (mkdir(dir, 0755) < 0 && errno != EEXIST)
            return snprintf(note, len, "cannot create %s: %s", dir, strerror(errno)), -1;
    }
}

/* Tries cgroup v2. */
static int try_v2(struct xl_cgroups *cg, const char *parent_conf, const char *mountinfo,
                  const char *self_cgroup, char *note, size_t len)
{
    struct mnt m;
    char own[PATH_MAX], parent[PATH_MAX * 2];
    find_mount(mountinfo, NULL, &m);
    if (!m.found)
        return snprintf(note, len, "no cgroup v2 mount"), -1;
    own_path(self_cgroup, NULL, own, sizeof own);
    if (*parent_conf) {
        snprintf(parent, sizeof parent, "%s", parent_conf);
    } else {  /* a sibling of our own group: that one has processes */
        char *slash = strrchr(own, '/');
        if (slash)
            *slash = '\0';
        snprintf(parent, sizeof parent, "%s/%s", own, XL_NAME);
    }
    on_disk(&m, parent, cg->parent[0], sizeof cg->parent[0]);
    if (v2_prepare(&m, cg->parent[0], note, len) < 0)
        return -1;
    cg->version = 2;
    snprintf(note, len, "cgroup v2: replicas under %s", cg->parent[0]);
    return 0;
}

/* Tries cgroup v1 (memory and cpu required, pids when mounted). */
static int try_v1(struct xl_cgroups *cg, const char *parent_conf, const char *mountinfo,
                  const char *self_cgroup, char *note, size_t len)
{
    for (int i = 0; i < XL_CG_NCTL; i++) {
        struct mnt m;
        char own[PATH_MAX], parent[PATH_MAX * 2];
        find_mount(mountinfo, CTL[i], &m);
        cg->parent[i][0] = '\0';
        if (!m.found) {
            if (i == XL_CG_PIDS)
                continue;
            return snprintf(note, len, "no cgroup v1 %s hierarchy", CTL[i]), -1;
        }
        own_path(self_cgroup, CTL[i], own, sizeof own);
        if (*parent_conf)
            snprintf(parent, sizeof parent, "%s", parent_conf);
        else
            snprintf(parent, sizeof parent, "%s/%s", strcmp(own, "/") ? own : "", XL_NAME);
        on_disk(&m, parent, cg->parent[i], sizeof cg->parent[i]);
        if (xl_mkdir_p(cg->parent[i], 0755) < 0 || access(cg->parent[i], W_OK) < 0)
            return snprintf(note, len, "cannot create %s: %s", cg->parent[i],
                            strerror(errno)), -1;
    }
    cg->version = 1;
    snprintf(note, len, "cgroup v1: replicas under %s, %s%s%s", cg->parent[0], cg->parent[1],
             *cg->parent[2] ? ", " : " (no pids controller)", cg->parent[2]);
    return 0;
}

int xl_cgroups_detect(struct xl_cgroups *cg, int mode, const char *parent_conf,
                      const char *mountinfo, const char *self_cgroup, char *note, size_t len)
{
    memset(cg, 0, sizeof *cg);
    char why2[512] = "", why1[512] = "";
    if (mode == XL_CG_OFF)
        return snprintf(note, len, "cgroups off: limits are not enforced"), 0;
    if ((mode == XL_CG_AUTO || mode == XL_CG_V2) &&
        try_v2(cg, parent_conf, mountinfo, self_cgroup, note, len) == 0)
        return 0;
    snprintf(why2, sizeof why2, "%s", note);
    if (mode == XL_CG_V2)
        return snprintf(note, len, "cgroup: v2 unusable: %s", why2), -1;
    memset(cg, 0, sizeof *cg);
    if (try_v1(cg, parent_conf, mountinfo, self_cgroup, note, len) == 0) {
        size_t n = strlen(note);
        if (mode == XL_CG_AUTO)
            snprintf(note + n, len - n, " (v2 unusable: %s)", why2);
        return 0;
    }
    snprintf(why1, sizeof why1, "%s", note);
    memset(cg, 0, sizeof *cg);
    if (mode == XL_CG_V1)
        return snprintf(note, len, "cgroup: v1 unusable: %s", why1), -1;
    snprintf(note, len, "no usable cgroups (v2: %s; v1: %s): limits are not enforced",
             why2, why1);
    return 0;
}

int64_t xl_pids_total_auto(int64_t pid_max, int64_t threads_max)
{
    int64_t m = pid_max > 0 ? pid_max : 32768;   /* unknown: the kernel's default */
    if (threads_max > 0 && threads_max < m)
        m = threads_max;
    return m / 2 > 64 ? m / 2 : 64;
}

int xl_cgroups_limit_pids(const struct xl_cgroups *cg, int64_t total, char *note, size_t len)
{
    const char *dir = cg->version == 2 ? cg->parent[0]
                      : cg->version == 1 ? cg->parent[XL_CG_PIDS] : "";
    char path[PATH_MAX], v[32];
    if (!*dir)
        return snprintf(note, len, "no pids controller: the processes of all replicas "
                        "together are not limited"), -1;
    snprintf(v, sizeof v, "%lld", (long long)total);
    if (xl_path_join(path, sizeof path, dir, "pids.max") < 0 || xl_write_file(path, v) < 0)
        return snprintf(note, len, "cannot set %s/pids.max: %s: the processes of all "
                        "replicas together are not limited", dir, strerror(errno)), -1;
    return snprintf(note, len, "all replicas together: at most %lld processes (%s)",
                    (long long)total, path), 0;
}

/* Writes the v2 limits into dir. */
static int v2_limits(const char *dir, int64_t mem, int64_t cpu, int64_t pids)
{
    char v[64];
    if (mem) {
        snprintf(v, sizeof v, "%lld", (long long)mem);
        if (put(dir, "memory.max", v) < 0)
            return -1;
        put(dir, "memory.swap.max", "0");   /* absent without swap accounting */
    }
    put(dir, "memory.oom.group", "1");      /* an OOM kill ends the whole replica */
    snprintf(v, sizeof v, "%lld 100000", (long long)(cpu * 100));
    if (cpu && put(dir, "cpu.max", v) < 0)
        return -1;
    snprintf(v, sizeof v, "%lld", (long long)pids);
    return pids && put(dir, "pids.max", v) < 0 ? -1 : 0;
}

/* Writes the v1 limits into the per-controller dirs. */
static int v1_limits(char dir[][PATH_MAX], int64_t mem, int64_t cpu, int64_t pids)
{
    char v[64];
    if (mem) {
        snprintf(v, sizeof v, "%lld", (long long)mem);
        if (put(dir[XL_CG_MEMORY], "memory.limit_in_bytes", v) < 0)
            return -1;
        put(dir[XL_CG_MEMORY], "memory.memsw.limit_in_bytes", v);  /* no swapping past it */
    }
    snprintf(v, sizeof v, "%lld", (long long)(cpu * 100));
    if (cpu && (put(dir[XL_CG_CPU], "cpu.cfs_period_us", "100000") < 0 ||
                put(dir[XL_CG_CPU], "cpu.cfs_quota_us", v) < 0))
        return -1;
    snprintf(v, sizeof v, "%lld", (long long)pids);
    return pids && *dir[XL_CG_PIDS] && put(dir[XL_CG_PIDS], "pids.max", v) < 0 ? -1 : 0;
}

int xl_cgroup_create(const struct xl_cgroups *cg, const char *slot, int64_t memory_bytes,
                     int64_t cpu_millis, int64_t pids_max, struct xl_cgroup *out,
                     char *msg, size_t len)
{
    memset(out, 0, sizeof *out);
    out->version = cg->version;
    for (int i = 0; i < XL_CG_NCTL && cg->version; i++) {
        if (!*cg->parent[i])
            continue;
        if (xl_path_join(out->dir[i], sizeof out->dir[i], cg->parent[i], slot) < 0 ||
            mkdir(out->dir[i], 0755) < 0) {
            snprintf(msg, len, "cannot create cgroup %s: %s", out->dir[i], strerror(errno));
            out->dir[i][0] = '\0';
            xl_cgroup_destroy(out);
            return CUBE_EIO;
        }
    }
    out->poolable = 1;
    out->memory_bytes = memory_bytes;
    out->cpu_millis = cpu_millis;
    out->pids_max = pids_max;
    int rc = cg->version == 2 ? v2_limits(out->dir[0], memory_bytes, cpu_millis, pids_max)
           : cg->version == 1 ? v1_limits(out->dir, memory_bytes, cpu_millis, pids_max) : 0;
    if (rc < 0) {
        snprintf(msg, len, "cannot set the limits of cgroup %s: %s", out->dir[0],
                 strerror(errno));
        xl_cgroup_destroy(out);
        return CUBE_EIO;
    }
    return CUBE_OK;
}

int xl_cgroup_procs_files(const struct xl_cgroup *g, char out[][PATH_MAX])
{
    int n = 0;
    for (int i = 0; i < XL_CG_NCTL; i++)
        if (*g->dir[i] && xl_path_join(out[n], PATH_MAX, g->dir[i], "cgroup.procs") == 0)
            n++;
    return n;
}

void xl_cgroup_oom_files(const struct xl_cgroup *g, char *oom, char *failcnt, size_t len)
{
    oom[0] = failcnt[0] = '\0';
    if (g->version == 2 && *g->dir[0] &&
        xl_path_join(oom, len, g->dir[0], "memory.events") < 0)
        oom[0] = '\0';
    if (g->version == 1 && *g->dir[XL_CG_MEMORY] &&
        (xl_path_join(oom, len, g->dir[XL_CG_MEMORY], "memory.oom_control") < 0 ||
         xl_path_join(failcnt, len, g->dir[XL_CG_MEMORY], "memory.failcnt") < 0))
        oom[0] = failcnt[0] = '\0';
}

/* SIGKILLs every process listed in dir/cgroup.procs; how many were
 * listed (-1 when the file cannot be read). */
static int kill_members(const char *dir)
{
    char path[PATH_MAX], buf[65536];
    if (xl_path_join(path, sizeof path, dir, "cgroup.procs") < 0 ||
        xl_read_file(path, buf, sizeof buf) < 0)
        return -1;
    int n = 0;
    for (char *p = buf, *end; *p; p = end) {
        long pid = strtol(p, &end, 10);
        if (end == p)
            break;
        n++;
        if (pid > 1)
            kill((pid_t)pid, SIGKILL);
    }
    return n;
}

int xl_cgroup_emptied(const struct xl_cgroup *g)
{
    int empty = 1;
    for (int i = 0; i < XL_CG_NCTL; i++)
        if (*g->dir[i] && kill_members(g->dir[i]) != 0)
            empty = 0;
    return empty;
}

void xl_cgroup_destroy(const struct xl_cgroup *g)
{
    for (int i = 0; i < XL_CG_NCTL; i++) {
        if (!*g->dir[i])
            continue;
        char kill_file[PATH_MAX];
        int fd = g->version == 2 && xl_path_join(kill_file, sizeof kill_file, g->dir[i],
                                                 "cgroup.kill") == 0
                     ? open(kill_file, O_WRONLY | O_CLOEXEC) : -1;
        if (fd >= 0) {   /* v2, since Linux 5.14 */
            (void)!write(fd, "1", 1);
            close(fd);
        }
        for (int try = 0; try < 40; try++) {
            kill_members(g->dir[i]);
            if (rmdir(g->dir[i]) == 0 || errno == ENOENT)
                break;
            nanosleep(&(struct timespec){0, 5 * 1000 * 1000}, NULL);
        }
    }
}
