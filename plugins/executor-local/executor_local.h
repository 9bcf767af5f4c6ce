/* executor_local.h — what the executor-local plugin's files share.
 *
 * The plugin serves this machine as one node of the "local" executor. Each
 * replica runs under a small supervisor process (forked twice from cubed,
 * in its own session) that survives cubed, enforces stop and timeout, and
 * writes the replica's end to a status file. cubed's side tails each
 * replica's output file into its log stream and reports ends from a timer.
 *
 * Files, one concern each:
 *   plugin.c     descriptor, init/start/fini, the executor callbacks
 *   conf.c       configuration (defaults, checks naming the setting)
 *   node.c       the node document (node_set)
 *   replica.c    the replica document: argv, env, limits, log target
 *   accounts.c   OS accounts, project groups, homes, project dirs
 *   cgroup.c     cgroup v1/v2 detection, per-replica groups and limits
 *   cgroup_pool.c  ended replicas' groups kept for the next with same limits
 *   view.c       what a replica may see: the private mount view, bubblewrap
 *   pins.c       the device nodes and mounts pinned to a replica (ABI 1.5)
 *   start.c      the start callback: preparing everything, then spawning
 *   endpoints.c  where a started replica answers (replica_endpoints, 1.5)
 *   spawn.c      cubed's side of starting a supervisor (launcher or exec);
 *                engine ids
 *   launcher.c   the launcher loop that forks supervisors (in the program)
 *   supervisor.c the supervisor and replica child (async-signal-safe only)
 *   runs.c       tracked replicas: meta files, tailing output, reaping
 *   adopt.c      re-adoption after a restart; stale run directories and
 *                kept cgroups
 */
#ifndef EXECUTOR_LOCAL_H
#define EXECUTOR_LOCAL_H

#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include <cube/cube.h>

#define XL_NAME "executor-local"
#define XL_MSG 512           /* message buffers */
#define XL_ID_LEN 128        /* engine ids */
#define XL_PUMP_CHUNK 65536  /* output read per log_append */
#define XL_REPORTERS 4       /* threads reporting ends to the host (ends.c) */
#define XL_PIDS_MAX_DEFAULT 4096   /* processes per replica (setting pids_max) */

enum xl_sandbox { XL_SANDBOX_NONE, XL_SANDBOX_BWRAP };
enum xl_cg_mode { XL_CG_AUTO, XL_CG_V1, XL_CG_V2, XL_CG_OFF };
enum xl_cg_ctl { XL_CG_MEMORY, XL_CG_CPU, XL_CG_PIDS, XL_CG_NCTL };

/* -- conf.c ------------------------------------------------------------ */

struct xl_conf {
    char *node_name, *pool;
    char *labels_json;           /* a JSON object of strings */
    int64_t reserved_cpus;
    uint64_t reserved_memory;    /* bytes */
    unsigned uid_min, uid_max;
    char *user_prefix, *group_prefix;
    char *home_root, *projects_root, *run_root;
    int run_default;             /* run_dir unset: plugin.c may move it to tmpfs */
    char *run_legacy;            /* the disk run dir when moved ("": none) */
    int sandbox;                 /* enum xl_sandbox */
    char *bwrap;                 /* bubblewrap's path when sandboxed */
    int cgroup_mode;             /* enum xl_cg_mode */
    char *cgroup_parent;         /* "" : automatic */
    int64_t pids_max;            /* per replica; 0: none of its own */
    int64_t pids_max_total;      /* all replicas together; 0 in the config:
                                  * computed at start (xl_pids_total_auto) */
    int64_t job_port_min, job_port_max; /* ports for distributed Jobs (jobPorts) */
    unsigned timeout_grace;      /* seconds between SIGTERM and SIGKILL */
    unsigned poll_ms;            /* how often output and ends are checked */
    char *default_path;          /* PATH when the replica sets none */
    char *supervisor;            /* the supervisor program's path */
    int launcher;                /* start supervisors through the launcher */
};

/* Reads the config JSON into c, checking what the schema cannot. The JSON
 * is what the host hands over (config_json): validated against
 * config.schema.json, its defaults applied. data_dir is the plugin's private
 * directory. On error writes "<setting>: <reason>" into err and returns
 * CUBE_EINVAL. */
int xl_conf_load(struct xl_conf *c, const char *config_json, const char *data_dir,
                 char *err, size_t len);
/* Frees what xl_conf_load allocated. */
void xl_conf_free(struct xl_conf *c);
/* Parses a byte quantity ("512Mi", "1G", "1048576"); -1 when invalid. */
int64_t xl_parse_bytes(const char *s);

/* -- replica.c --------------------------------------------------------- */

/* Where a replica's output goes (cube_host.log_append). */
struct xl_log { char *kind, *project, *name, *stream; };

/* -- pins.c: device nodes and mounts (ABI 1.5) -------------------------- */

struct xl_pin_node { char *path, *host; };
struct xl_pin_mount { char *host, *dest; int read_only; };
/* The replica's "deviceNodes" and "mounts" (cube_sched.h). */
struct xl_pins {
    int known;                   /* "deviceNodes" present: exactly these */
    struct xl_pin_node *nodes;
    size_t n_nodes;
    struct xl_pin_mount *mounts;
    size_t n_mounts;
};
/* Parses them from a replica document (a cJSON object): clean absolute
 * paths, device nodes under /dev/. CUBE_EINVAL with msg naming the entry. */
int xl_pins_parse(struct xl_pins *p, const void *doc, char *msg, size_t len);
void xl_pins_free(struct xl_pins *p);
/* Arguments the bwrap ones below may add, at most. */
size_t xl_pins_argc(const struct xl_pins *p);
/* Appends bwrap's /dev arguments to out (at *n): known nodes: a fresh
 * /dev, the machine's /dev/shm and each node (its host side must be a
 * character or block device); unknown: the machine's /dev. Mounts: each
 * bound (read-only unless said), its host side existing. 0, or -1 with
 * msg. */
int xl_pins_bwrap_dev(const struct xl_pins *p, char **out, size_t *n, char *msg, size_t len);
int xl_pins_bwrap_mounts(const struct xl_pins *p, char **out, size_t *n, char *msg,
                         size_t len);

struct xl_replica {
    char **argv;                 /* NULL-terminated, argc entries */
    size_t argc;
    char **env;                  /* NULL-terminated "K=V" (replica's own) */
    size_t envc;
    char *user, *project, *workdir, *image, *node;
    int64_t timeout_s;           /* 0: none */
    int64_t cpu_millis;          /* 0: unlimited */
    int64_t memory_bytes;        /* 0: unlimited */
    int index;                   /* "replica" */
    struct xl_log log;
    struct xl_pins pins;         /* since ABI 1.5 */
};

/* Parses a replica document (cube_sched.h). On error fills msg naming the
 * field and returns CUBE_EINVAL. */
int xl_replica_parse(struct xl_replica *r, const char *json, char *msg, size_t len);
void xl_replica_free(struct xl_replica *r);
/* Parses the "log" object of a replica document into l; 0, or -1. */
int xl_log_parse(struct xl_log *l, const void *cjson_obj);
void xl_log_free(struct xl_log *l);
/* A copy of l; 0 or -1. */
int xl_log_copy(struct xl_log *dst, const struct xl_log *src);
/* The environment the replica runs with: defaults (PATH, HOME, USER ...)
 * overridden by its own. NULL-terminated, malloc()ed; free with
 * xl_strv_free. NULL when out of memory. */
char **xl_env_build(const struct xl_replica *r, const char *home, const char *user,
                    const char *project_dir, const char *default_path);
/* The paths execve should try for argv0, found along PATH (from env) the
 * way execvp does; NULL-terminated. argv0 with a '/' is used as is. NULL
 * with msg when nothing executable is found. */
char **xl_exec_paths(const char *argv0, char *const *env, const char *default_path,
                     char *msg, size_t len);
/* Frees a NULL-terminated string vector. */
void xl_strv_free(char **v);
/* Looks up "NAME=" in a NULL-terminated env vector; the value or NULL. */
const char *xl_env_get(char *const *env, const char *name);

/* -- accounts.c -------------------------------------------------------- */

struct xl_account {
    int isolated;                /* runs as its own OS account */
    uid_t uid;
    gid_t gid;
    gid_t groups[2];             /* supplementary: the project group */
    int ngroups;
    char name[64];               /* OS account name */
    char home[PATH_MAX];
    char project_dir[PATH_MAX];
};

/* -- account_cache.c ---------------------------------------------------- */

#define XL_ACACHE_MAX 256

/* The identity of /etc/passwd and /etc/group (account_cache.c). */
struct xl_acache_file {
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec mtime, ctime;
};

struct xl_acache_stamp {
    int valid;
    struct xl_acache_file f[2];
};

/* What a (user, project) resolved to, while the files are unchanged. */
struct xl_acache_entry {
    char user[128], project[128], name[64];
    uid_t uid;
    gid_t gid, pgid;
};

struct xl_acache {
    struct xl_acache_stamp stamp;   /* the files the entries were read from */
    int n;
    struct xl_acache_entry e[XL_ACACHE_MAX];
};

/* The account files' identity now; 0 when they cannot be read. */
int xl_acache_stamp_now(struct xl_acache_stamp *out);
/* 1 with acct's name, uid and gid and *pgid filled when (user, project) was
 * resolved from the files `now` names; 0 otherwise (a change of the files
 * empties the cache). */
int xl_acache_get(struct xl_acache *c, const struct xl_acache_stamp *now, const char *user,
                  const char *project, struct xl_account *acct, gid_t *pgid);
/* Keeps what was resolved from the files `before` names (after a miss of
 * xl_acache_get with the same `before`), unless they have changed since. */
void xl_acache_put(struct xl_acache *c, const struct xl_acache_stamp *before, const char *user,
                   const char *project, const struct xl_account *acct, gid_t pgid);

struct xl_accounts {
    const struct xl_conf *conf;
    int isolate;                 /* cubed is root: per-user accounts */
    pthread_mutex_t mu;          /* serialises useradd/groupadd, guards cache */
    struct xl_acache *cache;     /* NULL: none (out of memory) */
};

void xl_accounts_init(struct xl_accounts *a, const struct xl_conf *conf, int isolate);
void xl_accounts_fini(struct xl_accounts *a);
/* The OS account name of a Cube user ("cube-alice"); long or unusual names
 * get a hash suffix so that different users never share one. */
void xl_account_name(const char *prefix, const char *user, char *out, size_t len);
/* Makes sure user's account, home, project group and project dir exist
 * and fills acct. msg on error. */
int xl_account_prepare(struct xl_accounts *a, const char *user, const char *project,
                       struct xl_account *acct, char *msg, size_t len);

/* -- cgroup.c ---------------------------------------------------------- */

/* The cgroup layout detected at init. */
struct xl_cgroups {
    int version;                            /* 0 (none), 1 or 2 */
    char parent[XL_CG_NCTL][PATH_MAX];      /* v2: parent[0] only; "" absent */
};

/* One replica's cgroup(s). */
struct xl_cgroup {
    int version;
    char dir[XL_CG_NCTL][PATH_MAX];         /* v2: dir[0] only; "" absent */
    int poolable;                           /* made here with these limits: */
    int64_t memory_bytes, cpu_millis, pids_max;   /* (not so when adopted) */
};

/* Empty cgroups kept for the next replica with the same limits
 * (cgroup_pool.c). mu guards the entries. */
struct xl_cgpool {
    pthread_mutex_t mu;
    struct xl_cgroup *v;
    int n;
};
void xl_cgpool_init(struct xl_cgpool *p);
/* Removes the kept cgroups and frees the pool. */
void xl_cgpool_fini(struct xl_cgpool *p);
/* A kept cgroup with exactly these limits, else a new one (as
 * xl_cgroup_create). */
int xl_cgroup_take(struct xl_cgpool *p, const struct xl_cgroups *cg, const char *slot,
                   int64_t memory_bytes, int64_t cpu_millis, int64_t pids_max,
                   struct xl_cgroup *out, char *msg, size_t len);
/* After a replica's end: kills what still runs in g and keeps it for
 * another replica when it is empty and fit for reuse (no OOM kill
 * recorded), else removes it (xl_cgroup_destroy). */
void xl_cgroup_release(struct xl_cgpool *p, const struct xl_cgroup *g);
/* Removes the empty cgroups under the parents named like slots of a cubed
 * that is gone, except those in keep (paths run directories name): kept
 * ones it left behind when it died. */
void xl_cgroups_sweep(const struct xl_cgroups *cg, char *const *keep, int nkeep);

/* Detects which cgroup version to use from mountinfo and /proc/self/cgroup
 * texts and prepares the parent groups. mode: enum xl_cg_mode. Writes a
 * line for the log into note. -1 with msg when the forced mode is unusable. */
int xl_cgroups_detect(struct xl_cgroups *cg, int mode, const char *parent_conf,
                      const char *mountinfo, const char *self_cgroup,
                      char *note, size_t len);
/* The default limit of all replicas' processes together: half of the
 * kernel's pid_max or threads-max (whichever is lower; <= 0: unknown),
 * at least 64. */
int64_t xl_pids_total_auto(int64_t pid_max, int64_t threads_max);
/* Sets pids.max of the parent group replicas run under (v2: the parent,
 * v1: the pids hierarchy's parent) to total: no replica, nor all of them
 * together, can take more of the machine's pids. Writes a line for the
 * log into note; -1 when there is no pids controller or the write fails. */
int xl_cgroups_limit_pids(const struct xl_cgroups *cg, int64_t total, char *note, size_t len);
/* Creates the cgroup(s) for slot with the limits (0: none); msg on error. */
int xl_cgroup_create(const struct xl_cgroups *cg, const char *slot, int64_t memory_bytes,
                     int64_t cpu_millis, int64_t pids_max, struct xl_cgroup *out,
                     char *msg, size_t len);
/* The cgroup.procs files a replica joins; returns how many (<= XL_CG_NCTL). */
int xl_cgroup_procs_files(const struct xl_cgroup *g, char out[][PATH_MAX]);
/* The file an OOM verdict reads (memory.events or memory.oom_control) and
 * memory.failcnt (v1; "" in v2). */
void xl_cgroup_oom_files(const struct xl_cgroup *g, char *oom, char *failcnt, size_t len);
/* Kills whatever still runs in the cgroup(s) and removes them. */
void xl_cgroup_destroy(const struct xl_cgroup *g);
/* Kills whatever still runs in the cgroup(s); 1 when they are all empty
 * now. */
int xl_cgroup_emptied(const struct xl_cgroup *g);
/* Reads a whole small file into buf (NUL-terminated); bytes or -1. */
ssize_t xl_read_file(const char *path, char *buf, size_t len);
/* Writes s to an existing (or new) file; 0 or -1 with errno. */
int xl_write_file(const char *path, const char *s);
/* dir + "/" + name into out; -1 (ENAMETOOLONG) when it does not fit. */
int xl_path_join(char *out, size_t len, const char *dir, const char *name);
/* mkdir -p; mode for the directories it creates. 0 or -1 with errno. */
int xl_mkdir_p(const char *path, unsigned mode);

/* -- view.c ------------------------------------------------------------ */

#define XL_VIEW_MAX 4

/* A private mount view: tmpfs over directories others may not enter,
 * with the replica's own directories bound back in. */
struct xl_view {
    int nhide, nbind;
    char hide[XL_VIEW_MAX][PATH_MAX];
    char bind[XL_VIEW_MAX][PATH_MAX];
};

/* Computes the view that makes home, project_dir and workdir reachable
 * for an unprivileged account; nhide 0 when none is needed. -1 with msg
 * when workdir lies where the view cannot show it. */
int xl_view_plan(struct xl_view *v, const char *home, const char *project_dir,
                 const char *workdir, char *msg, size_t len);
/* The bubblewrap command line wrapping argv (NULL-terminated, malloc()ed;
 * xl_strv_free), showing the replica the device nodes and mounts of pins
 * (pins.c), or NULL with msg (a pinned node or mount missing here). */
char **xl_bwrap_argv(const char *bwrap, const char *home, const char *project_dir,
                     const char *workdir, const struct xl_pins *pins, char *const *argv,
                     char *msg, size_t len);

/* -- supervisor.c / spawn.c -------------------------------------------- */

/* Everything the supervisor and the replica child need, prepared before
 * fork so that they only make async-signal-safe calls. */
struct xl_plan {
    char *const *argv;
    char *const *envp;
    char *const *exec_paths;     /* candidates for argv[0] */
    const char *workdir;
    int drop;                    /* switch to uid/gid/groups */
    uid_t uid;
    gid_t gid;
    const gid_t *groups;
    int ngroups;
    char procs[XL_CG_NCTL][PATH_MAX];   /* cgroup.procs files to join */
    int nprocs;
    char oom_file[PATH_MAX], failcnt_file[PATH_MAX];
    const struct xl_view *view;  /* NULL: none */
    int out_fd;                  /* output file (O_APPEND) */
    int dir_fd;                  /* the run directory */
    unsigned timeout_s, grace_s;
    char slot[64];               /* the run's slot, announced at the end */
};

/* A started supervisor. */
struct xl_spawned {
    pid_t sup_pid;
    unsigned long long sup_start;   /* /proc/<pid>/stat starttime */
    int launched;                   /* by the launcher: not cubed's child */
};

/* The launcher: the supervisor program started once, in a mode where it
 * forks a supervisor for each request on a socket, instead of cubed
 * exec()ing the program per replica. A fork of that small process costs a
 * start far less than an exec of a new program (the loader's work, and
 * glibc's CPU feature probing, which traps in a virtual machine). Requests
 * are one SOCK_SEQPACKET message each: struct xl_launch_req, then argc
 * and envc NUL-terminated strings (the supervisor's argv and environment,
 * as exec() would get them), with the output file and run directory fds
 * attached (SCM_RIGHTS). The answer is struct xl_launch_reply. The
 * launcher ends when cubed's end of the socket closes; supervisors it
 * started live on, as after cubed's own end. */
#define XL_LAUNCHER_ARG "--cube-launcher"   /* argv[1] of the launcher */
#define XL_LAUNCH_MAGIC 0x43584c31u         /* "CXL1" */
#define XL_LAUNCH_MAX (128u << 10)          /* a request's bytes, at most */
struct xl_launch_req {
    uint32_t magic, argc, envc;
};
struct xl_launch_reply {
    int32_t pid;        /* the supervisor, or -1 */
    int32_t err;        /* errno when pid is -1 */
    uint64_t start;     /* the supervisor's /proc/<pid>/stat starttime */
};
/* cubed's handle on its launcher (mu serialises requests). */
struct xl_launcher {
    pthread_mutex_t mu;
    int fd;             /* cubed's end of the socket; -1: not running */
    pid_t pid;
    long long retry_ms; /* after a failure: no new launcher before then */
};
void xl_launcher_init(struct xl_launcher *l);
/* Closes the socket (the launcher then ends) and waits for the launcher. */
void xl_launcher_stop(struct xl_launcher *l);
/* The launcher's loop (in the supervisor program; the socket on fd sock;
 * arg: its argv[1], rewritten in the children so that ps tells them
 * apart); never returns. */
void xl_launcher_main(int sock, char *arg) __attribute__((noreturn));
/* The supervisor program's work for argv and envp (what main() does;
 * fds 3 and 4 set); never returns. */
void xl_supervisor_run(int argc, char **argv, char **envp) __attribute__((noreturn));

/* The supervisor program's fds: the output file and the run directory. */
enum { XL_SUP_FD_OUT = 3, XL_SUP_FD_DIR = 4 };
/* The start steps a status file may name (numbers are kept in status
 * files: new ones go at the end; names in plan_codec.c). */
enum xl_step {
    XL_STEP_START, XL_STEP_FORK, XL_STEP_FDS, XL_STEP_CGROUP, XL_STEP_VIEW, XL_STEP_GROUPS,
    XL_STEP_GID, XL_STEP_UID, XL_STEP_CHDIR, XL_STEP_NNP, XL_STEP_EXEC, XL_STEP_PLAN,
    XL_STEP_COUNT
};
/* The supervisor program's name, looked for beside the plugin. */
#define XL_SUPERVISOR_PROGRAM "cube-xl-supervisor"

/* The supervisor (in the supervisor program, fds 3 and 4 set); never
 * returns. */
void xl_supervise(const struct xl_plan *p) __attribute__((noreturn));
/* Records a start error (verdict starterror, step, errno) in the run
 * directory on fd 4 and ends the supervisor program. */
void xl_supervise_refuse(const struct xl_plan *p, int step, int err) __attribute__((noreturn));
/* Starts the supervisor program (program: its path) on the plan, without
 * waiting for the replica: what happens after the supervisor's start
 * reaches the status file like any end. Through the launcher l when it is
 * not NULL and works (started on first use), else by exec(). msg on
 * error. */
int xl_spawn(const char *program, struct xl_launcher *l, const struct xl_plan *p,
             struct xl_spawned *out, char *msg, size_t len);

/* -- plan_codec.c ------------------------------------------------------- */

/* The supervisor program's argv for plan p (argv[0] = program), malloc()ed
 * (free with xl_strv_free); NULL when out of memory. */
char **xl_plan_encode(const struct xl_plan *p, const char *program);
/* Reads a plan from the supervisor's argv (modified in place: the plan
 * points into it) and environment; the mount view goes to *v, the groups
 * to a malloc()ed array. -1 with *err naming the field that is wrong. */
int xl_plan_decode(int argc, char **argv, char **envp, struct xl_plan *p, struct xl_view *v,
                   const char **err);
/* Formats an engine id: "pid:<pid>:<starttime>:<slot>". */
int xl_engine_id_format(char *out, size_t len, pid_t pid, unsigned long long start,
                        const char *slot);
/* Parses an engine id; 0, or -1 when malformed. slot gets >= 64 bytes. */
int xl_engine_id_parse(const char *id, pid_t *pid, unsigned long long *start,
                       char *slot, size_t slot_len);
/* The start time of pid from /proc/<pid>/stat; 0 when it is gone (or a
 * zombie). */
unsigned long long xl_proc_start_time(pid_t pid);
/* The start time (field 22) in a /proc/<pid>/stat text; 0 when absent.
 * Async-signal-safe. */
unsigned long long xl_stat_start_time(const char *stat);
/* The name of a start step a supervisor reported ("join the cgroup"). */
const char *xl_step_name(int step);
/* Nonzero for a slot name we made: [0-9a-z-], 1..63. */
int xl_slot_valid(const char *slot);

/* -- start.c ----------------------------------------------------------- */

/* The executor's start callback (cube_sched.h). */
int xl_start(void *state, const char *replica_json, char *engine_id, size_t id_len,
             char *msg, size_t len);

/* -- endpoints.c ------------------------------------------------------- */

struct xl;
/* Reports a started replica's endpoints: the document's "address" (IPv6
 * bracketed) and each of its "ports"; nothing when it has none. */
void xl_report_endpoints(struct xl *x, const char *replica_json, const char *engine_id);

/* -- runs.c ------------------------------------------------------------ */

/* A replica cubed watches. */
struct xl_run {
    struct xl_run *next;
    char engine_id[XL_ID_LEN];
    char slot[64];
    char dir[PATH_MAX];          /* run directory */
    pid_t sup_pid;
    unsigned long long sup_start;
    int out_fd, off_fd;          /* output file, saved offset file */
    uint64_t offset;             /* output bytes already appended */
    struct xl_log log;
    struct xl_cgroup cg;
    int64_t memory_bytes, timeout_s;
    int done;                    /* reported: the tick cleans up, unlinks, frees it
                                  * (set under mu; read with __atomic) */
    int reporting;               /* collected, its report queued or under way:
                                  * nobody else pumps or reports it (__atomic) */
    int end_code;                /* the end, once collected (xl_run_collect) */
    const char *end_reason;
    char end_msg[XL_MSG];
    struct xl_run *report_next;  /* the reporters' queue (ends.c) */
    int own_child;               /* the supervisor is cubed's child (not adopted) */
};

struct xl;  /* plugin.c */

/* Writes the run's meta file (what adoption needs). */
int xl_meta_write(const struct xl_run *r, const char *user);
/* Fills r's log, cgroup and limits from its meta file; 0 or -1. */
int xl_meta_read(struct xl_run *r);
/* Opens the output and offset files of r (reading the saved offset). */
int xl_run_open_files(struct xl_run *r);
/* Appends new output of r to its log stream. */
void xl_run_pump(struct xl *x, struct xl_run *r);
/* When r's status file exists: pumps the rest of its output and records
 * its end in r (end_code, end_reason, end_msg); 1 then, else 0. The
 * caller holds reap_mu. */
int xl_run_collect(struct xl *x, struct xl_run *r);
/* Reports r's collected end to the host and marks r done, unless the host
 * asks to try again (r is then left for the tick); clears r->reporting.
 * 1 when done. */
int xl_run_report(struct xl *x, struct xl_run *r);
/* Collects and reports r (the tick's way). Returns 1 when reported. */
int xl_run_try_reap(struct xl *x, struct xl_run *r);
/* 1 when r is done / being reported (safe without mu). */
static inline int xl_run_done(const struct xl_run *r)
{
    return __atomic_load_n(&r->done, __ATOMIC_ACQUIRE);
}
static inline int xl_run_reporting(const struct xl_run *r)
{
    return __atomic_load_n(&r->reporting, __ATOMIC_ACQUIRE);
}
/* The number after "key " on a line of "key value" lines (a status file,
 * memory.events, memory.oom_control); def when absent. */
long long xl_kv_number(const char *text, const char *key, long long def);
/* Reports r as Lost when its supervisor vanished without a status. */
int xl_run_check_lost(struct xl *x, struct xl_run *r);
/* Closes a reported run's log stream and removes its cgroup and run
 * directory: the tick's work, off the path that reports ends. */
void xl_run_cleanup(struct xl *x, struct xl_run *r);
/* Frees r (closing its files). */
void xl_run_free(struct xl_run *r);
/* Removes a run directory and what it holds (one level). */
void xl_run_dir_remove(const char *dir);
/* Turns a status file's text into exit code, reason and message. */
void xl_status_verdict(const char *text, int64_t memory_bytes, int64_t timeout_s,
                       int *code, const char **reason, char *msg, size_t len);

/* -- pins.c (needs struct xl) ------------------------------------------- */

struct xl;
/* Without the sandbox, a replica with pinned nodes or mounts is told in
 * its log that it may open every device of the node. */
void xl_pins_note(struct xl *x, const struct xl_replica *r);

/* -- adopt.c ----------------------------------------------------------- */

/* The executor's adopt callback. */
int xl_adopt(void *state, const char *engine_id, const char *replica_json);
/* Removes run directories that finished (or were abandoned) long ago,
 * then the empty cgroups a cubed that died kept for reuse
 * (xl_cgroups_sweep, sparing those the remaining run directories name). */
void xl_janitor(struct xl *x, unsigned max_age_s);

/* -- plugin.c ---------------------------------------------------------- */

struct xl {
    const struct cube_host *host;
    cube_plugin *self;
    struct xl_conf conf;
    struct xl_accounts accounts;
    struct xl_cgroups cgroups;
    struct xl_cgpool cgpool;     /* empty cgroups for the next replicas */
    pthread_mutex_t mu;          /* guards runs and seq */
    struct xl_run *runs;
    unsigned seq;
    cube_timer *tick, *refresh;
    char *last_node;             /* the last node document sent (under mu) */
    char *pump_buf;              /* XL_PUMP_CHUNK bytes, used by the tick */
    unsigned ticks;              /* tick count (liveness checks every ~1 s) */
    pthread_mutex_t reap_mu;     /* held while reaping (tick, ends thread) */
    int ends_fd;                 /* the ends FIFO, read by ends_thread; -1 */
    pthread_t ends_thread;
    int ends_running, ends_quit;
    pthread_mutex_t rep_mu;      /* the reporters' queue (ends.c) */
    pthread_cond_t rep_cv;
    struct xl_run *rep_head, *rep_tail;
    pthread_t reporters[XL_REPORTERS];
    int n_reporters, rep_quit;
    struct xl_launcher launcher; /* used when conf.launcher */
    pid_t *unreaped;             /* supervisors (children) not yet waited for */
    size_t nunreaped, capunreaped;   /* under mu */
};

/* Collects the end of the run in slot when its status file is there and
 * queues its report (ends.c). */
void xl_reap_slot(struct xl *x, const char *slot);

/* -- ends.c ------------------------------------------------------------- */

/* The FIFO in the run directory root where supervisors announce ends. */
#define XL_ENDS_FIFO ".ends"
/* Creates and opens the FIFO and starts the thread reading it and the
 * reporters. */
int xl_ends_start(struct xl *x, char *err, size_t len);
/* Stops the threads and closes the FIFO (supervisors then skip it); ends
 * still queued are left unreported (a restarted cubed adopts the runs). */
void xl_ends_stop(struct xl *x);
/* Hands r (collected, r->reporting set) to a reporter; reports it at once
 * when there is none. */
void xl_report_queue(struct xl *x, struct xl_run *r);

/* Adds r to the watched replicas (takes ownership). */
void xl_track(struct xl *x, struct xl_run *r);
/* The watched replica with this engine id, or NULL (caller holds mu). */
struct xl_run *xl_find_locked(struct xl *x, const char *engine_id);
/* Builds and sends the node document when it changed. */
int xl_node_refresh(struct xl *x, char *msg, size_t len);
/* The node document (malloc()ed JSON) of this machine, or NULL with msg. */
char *xl_node_document(const struct xl_conf *c, const char *devices_json,
                       char *msg, size_t len);

#endif
