/* test_sched_policy.h — fixtures shared by the policy engine's tests
 * (test_sched_policy_fx.c defines them; test_sched_policy.c holds main). */
#ifndef TEST_SCHED_POLICY_H
#define TEST_SCHED_POLICY_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "sched/sched_policy.h"

#define GPU "nvidia.com/gpu"
#define GI (INT64_C(1) << 30)

/* An engine with nvidia.com/gpu registered. */
struct cube_sched_policy *fx_new(void);
/* A node of ngpu devices "0".."n-1" of model (NULL: "H200") in two domains
 * (nvl-0: first half, nvl-1: second half; NUMA likewise), 64 cores and
 * 512Gi, with optional labels (NULL-terminated key, value, ...). */
void fx_node(struct cube_sched_policy *p, const char *name, const char *pool,
             int ngpu, const char *model, ...);
/* A project with a quota in the default pool: gpus guaranteed and max in
 * devices (max < 0: unlimited); cpu and memory unlimited. */
void fx_project(struct cube_sched_policy *p, const char *name, double guar, double max);
/* A job of `replicas` replicas each asking gpu_milli of nvidia.com/gpu
 * (0: none) and nothing else; returns submit's code. */
int fx_submit(struct cube_sched_policy *p, const char *id, const char *project,
              int prio, int64_t gpu_milli, unsigned replicas);
/* Runs a cycle. */
const struct cube_sp_result *fx_decide(struct cube_sched_policy *p);
/* The admission of id in r, or NULL. */
const struct cube_sp_admission *fx_adm(const struct cube_sp_result *r, const char *id);
/* The reason text of a pending job (static buffer). */
const char *fx_reason(struct cube_sched_policy *p, const char *id);
/* The state of a job (CUBE_SP_PENDING/RUNNING), or 0 when unknown. */
int fx_state(struct cube_sched_policy *p, const char *id);
/* Used gpus (milli) of a project in the default pool. */
int64_t fx_used_gpu(struct cube_sched_policy *p, const char *project);
/* Checks the engine's internal bookkeeping (node use = allocations, device
 * shares within 0..1000, project use = its jobs' allocations). */
void fx_invariants(struct cube_sched_policy *p);
/* Pending jobs said to find no room that would fit now (should be 0). */
size_t fx_missed(struct cube_sched_policy *p);

/* Tests in test_sched_policy_place.c. */
void test_binpack(void **state);
void test_topology(void **state);
void test_fractional(void **state);
void test_model_selector(void **state);
void test_node_selector(void **state);
void test_node_removal(void **state);
void test_restore(void **state);
void test_bad_input(void **state);
void test_gang(void **state);
void test_random_invariants(void **state);

#endif
