/* slurm.h — what the executor-slurm plugin's files share.
 *
 * The plugin serves one Cube pool per configured Slurm partition (executor
 * "slurm", CUBE_EXECUTOR_ENGINE_QUEUE). A Job's replicas (one start call
 * each, replica 0 first) are gathered into a GROUP, one per Job attempt;
 * when the last replica's start arrives the group becomes ONE sbatch
 * submission (one allocation, so a gang starts together or not at all)
 * whose batch script launches each replica as its own job step (srun).
 * Each replica's output and exit status are files of the group's spool
 * directory (shared with the Slurm nodes), which a poll thread tails into
 * the Job's log streams and reads at the end.
 *
 * Files, one concern each:
 *   plugin.c   descriptor, init/start/fini, the executor callbacks, the
 *              status route
 *   conf.c     configuration (defaults, checks naming the setting)
 *   cmd.c      running Slurm's commands (as root or as a mapped account),
 *              capturing their output, with a deadline
 *   nodes.c    `scontrol show node` parsed into node documents (GRES,
 *              features, drain/down as schedulable:false)
 *   script.c   the spool directory, batch script and replica wrappers
 *   submit.c   groups: gathering starts, accounts, sbatch, the kv record
 *   submitq.c  the submitters: threads running sbatch for complete groups,
 *              several at once, so that start never waits for slurmctld
 *   poll.c     the poll thread: state reports, logs, timeouts, stop
 *              grace, ends (files every poll_ms, squeue's states as they
 *              come)
 *   query.c    the query thread: squeue every squeue_ms, nodes every
 *              node_refresh_ms (Slurm's commands block; the poll thread
 *              never waits for them)
 *   adopt.c    re-adoption after a restart of cubed
 *   util.c     hostlists, quoting, small string helpers
 */
#ifndef EXECUTOR_SLURM_H
#define EXECUTOR_SLURM_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <cjson/cJSON.h>
#include <cube/cube.h>

#define SL_NAME "executor-slurm"
#define SL_MSG 512
#define SL_MAX_REPLICAS 256
#define SL_MAX_PARTITIONS 16
#define SL_MAX_NODES 4096

/* -- conf.c ------------------------------------------------------------ */

enum sl_mode { SL_MODE_CUBE, SL_MODE_SLURM };

struct sl_partition { char name[64], pool[64]; };
struct sl_project_acct { char project[64], account[64], qos[64]; };
struct sl_user_map { char user[128], account[64]; };
struct sl_gres_map { char gres[64], resource[128]; };

struct sl_conf {
    struct sl_partition parts[SL_MAX_PARTITIONS];
    int n_parts;
    int mode;                    /* enum sl_mode */
    char spool_dir[512];         /* shared with the nodes */
    char slurm_conf[512];        /* SLURM_CONF for the commands ("" none) */
    char bin_dir[256];           /* where sbatch ... are ("" : PATH) */
    char node_prefix[32];
    unsigned poll_ms, node_refresh_ms, cmd_timeout_ms;
    unsigned squeue_ms;          /* squeue at most this often (>= poll_ms) */
    unsigned submit_threads;     /* sbatch calls in flight at most */
    unsigned stop_grace;         /* when stop gives 0 */
    double overcommit;           /* slurm mode: capacity advertised x this */
    double backlog;              /* cube mode: capacity advertised x (1 + this) */
    int64_t default_memory_mb;   /* a replica without a memory limit */
    int64_t job_port_min, job_port_max;
    struct sl_user_map *users;   /* accounts map */
    size_t n_users;
    char account_prefix[32];     /* "" : only the map */
    struct sl_project_acct *projects;
    size_t n_projects;
    struct sl_gres_map *gres;
    size_t n_gres;
};

/* Reads the host's config JSON (schema-checked, defaults applied) into c;
 * data_dir is the plugin's private directory (spool_dir's default).
 * CUBE_EINVAL with "<setting>: <reason>" in err. */
int sl_conf_load(struct sl_conf *c, const char *json, const char *data_dir,
                 char *err, size_t len);
void sl_conf_free(struct sl_conf *c);
/* The partition serving pool (NULL: none). */
const struct sl_partition *sl_conf_part_of_pool(const struct sl_conf *c, const char *pool);
/* The Slurm account name Cube user `user` runs as into out: the accounts
 * map, else account_prefix + user. -1 when neither maps it. */
int sl_conf_account(const struct sl_conf *c, const char *user, char *out, size_t len);
/* The Slurm --account/--qos of project (NULL when none configured). */
const struct sl_project_acct *sl_conf_project(const struct sl_conf *c, const char *project);
/* The GRES name of an extended resource ("nvidia.com/gpu" -> "gpu"), and
 * back; NULL when unmapped. */
const char *sl_conf_gres_of(const struct sl_conf *c, const char *resource);
const char *sl_conf_resource_of(const struct sl_conf *c, const char *gres);

/* -- cmd.c ------------------------------------------------------------- */

struct sl_cmd_out {
    char *out, *err;             /* NUL-terminated, malloc()ed (may be "") */
    int status;                  /* exit code; -1 killed, timed out or not run */
    int timed_out;
};

/* Runs argv[0] (a Slurm command, looked up in bin_dir then PATH) with a
 * clean environment (PATH, LANG=C, SLURM_CONF), as uid/gid when uid is not
 * (uid_t)-1 (its supplementary groups initialised), killing it after
 * cmd_timeout_ms. Fills o (release with sl_cmd_free); CUBE_OK when it ran
 * (whatever its exit code), CUBE_EIO when it could not. Any thread. */
int sl_cmd(const struct sl_conf *c, char *const argv[], uid_t uid, gid_t gid,
           const char *user, struct sl_cmd_out *o);
void sl_cmd_free(struct sl_cmd_out *o);
/* The first line of a command's stderr (or stdout) into msg, for people. */
void sl_cmd_why(const struct sl_cmd_out *o, char *msg, size_t len);

/* -- util.c ------------------------------------------------------------ */

/* Expands a Slurm hostlist ("n[1-3,5],gpu-01") into names, at most max;
 * returns how many (-1 when malformed). names[i] are malloc()ed. */
int sl_hostlist_expand(const char *list, char **names, int max);
/* Appends s to buf (of cap) single-quoted for sh; -1 when it does not fit. */
int sl_shquote(char *buf, size_t cap, const char *s);
/* The value of "Key=" in a `scontrol -o` line into out ("" when absent);
 * values end at the next space, except Reason's, which runs to the end. */
void sl_kv_field(const char *line, const char *key, char *out, size_t len);
/* 1 when s is a DNS label (lower case letters, digits, '-', 1..63). */
int sl_dns_label(const char *s);
/* Wall-clock and monotonic milliseconds. */
int64_t sl_wall_ms(void);
int64_t sl_mono_ms(void);

/* -- nodes.c ----------------------------------------------------------- */

struct sl_node {
    char name[96];               /* Cube's name: node_prefix + Slurm's */
    char slurm[64];              /* Slurm's NodeName */
    char addr[64];
    char pool[64];
    int schedulable;
    char message[256];
    int seen;                    /* in the last refresh */
    char *doc;                   /* the last document advertised (owned) */
};

/* -- groups (submit.c, poll.c, adopt.c) --------------------------------- */

struct sl_log { char kind[32], project[64], name[256], stream[64]; };

/* One replica of a group. */
struct sl_rep {
    int used;                    /* its start (or adopt) arrived */
    char engine_id[140];
    char node[96];               /* Cube's node (cube mode: where it runs) */
    char pending_msg[192];       /* last Pending message reported ("" none) */
    int64_t cpus, mem_mb, gres_count;
    char gres[64];
    struct sl_log log;
    uint64_t log_off;            /* bytes of rN.out shipped */
    int running_reported;
    int ended;                   /* replica_exited called */
    int exit_code;
    char reason[16];
};

/* GATHER: starts arriving; QUEUED: complete, waiting for or inside its
 * sbatch (owned by the submitters, see submitq.c); SUBMITTED: a Slurm job
 * (the poll thread's); DONE: over, freed by the poll thread. */
enum sl_gstate { SL_G_GATHER, SL_G_QUEUED, SL_G_SUBMITTED, SL_G_DONE };

struct sl_group {
    char key[96];                /* <job uid>-<attempt> */
    char project[64], job[256], user[128];
    char account[64];            /* the OS/Slurm account it runs as */
    uid_t uid;
    gid_t gid;
    char dir[768];               /* spool_dir/key */
    char part[64];
    int n, have;                 /* replicas, starts gathered */
    int state;                   /* enum sl_gstate */
    long slurm_id;               /* 0: not submitted */
    char slurm_state[32], slurm_reason[128], slurm_nodes[256];
    int64_t timeout_s;           /* 0: none */
    int64_t started_ms;          /* wall ms it was first seen running */
    int64_t stop_at_ms;          /* stop asked: SIGKILL after this (0: none) */
    int stop_reason_timeout;     /* the stop was for timeoutSeconds */
    int stopped;                 /* stop asked (ends are Stopped/Timeout) */
    int missing_polls;           /* squeues that did not list the job */
    unsigned sq_gen;             /* first squeue that asked for it (0: none yet) */
    int start_failed;            /* sbatch failed: ends are StartError */
    char fail_msg[SL_MSG];
    struct sl_rep *reps;         /* [n] */
    struct sl_group *next;
    struct sl_group *qnext;      /* the submitters' queue (submitq.c) */
};

struct sl {
    const struct cube_host *host;
    cube_plugin *self;
    struct sl_conf conf;
    pthread_mutex_t mu;          /* guards everything below */
    pthread_cond_t cv;
    struct sl_group *groups;
    struct sl_node *nodes;
    size_t n_nodes;
    int slurm_up;                /* the last refresh reached slurmctld */
    char slurm_msg[256];         /* why not, or "" */
    char part_msg[SL_MAX_PARTITIONS][256];  /* a partition's problem, or "" */
    int refresh_now;             /* 1: nodes now (query thread); 2: a job round now (poll thread) */
    int quit;
    pthread_t thread;
    int thread_started;
    int64_t last_refresh_ms;
    int64_t last_squeue_ms;      /* the query thread's */
    /* query.c: the latest squeue, handed to the poll thread */
    pthread_t qthread;
    int qthread_started;
    pthread_cond_t q_cv;         /* wakes the query thread (nodes asked, quit) */
    unsigned sq_gen;             /* the last squeue asked (its groups' sq_gen) */
    unsigned sq_done_gen;        /* the squeue sq_out is the answer of */
    unsigned sq_used_gen;        /* the last one the poll thread took */
    char *sq_out;                /* its output (owned; NULL once taken) */
    int sq_ok;                   /* Slurm answered it */
    int sq_failing;              /* the last answer the poll thread took failed */
    int64_t ask_since_ms;        /* when the query thread's Slurm command in
                                  * flight started (0: none) */
    int64_t held_since_ms;       /* poll thread's: since when jobs are held
                                  * because Slurm does not answer (0: not) */
    int held_said;               /* poll thread's: that hold was logged */
    uint64_t submits, submit_fail;
    /* submitq.c: complete groups waiting for a submitter (FIFO via qnext) */
    struct sl_group *subq_head, *subq_tail;
    pthread_cond_t sub_cv;       /* a group was queued, or quit */
    pthread_t *submitters;       /* [n_submitters] */
    int n_submitters;
    unsigned sub_busy;           /* submitters inside sbatch now */
};

/* -- nodes.c ------------------------------------------------------------ */

/* Reads Slurm's nodes and partitions and advertises them (node_set,
 * node_remove); with Slurm unreachable, every node is set
 * schedulable:false with the reason. Call without mu. */
void sl_nodes_refresh(struct sl *s);
/* Parses one `scontrol -o show node` line into a node document for pool
 * (a new cJSON object) and n; NULL when the line names no node. Exposed
 * for unit tests. */
cJSON *sl_node_doc(const struct sl_conf *c, const char *line, const char *pool,
                   struct sl_node *n);
/* Cube's node name for Slurm's node (into out), or -1 when it makes no
 * DNS label. */
int sl_node_name(const struct sl_conf *c, const char *slurm, char *out, size_t len);
/* Slurm's name of one of our Cube nodes (caller holds mu); NULL. */
const char *sl_node_slurm(struct sl *s, const char *cube_name);
/* Our Cube node for Slurm's name (caller holds mu); NULL. */
const char *sl_node_cube(struct sl *s, const char *slurm);

/* -- script.c ------------------------------------------------------------ */

/* Makes the group's spool directory (owned by its account, 0700) and
 * writes replica i's wrapper script from its replica document. CUBE_OK,
 * or an error with msg. */
int sl_script_replica(struct sl *s, struct sl_group *g, int i, const cJSON *doc,
                      char *msg, size_t len);
/* Writes the batch script launching every replica as a step. */
int sl_script_batch(struct sl *s, struct sl_group *g, char *msg, size_t len);

/* -- submit.c ------------------------------------------------------------ */

/* The executor's start: gathers the replica into its group, submitting
 * the group when it is complete. */
int sl_start(void *state, const char *replica_json, char *engine_id, size_t engine_id_len,
             char *msg, size_t msg_len);
/* The executor's stop. */
int sl_stop(void *state, const char *engine_id, unsigned grace_seconds);
/* Finds the group of an engine id ("slurm:<key>:<i>"), and i (caller holds
 * mu); NULL. */
struct sl_group *sl_group_find(struct sl *s, const char *engine_id, int *index);
/* Parses an engine id into key and index; -1 when malformed. */
int sl_engine_parse(const char *engine_id, char *key, size_t len, int *index);
/* A new group for replica doc (caller holds mu); NULL with msg. */
struct sl_group *sl_group_new(struct sl *s, const cJSON *doc, const char *key, char *msg,
                              size_t len);
/* Fills replica i of g from its document (caller holds mu). */
void sl_rep_fill(struct sl *s, struct sl_group *g, int i, const cJSON *doc);
/* Runs sbatch for complete group g (state SL_G_QUEUED, without mu; on a
 * submitter thread) and records the outcome: SUBMITTED with its Slurm job
 * id and kv record, or DONE with start_failed (every replica then ends
 * StartError with sbatch's complaint); a stop that came meanwhile cancels
 * it (before sbatch: never submitted). */
void sl_submit_group(struct sl *s, struct sl_group *g);
/* The link in s->groups that points to g (caller holds mu): hint when it
 * still does, else found from the head; the list's NULL end when g is not
 * on it. Groups are pushed at the head by other threads (a start,
 * adoption) while the poll thread has mu released, so a link to g taken
 * before may point to a new group since. */
struct sl_group **sl_group_link(struct sl *s, struct sl_group *g, struct sl_group **hint);
/* The kv key of a group ("grp/<key>") into out. */
void sl_kv_key(const struct sl_group *g, char *out, size_t len);
void sl_group_free(struct sl_group *g);

/* -- submitq.c ------------------------------------------------------------ */

/* Queues complete group g for a submitter and sets it SL_G_QUEUED (caller
 * holds mu). Does not block. */
void sl_subq_push(struct sl *s, struct sl_group *g);
/* Starts conf.submit_threads submitters (the plugin's start); CUBE_OK, or
 * CUBE_ENOMEM when not even one could start. */
int sl_submitters_start(struct sl *s);
/* Tells the submitters to quit (call with s->quit set, without mu) and
 * joins them: each finishes the sbatch it is in (at most
 * command_timeout_ms); groups still queued stay QUEUED, never submitted. */
void sl_submitters_stop(struct sl *s);

/* -- poll.c -------------------------------------------------------------- */

/* The poll thread's body (arg: struct sl). */
void *sl_poll_main(void *arg);
/* Asks the thread for a round now (call without mu). */
void sl_poll_kick(struct sl *s);
/* Sends sig to every job step (replica) of a Slurm job (scancel --signal),
 * or cancels it outright when sig is 0. Call without mu. */
int sl_cancel(struct sl *s, long slurm_id, int sig);

/* -- query.c ------------------------------------------------------------- */

/* The query thread's body (arg: struct sl): every squeue_ms one squeue of
 * the submitted groups' job ids, its output left in s->sq_out (generation
 * s->sq_done_gen) for the poll thread, which it kicks; nodes refreshed
 * every node_refresh_ms, when asked (refresh_now & 1, s->q_cv) and when
 * squeue failed. Quits when s->quit is set and q_cv signalled. */
void *sl_query_main(void *arg);

/* -- adopt.c ------------------------------------------------------------- */

/* The executor's adopt. */
int sl_adopt(void *state, const char *engine_id, const char *replica_json);

#endif
