/* jobs.h — Jobs and their scheduling: the executors, accelerators and
 * nodes plugins register (sched_registry.c), the Job kind (job_kind.c),
 * and the loop that feeds the policy engine (sched_policy.h) and carries
 * its decisions out (sched.c). One struct cube_sched per context. */
#ifndef CUBE_JOBS_H
#define CUBE_JOBS_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>
#include <cube/cube.h>

struct cube_ctx;
struct cube_plugin;
struct cube_strmap;
struct cube_kind;

/* A registered executor (strings owned). */
struct sched_executor {
    struct cube_executor_desc desc;
    struct cube_plugin *plugin;
};

/* A registered accelerator vendor (strings owned). */
struct sched_accel {
    struct cube_accel_desc desc;
    struct cube_plugin *plugin;
};

/* A node as its executor last described it. */
struct sched_node {
    char *name, *pool;
    struct sched_executor *executor;
    cJSON *doc;                       /* owned; devices filled in */
};

struct cube_sched {
    struct cube_ctx *ctx;
    pthread_mutex_t mu;               /* everything below */
    struct sched_executor **executors;
    size_t n_executors;
    struct sched_accel **accels;
    size_t n_accels;
    struct cube_strmap *nodes;        /* name -> struct sched_node */
    struct cube_kind *job_kind;
};

/* Sets up the registry and registers the Job kind (before plugins load). */
int cube_sched_init(struct cube_ctx *ctx);
void cube_sched_free(struct cube_ctx *ctx);

/* -- sched_registry.c ------------------------------------------------- */
/* The node's executor, or NULL (caller holds mu). */
struct sched_executor *sched_executor_of_node(struct cube_sched *s, const char *node);
/* The accelerator serving resource, or NULL (caller holds mu). */
struct sched_accel *sched_accel_for(struct cube_sched *s, const char *resource);
/* 1 when resource is "cpu", "memory" or one a registered accelerator (or
 * a node's device) serves. */
int sched_resource_known(struct cube_sched *s, const char *resource);
/* Forgets what a plugin registered (its init failed). */
void sched_drop_plugin(struct cube_sched *s, struct cube_plugin *plugin);

/* -- job_kind.c ------------------------------------------------------- */
int job_kind_register(struct cube_sched *s);

#endif
