/* sim.h — the executor-sim plugin: simulated nodes of configurable shapes
 * and replicas that "run" for a configured time, for tests and benchmarks.
 *
 * sim.c        descriptor, init/start/fini, the executor callbacks
 * sim_conf.c   the config (node groups) read and checked
 * sim_nodes.c  node documents, advertisement, the admin routes
 * sim_run.c    running replicas: one table and one end-time heap, one
 *              host timer ticking over both
 * sim_queue.c  the engine queue it may simulate (engine_queue, held_ms)
 * sim_endpoints.c  node addresses, the endpoints replicas report (ABI
 *              1.5 replica_endpoints) and the env line a start records
 * sim_map.c    a string-keyed hash map (node names, engine ids) */
#ifndef CUBE_EXECUTOR_SIM_H
#define CUBE_EXECUTOR_SIM_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>
#include <cube/cube.h>

/* Annotations (on the Job) and env variables (in the replica) that shape a
 * simulated run; annotations win. */
#define SIM_ANN_RUN_SECONDS "sim.cube.dev/run-seconds"
#define SIM_ANN_EXIT_CODE   "sim.cube.dev/exit-code"
#define SIM_ANN_EXIT_REASON "sim.cube.dev/exit-reason"
#define SIM_ANN_END_TIME    "sim.cube.dev/end-time"
#define SIM_ENV_RUN_SECONDS "SIM_RUN_SECONDS"
#define SIM_ENV_EXIT_CODE   "SIM_EXIT_CODE"
#define SIM_ENV_EXIT_REASON "SIM_EXIT_REASON"

/* -- sim_map.c ------------------------------------------------------- */

struct sim_map_entry {
    char *key;
    void *val;
    struct sim_map_entry *next;
};

/* A chained hash map from strings to pointers; not thread-safe. */
struct sim_map {
    struct sim_map_entry **buckets;
    size_t n_buckets, n;
};

/* The value stored under key, or NULL. */
void *sim_map_get(const struct sim_map *m, const char *key);
/* Stores val under key (replacing); returns the old value or NULL; *err
 * is set to 1 when out of memory. */
void *sim_map_put(struct sim_map *m, const char *key, void *val, int *err);
/* Removes key; returns its value or NULL. */
void *sim_map_del(struct sim_map *m, const char *key);
/* Calls fn(key, val, arg) for every entry (do not modify m meanwhile). */
void sim_map_each(const struct sim_map *m,
                  void (*fn)(const char *key, void *val, void *arg), void *arg);
/* Frees the table and keys (not the values). */
void sim_map_free(struct sim_map *m);

/* -- sim_conf.c ------------------------------------------------------ */

/* One node group: `count` nodes named <prefix><index>. */
struct sim_group {
    char prefix[64];
    int count;
    int exact_name;             /* one node named `prefix` itself */
    char cpu[32], memory[32];
    char *labels_json;          /* owned: the labels object as JSON text */
    char resource[64], model[64], dev_memory[32];
    int dev_count, domains, numa;
    char address[16];           /* first node's IPv4 address, or "" */
    char endpoint_address[16];  /* first node's replicas' endpoints, or "" */
};

struct sim_conf {
    char pool[64];
    double run_seconds, time_scale;
    int tick_ms;
    int admin_routes;
    int engine_queue;           /* CUBE_EXECUTOR_ENGINE_QUEUE (sim_queue.c) */
    int held_ms;                /* with it: ms in the queue; 0: until released */
    int own_ports;              /* CUBE_EXECUTOR_OWN_PORTS (sim_endpoints.c) */
    struct sim_group *groups;   /* owned */
    int n_groups;
};

/* Reads the config JSON (defaults applied here too). Returns CUBE_OK, or
 * CUBE_EINVAL with "<setting>: <reason>" in err. */
int sim_conf_parse(struct sim_conf *c, const char *json, char *err, size_t len);
/* Reads one node group from a JSON object (path names it in errors). */
int sim_group_parse(struct sim_group *g, const cJSON *obj, const char *path,
                    char *err, size_t len);
void sim_group_free(struct sim_group *g);
void sim_conf_free(struct sim_conf *c);

/* -- sim_replica.c --------------------------------------------------- */

/* What a replica document asks of the simulation. */
struct sim_plan {
    char node[64];
    char devices[256];          /* "0,1", or "" */
    int replica;
    double run_s;               /* simulated seconds until it ends */
    int exit_code;
    char reason[16];            /* a CUBE_EXIT_* value */
    char message[160];
    int64_t end_ms;             /* a recorded end (wall ms), or -1 */
    int64_t started_ms;         /* a recorded start (wall ms), or -1 */
    int has_log;
    char log_kind[64], log_project[64], log_name[256], log_stream[64];
};

/* Reads a replica document (see cube_sched.h) with the sim annotations and
 * env variables; run_seconds is the default run time. CUBE_OK, or
 * CUBE_EINVAL with the reason in msg. */
int sim_plan_parse(const char *replica_json, double run_seconds,
                   struct sim_plan *p, char *msg, size_t len);
/* Parses an RFC 3339 time ("2026-01-02T03:04:05.5Z", "+02:00" offsets)
 * or epoch seconds into wall milliseconds; -1 when malformed. */
int64_t sim_parse_time(const char *s);

/* -- the plugin state ------------------------------------------------ */

/* A replica (sim_run.c, sim_queue.c). */
struct sim_rep {
    char id[96];
    uint64_t end_ms, seq;
    uint64_t held_until;        /* held: when its wait ends (0: until released) */
    size_t heap_idx;            /* in the heap, or PENDING, or SIM_HELD */
    int stopping;
    struct sim_plan plan;
};

struct sim {
    const struct cube_host *host;
    cube_plugin *self;
    struct sim_conf conf;
    pthread_mutex_t mu;          /* guards everything below */
    struct sim_map nodes;        /* node name -> (void *)1 */
    struct sim_map reps;         /* engine id -> struct sim_rep */
    struct sim_rep **heap;       /* min-heap on end time */
    size_t n_heap, cap_heap;
    struct sim_rep **pending;    /* started since the last tick */
    size_t n_pending, cap_pending;
    struct sim_rep **held;       /* waiting in the simulated engine queue */
    size_t n_held, cap_held;
    int release_all;             /* POST /api/v1/sim/release: at the next tick */
    uint64_t seq;                /* engine id counter */
    char boot[24];               /* this run's engine id prefix */
    cube_timer *tick;
    double advertise_ms;         /* how long start()'s node_set calls took */
    /* The clock (wall milliseconds); tests replace it. */
    uint64_t (*now_ms)(void);
};

/* Wall-clock milliseconds since the epoch. */
uint64_t sim_wall_ms(void);

/* -- sim_nodes.c ----------------------------------------------------- */

/* Advertises every node of group g with node_set and records the names.
 * Returns CUBE_OK or the first error (set_error'd by the caller). */
int sim_nodes_add_group(struct sim *s, const struct sim_group *g, char *err,
                        size_t len);
/* Nonzero when name is one of this executor's nodes. */
int sim_node_known(struct sim *s, const char *name);
/* Registers GET /api/v1/sim, POST /api/v1/sim/nodes and
 * DELETE /api/v1/sim/nodes/{name} (admin). */
int sim_routes_register(struct sim *s);

/* -- sim_run.c ------------------------------------------------------- */

/* Starts a simulated replica (the executor's start callback). */
int sim_start(void *state, const char *replica_json, char *engine_id,
              size_t engine_id_len, char *msg, size_t msg_len);
/* Ends a replica early with reason Stopped (the executor's stop). */
int sim_stop(void *state, const char *engine_id, unsigned grace_seconds);
/* Re-arms a replica after a restart (the executor's adopt). */
int sim_adopt(void *state, const char *engine_id, const char *replica_json);
/* The timer callback: reports every replica whose end time has come. */
void sim_tick(void *state, void *arg);
/* Forgets the replicas on node (it was removed: the host marks them
 * Lost); returns how many. The caller holds mu. */
int sim_forget_node(struct sim *s, const char *node);
/* Grows *arr to hold one more; 0 or -1. */
int sim_reserve(struct sim_rep ***arr, size_t n, size_t *cap);
/* Puts r (its id set) in the table and the pending list (caller holds mu). */
int sim_admit(struct sim *s, struct sim_rep *r);

/* -- sim_queue.c ----------------------------------------------------- */

/* The heap_idx of a held replica. */
#define SIM_HELD (SIZE_MAX - 1)
/* With engine_queue: r (its id set; in the table) waits in the queue
 * instead of the pending list (caller holds mu). CUBE_OK or CUBE_ENOMEM. */
int sim_hold(struct sim *s, struct sim_rep *r);
/* Takes r off the queue (caller holds mu). */
void sim_unhold(struct sim *s, struct sim_rep *r);
/* At a tick: moves the replicas whose wait is over (or all, after a
 * release) to the pending list, their run starting now, and reports them
 * Running (takes mu itself; call without it). */
void sim_queue_tick(struct sim *s);
/* Registers POST /api/v1/sim/release (admin). */
int sim_queue_route(struct sim *s);

/* -- sim_endpoints.c ------------------------------------------------- */

/* The i-th IPv4 address from base (base + i) into out: 0, or -1 when base
 * is no IPv4 address or the sum leaves the address space. */
int sim_ipv4_nth(const char *base, int i, char *out, size_t len);
/* The address of node i of g into out: its endpoint_address (endpoint
 * set) or address, "" when the group has none. */
void sim_group_address(const struct sim_group *g, int i, int endpoint, char *out,
                       size_t len);
/* After a start: reports the replica's endpoints (every name of its Job's
 * spec.ports) with replica_endpoints, at its node's endpoint address (else
 * the document's "address") and the allocated port (own_ports: 8000 + the
 * name's index). Nothing for a Job without spec.ports. */
void sim_report_endpoints(struct sim *s, const char *replica_json, const char *engine_id,
                          const char *node);
/* " env MASTER_ADDR=... CUBE_PORT_HTTP=..." of the replica document: the
 * distributed and named-port variables only (never CUBE_TOKEN), for the
 * start's log line; "" when it has none. */
void sim_env_line(const char *replica_json, char *out, size_t len);

/* Number of running replicas. */
size_t sim_running(struct sim *s);
/* Frees every replica (fini). */
void sim_run_free(struct sim *s);

#endif
