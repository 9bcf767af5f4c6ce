/* sched_priv.h — internals of the policy engine (sched_policy.h), shared by
 * its files: sched_policy.c (API, jobs, quotas), sched_node.c (nodes,
 * classes, allocations), sched_index.c (buckets, node search),
 * sched_place.c (devices, topology, gangs), sched_fair.c (the cycle),
 * sched_preempt.c (reservations, preemption), sched_reason.c (texts). */
#ifndef CUBE_SCHED_PRIV_H
#define CUBE_SCHED_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include "sched_policy.h"
#include "base/strmap.h"

#define SP_NPRIO 3
#define SP_NBUCKET (CUBE_SP_MAX_DEVICES + 1) /* free whole devices 0..64 */
#define SP_NFRAC 16                          /* partial-device free, /16 */
#define SP_NLEVEL 32                         /* free cpu: bits of millicores */
#define SP_HIST 512                          /* latency histogram slots */
#define SP_PREEMPT_CANDIDATES 256

typedef struct cube_sp_res sp_res;

struct sp_job;
struct sp_node;
struct sp_pool;

/* Interned label pair (ids from the engine's string table). */
struct sp_kv {
    int key, value;
};

struct sp_dev {
    char *id;
    int res, model;       /* slot; interned model (0: unknown) */
    int dom, numa;        /* node-local group indexes */
    int64_t memory;
    bool healthy;
    int32_t used;         /* share taken, milli */
    int32_t mem_used;     /* device-memory fraction taken, milli */
};

/* One replica's allocation on a node. */
struct sp_alloc {
    struct sp_job *job;
    struct sp_node *node;           /* NULL once its node is gone */
    struct sp_alloc *nprev, *nnext; /* the node's list */
    sp_res amount;                  /* cpu, memory, extended milli */
    uint64_t devs;                  /* whole devices (node indexes) */
    int frac_dev;                   /* -1: none */
    int32_t share, mem_share;
    uint32_t bf_epoch;              /* counted in node->bf when == epoch */
};

/* A bucket of a class: a list of nodes and upper bounds of their free
 * cpu and memory (stale-high; exact after a full scan found nothing). */
struct sp_bucket {
    struct sp_node *head;
    int64_t bound_cpu, bound_mem;
};

/* Nodes of one pool with the same device (resource, model) set: models
 * are checked once per class (labels per node: they may differ a lot). */
struct sp_class {
    struct sp_pool *pool;
    char *key;
    int *pairs;                     /* (res, model) pairs, flattened */
    size_t n_pairs;
    int primary;                    /* bucketed resource; -1: no devices */
    sp_res max_cap;                 /* per slot, over its nodes (grows only) */
    size_t n_nodes;
    struct sp_class *next;
    /* whole[b][l]: b free whole primary devices, l = bits of free cpu */
    struct sp_bucket whole[SP_NBUCKET][SP_NLEVEL];
    uint32_t levels[SP_NBUCKET];    /* non-empty l of each b */
    struct sp_bucket frac[SP_NFRAC];
};

struct sp_node {
    char *name;
    struct sp_pool *pool;
    struct sp_class *cls;
    struct sp_kv *labels;           /* sorted */
    size_t n_labels;
    sp_res cap, used;
    struct sp_dev *devs;
    unsigned n_dev, n_dom, n_numa;
    int bkey, ckey, fkey;           /* bucket, cpu level, frac (-1: none) */
    struct sp_node *bprev, *bnext, *fprev, *fnext;
    struct sp_alloc *allocs;
    /* reservation (one owner at a time) */
    struct sp_job *resv_owner;
    sp_res resv, bf;
    uint64_t resv_devs;
    uint32_t epoch;
    /* not schedulable (cube_sp_node.unschedulable): kept out of the
     * index, so placement, backfill and preemption never look at it */
    bool unsched;
    char *unsched_msg;              /* why, or NULL */
};

/* A job's pending queue of one priority: sorted by seq once per cycle. */
struct sp_queue {
    struct sp_job **v;
    size_t n, cap, dead;
    bool dirty;
};

/* A project in a pool: quota, usage, queues, running jobs. */
struct sp_pq {
    struct sp_project *proj;
    struct sp_pool *pool;
    sp_res used, guar, max;
    bool has_quota;
    struct sp_queue q[SP_NPRIO];
    struct sp_job *run[SP_NPRIO];   /* running, newest first */
    size_t n_pending, n_running;
    double share;
    unsigned order;                 /* tie-break: creation order */
    size_t qi[SP_NPRIO], wi[SP_NPRIO]; /* cycle cursors: read, write */
};

struct sp_project {
    char *name;
    unsigned weight, order;
    struct sp_pq **pqs;             /* one per pool it touched */
    size_t n_pqs;
    size_t n_jobs;
};

struct sp_pool {
    char *name;
    struct sp_class *classes;       /* device-less classes first */
    struct cube_strmap *labels;     /* "key=value" ids -> nodes with it */
    size_t n_nodes;
    sp_res cap;
    struct sp_pq **pqs;
    size_t n_pqs;
    struct sp_job *head;            /* the backfill reservation holder */
    bool head_decided;              /* this cycle chose (or kept) it */
    unsigned head_tries;            /* reservations tried this cycle */
    unsigned preempt_budget;        /* searches left this cycle */
    unsigned rank;                  /* waiting jobs seen this cycle */
    unsigned drop_rank;             /* rank when a reservation last went */
    size_t n_unsched;               /* its nodes not schedulable */
};

enum sp_state { SP_PENDING = 1, SP_RUNNING = 2, SP_GONE = 3 };

enum sp_why {
    W_NONE, W_NO_NODES, W_NO_QUOTA, W_QUOTA, W_NOFIT, W_NEVER, W_PREEMPTING,
};

/* Why a job waits; formatted only when asked (sched_reason.c). */
struct sp_reason {
    uint8_t why, res;
    int64_t used, max, need;
};

struct sp_ereq {
    int res;
    int32_t milli, mem_milli;
    int model;                      /* 0: any */
};

/* A reservation: room a pending job will take, node by node. */
struct sp_resv {
    struct sp_node *node;
    sp_res amount;
    uint64_t devs;
};

struct sp_job {
    char *id;
    struct sp_pq *pq;
    int prio;
    enum sp_state state;
    uint64_t seq, admit_seq, shape;
    unsigned replicas;
    sp_res req;                     /* per replica */
    struct sp_ereq ext[CUBE_SP_MAX_EXT];
    unsigned n_ext;
    struct sp_kv *sel;
    size_t n_sel;
    /* running */
    struct sp_alloc *allocs;        /* [replicas] */
    struct sp_job *rprev, *rnext;
    struct sp_job *preemptor;       /* ordered to stop for this job */
    /* pending */
    struct sp_reason reason;
    unsigned pos;
    struct sp_resv *resv;
    size_t n_resv;
    struct sp_job **victims;        /* still running for it */
    size_t n_victims;
};

/* Search options for node finding. */
struct sp_opts {
    bool avoid_reserved;            /* skip nodes others reserved */
};

/* One replica's device choice on a node. */
struct sp_pick {
    uint64_t devs;
    int frac_dev;
    bool perfect;                   /* topology: no better node exists */
};

/* Per-cycle memo of shapes that found no room. */
struct sp_memo_slot {
    uint64_t shape;
    struct sp_job *rep;
    uint32_t gen;
};

struct cube_sched_policy {
    char *res_name[CUBE_SP_NRES];
    int n_res;
    struct cube_strmap *pools, *projects, *nodes, *jobs, *strs;
    char **str;                     /* interned strings by id (0: "") */
    size_t n_str, cap_str;
    struct sp_pool **pool_v;
    size_t n_pools;
    unsigned n_projects_made, n_pq_made;
    uint64_t next_seq, next_admit;
    size_t n_pending, n_running;
    char err[256];
    /* cycle scratch */
    struct sp_memo_slot *memo;
    size_t memo_cap, memo_n;
    uint32_t memo_gen;
    struct sp_pq **heap;
    size_t heap_n, heap_cap;
    struct sp_class **cls_v;
    size_t cls_cap;
    /* results (valid until the next change) */
    struct cube_sp_admission *adm;
    size_t n_adm, cap_adm;
    struct cube_sp_preemption *pre;
    size_t n_pre, cap_pre;
    struct cube_sp_result result;
    void **arena;                   /* blocks freed at the next cycle */
    size_t n_arena, cap_arena, arena_used, arena_size;
    /* stats */
    uint64_t cycles, decisions, admitted, waiting, preemptions;
    uint64_t hist[SP_HIST], ahist[SP_HIST];
};

/* -- sched_policy.c ----------------------------------------------------- */
/* Sets the error message; returns rc. */
int sp_fail(struct cube_sched_policy *p, int rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Interns s ("" and NULL are id 0); returns the id or -1 (no memory). */
int sp_intern(struct cube_sched_policy *p, const char *s);
/* The pool of that name ("" or NULL: default), made when make is set. */
struct sp_pool *sp_pool_get(struct cube_sched_policy *p, const char *name, bool make);
/* The pq of project in pool, made when missing; NULL when out of memory. */
struct sp_pq *sp_pq_get(struct cube_sched_policy *p, struct sp_project *pr,
                        struct sp_pool *pool);
/* Recomputes pq->share from used, pool capacity and weight. */
void sp_pq_share(struct sp_pq *pq);
/* Unlinks a running job from its pq's running list. */
void sp_run_unlink(struct sp_job *j);
/* Marks a job running: admission order, running list, counters. */
void sp_run_link(struct cube_sched_policy *p, struct sp_job *j);
/* Frees a job's memory (not its allocations). */
void sp_job_free(struct sp_job *j);
/* Drops the jobs marked gone from a queue and frees them. */
void sp_queue_compact(struct sp_queue *q);
/* Appends to a pq queue; -1 when out of memory. */
int sp_queue_push(struct sp_queue *q, struct sp_job *j);

/* -- sched_node.c ------------------------------------------------------- */
void sp_node_free(struct sp_node *n);
/* Frees a pool's classes. */
void sp_pool_free_classes(struct sp_pool *pool);
/* Applies an allocation to its node (used, devices, index, bf). */
void sp_alloc_apply(struct sp_alloc *a);
/* Takes an allocation back from its node. */
void sp_alloc_unapply(struct sp_alloc *a);
/* Applies/takes back every allocation of a running job and its pq usage. */
void sp_job_apply(struct sp_job *j);
void sp_job_unapply(struct sp_job *j);
/* The first selector term no node of the pool has, or -1. */
int sp_selector_missing(const struct sp_job *j);

/* -- sched_index.c ------------------------------------------------------ */
/* Puts a node in the buckets its devices say (after any change). */
void sp_index_update(struct sp_node *n);
/* Takes a node out of its buckets. */
void sp_index_remove(struct sp_node *n);
/* Free whole healthy devices of the class's primary resource. */
unsigned sp_node_free_primary(const struct sp_node *n);
/* The cpu level of an amount of millicores: its bit length (0 for <= 0). */
int sp_cpu_level(int64_t milli);
/* The best node for one more replica of j, its devices in pick; NULL. */
struct sp_node *sp_find_node(struct cube_sched_policy *p, struct sp_job *j,
                             const struct sp_opts *o, struct sp_pick *pick);

/* -- sched_place.c ------------------------------------------------------ */
/* 1 when the class has the device models the job asks for. */
bool sp_class_match(const struct sp_class *c, const struct sp_job *j);
/* 1 when a node's labels satisfy the job's selector. */
bool sp_labels_match(const struct sp_node *n, const struct sp_job *j);
/* 1 when some node of j's pool might ever hold one replica (class
 * capacity bounds and labels: may say yes wrongly, never no wrongly). */
bool sp_pool_could_hold(const struct sp_job *j);
/* 1 when one replica of j fits node n now; fills pick. */
bool sp_node_fit(const struct sp_node *n, const struct sp_job *j,
                 const struct sp_opts *o, struct sp_pick *pick);
/* Places every replica of j (gang) and takes the room; 1 when placed,
 * 0 when not (nothing taken), -1 when out of memory. */
int sp_place(struct cube_sched_policy *p, struct sp_job *j, const struct sp_opts *o);
/* Gives back what sp_place took and frees the allocations. */
void sp_unplace(struct sp_job *j);
/* Chooses e->milli/1000 whole devices among cand: one domain (the
 * tightest) when possible, else one NUMA node, else the fewest domains.
 * perfect: no node could do better. false when cand is too small. */
bool sp_pick_whole(const struct sp_node *n, const struct sp_ereq *e,
                   uint64_t cand, uint64_t *out, bool *perfect);
/* Devices of n that could serve e (resource, model, health), minus avoid. */
uint64_t sp_serving(const struct sp_node *n, const struct sp_ereq *e, uint64_t avoid);
/* Devices of n that nobody uses. */
uint64_t sp_unused(const struct sp_node *n);

/* -- sched_preempt.c ---------------------------------------------------- */
/* Drops j's reservation (if any): the room is offered again, so the
 * cycle's memo is cleared and the pool notes the rank (drop_rank). */
void sp_resv_drop(struct cube_sched_policy *p, struct sp_job *j);
/* Reserves room for a blocked head job; 1 done, 0 never fits, -1 OOM. */
int sp_resv_head(struct cube_sched_policy *p, struct sp_job *j);
/* Looks for victims; 1 ordered (j reserves their room), 0 none, -1 OOM. */
int sp_preempt(struct cube_sched_policy *p, struct sp_job *j, bool quota_blocked);
/* 1 when some running job is a possible victim for j (cheap check). */
bool sp_may_preempt(const struct sp_job *j, bool quota_blocked);
/* A victim ended: forget it on its preemptor's side. */
void sp_victim_gone(struct sp_job *v);
/* A preemptor left: its victims are no longer ordered for it. */
void sp_victims_forget(struct sp_job *j);

/* -- sched_fair.c ------------------------------------------------------- */
/* A hash of what placement looks at: replicas, request, selector. */
uint64_t sp_shape_hash(const struct sp_job *j);
/* Forgets every remembered no-fit shape (room grew for some jobs). */
void sp_memo_clear(struct cube_sched_policy *p);

/* -- sched_reason.c ----------------------------------------------------- */
/* Writes an amount of a resource the way users write it ("4", "0.25",
 * "16Gi", "500m"). */
void sp_fmt_amount(const struct cube_sched_policy *p, int res, int64_t v,
                   char *out, size_t len);
/* Writes why a pending job waits. */
void sp_reason_text(const struct cube_sched_policy *p, const struct sp_job *j,
                    char *out, size_t len);
/* Records a latency in a histogram; reads a quantile (upper bound). */
void sp_hist_add(uint64_t *h, uint64_t ns);
uint64_t sp_hist_quantile(const uint64_t *h, double q);

#endif
