/* start.c — the executor's start callback: from a replica document to a
 * running supervised replica. Account, workdir, run directory, cgroup,
 * environment, mount view and sandbox are prepared here, in cubed, so that
 * the supervisor program only has to follow the plan. */
#include "executor_local.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Everything one start prepares; freed by ctx_free. */
struct ctx {
    struct xl_replica rep;
    struct xl_account acct;
    char workdir[PATH_MAX];
    char **env, **paths, **bwrap_argv;
    char *bwrap_paths[2];
    struct xl_view view;
    struct xl_plan plan;
    struct xl_run *run;
    int append_fd, dir_fd;
};

static void ctx_free(struct ctx *c)
{
    xl_replica_free(&c->rep);
    xl_strv_free(c->env);
    xl_strv_free(c->paths);
    xl_strv_free(c->bwrap_argv);
    if (c->append_fd >= 0)
        close(c->append_fd);
    if (c->dir_fd >= 0)
        close(c->dir_fd);
    xl_run_free(c->run);
    free(c);
}

/* The workdir: the replica's, else the home; it must be a directory. */
static int resolve_workdir(struct ctx *c, char *msg, size_t len)
{
    const char *w = *c->rep.workdir ? c->rep.workdir : c->acct.home;
    struct stat st;
    snprintf(c->workdir, sizeof c->workdir, "%s", w);
    if (stat(w, &st) < 0 || !S_ISDIR(st.st_mode))
        return snprintf(msg, len, "workdir: %s is not a directory on node %s", w,
                        *c->rep.node ? c->rep.node : "(this one)"), CUBE_EINVAL;
    return CUBE_OK;
}

/* Makes a run directory with a fresh slot name, and its output file. */
static int make_run_dir(struct xl *x, struct ctx *c, char *msg, size_t len)
{
    struct xl_run *r = c->run;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    for (int tries = 0;; tries++) {
        pthread_mutex_lock(&x->mu);
        unsigned seq = x->seq++;
        pthread_mutex_unlock(&x->mu);
        snprintf(r->slot, sizeof r->slot, "%llx-%lx-%x",
                 (unsigned long long)ts.tv_sec * 1000 + (unsigned long long)ts.tv_nsec / 1000000,
                 (long)getpid(), seq);
        snprintf(r->dir, sizeof r->dir, "%s/%s", x->conf.run_root, r->slot);
        if (mkdir(r->dir, 0700) == 0)
            break;
        if (errno != EEXIST || tries > 100)
            return snprintf(msg, len, "cannot create %s: %s", r->dir, strerror(errno)), CUBE_EIO;
    }
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/out", r->dir);
    c->append_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    c->dir_fd = open(r->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (c->append_fd < 0 || c->dir_fd < 0 || xl_run_open_files(r) < 0)
        return snprintf(msg, len, "cannot open files in %s: %s", r->dir, strerror(errno)),
               CUBE_EIO;
    return CUBE_OK;
}

/* Run directory, cgroup and meta file of the replica. */
static int make_run(struct xl *x, struct ctx *c, char *msg, size_t len)
{
    if (!(c->run = calloc(1, sizeof *c->run)))
        return snprintf(msg, len, "out of memory"), CUBE_ENOMEM;
    struct xl_run *r = c->run;
    r->out_fd = r->off_fd = -1;
    r->memory_bytes = c->rep.memory_bytes;
    r->timeout_s = c->rep.timeout_s;
    if (xl_log_copy(&r->log, &c->rep.log) < 0)
        return snprintf(msg, len, "out of memory"), CUBE_ENOMEM;
    int rc = make_run_dir(x, c, msg, len);
    if (rc == CUBE_OK)
        rc = xl_cgroup_take(&x->cgpool, &x->cgroups, r->slot, c->rep.memory_bytes,
                            c->rep.cpu_millis, x->conf.pids_max, &r->cg, msg, len);
    if (rc == CUBE_OK && xl_meta_write(r, c->rep.user) < 0)
        rc = (snprintf(msg, len, "cannot write %s/meta.json: %s", r->dir, strerror(errno)),
              CUBE_EIO);
    return rc;
}

/* Environment, executable, view and sandbox: the plan for the child. */
static int make_plan(struct xl *x, struct ctx *c, char *msg, size_t len)
{
    struct xl_plan *p = &c->plan;
    c->env = xl_env_build(&c->rep, c->acct.home, c->acct.name, c->acct.project_dir,
                          x->conf.default_path);
    if (!c->env)
        return snprintf(msg, len, "out of memory"), CUBE_ENOMEM;
    if (!(c->paths = xl_exec_paths(c->rep.argv[0], c->env, x->conf.default_path, msg, len)))
        return CUBE_EINVAL;
    if (c->acct.isolated && xl_view_plan(&c->view, c->acct.home, c->acct.project_dir,
                                         c->workdir, msg, len) < 0)
        return CUBE_EINVAL;
    p->argv = c->rep.argv;
    p->exec_paths = c->paths;
    if (x->conf.sandbox == XL_SANDBOX_BWRAP) {
        c->bwrap_argv = xl_bwrap_argv(x->conf.bwrap, c->acct.home, c->acct.project_dir,
                                      c->workdir, &c->rep.pins, c->rep.argv, msg, len);
        if (!c->bwrap_argv)
            return CUBE_EINVAL;
        c->bwrap_paths[0] = x->conf.bwrap;
        p->argv = c->bwrap_argv;
        p->exec_paths = c->bwrap_paths;
    }
    p->envp = c->env;
    p->workdir = c->workdir;
    p->drop = c->acct.isolated;
    p->uid = c->acct.uid;
    p->gid = c->acct.gid;
    p->groups = c->acct.groups;
    p->ngroups = c->acct.ngroups;
    p->nprocs = xl_cgroup_procs_files(&c->run->cg, p->procs);
    xl_cgroup_oom_files(&c->run->cg, p->oom_file, p->failcnt_file, sizeof p->oom_file);
    p->view = c->acct.isolated && c->view.nhide ? &c->view : NULL;
    p->out_fd = c->append_fd;
    p->dir_fd = c->dir_fd;
    p->timeout_s = (unsigned)c->rep.timeout_s;
    p->grace_s = x->conf.timeout_grace;
    snprintf(p->slot, sizeof p->slot, "%s", c->run->slot);
    return CUBE_OK;
}

/* Says in the replica's log that its image is not used here. */
static void note_image(struct xl *x, const struct ctx *c)
{
    if (!*c->rep.image)
        return;
    char line[512];
    int n = snprintf(line, sizeof line, "executor-local: image \"%.300s\" is not used: the "
                     "command runs directly on node %s\n", c->rep.image, x->conf.node_name);
    const struct xl_log *l = &c->rep.log;
    x->host->log_append(x->self, l->kind, l->project, l->name, l->stream, line,
                        (size_t)(n < (int)sizeof line ? n : (int)sizeof line - 1));
}

/* Starts the supervisor and records the engine id. */
static int launch(struct xl *x, struct ctx *c, char *engine_id, size_t id_len,
                  char *msg, size_t len)
{
    struct xl_spawned s;
    struct xl_run *r = c->run;
    int rc = xl_spawn(x->conf.supervisor, x->conf.launcher ? &x->launcher : NULL, &c->plan,
                      &s, msg, len);
    if (rc != CUBE_OK)
        return rc;
    r->sup_pid = s.sup_pid;
    r->sup_start = s.sup_start ? s.sup_start : 1;   /* 0: already ended; its status tells */
    if (xl_engine_id_format(r->engine_id, sizeof r->engine_id, r->sup_pid, r->sup_start,
                            r->slot) < 0 ||
        xl_engine_id_format(engine_id, id_len, r->sup_pid, r->sup_start, r->slot) < 0)
        return snprintf(msg, len, "engine_id buffer too small"), CUBE_EINVAL;
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/engine", r->dir);
    if (xl_write_file(path, r->engine_id) < 0)
        x->host->log(x->self, CUBE_LOG_WARN, "cannot write %s: %s", path, strerror(errno));
    r->own_child = !s.launched;
    x->host->log(x->self, CUBE_LOG_DEBUG, "started %s for %s/%s: %s", r->engine_id,
                 c->rep.project, c->rep.user, c->rep.argv[0]);
    return CUBE_OK;
}

/* The executor's start callback (see cube_sched.h). */
int xl_start(void *state, const char *replica_json, char *engine_id, size_t id_len,
             char *msg, size_t len)
{
    struct xl *x = state;
    struct ctx *c = calloc(1, sizeof *c);
    if (!c)
        return snprintf(msg, len, "out of memory"), CUBE_ENOMEM;
    c->append_fd = c->dir_fd = -1;
    msg[0] = '\0';
    int rc = xl_replica_parse(&c->rep, replica_json, msg, len);
    if (rc == CUBE_OK && (rc = xl_account_prepare(&x->accounts, c->rep.user, c->rep.project,
                                                  &c->acct, msg, len)) != CUBE_OK)
        rc = CUBE_EIO;
    if (rc == CUBE_OK)
        rc = resolve_workdir(c, msg, len);
    if (rc == CUBE_OK)
        rc = make_run(x, c, msg, len);
    if (rc == CUBE_OK)
        rc = make_plan(x, c, msg, len);
    if (rc == CUBE_OK) {
        note_image(x, c);
        xl_pins_note(x, &c->rep);
        rc = launch(x, c, engine_id, id_len, msg, len);
    }
    if (rc == CUBE_OK) {
        xl_track(x, c->run);
        c->run = NULL;
        xl_report_endpoints(x, replica_json, engine_id);
    } else if (c->run) {
        xl_cgroup_destroy(&c->run->cg);
        if (*c->run->dir)
            xl_run_dir_remove(c->run->dir);
    }
    ctx_free(c);
    return rc;
}
