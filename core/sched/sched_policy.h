/*
 * sched_policy.h — the scheduler's policy engine: which pending job runs
 * next, where, and which running jobs must make room for it.
 *
 * A pure, in-memory module: no I/O, no locks, no clocks other than the
 * monotonic one it reads to time its own decisions, no global state. The
 * caller (core/sched/) owns the truth (Job objects, executors), feeds the
 * engine what it learns (nodes, quotas, submitted and finished jobs), calls
 * cube_sp_decide() and carries out what it answers. Not thread-safe: the
 * caller serialises every call on one engine (one mutex around it).
 *
 * Names: every public symbol starts with cube_sp_ ("scheduler policy");
 * the handle is struct cube_sched_policy.
 *
 * RESOURCES AND UNITS
 *   A resource vector (struct cube_sp_res) has CUBE_SP_NRES slots:
 *     [CUBE_SP_CPU]     cpu, in millicores (1 core = 1000)
 *     [CUBE_SP_MEMORY]  memory, in bytes
 *     [2 ..]            extended resources ("nvidia.com/gpu", "rdma/hca")
 *                       in milli-units: one device = 1000, a quarter = 250.
 *   Extended resources get their slot from cube_sp_resource_add (an
 *   accelerator plugin's resource) or implicitly from the first node whose
 *   devices name them. Extended resources are device-backed: a node offers
 *   1000 per healthy device of that resource, and a replica asks for whole
 *   devices (a multiple of 1000) or a share of one device (1..999).
 *
 * POOLS, NODES, PROJECTS, QUOTAS
 *   A pool groups the nodes one executor serves; "default" always exists,
 *   others appear when a node or quota names them (or cube_sp_pool_add).
 *   A node belongs to one pool and may be set (added or replaced) or
 *   removed at any time. A project binds to a pool through a quota:
 *   guaranteed (what it can always get back, by preemption if others
 *   borrowed it) and max (a hard cap; CUBE_SP_UNLIMITED for none). A
 *   project may use more than its guarantee while capacity is idle: that
 *   excess is BORROWED and may be reclaimed. A project without a quota in
 *   a pool gets nothing there (its jobs wait with a quota reason).
 *
 * ORDER (one cycle, per pool, see cube_sp_decide)
 *   Between projects: dominant-resource fairness. A project's dominant
 *   share in a pool is max over resources of used / pool capacity, divided
 *   by its weight; the project with the lowest share offers its next job
 *   (ties: the project that first had a quota or job in the pool). Within
 *   a project: priority (high, normal, low), then FIFO by seq. Each pending
 *   job is considered once per cycle; one that cannot run does not stop
 *   later ones (best effort), except through the reservation below.
 *
 * RESERVATION AND BACKFILL
 *   The first job of a cycle (in the order above) that is within quota,
 *   finds no room and cannot preempt becomes the pool's HEAD: it reserves
 *   the nodes and devices it will use (those likely to drain first) and
 *   keeps them while it stays head (a pool has one head at a time). Other
 *   jobs backfill around it: they may use a reserved node's cpu and memory
 *   only while the capacity left after every job placed there since the
 *   reservation still covers the head's share, and never its reserved
 *   devices. So backfill never delays the head beyond the moment the work
 *   that ran on its nodes when it reserved them has ended. (No runtimes
 *   are known, so no job backfills "into" a reservation.)
 *
 * PREEMPTION
 *   A job that finds no room (or no quota) may preempt: running jobs of its
 *   own project with a lower priority, and, when its project stays within
 *   its guarantee after admission, jobs of projects that use more than
 *   their guarantee of a resource it needs (reclaim of borrowed capacity:
 *   the accelerators it asks for, or cpu and memory for a cpu-only job).
 *   Victims are the cheapest sufficient set (lowest priority first, then
 *   most recently admitted), whole jobs (all replicas). The engine only
 *   ORDERS: the victims keep their allocation until the caller, after a
 *   grace period, calls cube_sp_release on each; meanwhile the preemptor
 *   holds a reservation on the room they will free. At most
 *   CUBE_SP_PREEMPT_PER_CYCLE searches run per pool per cycle, each over
 *   at most 256 candidates.
 *
 * PLACEMENT (gang: every replica of a job is placed, or none)
 *   A replica fits a node when its cpu, memory and devices fit, its node
 *   selector matches the node's labels (every key=value equal) and every
 *   device it gets has the requested model. Bin-packing: nodes with the
 *   fewest free devices that still fit are tried first (partly used nodes
 *   before whole ones), fractional shares go to partly used devices first
 *   (best fit on share and memory fraction). Topology: k whole devices come
 *   from one domain (an NVLink island) when the node has one with k free
 *   (the one with the fewest free, to keep whole domains free), else from
 *   one NUMA node, else from the fewest domains; nodes offering a
 *   one-domain fit are preferred. Indexes: nodes are grouped into classes
 *   (same pool and device models) and bucketed by free whole devices and,
 *   within that, by the bit length of their free cpu, with bounds of free
 *   cpu and memory per bucket, so a decision looks at few nodes; a cycle
 *   remembers shapes that did not fit and answers later identical jobs at
 *   once. Room that a reservation frees in the middle of a cycle (its
 *   owner started) is offered from the next cycle on.
 *
 * OWNERSHIP
 *   Strings and arrays passed in are borrowed for the call (copied as
 *   needed). Pointers the engine returns (results, names, messages) belong
 *   to the engine and stay valid until the next call that changes the
 *   engine (any call but the queries cube_sp_errmsg, cube_sp_job_info,
 *   cube_sp_usage, cube_sp_stats, cube_sp_resource_*).
 *
 * ERRORS
 *   Functions return CUBE_OK (0) or a negative CUBE_E* code (cube_plugin.h)
 *   and set a message readable with cube_sp_errmsg(): CUBE_EINVAL bad
 *   argument, CUBE_ENOTFOUND unknown name, CUBE_EEXIST duplicate id,
 *   CUBE_ESTATE wrong state (cancel of a running job), CUBE_ETOOBIG over a
 *   fixed limit or larger than any node, CUBE_ECONFLICT a restored
 *   placement that does not fit, CUBE_ENOMEM.
 */
#ifndef CUBE_SCHED_POLICY_H
#define CUBE_SCHED_POLICY_H

#include <stddef.h>
#include <stdint.h>

#include <cube/cube_plugin.h>

#define CUBE_SP_NRES 8              /**< slots: cpu, memory, 6 extended */
#define CUBE_SP_CPU 0               /**< millicores */
#define CUBE_SP_MEMORY 1            /**< bytes */
#define CUBE_SP_UNLIMITED INT64_MAX /**< a quota max without a cap */
#define CUBE_SP_MAX_DEVICES 64      /**< devices on one node */
#define CUBE_SP_MAX_EXT 4           /**< extended requests per replica */
#define CUBE_SP_MAX_REPLICAS 4096   /**< replicas of one job */
#define CUBE_SP_PREEMPT_PER_CYCLE 8 /**< preemption searches per pool */
#define CUBE_SP_DEFAULT_POOL "default"

/** Priorities (within a project). */
enum { CUBE_SP_LOW = 0, CUBE_SP_NORMAL = 1, CUBE_SP_HIGH = 2 };

/** A resource vector; see RESOURCES AND UNITS. */
struct cube_sp_res {
    int64_t v[CUBE_SP_NRES];
};

/** One label or one node-selector term (key = value). */
struct cube_sp_label {
    const char *key, *value;
};

/** A device of a node. */
struct cube_sp_device {
    const char *id;       /**< unique on the node: "0", "GPU-3f2a..." */
    const char *resource; /**< "nvidia.com/gpu" */
    const char *model;    /**< "H200"; NULL or "" when unknown */
    const char *domain;   /**< interconnect island ("nvl-0"); NULL: none */
    int64_t memory;       /**< bytes of device memory (informational) */
    int numa;             /**< NUMA node, -1 when unknown */
    int healthy;          /**< 0: offered to nobody (work on it continues) */
};

/** A node, as its executor describes it. */
struct cube_sp_node {
    const char *name;     /**< unique across pools */
    const char *pool;     /**< NULL or "": the default pool */
    const struct cube_sp_label *labels;
    size_t n_labels;
    int64_t cpu_milli;    /**< allocatable cpu */
    int64_t memory;       /**< allocatable bytes */
    const struct cube_sp_device *devices;
    size_t n_devices;     /**< at most CUBE_SP_MAX_DEVICES */
    /** Nonzero: no new replica is placed here (the executor says its
     *  engine will not run work there: a drained or down Slurm node);
     *  replicas already placed stay. */
    int unschedulable;
    const char *message;  /**< why, for waiting Jobs' reasons; NULL: none */
};

/** A project's quota in one pool. */
struct cube_sp_quota {
    struct cube_sp_res guaranteed; /**< may be borrowed by others, reclaimed */
    struct cube_sp_res max;        /**< hard cap; CUBE_SP_UNLIMITED: none */
};

/** An extended-resource request of one replica. */
struct cube_sp_ext {
    const char *resource; /**< a known extended resource */
    int64_t milli;        /**< 1000 * whole devices, or a share 1..999 */
    int64_t mem_milli;    /**< a share's device-memory fraction, 0: = milli */
    const char *model;    /**< NULL or "": any model; else only this one */
};

/** Flags of struct cube_sp_job. */
enum {
    /** Skip submit's "larger than any node of the pool" check. */
    CUBE_SP_NO_FIT_CHECK = 1u << 0,
};

/** A job: `replicas` identical replicas placed together (gang). */
struct cube_sp_job {
    const char *id;       /**< unique among the engine's jobs */
    const char *project;  /**< a project set with cube_sp_project_set */
    const char *pool;     /**< NULL or "": the default pool */
    int priority;         /**< CUBE_SP_LOW .. CUBE_SP_HIGH */
    uint64_t seq;         /**< FIFO key (submit time/sequence); 0: next */
    unsigned replicas;    /**< 1 .. CUBE_SP_MAX_REPLICAS */
    int64_t cpu_milli;    /**< per replica */
    int64_t memory;       /**< per replica, bytes */
    const struct cube_sp_ext *ext;  /**< per replica */
    size_t n_ext;         /**< at most CUBE_SP_MAX_EXT, one fractional */
    const struct cube_sp_label *selector; /**< node labels required */
    size_t n_selector;
    unsigned flags;       /**< CUBE_SP_NO_FIT_CHECK */
};

/** A device (or a share of one) given to a replica. */
struct cube_sp_dev_alloc {
    const char *id;       /**< the device id on the node */
    const char *resource; /**< its extended resource */
    int32_t share_milli;  /**< 1000: whole; else the share */
    int32_t mem_milli;    /**< device-memory fraction (1000 when whole) */
};

/** Where one replica runs. */
struct cube_sp_replica {
    const char *node;
    size_t n_devices;
    const struct cube_sp_dev_alloc *devices;
};

/** A job admitted by a cycle: start replica i on replicas[i]. */
struct cube_sp_admission {
    const char *job;
    const char *pool;
    unsigned n_replicas;
    const struct cube_sp_replica *replicas;
};

/** Why a victim is preempted. */
enum { CUBE_SP_BY_PRIORITY = 1, CUBE_SP_BY_RECLAIM = 2 };

/** An order to stop victim (grace period, then cube_sp_release). */
struct cube_sp_preemption {
    const char *victim;
    const char *beneficiary; /**< the waiting job it makes room for */
    int why;                 /**< CUBE_SP_BY_PRIORITY or CUBE_SP_BY_RECLAIM */
};

/** What one cycle decided. Owned by the engine (see OWNERSHIP). */
struct cube_sp_result {
    size_t n_admitted;
    const struct cube_sp_admission *admitted;
    size_t n_preemptions;
    const struct cube_sp_preemption *preemptions;
    size_t n_decisions;  /**< jobs considered: admitted + left waiting */
    size_t n_waiting;    /**< left waiting, each with a reason */
};

/** Job states. */
enum { CUBE_SP_PENDING = 1, CUBE_SP_RUNNING = 2 };

/** A job as the engine sees it (cube_sp_job_info). */
struct cube_sp_job_info {
    int state;              /**< CUBE_SP_PENDING or CUBE_SP_RUNNING */
    const char *pool;
    unsigned position;      /**< pending: 1-based rank among the jobs of its
                                 pool the last cycle left waiting; 0 when no
                                 cycle has seen it yet */
    const char *preempted_by; /**< running and ordered to stop: for whom */
    unsigned victims;       /**< pending: victims still running for it */
    int holds_reservation;  /**< pending: 1 when it holds reserved room */
};

/** A project's standing in a pool (cube_sp_usage). */
struct cube_sp_usage {
    struct cube_sp_res used;       /**< by its running jobs */
    struct cube_sp_res guaranteed;
    struct cube_sp_res max;
    struct cube_sp_res capacity;   /**< the pool's healthy capacity */
    double dominant_share;         /**< max used/capacity, / weight */
    int dominant_resource;         /**< its slot, -1 when nothing is used */
    size_t pending, running;       /**< jobs */
};

/** Counters since the engine was made (cube_sp_stats). */
struct cube_sp_stats {
    uint64_t cycles, decisions, admitted, waiting, preemptions;
    uint64_t decision_p50_ns, decision_p99_ns, decision_max_ns;
    uint64_t admission_p99_ns;   /**< of the decisions that admitted */
    size_t pending, running, nodes;
};

struct cube_sched_policy;

/* -- the engine ----------------------------------------------------------- */

/* A new engine with the default pool and no nodes, or NULL (out of memory). */
struct cube_sched_policy *cube_sp_new(void);
/* Frees the engine and everything in it (NULL is fine). */
void cube_sp_free(struct cube_sched_policy *p);
/* The message of the last failed call ("" when none). */
const char *cube_sp_errmsg(const struct cube_sched_policy *p);

/* -- resources, pools, nodes ---------------------------------------------- */

/* Registers an extended resource (idempotent). Returns its slot (>= 2),
 * CUBE_EINVAL for "", "cpu" or "memory", CUBE_ETOOBIG when slots run out. */
int cube_sp_resource_add(struct cube_sched_policy *p, const char *name);
/* The slot of "cpu", "memory" or an extended resource, or CUBE_ENOTFOUND. */
int cube_sp_resource_index(const struct cube_sched_policy *p, const char *name);
/* The name of a slot, or NULL. */
const char *cube_sp_resource_name(const struct cube_sched_policy *p, int slot);
/* Makes sure a pool exists. CUBE_OK or CUBE_EINVAL/CUBE_ENOMEM. */
int cube_sp_pool_add(struct cube_sched_policy *p, const char *name);

/* Called once per running job that lost its place (lost a node or a device
 * in use): the caller stops its remaining replicas and calls cube_sp_release. */
typedef void (*cube_sp_lost_fn)(void *cls, const char *job_id);

/* Adds a node or replaces the one of that name (it may move pools). Work
 * placed on it stays where the same device ids still exist; jobs whose
 * devices are gone lose this node's part and are reported to lost (may be
 * NULL). Registers unknown device resources. */
int cube_sp_node_set(struct cube_sched_policy *p, const struct cube_sp_node *n,
                     cube_sp_lost_fn lost, void *cls);
/* Removes a node; every job with a replica on it is reported to lost and
 * keeps its other replicas until released. CUBE_ENOTFOUND when unknown. */
int cube_sp_node_remove(struct cube_sched_policy *p, const char *name,
                        cube_sp_lost_fn lost, void *cls);

/* -- projects and quotas -------------------------------------------------- */

/* Adds a project or sets its weight (>= 1; 0 means 1). */
int cube_sp_project_set(struct cube_sched_policy *p, const char *name,
                        unsigned weight);
/* Removes a project without jobs (CUBE_ESTATE when it has some). */
int cube_sp_project_remove(struct cube_sched_policy *p, const char *name);
/* Fills q with guaranteed 0 and max unlimited everywhere. */
void cube_sp_quota_init(struct cube_sp_quota *q);
/* Sets a project's quota in a pool (creates the pool). Guaranteed must not
 * exceed max. Takes effect at the next cycle; running work is not stopped
 * when a max shrinks below use. */
int cube_sp_quota_set(struct cube_sched_policy *p, const char *project,
                      const char *pool, const struct cube_sp_quota *q);

/* -- jobs ----------------------------------------------------------------- */

/* Queues a job. CUBE_EINVAL with a message for a bad request (replicas 0,
 * unknown resource, a share of 1 or more that is not whole devices, two
 * fractional requests, bad priority), CUBE_ENOTFOUND for an unknown project
 * or pool, CUBE_EEXIST for a known id, CUBE_ETOOBIG when the pool has nodes
 * but none could ever hold one replica (unless CUBE_SP_NO_FIT_CHECK). */
int cube_sp_submit(struct cube_sched_policy *p, const struct cube_sp_job *j);
/* Removes a pending job (CUBE_ESTATE when running: use release). */
int cube_sp_cancel(struct cube_sched_policy *p, const char *id);
/* A running job ended (or was stopped): frees its allocation and forgets
 * it. CUBE_ESTATE when pending (use cancel), CUBE_ENOTFOUND when unknown. */
int cube_sp_release(struct cube_sched_policy *p, const char *id);
/* Adds a job as already running where placement says (replicas entries;
 * after a restart). Device shares default to the request when a
 * dev_alloc's share_milli is 0. CUBE_ENOTFOUND for an unknown node or
 * device, CUBE_ECONFLICT when it does not fit what is already placed. */
int cube_sp_restore(struct cube_sched_policy *p, const struct cube_sp_job *j,
                    const struct cube_sp_replica *placement);

/* Runs one scheduling cycle over every pool (see ORDER, RESERVATION,
 * PREEMPTION, PLACEMENT). Admitted jobs are RUNNING on return, their
 * resources taken. *out (engine-owned) lists them and the preemption
 * orders. Returns CUBE_OK or CUBE_ENOMEM (decisions made so far stand). */
int cube_sp_decide(struct cube_sched_policy *p, const struct cube_sp_result **out);

/* -- queries -------------------------------------------------------------- */

/* A job's state. For a pending job also its reason for waiting in reason
 * (may be NULL; "" before the first cycle), e.g.
 *   "quota: nvidia.com/gpu 4/4 used in pool default (job needs 2)"
 *   "no node fits: needs 8 nvidia.com/gpu on one node"
 * CUBE_ENOTFOUND when unknown. */
int cube_sp_job_info(const struct cube_sched_policy *p, const char *id,
                     struct cube_sp_job_info *out, char *reason, size_t len);
/* A project's usage, quota and dominant share in a pool (NULL/"": default). */
int cube_sp_usage(const struct cube_sched_policy *p, const char *project,
                  const char *pool, struct cube_sp_usage *out);
/* Counters and decision latency (p50/p99 to within 1/8, upper bounds). */
void cube_sp_stats(const struct cube_sched_policy *p, struct cube_sp_stats *out);

/* -- inventory (sched_inventory.c; for the nodes and pools API) ----------- */

/** A node's standing (cube_sp_node_info). Strings engine-owned, valid
 *  until the next change of the engine. Extended resources in milli
 *  (1000 per whole device), cpu in millicores, memory in bytes. */
struct cube_sp_node_info {
    const char *pool;
    struct cube_sp_res capacity;   /**< healthy devices only */
    struct cube_sp_res used;       /**< by the replicas placed on it */
    unsigned replicas;             /**< replicas placed on it */
    unsigned devices, devices_used; /**< devices; those with any share taken */
};

/** A pool's totals (cube_sp_pool_info); units as above. */
struct cube_sp_pool_info {
    const char *name;
    struct cube_sp_res capacity;   /**< its nodes' healthy capacity */
    struct cube_sp_res used;       /**< by running jobs */
    size_t nodes, pending, running;
};

/* A node's capacity and allocation. CUBE_ENOTFOUND when unknown. */
int cube_sp_node_info(const struct cube_sched_policy *p, const char *name,
                      struct cube_sp_node_info *out);
/* The share (milli) of one device of node taken now. CUBE_ENOTFOUND when
 * the node or device is unknown. */
int cube_sp_device_used(const struct cube_sched_policy *p, const char *node,
                        const char *resource, const char *id, int32_t *share_milli);
/* Pools, in the order they were made (0: the default pool). */
size_t cube_sp_pool_count(const struct cube_sched_policy *p);
/* The i-th pool's totals. CUBE_ENOTFOUND past the last. */
int cube_sp_pool_info(const struct cube_sched_policy *p, size_t i,
                      struct cube_sp_pool_info *out);

#endif
