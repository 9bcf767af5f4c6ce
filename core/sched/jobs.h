/* jobs.h — Jobs and their scheduling: the executors, accelerators and
 * nodes plugins register (sched_registry.c), the Job kind (job_kind.c),
 * the controller that starts, watches and finishes Jobs (job_ctrl.c,
 * job_start.c, job_exit.c, job_env.c) and the loop that runs the policy
 * engine (job_loop.c; the policy itself is sched_policy.h). One struct
 * cube_sched per context.
 *
 * Locking: `mu` guards the registry, the engine and the run table; it is
 * never held while writing objects or calling a plugin (object writes
 * take an object's stripe and may call back into here: stripe, then mu). */
#ifndef CUBE_JOBS_H
#define CUBE_JOBS_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>
#include <cube/cube.h>

#include "auth/auth.h"
#include "sched_policy.h"

struct cube_ctx;
struct cube_plugin;
struct cube_strmap;
struct cube_kind;
struct cube_op_error;

#define JOB_MAX_SELECTOR 16

/* A registered executor (strings owned). */
struct sched_executor {
    struct cube_executor_desc desc;
    struct cube_plugin *plugin;
    int local;                        /* it read local_devices: its nodes are
                                         this machine (device health applies) */
};

/* A registered accelerator vendor (strings owned). */
struct sched_accel {
    struct cube_accel_desc desc;
    struct cube_plugin *plugin;
};

/* A node as its executor last described it. */
struct sched_node {
    char *name, *pool, *address;
    struct sched_executor *executor;
    int64_t cpu_milli, memory;
    int port_min, port_max;           /* jobPorts of its document; 0: defaults */
    char *doc;                        /* the document as its executor sent it */
    int local;                        /* its document left "devices" out */
    char *filled;                     /* then: the devices the host filled in */
};

struct cube_sched {
    struct cube_ctx *ctx;
    pthread_mutex_t mu;               /* see the header comment */
    pthread_cond_t wake;              /* the loop: something changed */
    pthread_t loop;
    int loop_running, stopping, dirty;
    struct sched_executor **executors;
    size_t n_executors;
    struct sched_accel **accels;
    size_t n_accels;
    struct cube_strmap *nodes;        /* name -> struct sched_node */
    struct cube_strmap *engines;      /* engine id -> struct job_engine */
    struct cube_strmap *early;        /* engine id -> struct job_exit: ends
                                         reported before start returned */
    struct cube_strmap *early_status; /* engine id -> struct job_report:
                                         replica_status and replica_endpoints
                                         before start returned */
    struct cube_sched_policy *policy;
    struct cube_strmap *pending;      /* Job id -> last "why it waits" written */
    struct cube_strmap *ports;        /* "<node>\t<port>" -> Job id (job_ports.c) */
    struct cube_strmap *pools;        /* project -> its spec.pools (cJSON array);
                                         absent: every pool (job_loop.c) */
    struct cube_kind *job_kind;
    struct cube_metric *m_jobs, *m_util, *m_mem;   /* job_metrics.c */
    struct job_starter *starter;      /* job_start.c */
    /* ABI 1.5 (G10): device health and partitions */
    pthread_mutex_t node_mu;          /* serialises node (re)sets; before mu */
    struct cube_strmap *health;       /* "<resource>\t<id>" -> struct sched_health */
    struct cube_metric *m_health;     /* cube_accel_healthy{resource,device} */
    struct job_parts *parts;          /* job_partition.c */
};

/* A Job's spec as the engine wants it (strings borrowed from the Job). */
struct job_request {
    struct cube_sp_job job;
    struct cube_sp_ext ext[CUBE_SP_MAX_EXT];
    struct cube_sp_label sel[JOB_MAX_SELECTOR];
};

/* Sets up the registry and registers the Job kind (before plugins load). */
int cube_sched_init(struct cube_ctx *ctx);
/* After plugins started: restores running Jobs and starts the loop. */
int cube_sched_start(struct cube_ctx *ctx);
/* Stops the loop (shutdown). */
void cube_sched_stop(struct cube_ctx *ctx);
void cube_sched_free(struct cube_ctx *ctx);
/* A Project changed (obj NULL: deleted): its quotas reach the engine. */
void cube_sched_project(struct cube_ctx *ctx, const char *name, const cJSON *obj);
/* What the Project kind (auth/) asks of the scheduler: the checks of
 * spec.env and spec.mounts and cube_sched_project (wired by ctx.c). */
extern const struct cube_auth_projects cube_sched_projects;

/* GET /api/v1/nodes[/{name}] and /api/v1/pools[/{name}] (job_infra_http.c). */
int job_infra_routes_register(struct cube_sched *s);

/* -- sched_registry.c ------------------------------------------------- */
/* The node's executor, or NULL (caller holds mu). */
struct sched_executor *sched_executor_of_node(struct cube_sched *s, const char *node);
/* The accelerator serving resource, or NULL (caller holds mu). */
struct sched_accel *sched_accel_for(struct cube_sched *s, const char *resource);
/* 1 when resource is "cpu", "memory", or served by an accelerator plugin
 * or a node's devices. */
int sched_resource_known(struct cube_sched *s, const char *resource);
/* 1 when some node of pool could hold cpu and memory (or there are no
 * nodes in it yet). */
int sched_some_node_fits(struct cube_sched *s, const char *pool, int64_t cpu_milli,
                         int64_t memory);
/* Forgets what a plugin registered (its init failed). */
void sched_drop_plugin(struct cube_sched *s, struct cube_plugin *plugin);
/* This machine's devices from every accelerator plugin (JSON array text,
 * release with free), or NULL with *rc. */
char *cube_sched_local_devices(struct cube_sched *s, int *rc);
/* Frees the registry (shutdown). */
void sched_registry_free(struct cube_sched *s);

/* 1 when some node serves pool. */
int sched_pool_known(struct cube_sched *s, const char *pool);
/* Checks and records a node document of executor ex (node_set), holding
 * node_mu. CUBE_OK, or an error with *why. */
int sched_node_apply(struct cube_sched *s, struct sched_executor *ex, const char *json,
                     const char **why);
/* Sets the nodes that describe this machine (their document left
 * "devices" out, or their executor reads local_devices) again from their
 * last documents: pushed device health reaches the engine. */
void sched_local_nodes_reset(struct cube_sched *s);

/* -- sched_health.c (ABI 1.5, G10: device health) --------------------- */
/* Pushed health of one device of this machine. */
struct sched_health {
    int healthy;
    char reason[256];
};
/* Sets "healthy" and "healthReason" of the devices in list (documents
 * with "id" and "resource") that have a pushed state (caller holds mu). */
void sched_health_apply(struct cube_sched *s, cJSON *list);
/* The gauge cube_accel_healthy of each device in list. */
void sched_health_gauge(struct cube_sched *s, const cJSON *list);
int cube_slot_device_health(cube_plugin *self, const char *resource, const char *device_id,
                            int healthy, const char *reason);

/* -- job_pin.c (ABI 1.5, G10: device pinning) ------------------------- */
/* The replica document of job's replica i (job_replica_doc) pinned to its
 * devices: per device resource, its accelerator's pin (env, deviceNodes,
 * mounts; checked) or pin_env (env; deviceNodes then absent). ids: per
 * resource the ids to pin instead of the allocated ones (prepare's; NULL:
 * none). New text, or NULL with msg (a pin failed or broke the rules). */
char *job_pinned_doc(struct cube_sched *s, const cJSON *job, int i, const cJSON *ids,
                     char *msg, size_t len);
/* The pinning of job_pinned_doc on doc, a parsed replica document, for the
 * devices of rep (the replica's status entry): 0, or -1 with msg. */
int job_pin_doc(struct cube_sched *s, cJSON *doc, const cJSON *rep, const cJSON *ids,
                char *msg, size_t len);
/* 1 when path is absolute and clean: no empty, "." or ".." segment, no
 * trailing slash (job_admit.c). */
int job_path_clean(const char *path);

/* -- job_partition.c (ABI 1.5, G10: prepare and release) -------------- */
struct job_parts;
/* Prepares job's replica i for its start: each of its device resources
 * whose accelerator has prepare. *ids (NULL when nothing was prepared)
 * gets resource -> the ids to pin; *leases (NULL when none) what was
 * made, for job_parts_started or job_parts_abort. CUBE_OK, or an error
 * with msg (what was made is already queued for release). Blocks on the
 * plugins. */
int job_parts_prepare(struct cube_sched *s, const cJSON *job, int i, cJSON **ids,
                      cJSON **leases, char *msg, size_t len);
/* The replica of leases started as engine: released once its end is
 * applied (job_parts_ended). Takes leases (NULL is fine). */
void job_parts_started(struct cube_sched *s, cJSON *leases, const char *engine);
/* Its start failed: releases leases soon. Takes leases (NULL is fine). */
void job_parts_abort(struct cube_sched *s, cJSON *leases);
/* The replica of engine ended: its partitions are released soon. */
void job_parts_ended(struct cube_sched *s, const char *engine);
/* resource -> ids of the partitions a running replica (engine) has, for
 * its pins at re-adoption (new), or NULL. */
cJSON *job_parts_ids(struct cube_sched *s, const char *engine);
/* Reads what the store holds (partitions of replicas still running wait
 * for their end, the others are released) and starts the thread that
 * releases; stop ends it (what is left stays in the store). */
int job_parts_start(struct cube_sched *s);
void job_parts_stop(struct cube_sched *s);
void job_parts_free(struct cube_sched *s);

/* -- job_admit.c ------------------------------------------------------ */
/* What a new Job must satisfy beyond its schema and resources (env names,
 * no mounts or image, a pool some node serves and its project may use);
 * an update may not change the spec (old: the stored Job). 0, or -1 with
 * e naming the field (422). */
int job_admit_check(struct cube_ctx *ctx, const cJSON *obj, const cJSON *old,
                    struct cube_op_error *e);
/* env (an object of strings; NULL: none) under field base ("spec.env"):
 * portable names only, none of the variables Cube sets. 0, or -1 (422). */
int job_env_check(const cJSON *env, const char *base, struct cube_op_error *e);
/* 1 when Cube sets the variable name for a replica itself. */
int job_env_reserved(const char *name);
/* mounts (an array; NULL or empty: fine) under field base: each entry's
 * name and path are checked, then any mount is refused (422): no executor
 * mounts volumes yet. */
int job_mounts_refuse(const cJSON *mounts, const char *base, struct cube_op_error *e);
/* 1 when a Project's spec.pools (NULL or empty: every pool) lets its Jobs
 * use pool. */
int sched_pools_allow(const cJSON *pools, const char *pool);

/* -- job_kind.c ------------------------------------------------------- */
int job_kind_register(struct cube_sched *s);
/* The engine's request for a Job (id and project left to the caller).
 * 0, or -1 with e naming the field. */
int job_request(struct cube_sched *s, const cJSON *job, struct job_request *r,
                struct cube_op_error *e);

/* -- job_ctrl.c ------------------------------------------------------- */
int job_reconcile(void *state, const char *kind, const char *project, const char *name,
                  const char *object_json);
int job_finalize(void *state, const char *object_json);
/* A replica ended (from replica_exited): records it, finishes the Job. */
int job_replica_exited(struct cube_sched *s, const char *engine_id, int code,
                       const char *reason, const char *message);
/* The engine admitted a Job: records where its replicas go (status
 * Admitted) and hands it to the starter threads (job_start.c). */
void job_admitted(struct cube_sched *s, const struct cube_sp_admission *a);
/* The engine wants a running Job stopped for another (grace period). */
void job_preempt(struct cube_sched *s, const char *victim, const char *for_job);
/* A running Job lost a node: its replicas there count as Lost. */
void job_lost(struct cube_sched *s, const char *job_id);
/* Registers the stop action. */
int job_actions_register(struct cube_sched *s);

/* Remembers which Job replica an engine id runs (an end reported early is
 * applied now). */
void job_engine_track(struct cube_sched *s, const char *engine, const char *project,
                      const char *name, int replica);
/* Asks the executors to stop the Job's running replicas (grace seconds;
 * 0: the default); returns how many are still running. */
int job_stop_replicas(struct cube_sched *s, const char *project, const char *name,
                      unsigned grace);
/* A start failed: the Job fails (or waits for a retry) once its replicas
 * have ended. */
void job_fail_start(struct cube_sched *s, const char *project, const char *name);
/* 1 when the Job's status asks it to stop (stopRequested: set by the stop
 * action, or by the Job's owner writing its status). */
int job_stop_asked(const cJSON *job);
/* Carries out such a stop: a Job that has not started is Cancelled, a
 * running one's replicas get SIGTERM, SIGKILL after status.stopGraceSeconds
 * (default 10); it ends Cancelled (reason Stopped), its logs kept. */
void job_stop_on_request(struct cube_sched *s, const cJSON *job, const char *project,
                         const char *name);
/* Asks executors to adopt the Job's running replicas (after a restart). */
void job_adopt_replicas(struct cube_sched *s, const cJSON *job, const char *project,
                        const char *name);
/* The Job is finished or gone: out of the engine and the engine-id map. */
void job_forget(struct cube_sched *s, const char *id);
/* The project's quotas reach the engine before its Jobs (pool: the one a
 * Job asks for; a project without quotas is unlimited there), and its
 * spec.pools the scheduler (sched_pool_allowed). */
void sched_project_ensure(struct cube_sched *s, const char *project, const char *pool);
/* 1 when the project, as the scheduler last saw it, may run Jobs in pool
 * (caller holds mu). */
int sched_pool_allowed(struct cube_sched *s, const char *project, const char *pool);

/* An Admitted Job (as read): starts every replica not started yet and
 * records them (status Running, event Started). CUBE_EUNAVAIL when the
 * status could not be written. */
int job_start_replicas(struct cube_sched *s, const cJSON *job, const char *project,
                       const char *name);

/* -- job_replica_status.c (ABI 1.5, G2) ------------------------------ */
/* Which Job replica an engine id runs (the engines map's values). */
struct job_engine {
    char project[64], name[64];
    int replica;
};
/* What an executor reported about one replica: its place in the engine's
 * queue (replica_status) and/or its endpoints (replica_endpoints, G1). */
struct job_report {
    int has_phase;                    /* phase, node and message are set */
    char phase[16], node[64], message[256];
    cJSON *endpoints;                 /* owned; NULL: none reported */
};
/* Frees a report (the early_status map's values). */
void job_report_free(void *rep);
/* Applies rep to the replica that engine runs, or, when its start has not
 * been recorded yet, keeps it (merged over what was kept for engine) for
 * job_status_early_apply. Takes rep->endpoints. CUBE_OK or CUBE_EUNAVAIL
 * (the status could not be written). Takes mu itself. */
int job_report_submit(struct cube_sched *s, const char *engine, struct job_report *rep);
/* A copy of the endpoints kept for engine (reported before its start was
 * recorded), or NULL. Takes mu. */
cJSON *job_report_early_endpoints(struct cube_sched *s, const char *engine);
/* CUBE_EXECUTOR_* flags of the node's executor (0: none, or no such
 * node; takes mu). */
unsigned sched_node_flags(struct cube_sched *s, const char *node);
/* 1 when the node's executor places and queues replicas itself
 * (CUBE_EXECUTOR_ENGINE_QUEUE; takes mu). */
int sched_node_engine_queues(struct cube_sched *s, const char *node);
/* Applies the reports held back for engine (its start had not returned)
 * now that ref names its replica. */
void job_status_early_apply(struct cube_sched *s, const char *engine,
                            const struct job_engine *ref);
/* A replica's phase or status as the engine says: each replica whose
 * start returned and is not ended becomes "Pending" or "Running"; the
 * Job's phase follows (Admitted while any waits, Running when every one
 * runs). Called by mark_started and the replica_status slot's edit. */
void job_phase_from_replicas(cJSON *status);
int cube_slot_replica_status(cube_plugin *self, const char *engine_id, const char *phase,
                             const char *node, const char *message);

/* -- job_endpoints.c (ABI 1.5, G1: named ports and endpoints) -------- */
/* spec.ports beyond its schema: names unique. 0, or -1 with e (422). */
int job_spec_ports_check(const cJSON *spec, struct cube_op_error *e);
/* Replaces replica r's "endpoints" with those of endpoints (an object of
 * "host:port" strings) whose names the Job's spec.ports lists (none left:
 * removed). 1 when that changed r, 0 when not. */
int job_endpoints_set(cJSON *r, const cJSON *job, const cJSON *endpoints);
/* The host of replica i's first endpoint in spec.ports order (IPv6
 * without its brackets) into buf, or NULL when it has none. */
const char *job_endpoint_host(const cJSON *job, int i, char *buf, size_t len);
/* After replica r (of a copy of the Job the start loop works on) started
 * as engine: the endpoints its executor reported meanwhile go into r, so
 * later replicas' documents see them (MASTER_ADDR). */
void job_endpoints_peek(struct cube_sched *s, const char *engine, const cJSON *job, cJSON *r);
int cube_slot_replica_endpoints(cube_plugin *self, const char *engine_id,
                                const char *endpoints_json);

/* -- job_points.c, job_points_http.c (ABI 1.5, G5: Job metrics) ------- */
#define JOB_POINTS_BATCH_MAX 1000     /* points per POST */
#define JOB_POINTS_JOB_MAX 100000     /* points a Job holds */
#define JOB_POINT_NAME_MAX 128
struct cube_store_point;
/* 1 when name is a metric name: 1 to 128 of [A-Za-z0-9_.-/:]. */
int job_point_name_ok(const char *name);
/* A request body {"metrics":[...]} into *out (calloc'd; names borrowed
 * from body) and *n: 0, or -1 with the field ("metrics[3].value") and a
 * sentence naming it. */
int job_points_parse(const cJSON *body, struct cube_store_point **out, size_t *n,
                     char *field, size_t flen, char *msg, size_t mlen);
/* Stores a batch for the Job (as read) and queues its owners' reconcile.
 * CUBE_OK, CUBE_ETOOBIG (past JOB_POINTS_JOB_MAX), a store error. */
int job_points_add(struct cube_sched *s, const cJSON *job, const struct cube_store_point *p,
                   size_t n, int64_t *total);
/* {"kind":"JobMetrics","project","job","metrics":[{name,step,value,ts}]}
 * of the Job (name NULL: every name; steps > since_step, -1: all), new
 * text, or NULL with *rc. */
char *job_points_json(struct cube_sched *s, const cJSON *job, const char *name,
                      int64_t since_step, int *rc);
/* Deletes the Job's metrics (it is being deleted). */
void job_points_forget(struct cube_sched *s, const cJSON *job);
/* Deletes metrics of Jobs no longer stored (start). */
void job_points_purge(struct cube_sched *s);
/* Registers the metrics actions of the Job kind. */
int job_points_register(struct cube_sched *s);
char *cube_slot_job_metrics(cube_plugin *self, const char *project, const char *job,
                            const char *name, int64_t since_step, int *rc);

/* -- job_start.c ------------------------------------------------------ */
/* Starts an Admitted Job's replicas soon, on a starter thread (once: a
 * Job queued or starting is not queued again). */
void job_start_soon(struct cube_sched *s, const char *project, const char *name);
/* The starter threads: started with the scheduler, stopped (the starts
 * under way finish) before plugins are unloaded. */
int job_starter_init(struct cube_sched *s);
void job_starter_stop(struct cube_sched *s);
void job_starter_free(struct cube_sched *s);

/* -- job_ports.c ------------------------------------------------------ */
/* The ports distributed Jobs get when their node says nothing (torch's
 * default MASTER_PORT onwards). */
#define JOB_PORT_MIN 29500
#define JOB_PORT_MAX 30999
/* 1 when a node document's jobPorts ({"min","max"}) is a valid range. */
int job_ports_range_ok(const cJSON *ports);
/* Takes fresh ports for an admitted Job whose mode needs them (pytorch and
 * deepspeed: status.ports.master on replica 0's node; tensorflow:
 * status.replicas[i].port on each replica's node) and for its spec.ports
 * (status.replicas[i].ports.<name> on each replica's node, unless its
 * executor has CUBE_EXECUTOR_OWN_PORTS), giving back those of an earlier
 * admission. Writes them into status (its replicas placed); -1 when a
 * node's range is used up (status then has none). Takes mu. */
int job_ports_assign(struct cube_sched *s, const char *job_id, const cJSON *job,
                     cJSON *status);
/* n ports, one on each nodes[i], for job_id: 0, or -1 with none taken. */
int job_ports_take(struct cube_sched *s, const char *job_id, const char *const *nodes,
                   int n, int *ports);
/* Gives back every port of job_id. Takes mu. */
void job_ports_release(struct cube_sched *s, const char *job_id);
/* Marks the ports a running Job's status records as taken (restart). */
void job_ports_restore(struct cube_sched *s, const char *job_id, const cJSON *job);
/* NULL when job has the ports its mode and spec.ports need, else why not
 * (static). Takes mu. */
const char *job_ports_missing(struct cube_sched *s, const cJSON *job);

/* -- job_env.c -------------------------------------------------------- */
/* The replica document for an executor (cube_sched.h), new text; NULL
 * when the Job has no user to run as (see job_run_as). */
char *job_replica_doc(struct cube_sched *s, const cJSON *job, int replica);
/* The user a Job's replicas run as: its metadata.owner when that names a
 * user (the host stamps it from the principal that caused the Job), else
 * NULL. Borrowed from job. */
const char *job_run_as(const cJSON *job);

/* Tracks a pending Job for its "why it waits" (caller holds mu); drops it
 * when admitted or forgotten (untrack). */
void sched_pending_track(struct cube_sched *s, const char *id);
void sched_pending_untrack(struct cube_sched *s, const char *id);

/* -- job_metrics.c --------------------------------------------------- */
int sched_metrics_init(struct cube_sched *s);
/* Updates the job and device gauges (takes mu briefly; calls plugins). */
void sched_metrics_refresh(struct cube_sched *s);

/* -- job_loop.c ------------------------------------------------------- */
/* Asks the loop for a cycle soon. */
void sched_poke(struct cube_sched *s);
/* Runs a cycle of the engine now, in the caller's thread, and carries out
 * its admissions and preemptions (as the loop does; cycles may overlap:
 * each admission is handed out once). */
void sched_cycle_now(struct cube_sched *s);

/* The host table's scheduling (ABI 1.3, sched_registry.c) slots (listed by plugins/host_table.c; contracts
 * in abi/cube/cube_host.h). */
int cube_slot_register_executor(cube_plugin *self, const struct cube_executor_desc *in);
int cube_slot_register_accel(cube_plugin *self, const struct cube_accel_desc *in);
int cube_slot_node_set(cube_plugin *self, const char *json);
int cube_slot_node_remove(cube_plugin *self, const char *name);
int cube_slot_replica_exited(cube_plugin *self, const char *engine_id, int code,
                             const char *reason, const char *message);
char *cube_slot_local_devices(cube_plugin *self, int *rc);

#endif
