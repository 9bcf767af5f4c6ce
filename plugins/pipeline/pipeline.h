/* pipeline.h — what the pipeline plugin's files share.
 *
 * Kinds: JobTemplate (cluster: the catalog), ProjectJobTemplate (a
 * project's own templates, found first), Pipeline (a DAG of tasks built
 * from templates, run once, on a cron schedule or over past dates) and
 * PipelineRun (a snapshot of a pipeline with its execution date, owned by
 * the pipeline; one Job per task, owned by the run).
 *
 * Files, one concern each:
 *   plugin.c     descriptor, configuration, init/start, registrations
 *   kinds.c      the kinds' schemas and printer columns
 *   validate.c   semantic validation: DAG, templates, argument schemas
 *   pack.c       the built-in template pack (<templates_dir>/x/template.json)
 *   snapshot.c   a PipelineRun from a Pipeline (templates resolved)
 *   runner.c     the PipelineRun controller: the pass driver, pacing
 *   runtasks.c   its per-task decisions: start, follow, stop, adopt Jobs
 *   runstatus.c  its run status: phases, writes, finish, alerts, edits
 *                (runner_internal.h: the pass these three share)
 *   runmemo.c    what the run's passes keep between them
 *   taskjob.c    the Job of one task: rendering, command, env, dirs
 *   taskdirs.c   task directories made ahead by a plugin thread
 *   rundirs.c    who may write a run's files: pipeline-runs/, run
 *                directories vouched for, runs made before made private
 *   outputs.c    task outputs (CUBE_OUTPUTS) and result files
 *   schedule.c   the Pipeline controller: cron ticks, then admission
 *   admit.c      which queued runs start (dependsOnPast, expiredLimit ...)
 *   actions.c    run, backfill, copy; the permission rule of the actions
 *   runactions.c stop, rerun, a task's logs and result files
 *   porting.c    export (YAML) and import (YAML subset or JSON)
 *   yaml.c       a small YAML writer (libcube-util's reader reads it back)
 *   util.c       time and naming helpers (JSON ones: <cube/util/json.h>)
 */
#ifndef PIPELINE_H
#define PIPELINE_H

#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>
#include <cube/cube.h>
#include <cube/util/json.h>

#define PL_NAME "pipeline"
#define PL_NAME_MAX 63            /* object names are DNS labels */
#define PL_MAX_TASKS 2000
#define PL_ERR 400
#define PL_PACE_SLOTS 512         /* runs paced apart (a shared slot: one more pass) */
#define PL_MEMO_SLOTS 16          /* runs whose passes are remembered (runmemo.c) */
#define PL_VOUCH_SLOTS 64         /* run directories vouched for (rundirs.c) */

/* A run as its last pass left it (runmemo.c). */
struct pl_memo {
    char project[64], name[64];
    size_t len;                    /* length and hash of the stored text it */
    uint64_t hash;                 /* was built from or last wrote */
    cJSON *run;                    /* that text parsed */
    cJSON *status;                 /* the status now: may be ahead of run's */
    double written_at;             /* pl_clock() of its last write; 0: unknown */
    int fresh;                     /* built from the stored run: no pass kept it yet */
    double used_at;
    unsigned char *dirs_made;      /* by task index: its directories were made */
    int n_dirs_made;               /* (runtasks.c; NULL until a pass needs it) */
};

/* A run directory vouched for (rundirs.c): what it was then. */
struct pl_vouch {
    char project[64], name[64];
    dev_t dev;
    ino_t ino;
    uid_t uid;
    double used;                   /* pl_clock() of its last use; 0: a free slot */
};

struct pl {
    const struct cube_host *host;
    cube_plugin *self;
    char templates_dir[PATH_MAX];  /* built-in pack, "" when none */
    char files_root[PATH_MAX];     /* <data>/projects: project files */
    int64_t max_backfill;          /* runs one backfill may create */
    int64_t max_catchup;           /* ticks one schedule pass may create */
    int64_t poll_seconds;          /* schedule re-check at most this late */
    int64_t pass_gap_ms;           /* a run's passes at most this far apart */
    pthread_mutex_t pace_mu;       /* guards pace_at */
    double pace_at[PL_PACE_SLOTS]; /* pl_clock() before which a run waits */
    int64_t status_write_ms;       /* a running run's status written at most this often */
    pthread_mutex_t memo_mu;       /* guards memo */
    struct pl_memo *memo[PL_MEMO_SLOTS];
    cube_metric *passes;           /* reconcile seconds by kind (histogram) */
    cube_metric *jobs;             /* task Jobs created (counter) */
    pthread_mutex_t dirs_mu;       /* guards dirs (started on first use) */
    struct cu_queue *dirs;         /* makes task directories (taskdirs.c) */
    pthread_mutex_t vouch_mu;      /* guards vouch */
    struct pl_vouch vouch[PL_VOUCH_SLOTS];
};

/* -- runmemo.c --------------------------------------------------------- */

/* The memo of a run for a pass, given the stored run's text: the one kept
 * when that text is what it was built from or last wrote, else one built
 * from the text (its status as stored). NULL when the text does not parse
 * or memory runs out. The caller owns it until pl_memo_put. */
struct pl_memo *pl_memo_take(struct pl *p, const char *project, const char *name,
                             const char *text);
/* Keeps m for the run's next pass (the least recently used may go). */
void pl_memo_put(struct pl *p, struct pl_memo *m);
/* After a status write: stored is the run as stored now (its text). -1
 * when it does not parse (the caller drops m). */
int pl_memo_written(struct pl_memo *m, const char *stored);
void pl_memo_free(struct pl_memo *m);
/* Drops the run's memo (deleted or finished). */
void pl_memo_forget(struct pl *p, const char *project, const char *name);
void pl_memo_fini(struct pl *p);

/* -- util.c ------------------------------------------------------------ */

/* (member readers and setters: cu_str, cu_set_str ... of <cube/util/json.h>) */
/* "<a>-<b>", shortened with a hash to fit a 63-character name. */
void pl_join_name(const char *a, const char *b, char *out, size_t len);
/* Unix seconds from "YYYY-MM-DD", "YYYY-MM-DDTHH:MM[:SS][.fff][Z|+hh:mm]"
 * (a space may replace T; no zone means UTC); -1 when malformed. */
int64_t pl_time_parse(const char *s);
/* "YYYY-MM-DDTHH:MM:SSZ" of t. */
void pl_time_format(int64_t t, char *out, size_t len);
/* The time now, Unix seconds, and as text. */
int64_t pl_now(void);
void pl_now_text(char *out, size_t len);
/* Seconds since an arbitrary point (CLOCK_MONOTONIC). */
double pl_clock(void);
/* 1 when a and b are the same JSON with members in the same order (a
 * status edited in place keeps its order): linear, where cJSON_Compare
 * looks every member up by name. 0 may still be equal JSON. */
int pl_json_same_order(const cJSON *a, const cJSON *b);
/* Writes a precise error: field and message. */
int pl_fail(char *field, size_t flen, char *msg, size_t mlen, const char *f,
            const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* -- kinds.c ----------------------------------------------------------- */

int pl_kinds_register(struct pl *p);

/* -- validate.c -------------------------------------------------------- */

/* Checks a template's spec (command, args schema). 0, or -1 with field
 * (relative to spec, e.g. "args") and msg. */
int pl_template_check(const cJSON *spec, char *field, size_t flen, char *msg, size_t mlen);
/* Checks a Pipeline (schema already passed): task names, upstreams, cycles,
 * templates, args, schedule, time zone. 0 or -1 with field and msg. */
int pl_pipeline_check(struct pl *p, const cJSON *obj, char *field, size_t flen, char *msg,
                      size_t mlen);
/* The template a task names, project first (a new tree, or NULL). */
cJSON *pl_template_find(struct pl *p, const char *project, const char *name);
/* The tasks in an order where every upstream comes first: indexes into
 * tasks (n entries), or -1 with the name of a task on a cycle in *cyclic. */
int pl_topo_order(const cJSON *tasks, int *order, int n, const char **cyclic);

/* -- pack.c ------------------------------------------------------------ */

/* Creates or updates the JobTemplates of the built-in pack. */
void pl_pack_load(struct pl *p);
/* What {{ template_dir }} renders to for a task snapshot's templateDir
 * `dir`: dir itself when absolute (or empty). A relative one (kept by runs
 * made while the pack was loaded through a relative path) is re-resolved:
 * the pack's own directory of that name when it has one, else dir made
 * absolute against the working directory when that exists, else dir.
 * Returns dir or buf (len bytes). */
const char *pl_template_dir(struct pl *p, const char *dir, char *buf, size_t len);

/* -- snapshot.c -------------------------------------------------------- */

/* Creates a PipelineRun of pipeline obj for execution time t (trigger:
 * "manual", "schedule", "backfill"): for the caller of req (a run or
 * backfill action), or with req NULL (the schedule) for the Pipeline's
 * owner, as the host decides. name_out gets its name. Returns the stored
 * run (text to free with host->free), or NULL with *rc (CUBE_EEXIST: that
 * tick's run exists; CUBE_EPERM: the caller may not) and msg. */
char *pl_run_create(struct pl *p, cube_req *req, const cJSON *pipeline, int64_t t,
                    const char *trigger, char *name_out, size_t name_len, int *rc,
                    char *msg, size_t mlen);

/* -- runner.c ---------------------------------------------------------- */

int pl_run_reconcile(void *state, const char *kind, const char *project, const char *name,
                     const char *object_json);
/* Seconds a run's next pass waits after a pass that took took_s: twice
 * that, at most gap_ms (0: none). */
double pl_pace_delay(int64_t gap_ms, double took_s);

/* -- runstatus.c ------------------------------------------------------- */

/* Edits a run's status with retries on conflicts: edit returns 0 to
 * write, 1 to leave it, -1 on error. */
typedef int (*pl_status_edit)(void *cls, const cJSON *run, cJSON *status);
int pl_run_edit_status(struct pl *p, const char *project, const char *name,
                       pl_status_edit edit, void *cls);
/* Sets (value non-NULL) or removes (NULL) label key of run by a
 * whole-object update of any resourceVersion (its status is left out):
 * CUBE_OK, or the host's error. */
int pl_run_label(struct pl *p, const cJSON *run, const char *key, const char *value);
/* Terminal task / run phases. */
int pl_task_done(const char *phase);
int pl_run_done(const char *phase);

/* -- taskjob.c --------------------------------------------------------- */

/* The Job for task (a snapshot task) of run, whose current status is
 * status (outputs of finished tasks): name, owner, labels, spec.
 * NULL with msg when a template value does not render. */
cJSON *pl_task_job(struct pl *p, const cJSON *run, const cJSON *status, const cJSON *task,
                   const char *job_name, char *msg, size_t mlen);
/* 1 when the Job job_name of run's project is run's own (its controller
 * reference names the run's uid): a Job of that name made by anyone else
 * is never adopted as a task's. */
int pl_job_is_runs(struct pl *p, const cJSON *run, const char *job_name);
/* Where a run keeps its tasks' files (spec.layout; 1 when absent: runs
 * made before it existed):
 *   1  pipeline-runs/<run>/tasks/<task>/results/  and  .../tasks/<task>/outputs
 *   2  pipeline-runs/<run>/results/<task>/        and  .../outputs/<task>
 * Layout 2, that of new runs, needs one directory per task instead of two. */
#define PL_LAYOUT 2
int pl_run_layout(const cJSON *run);
/* Paths of a task ("results" or "outputs"; with task NULL, a leaf of the
 * run such as "work"), relative to the project's files. */
void pl_task_path(int layout, const char *run, const char *task, const char *leaf, char *out,
                  size_t len);
/* The absolute path of a project file path. */
void pl_abs_path(struct pl *p, const char *project, const char *rel, char *out, size_t len);
/* 1 when the run's directory is vouched for (rundirs.c) and its work
 * directory exists, so that its tasks' directories can be made ahead of
 * their Jobs (taskdirs.c). */
int pl_task_dirs_ready(struct pl *p, const char *project, const char *run);
/* Has the tasks' result directories (and the ones above them) made like
 * the run's directory (when vouched for), by the plugin's thread, so their
 * wrappers need no mkdir; what cannot be made is left to the wrappers. */
void pl_task_dirs_make(struct pl *p, const char *project, const char *run, int layout,
                       const char *const *tasks, int n);
/* Stops the thread once it made what was handed over (pl_fini). */
void pl_task_dirs_stop(struct pl *p);

/* -- rundirs.c --------------------------------------------------------- */

/* The task wrapper's check (taskjob.c) that the run's directory, the
 * parent of CUBE_RUN_DIR, is a real directory (no link) of the task's own
 * account: run in a subshell, it fails otherwise. */
#define PL_RUN_DIR_CHECK                                                              \
    "( cube_run=${CUBE_RUN_DIR%/*} && cd -P \"${cube_run%/*}\" && cube_up=$PWD && "   \
    "cd -P \"${cube_run##*/}\" && [ \"$PWD\" = \"$cube_up/${cube_run##*/}\" ] && "     \
    "[ -O . ] )"
/* As root: makes the project's pipeline-runs/ root's and sticky (making it,
 * and the project's directory, when missing), before a Job of a run in it
 * is created. 0 (also when not root), or -1: left to the wrappers. */
int pl_runs_dir_prepare(struct pl *p, const char *project);
/* After a task's Job succeeded: vouches for the run's directory when the
 * Job ran through the wrapper (and makes a run made before private). */
void pl_run_dir_vouch(struct pl *p, const char *project, const char *run, const cJSON *job);
/* Forgets the run's voucher (the run was deleted: a run of that name made
 * later is another's). */
void pl_run_dir_forget(struct pl *p, const char *project, const char *run);
/* 1 when the run's directory was vouched for and is still the same, its
 * owner's alone (its status into *out when not NULL); else 0. */
int pl_run_dir_vouched(struct pl *p, const char *project, const char *run, struct stat *out);

/* -- outputs.c --------------------------------------------------------- */

/* Reads a finished task's outputs file and result list into tstatus
 * ("outputs", "results"). */
void pl_outputs_collect(struct pl *p, const char *project, const char *run, int layout,
                        const char *task, cJSON *tstatus);
/* GET .../pipelineruns/{name}/tasks/{task}/results/{file}. */
int pl_result_route(void *state, cube_req *req);

/* -- schedule.c -------------------------------------------------------- */

int pl_pipeline_reconcile(void *state, const char *kind, const char *project,
                          const char *name, const char *object_json);
/* The execution times of a schedule in [from, to]: a new array of Unix
 * seconds in *out, count returned; more than max is an error (-1 with
 * msg), or with truncate the first max. */
int pl_schedule_ticks(const cJSON *spec, int64_t from, int64_t to, int64_t max, int truncate,
                      int64_t **out, char *msg, size_t mlen);
/* A backfill's [from, to] from its request texts: a bare date (YYYY-MM-DD)
 * is a whole day in the pipeline's time zone (spec.timezone, else UTC) --
 * start from that day's local midnight, end through the last second of
 * that day, so both ends are inclusive; a date-time is the instant it
 * names (UTC unless it carries an offset). 0, or -1 with msg naming the
 * field (start, end or timezone). */
int pl_schedule_range(const cJSON *spec, const char *start, const char *end, int64_t *from,
                      int64_t *to, char *msg, size_t mlen);

/* -- admit.c ----------------------------------------------------------- */

/* Admits queued runs of a pipeline (dependsOnPast, expiredLimit,
 * maxActiveRuns); *left gets how many still wait. CUBE_OK or an error to
 * retry. */
int pl_admit(struct pl *p, const cJSON *pipeline, int *left);
/* Tells the Pipeline controller that n more runs of it wait to be admitted
 * (status.queuedRuns; it lists runs only while some wait), and, when
 * last_run is not NULL, that it is the pipeline's newest run
 * (status.lastRun, status.lastRunCreated: the console's "Last run"). */
void pl_note_queued(struct pl *p, const char *project, const char *pipeline, int n,
                    const char *last_run);

/* -- actions.c / porting.c --------------------------------------------- */

int pl_pipeline_actions(struct pl *p);   /* actions.c */
int pl_run_actions(struct pl *p);        /* runactions.c */
int pl_porting_register(struct pl *p);
/* The request body as a JSON object ({} when empty), or NULL after
 * answering 400. */
cJSON *pl_body_object(struct pl *p, cube_req *req);
/* The object of kind named by {project}/{name}, or NULL after answering. */
cJSON *pl_req_object(struct pl *p, cube_req *req, const char *kind);
/* 1 when the caller is ops or above, or the dev the object is for (owner
 * or cube.dev/user); else answers 403 and returns 0. */
int pl_may_operate(struct pl *p, cube_req *req, const cJSON *obj);
/* Answers with an error JSON naming a field. */
int pl_resp_error(struct pl *p, cube_req *req, int status, const char *code,
                  const char *msg);
/* Answers with a host object text (freed here), or the error for rc. */
int pl_resp_obj(struct pl *p, cube_req *req, int status, char *text, int rc);

/* -- yaml.c ------------------------------------------------------------ */

/* A YAML document of a JSON tree (block style, quoted strings); read back
 * with libcube-util's reader (cu_yaml_parse, <cube/util/yaml.h>). */
char *pl_yaml_write(const cJSON *v);

#endif
