/* plugin.c — the executor-local plugin: this machine as one node of the
 * "local" executor. Glue only: descriptor, init/start/fini, the stop
 * callback, and the timers that collect output, report ends and keep the
 * node document current. */
#include "executor_local.h"
#include "config_schema.h"   /* XL_CONF_SCHEMA: config.schema.json, embedded at build time */

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <unistd.h>

#define REFRESH_MS 30000                 /* node document refresh */
#define STALE_RUN_S (7u * 24 * 3600)     /* run dirs nobody adopted */

void xl_track(struct xl *x, struct xl_run *r)
{
    pthread_mutex_lock(&x->mu);
    r->next = x->runs;
    x->runs = r;
    pthread_mutex_unlock(&x->mu);
}

struct xl_run *xl_find_locked(struct xl *x, const char *engine_id)
{
    for (struct xl_run *r = x->runs; r; r = r->next)
        if (!xl_run_done(r) && strcmp(r->engine_id, engine_id) == 0)
            return r;
    return NULL;
}

/* The executor's stop callback: records the grace period for the
 * supervisor and sends it SIGTERM; it does the rest. */
static int xl_stop(void *state, const char *engine_id, unsigned grace_seconds)
{
    struct xl *x = state;
    char dir[PATH_MAX], path[PATH_MAX + 16], tmp[PATH_MAX + 16], grace[32];
    pthread_mutex_lock(&x->mu);
    struct xl_run *r = engine_id ? xl_find_locked(x, engine_id) : NULL;
    pid_t pid = r ? r->sup_pid : 0;
    unsigned long long start = r ? r->sup_start : 0;
    if (r)
        snprintf(dir, sizeof dir, "%s", r->dir);
    pthread_mutex_unlock(&x->mu);
    if (!r)
        return CUBE_ENOTFOUND;
    snprintf(tmp, sizeof tmp, "%s/.stop.tmp", dir);
    snprintf(path, sizeof path, "%s/stop", dir);
    snprintf(grace, sizeof grace, "%u\n", grace_seconds);
    if (xl_write_file(tmp, grace) < 0 || rename(tmp, path) < 0)
        x->host->log(x->self, CUBE_LOG_WARN, "cannot write %s: %s", path, strerror(errno));
    if (xl_proc_start_time(pid) == start && kill(pid, SIGTERM) < 0 && errno != ESRCH)
        return CUBE_EIO;
    return CUBE_OK;   /* already ended: the tick reports how */
}

/* Waits for ended supervisors (cubed's children) that have exited; the
 * others are tried again on the next tick. Only pids of supervisors this
 * process started are waited for, so no other child's status is taken. */
static void reap_supervisors(struct xl *x, pid_t add)
{
    pthread_mutex_lock(&x->mu);
    if (add > 0 && x->nunreaped == x->capunreaped) {
        size_t cap = x->capunreaped ? x->capunreaped * 2 : 64;
        pid_t *v = realloc(x->unreaped, cap * sizeof *v);
        if (v)
            x->unreaped = v, x->capunreaped = cap;
    }
    if (add > 0 && x->nunreaped < x->capunreaped)
        x->unreaped[x->nunreaped++] = add;
    for (size_t i = 0; i < x->nunreaped;) {
        pid_t r = waitpid(x->unreaped[i], NULL, WNOHANG);
        if (r == 0 || (r < 0 && errno == EINTR))
            i++;
        else
            x->unreaped[i] = x->unreaped[--x->nunreaped];
    }
    pthread_mutex_unlock(&x->mu);
}

/* Unlinks and frees the runs the tick marked done. */
static void sweep(struct xl *x)
{
    struct xl_run *dead = NULL;
    pthread_mutex_lock(&x->mu);
    for (struct xl_run **pp = &x->runs; *pp;) {
        struct xl_run *r = *pp;
        if (xl_run_done(r)) {   /* set under mu: its reporter is past it */
            *pp = r->next;
            r->next = dead;
            dead = r;
        } else {
            pp = &r->next;
        }
    }
    pthread_mutex_unlock(&x->mu);
    while (dead) {
        struct xl_run *next = dead->next;
        if (dead->own_child)
            reap_supervisors(x, dead->sup_pid);
        xl_run_cleanup(x, dead);
        xl_run_free(dead);
        dead = next;
    }
}

/* Timer: new output into log streams, ended replicas reported, reported
 * ones cleaned up. Ticks never overlap; pumping and collecting never
 * overlap with xl_reap_slot's (reap_mu), and a run whose report a reporter
 * has (reporting) is left to it. Only the tick (and fini) unlinks runs,
 * and only done ones, which nobody else touches: the tick walks the list
 * without mu (start and adopt only push at the head) and cleans up outside
 * reap_mu, so the ends thread never waits for a clean-up. */
static void tick(void *state, void *arg)
{
    (void)arg;
    struct xl *x = state;
    unsigned every = 1000 / x->conf.poll_ms;
    int check_alive = ++x->ticks % (every ? every : 1) == 0;
    pthread_mutex_lock(&x->reap_mu);
    pthread_mutex_lock(&x->mu);
    struct xl_run *r = x->runs;
    pthread_mutex_unlock(&x->mu);
    for (; r; r = r->next) {
        if (xl_run_done(r) || xl_run_reporting(r))
            continue;
        xl_run_pump(x, r);
        if (!xl_run_try_reap(x, r) && check_alive)
            xl_run_check_lost(x, r);
    }
    pthread_mutex_unlock(&x->reap_mu);
    sweep(x);   /* also the runs the reporters reported; outside reap_mu */
    reap_supervisors(x, 0);
}

void xl_reap_slot(struct xl *x, const char *slot)
{
    pthread_mutex_lock(&x->reap_mu);
    pthread_mutex_lock(&x->mu);
    struct xl_run *r = x->runs;
    while (r && (xl_run_done(r) || xl_run_reporting(r) || strcmp(r->slot, slot) != 0))
        r = r->next;
    pthread_mutex_unlock(&x->mu);
    int ended = r && xl_run_collect(x, r);
    if (ended)   /* under reap_mu: the tick sees it set before it looks */
        __atomic_store_n(&r->reporting, 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&x->reap_mu);
    if (ended)   /* not done, reporting: nobody frees r meanwhile */
        xl_report_queue(x, r);
}

int xl_node_refresh(struct xl *x, char *msg, size_t len)
{
    int rc = CUBE_OK;
    char *devices = x->host->local_devices(x->self, &rc);
    if (!devices && rc != CUBE_OK)
        x->host->log(x->self, CUBE_LOG_WARN, "no device list from the host (%d)", rc);
    char *doc = xl_node_document(&x->conf, devices ? devices : "[]", msg, len);
    x->host->free(devices);
    if (!doc)
        return CUBE_EIO;
    pthread_mutex_lock(&x->mu);
    int same = x->last_node && strcmp(x->last_node, doc) == 0;
    pthread_mutex_unlock(&x->mu);
    if (!same && (rc = x->host->node_set(x->self, doc)) != CUBE_OK) {
        snprintf(msg, len, "node_set refused the node document (%d): %.200s", rc, doc);
        free(doc);
        return rc;
    }
    pthread_mutex_lock(&x->mu);
    char *old = x->last_node;
    x->last_node = doc;
    pthread_mutex_unlock(&x->mu);
    free(old);
    return CUBE_OK;
}

/* Timer: devices and capacity may change (device health, hot plug). */
static void refresh(void *state, void *arg)
{
    (void)arg;
    struct xl *x = state;
    char msg[XL_MSG];
    if (xl_node_refresh(x, msg, sizeof msg) != CUBE_OK)
        x->host->log(x->self, CUBE_LOG_WARN, "%s", msg);
}

/* Reads a /proc file for cgroup detection ("" when unreadable). */
static char *slurp(const char *path)
{
    char *buf = malloc(1 << 16);
    if (buf && xl_read_file(path, buf, 1 << 16) < 0)
        buf[0] = '\0';
    return buf;
}

/* Nonzero when path is on a tmpfs. */
static int on_tmpfs(const char *path)
{
    struct statfs fs;
    return statfs(path, &fs) == 0 && fs.f_type == TMPFS_MAGIC;
}

/* When run_dir is not set: run directories go to a tmpfs (cheap to make
 * and remove, no journal), /run/cube-executor-local/<hash> or else
 * /dev/shm/cube-executor-local-<uid>-<hash>, the hash of the disk default
 * telling cubeds with different data dirs apart. A tmpfs outlives cubed,
 * so re-adoption works as before; it does not outlive a reboot, and
 * neither do the replicas. The disk default stays for adopting replicas
 * started before (run_legacy). Unchanged when no tmpfs is usable. */
static void pick_tmpfs_run_root(struct xl_conf *c)
{
    unsigned long h = 5381;
    for (const char *p = c->run_root; *p; p++)
        h = h * 33 + (unsigned char)*p;
    char dir[PATH_MAX];
    struct stat st;
    if (on_tmpfs("/run") && access("/run", W_OK) == 0)
        snprintf(dir, sizeof dir, "/run/cube-executor-local/%08lx", h & 0xffffffffUL);
    else if (on_tmpfs("/dev/shm"))
        snprintf(dir, sizeof dir, "/dev/shm/cube-executor-local-%u-%08lx",
                 (unsigned)geteuid(), h & 0xffffffffUL);
    else
        return;
    /* /dev/shm is world-writable: only a real directory of ours will do. */
    if ((xl_mkdir_p(dir, 0700) < 0 && errno != EEXIST) || lstat(dir, &st) < 0 ||
        !S_ISDIR(st.st_mode) || st.st_uid != geteuid() || chmod(dir, 0700) < 0)
        return;
    char *copy = strdup(dir);
    if (!copy)
        return;
    c->run_legacy = c->run_root;
    c->run_root = copy;
}

/* A number from a /proc file; -1 when unreadable. */
static int64_t proc_number(const char *path)
{
    char buf[64];
    return xl_read_file(path, buf, sizeof buf) > 0 ? strtoll(buf, NULL, 10) : -1;
}

/* pids_max_total (computed when 0) on the replicas' parent cgroup. */
static void limit_pids(struct xl *x)
{
    struct xl_conf *c = &x->conf;
    char note[PATH_MAX + 256];
    if (!c->pids_max_total)
        c->pids_max_total = xl_pids_total_auto(proc_number("/proc/sys/kernel/pid_max"),
                                               proc_number("/proc/sys/kernel/threads-max"));
    if (!x->cgroups.version)
        return;   /* the cgroup note says limits are not enforced */
    int rc = xl_cgroups_limit_pids(&x->cgroups, c->pids_max_total, note, sizeof note);
    if (!c->pids_max)
        x->host->log(x->self, rc < 0 ? CUBE_LOG_WARN : CUBE_LOG_INFO, "%s; none per replica",
                     note);
    else
        x->host->log(x->self, rc < 0 ? CUBE_LOG_WARN : CUBE_LOG_INFO, "%s; each replica at "
                     "most %lld%s", note, (long long)c->pids_max,
                     c->pids_max > c->pids_max_total ? " (pids_max: the total binds first)"
                                                     : "");
}

/* Run dir, accounts mode and cgroups; err names the setting. */
static int setup_system(struct xl *x, char *err, size_t len)
{
    const struct xl_conf *c = &x->conf;
    char note[2048];
    struct stat st;
    if (c->run_default)
        pick_tmpfs_run_root(&x->conf);
    if (xl_mkdir_p(c->run_root, 0700) < 0 || stat(c->run_root, &st) < 0 ||
        !S_ISDIR(st.st_mode) || chmod(c->run_root, 0700) < 0)
        return snprintf(err, len, "run_dir: cannot create %s: %s", c->run_root,
                        strerror(errno)), CUBE_EIO;
    int root = geteuid() == 0;
    xl_accounts_init(&x->accounts, c, root);
    if (!root)
        x->host->log(x->self, CUBE_LOG_WARN, "cubed does not run as root: replicas run as "
                     "its own user (uid %u); per-user isolation is off", (unsigned)geteuid());
    char *mi = slurp("/proc/self/mountinfo"), *cg = slurp("/proc/self/cgroup");
    int rc = mi && cg ? xl_cgroups_detect(&x->cgroups, c->cgroup_mode, c->cgroup_parent, mi,
                                          cg, note, sizeof note) : -1;
    free(mi);
    free(cg);
    if (rc < 0)
        return snprintf(err, len, "cgroup: %.400s", mi && cg ? note : "out of memory"),
               CUBE_EINVAL;
    x->host->log(x->self, x->cgroups.version ? CUBE_LOG_INFO : CUBE_LOG_WARN, "%s", note);
    limit_pids(x);
    return CUBE_OK;
}

/* Registers the executor, advertises the node, starts the timers. */
static int go_live(struct xl *x, char *err, size_t len)
{
    const struct cube_executor_desc desc = {
        .size = sizeof desc, .name = "local", .start = xl_start, .stop = xl_stop,
        .adopt = xl_adopt,
    };
    int rc = x->host->register_executor(x->self, &desc);
    if (rc != CUBE_OK)
        return snprintf(err, len, "cannot register the executor \"local\" (%d)", rc), rc;
    if ((rc = xl_node_refresh(x, err, len)) != CUBE_OK)
        return rc;
    xl_janitor(x, STALE_RUN_S);
    if ((rc = xl_ends_start(x, err, len)) != CUBE_OK)
        return rc;
    x->tick = x->host->timer_add(x->self, x->conf.poll_ms, x->conf.poll_ms, tick, NULL);
    x->refresh = x->host->timer_add(x->self, REFRESH_MS, REFRESH_MS, refresh, NULL);
    if (!x->tick || !x->refresh)
        return snprintf(err, len, "cannot add timers"), CUBE_ENOMEM;
    return CUBE_OK;
}

static void xl_fini(void *state)
{
    struct xl *x = state;
    xl_ends_stop(x);
    xl_launcher_stop(&x->launcher);
    sweep(x);   /* reported ones: logs closed, cleaned up */
    xl_cgpool_fini(&x->cgpool);
    /* Replicas keep running: a restarted cubed adopts them. */
    while (x->runs) {
        struct xl_run *r = x->runs;
        x->runs = r->next;
        xl_run_free(r);
    }
    if (x->accounts.conf)
        xl_accounts_fini(&x->accounts);
    xl_conf_free(&x->conf);
    free(x->last_node);
    free(x->pump_buf);
    free(x->unreaped);
    pthread_mutex_destroy(&x->mu);
    pthread_mutex_destroy(&x->reap_mu);
    pthread_mutex_destroy(&x->rep_mu);
    pthread_cond_destroy(&x->rep_cv);
    free(x);
}

static int xl_init(const struct cube_host *host, cube_plugin *self, void **state)
{
    struct xl *x = calloc(1, sizeof *x);
    char err[XL_MSG] = "";
    if (!x || !(x->pump_buf = malloc(XL_PUMP_CHUNK))) {
        free(x);
        host->set_error(self, "out of memory");
        return CUBE_ENOMEM;
    }
    x->host = host;
    x->self = self;
    x->ends_fd = -1;
    xl_launcher_init(&x->launcher);
    xl_cgpool_init(&x->cgpool);
    pthread_mutex_init(&x->mu, NULL);
    pthread_mutex_init(&x->reap_mu, NULL);
    pthread_mutex_init(&x->rep_mu, NULL);
    pthread_cond_init(&x->rep_cv, NULL);
    *state = x;
    char *cfg = host->config_json(self);
    int rc = xl_conf_load(&x->conf, cfg, host->data_dir(self), err, sizeof err);
    host->free(cfg);
    if (rc == CUBE_OK)
        rc = setup_system(x, err, sizeof err);
    if (rc == CUBE_OK)
        rc = go_live(x, err, sizeof err);
    if (rc != CUBE_OK) {
        host->set_error(self, "%s", err);
        host->timer_cancel(self, x->tick);
        host->timer_cancel(self, x->refresh);
        xl_fini(x);
        *state = NULL;
        return rc;
    }
    host->log(self, CUBE_LOG_INFO, "node %s (pool %s): %s", x->conf.node_name, x->conf.pool,
              x->conf.sandbox == XL_SANDBOX_BWRAP ? "bubblewrap sandbox" : "no sandbox");
    return CUBE_OK;
}

/* Once every plugin is loaded: accelerator plugins may have added devices. */
static int xl_plugin_start(void *state)
{
    refresh(state, NULL);
    return CUBE_OK;
}

CUBE_PLUGIN_DEFINE(executor_local,
    .name = XL_NAME,
    .version = "1.0.0",
    .vendor = "Cube",
    .license = "Apache-2.0",
    .description = "Runs job replicas as processes on this machine (own accounts, cgroups)",
    .config_schema = XL_CONF_SCHEMA,
    .init = xl_init,
    .start = xl_plugin_start,
    .fini = xl_fini)
