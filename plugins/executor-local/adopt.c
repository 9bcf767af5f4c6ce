/* adopt.c — after cubed restarted: finding a replica again from its engine
 * id (the supervisor's pid and start time, and its run directory), and
 * removing run directories nobody will ask for any more. */
#include "executor_local.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

/* A new run for engine id parts, its directory checked; NULL when gone. */
static struct xl_run *run_for(struct xl *x, const char *engine_id, pid_t pid,
                              unsigned long long start, const char *slot)
{
    struct stat st;
    struct xl_run *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->out_fd = r->off_fd = -1;
    snprintf(r->engine_id, sizeof r->engine_id, "%s", engine_id);
    snprintf(r->slot, sizeof r->slot, "%s", slot);
    snprintf(r->dir, sizeof r->dir, "%s/%s", x->conf.run_root, slot);
    r->sup_pid = pid;
    r->sup_start = start;
    if (lstat(r->dir, &st) < 0 && x->conf.run_legacy)   /* started before the move */
        snprintf(r->dir, sizeof r->dir, "%s/%s", x->conf.run_legacy, slot);
    if (lstat(r->dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
        xl_run_free(r);
        return NULL;
    }
    return r;
}

/* The log target from the replica document, when it has one. */
static void log_from_replica(struct xl_run *r, const char *replica_json)
{
    cJSON *doc = replica_json ? cJSON_Parse(replica_json) : NULL;
    struct xl_log l;
    if (xl_log_parse(&l, cJSON_GetObjectItemCaseSensitive(doc, "log")) == 0) {
        xl_log_free(&r->log);
        r->log = l;
    }
    cJSON_Delete(doc);
}

/* Nonzero when the run's status file exists. */
static int has_status(const struct xl_run *r)
{
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/status", r->dir);
    return access(path, F_OK) == 0;
}

int xl_adopt(void *state, const char *engine_id, const char *replica_json)
{
    struct xl *x = state;
    pid_t pid;
    unsigned long long start;
    char slot[64];
    if (xl_engine_id_parse(engine_id, &pid, &start, slot, sizeof slot) < 0)
        return CUBE_ENOTFOUND;
    pthread_mutex_lock(&x->mu);
    int known = xl_find_locked(x, engine_id) != NULL;
    pthread_mutex_unlock(&x->mu);
    if (known)
        return CUBE_OK;
    struct xl_run *r = run_for(x, engine_id, pid, start, slot);
    if (!r)
        return CUBE_ENOTFOUND;
    log_from_replica(r, replica_json);
    if (xl_meta_read(r) < 0 || xl_run_open_files(r) < 0) {
        x->host->log(x->self, CUBE_LOG_WARN, "cannot adopt %s: its run directory %s is "
                     "incomplete", engine_id, r->dir);
        xl_run_free(r);
        return CUBE_ENOTFOUND;
    }
    /* Running (same process: pid and start time), or ended with a status:
     * either way the tick reports its end, with the output it left. The
     * status is looked for again in case it was written in between. */
    if (has_status(r) || xl_proc_start_time(pid) == start || has_status(r)) {
        x->host->log(x->self, CUBE_LOG_INFO, "adopted %s (%s)", engine_id,
                     has_status(r) ? "ended meanwhile" : "running");
        xl_track(x, r);
        return CUBE_OK;
    }
    x->host->log(x->self, CUBE_LOG_WARN, "cannot adopt %s: its supervisor is gone and left "
                 "no status", engine_id);
    xl_cgroup_destroy(&r->cg);
    xl_run_dir_remove(r->dir);
    xl_run_free(r);
    return CUBE_ENOTFOUND;
}

/* Age in seconds of dir/name's last change; -1 when it does not exist. */
static long long age_of(const char *dir, const char *name)
{
    char path[PATH_MAX + 64];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (stat(path, &st) < 0)
        return -1;
    return (long long)(time(NULL) - st.st_mtime);
}

/* Nonzero when the run directory is not watched and is stale: finished (or
 * abandoned) more than max_age_s ago and its supervisor is gone. */
static int stale(struct xl *x, const char *dir, unsigned max_age_s)
{
    char path[PATH_MAX + 16], id[XL_ID_LEN], slot[64];
    pid_t pid;
    unsigned long long start;
    snprintf(path, sizeof path, "%s/engine", dir);
    ssize_t n = xl_read_file(path, id, sizeof id);
    if (n > 0 && xl_engine_id_parse(id, &pid, &start, slot, sizeof slot) == 0) {
        pthread_mutex_lock(&x->mu);
        int watched = xl_find_locked(x, id) != NULL;
        pthread_mutex_unlock(&x->mu);
        if (watched || xl_proc_start_time(pid) == start)
            return 0;
    }
    long long a = age_of(dir, "status");
    if (a < 0)
        a = age_of(dir, "meta.json");
    return a < 0 || a > (long long)max_age_s;
}

/* The cgroup dirs the kept run directories name (spared by the sweep of
 * kept cgroups). */
struct named {
    char **v;
    int n, cap;
};

static void name_cgroups(struct named *k, const struct xl_cgroup *cg)
{
    for (int i = 0; i < XL_CG_NCTL; i++) {
        if (!*cg->dir[i])
            continue;
        if (k->n == k->cap) {
            int cap = k->cap ? k->cap * 2 : 16;
            char **grown = realloc(k->v, sizeof *k->v * (size_t)cap);
            if (!grown)
                return;
            k->v = grown, k->cap = cap;
        }
        if ((k->v[k->n] = strdup(cg->dir[i])))
            k->n++;
    }
}

/* The janitor's work in one root: stale run directories go, the others'
 * cgroups are noted in k. */
static void sweep_root(struct xl *x, const char *root, unsigned max_age_s, struct named *k)
{
    DIR *d = opendir(root);
    struct dirent *e;
    int removed = 0;
    while (d && (e = readdir(d))) {
        if (!xl_slot_valid(e->d_name))
            continue;
        struct xl_run r = {.out_fd = -1, .off_fd = -1};
        snprintf(r.dir, sizeof r.dir, "%s/%s", root, e->d_name);
        int gone = stale(x, r.dir, max_age_s);
        int has_cgroup = xl_meta_read(&r) == 0 || r.cg.version;
        if (gone && has_cgroup)
            xl_cgroup_destroy(&r.cg);
        if (!gone)
            name_cgroups(k, &r.cg);
        xl_log_free(&r.log);
        if (gone) {
            xl_run_dir_remove(r.dir);
            removed++;
        }
    }
    if (d)
        closedir(d);
    if (removed)
        x->host->log(x->self, CUBE_LOG_INFO, "removed %d stale run director%s", removed,
                     removed == 1 ? "y" : "ies");
}

void xl_janitor(struct xl *x, unsigned max_age_s)
{
    struct named k = {0};
    sweep_root(x, x->conf.run_root, max_age_s, &k);
    if (x->conf.run_legacy)
        sweep_root(x, x->conf.run_legacy, max_age_s, &k);
    xl_cgroups_sweep(&x->cgroups, k.v, k.n);
    for (int i = 0; i < k.n; i++)
        free(k.v[i]);
    free(k.v);
}
