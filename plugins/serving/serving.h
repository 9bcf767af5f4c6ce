/* serving.h — the serving plugin: InferenceServices whose predictors'
 * replicas are Jobs running a model server (the built-in Python runtime,
 * cube-serving-runtime.py beside the plugin, or a custom command), reached
 * through cubed's reverse proxy at /serving/{project}/{name}/ with a
 * weighted split, mirroring, least-outstanding balancing over ready
 * replicas, and requests held while a service scales from zero.
 *
 * Files: plugin.c (init, registration), spec.c (the kind's checks), job.c
 * (a replica's Job; probes and test requests use libcube-util's blocking
 * client, cube/util/http.h), route.c (the
 * routing table: services, predictors, ready replicas, their in-flight
 * counts), proxy.c (resolve and done), ctrl.c and ctrl_rollout.c (the
 * controller: replicas, rolling upgrades, revisions), scale.c (the
 * autoscaler and the charts' samples), actions.c (rollback, apikey,
 * register, test, samples), metrics.c (/metrics series).
 *
 * Threads: resolve and done run on HTTP threads and touch only the routing
 * table (a mutex held for a lookup) and atomics; reconcile and the timers
 * run on host workers. */
#ifndef SERVING_H
#define SERVING_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include <cube/cube.h>

#define SV_KIND "InferenceService"
#define SV_PREFIX "/serving/{project}/{name}"
#define SV_RUNTIME "cube-serving-runtime.py"
#define SV_PORT "http"
#define SV_TOKEN_HEADER "X-Cube-Serving-Token"
#define SV_MAX_PRED 8
#define SV_MAX_REP 64
#define SV_SLOTS 4096          /* replica slots (in-flight counters) */
#define SV_STATS 1024          /* predictor statistics entries */
#define SV_SAMPLES 360         /* chart samples kept per service (every 5 s: 30 min) */
#define SV_LAT_BUCKETS 12

/* Cumulative figures of one predictor of one service (never freed). */
struct sv_stat {
    char project[64], service[64], predictor[24];
    _Atomic uint64_t requests, errors, mirrored;
    _Atomic uint64_t lat[SV_LAT_BUCKETS];   /* by sv_lat_bounds_ms */
    _Atomic int64_t inflight;
};

/* One replica's slot: its in-flight count and statistics entry. A slot is
 * reused (gen bumped) only once its replica left the table and its
 * requests ended. */
struct sv_slot {
    _Atomic uint32_t gen;
    _Atomic int64_t inflight;
    int used;                  /* under the table's lock */
    int stat;                  /* index into stats */
};

struct sv_rep {
    char job[64];
    char host[64];
    unsigned port;
    char token[72];            /* the replica's secret (the upstream header) */
    unsigned slot;
};

struct sv_pred {
    char name[24];
    int weight;                /* traffic percent */
    int cw;                    /* smooth weighted round robin's current weight */
    int stat;
    struct sv_rep reps[SV_MAX_REP];
    int n_reps;                /* ready replicas */
    int desired, min, max;     /* replicas */
    unsigned rr;
    uint64_t as_prev_req;      /* requests at the autoscaler's last tick */
};

struct sv_svc {
    char key[128];             /* "project/name" */
    char project[64], name[64];
    struct sv_pred preds[SV_MAX_PRED];
    int n_preds;
    int mirror;                /* predictor index, -1 none */
    unsigned mirror_percent;
    struct sv_rep drain[SV_MAX_REP];  /* replicas out of the rotation, not yet stopped */
    int n_drain;
    int failed;                /* nothing can serve: answer 503 at once */
    char message[256];
    /* autoscale (scale.c) */
    int as_on;                 /* spec.autoscale present */
    int as_metric;             /* 0 concurrency, 1 qps, 2 cpu */
    double as_target;
    int64_t as_delay_ms;
    int as_min;                /* -1: the predictors' own */
    int wanted;                /* a request is parked: start a replica */
    int64_t last_ms;           /* latest request start or end */
    uint64_t last_requests;
    int64_t low_since_ms[SV_MAX_PRED];
    /* chart samples (scale.c) */
    int64_t s_t[SV_SAMPLES];
    float s_rps[SV_SAMPLES], s_err[SV_SAMPLES], s_p50[SV_SAMPLES], s_p99[SV_SAMPLES];
    float s_inflight[SV_SAMPLES], s_ready[SV_SAMPLES];
    int s_n, s_at;
    uint64_t s_prev_req, s_prev_err, s_prev_lat[SV_LAT_BUCKETS];
    int present;
};

struct sv_table {
    pthread_mutex_t mu;
    struct sv_svc **svcs;
    size_t n, cap;
    struct sv_slot slots[SV_SLOTS];
    struct sv_stat stats[SV_STATS];
    int n_stats;
};

struct sv_conf {
    char python[4096];
    char pool[64];
    int64_t park_timeout_ms;
    int64_t autoscale_ms;
    int allow_remote;
};

struct sv {
    const struct cube_host *host;
    cube_plugin *self;
    struct sv_conf conf;
    struct sv_table table;
    char runtime[4096];        /* cube-serving-runtime.py beside the plugin */
    cube_timer *scale_timer;
    int sample_tick;
    int64_t last_tick_ms;
    int proxied;
    pthread_mutex_t mu;        /* ready_jobs, last events */
    char **ready_jobs;         /* replicas that were ever ready (since cubed started) */
    size_t n_ready_jobs;
    char last_event[4][512];   /* the latest events, not repeated */
    int last_event_at;
    struct {
        cube_metric *requests, *errors, *latency, *inflight, *replicas;
    } m;
};

extern const double sv_lat_bounds_ms[SV_LAT_BUCKETS];

/* spec.c */
/* The Model object a predictor names (spec "model": "n" or {"name": "n"}), or NULL. */
const char *sv_model_ref(const void *pred_cjson);
int sv_check(void *state, const char *object_json, const char *old_json);
/* The index of predictor `name` in spec.predictors, or -1. */
int sv_pred_index(const void *spec_cjson, const char *name);

/* job.c: the Job of replica `idx` of predictor `pi` with template hash
 * `hash` (JSON, malloc), or NULL; the model object (cJSON) or NULL. */
char *sv_job_json(const struct sv *sv, const void *svc_cjson, int pi, const void *model_cjson,
                  const char *job_name, const char *hash);
/* The predictor's template hash (what a change of starts a rolling
 * upgrade) into out (12 hex digits). */
void sv_template_hash(const void *pred_cjson, const void *model_cjson, char *out, size_t len);
void sv_job_name(const char *svc, const char *pred, const char *hash, int idx, char *out,
                 size_t len);

/* Largest answer a replica's probe or test request is read to (bytes;
 * cu_http_request, cube/util/http.h). */
#define SV_REPLICA_MAX_BODY (4 * 1024 * 1024)

/* route.c. The table copies what it is given. */
int sv_table_init(struct sv_table *t);
void sv_table_fini(struct sv_table *t);
/* The service of key, made when create is set; call with the lock held. */
struct sv_svc *sv_table_find(struct sv_table *t, const char *key, int create);
void sv_table_remove(struct sv_table *t, const char *key);
/* The statistics entry of (project, service, predictor); lock held. */
int sv_stat_of(struct sv_table *t, const char *project, const char *service,
               const char *predictor);
/* A free slot for a replica counted under stat; lock held. -1: none. */
int sv_slot_take(struct sv_table *t, int stat);
/* Releases a slot whose replica left the table; lock held. */
void sv_slot_release(struct sv_table *t, unsigned slot);
/* Sets predictor pi of s (name, traffic weight, its ready replicas
 * `reps`, n of them, keeping the slots of those already there); replicas
 * that leave the rotation are kept as draining until forgotten. Lock
 * held. 0, or -1 when no slot is left (the replica is left out). */
int sv_table_set_pred(struct sv_table *t, struct sv_svc *s, int pi, const char *name,
                      int weight, const struct sv_rep *reps, int n);
/* Requests in flight to job (in the rotation or draining); lock held. */
int64_t sv_table_job_inflight(struct sv_table *t, struct sv_svc *s, const char *job);
/* The job is stopped: its draining slot is released; lock held. */
void sv_table_forget_job(struct sv_table *t, struct sv_svc *s, const char *job);

/* The predictor to serve the next request: smooth weighted round robin
 * over predictors with weight and a ready replica; -1 none. Lock held. */
int sv_pick_pred(struct sv_svc *s);
/* The ready replica with the fewest requests in flight; -1 none. */
int sv_pick_rep(struct sv_table *t, struct sv_pred *p);
/* A tag naming a slot and its generation, and back (done). */
uint64_t sv_tag(struct sv_table *t, unsigned slot);
int sv_tag_slot(struct sv_table *t, uint64_t tag);

/* proxy.c */
int sv_register_proxy(struct sv *sv);

/* ctrl.c */
int sv_reconcile(void *state, const char *kind, const char *project, const char *name,
                 const char *object_json);
int sv_finalize(void *state, const char *object_json);
/* Writes status (JSON text) merged over the object's. */
int sv_status_merge(struct sv *sv, const char *project, const char *name, const char *patch);
void sv_key(const char *project, const char *name, char *out, size_t len);


/* scale.c: the autoscaler and chart sampler (timer callback). */
void sv_scale_tick(void *state, void *arg);
/* A request was parked for key: ask for a replica (any thread). */
void sv_scale_wanted(struct sv *sv, const char *project, const char *name);
/* The chart samples of a service as JSON (malloc), or NULL. */
char *sv_samples_json(struct sv *sv, const char *key);

/* actions.c */
int sv_register_actions(struct sv *sv);
/* The API key's hash (64 hex) of a service into out; 0, -1 none. */
int sv_apikey_hash(struct sv *sv, const char *project, const char *name, char *out);
/* The replica secret a runtime reported for job (kv), into out; 0 / -1. */
int sv_token_get(struct sv *sv, const char *project, const char *job, char *out, size_t len);

/* metrics.c */
int sv_metrics_register(struct sv *sv);
void sv_metrics_done(struct sv *sv, int stat, int status, int error, uint64_t us);
/* One request a replica of predictor statistics entry stat answered (or
 * failed to: error, or a 5xx status) in us microseconds, into its figures
 * (charts, autoscale) and metrics. Lock-free; any thread. */
void sv_count_request(struct sv *sv, int stat, int status, int error, uint64_t us);
void sv_metrics_replicas(struct sv *sv, const char *project, const char *service,
                         const char *predictor, int ready, int desired);

#endif
