/* test_sched_policy.c — the scheduler's policy engine: quotas (max
 * refuses), borrowing and reclaim, dominant-resource fairness (the DRF
 * paper's example), priority and FIFO, backfill around the head job's
 * reservation, preemption by priority, and the wait reasons. Placement,
 * restore, nodes and bad input are in test_sched_policy_place.c. */
#include "test_sched_policy.h"

#include <stdio.h>
#include <string.h>

/* -- quotas --------------------------------------------------------------- */

static void test_quota_max(void **state)
{
    (void)state;
    struct cube_sched_policy *p = fx_new();
    fx_node(p, "n1", NULL, 8, NULL, NULL);
    fx_project(p, "vision", 2, 4);
    for (int i = 0; i < 5; i++) {
        char id[16];
        snprintf(id, sizeof id, "j%d", i);
        assert_int_equal(fx_submit(p, id, "vision", CUBE_SP_NORMAL, 1000, 1), CUBE_OK);
    }
    const struct cube_sp_result *r = fx_decide(p);
    assert_int_equal(r->n_admitted, 4);
    assert_int_equal(r->n_waiting, 1);
    assert_int_equal(fx_state(p, "j4"), CUBE_SP_PENDING);
    assert_string_equal(fx_reason(p, "j4"),
                        "quota: nvidia.com/gpu 4/4 used in pool default (job needs 1)");
    assert_int_equal(fx_used_gpu(p, "vision"), 4000);
    /* guaranteed above max is refused */
    struct cube_sp_quota q;
    cube_sp_quota_init(&q);
    q.guaranteed.v[2] = 5000;
    q.max.v[2] = 4000;
    assert_int_equal(cube_sp_quota_set(p, "vision", NULL, &q), CUBE_EINVAL);
    assert_non_null(strstr(cube_sp_errmsg(p), "above its max"));
    /* a job over the max on its own waits, though the node is free */
    assert_int_equal(cube_sp_release(p, "j0"), CUBE_OK);
    assert_int_equal(fx_submit(p, "big", "vision", CUBE_SP_HIGH, 8000, 1), CUBE_OK);
    r = fx_decide(p);
    assert_null(fx_adm(r, "big"));
    assert_non_null(strstr(fx_reason(p, "big"), "quota: nvidia.com/gpu 3/4 used"));
    /* no quota in a pool at all */
    assert_int_equal(cube_sp_project_set(p, "nobody", 1), CUBE_OK);
    assert_int_equal(fx_submit(p, "nq", "nobody", CUBE_SP_NORMAL, 1000, 1), CUBE_OK);
    fx_decide(p);
    assert_string_equal(fx_reason(p, "nq"),
                        "quota: project nobody has no quota in pool default");
    cube_sp_free(p);
}

/* B borrows A's idle guarantee; A's job takes it back by preemption. */
static void test_borrow_reclaim(void **state)
{
    (void)state;
    struct cube_sched_policy *p = fx_new();
    fx_node(p, "n1", NULL, 8, NULL, NULL);
    fx_project(p, "a", 4, 8);
    fx_project(p, "b", 4, 8);
    char id[16];
    for (int i = 0; i < 8; i++) {
        snprintf(id, sizeof id, "b%d", i);
        assert_int_equal(fx_submit(p, id, "b", CUBE_SP_NORMAL, 1000, 1), CUBE_OK);
    }
    const struct cube_sp_result *r = fx_decide(p);
    assert_int_equal(r->n_admitted, 8);          /* 4 of them borrowed */
    assert_int_equal(fx_used_gpu(p, "b"), 8000);
    assert_int_equal(fx_submit(p, "a0", "a", CUBE_SP_LOW, 2000, 1), CUBE_OK);
    r = fx_decide(p);
    assert_int_equal(r->n_admitted, 0);
    assert_int_equal(r->n_preemptions, 2);
    for (size_t i = 0; i < 2; i++) {
        assert_string_equal(r->preemptions[i].beneficiary, "a0");
        assert_int_equal(r->preemptions[i].why, CUBE_SP_BY_RECLAIM);
    }
    /* the most recently admitted go first */
    assert_true(strcmp(r->preemptions[0].victim, "b7") == 0 ||
                strcmp(r->preemptions[1].victim, "b7") == 0);
    assert_non_null(strstr(fx_reason(p, "a0"), "preempting 2 jobs"));
    struct cube_sp_job_info info;
    assert_int_equal(cube_sp_job_info(p, "b7", &info, NULL, 0), CUBE_OK);
    assert_string_equal(info.preempted_by, "a0");
    /* the caller stops them after a grace period */
    r = fx_decide(p);                             /* no double orders meanwhile */
    assert_int_equal(r->n_preemptions, 0);
    assert_int_equal(cube_sp_release(p, "b7"), CUBE_OK);
    assert_int_equal(cube_sp_release(p, "b6"), CUBE_OK);
    /* a job of b submitted meanwhile cannot take the freed room */
    assert_int_equal(fx_submit(p, "b8", "b", CUBE_SP_NORMAL, 1000, 1), CUBE_OK);
    r = fx_decide(p);
    assert_non_null(fx_adm(r, "a0"));
    assert_null(fx_adm(r, "b8"));
    assert_int_equal(fx_used_gpu(p, "a"), 2000);
    assert_int_equal(fx_used_gpu(p, "b"), 6000);
    /* a project past its guarantee does not reclaim: a asks for 4 more */
    assert_int_equal(fx_submit(p, "a1", "a", CUBE_SP_NORMAL, 4000, 1), CUBE_OK);
    r = fx_decide(p);
    assert_int_equal(r->n_preemptions, 0);
    assert_non_null(strstr(fx_reason(p, "a1"), "no node fits"));
    cube_sp_free(p);
}

/* The DRF paper's example: 9 cpu, 18Gi; A's tasks <1 cpu, 4Gi>, B's
 * <3 cpu, 1Gi>. DRF gives A three tasks and B two (both shares 2/3). */
static void test_drf(void **state)
{
    (void)state;
    struct cube_sched_policy *p = cube_sp_new();
    struct cube_sp_node n = {.name = "n", .cpu_milli = 9000, .memory = 18 * GI};
    assert_int_equal(cube_sp_node_set(p, &n, NULL, NULL), CUBE_OK);
    struct cube_sp_quota q;
    cube_sp_quota_init(&q);
    const char *proj[] = {"a", "b"};
    for (int k = 0; k < 2; k++) {
        assert_int_equal(cube_sp_project_set(p, proj[k], 1), CUBE_OK);
        assert_int_equal(cube_sp_quota_set(p, proj[k], NULL, &q), CUBE_OK);
    }
    for (int i = 0; i < 10; i++)   /* B's tasks are older: FIFO alone would favour B */
        for (int k = 1; k >= 0; k--) {
            char id[16];
            snprintf(id, sizeof id, "%s%d", proj[k], i);
            struct cube_sp_job j = {.id = id, .project = proj[k], .priority = 1,
                                    .replicas = 1, .cpu_milli = k ? 3000 : 1000,
                                    .memory = k ? GI : 4 * GI};
            assert_int_equal(cube_sp_submit(p, &j), CUBE_OK);
        }
    fx_decide(p);
    struct cube_sp_usage ua, ub;
    assert_int_equal(cube_sp_usage(p, "a", NULL, &ua), CUBE_OK);
    assert_int_equal(cube_sp_usage(p, "b", NULL, &ub), CUBE_OK);
    assert_int_equal(ua.running, 3);
    assert_int_equal(ub.running, 2);
    assert_int_equal(ua.dominant_resource, CUBE_SP_MEMORY);
    assert_int_equal(ub.dominant_resource, CUBE_SP_CPU);
    assert_true(ua.dominant_share > 0.666 && ua.dominant_share < 0.667);
    assert_true(ub.dominant_share > 0.666 && ub.dominant_share < 0.667);
    assert_int_equal(ua.pending, 7);
    cube_sp_free(p);
}

static void test_priority_fifo(void **state)
{
    (void)state;
    struct cube_sched_policy *p = fx_new();
    fx_node(p, "n1", NULL, 2, NULL, NULL);
    fx_project(p, "a", 0, -1);
    struct cube_sp_ext e = {GPU, 1000, 0, NULL};
    struct { const char *id; int prio; uint64_t seq; } jobs[] = {
        {"low", CUBE_SP_LOW, 1}, {"normal", CUBE_SP_NORMAL, 2},
        {"high2", CUBE_SP_HIGH, 40}, {"high1", CUBE_SP_HIGH, 30}};
    for (int i = 0; i < 4; i++) {
        struct cube_sp_job j = {.id = jobs[i].id, .project = "a", .priority = jobs[i].prio,
                                .seq = jobs[i].seq, .replicas = 1, .ext = &e, .n_ext = 1};
        assert_int_equal(cube_sp_submit(p, &j), CUBE_OK);
    }
    const struct cube_sp_result *r = fx_decide(p);
    assert_int_equal(r->n_admitted, 2);
    assert_string_equal(r->admitted[0].job, "high1");   /* FIFO by seq */
    assert_string_equal(r->admitted[1].job, "high2");
    struct cube_sp_job_info info;
    assert_int_equal(cube_sp_job_info(p, "normal", &info, NULL, 0), CUBE_OK);
    assert_int_equal(info.position, 1);
    assert_int_equal(cube_sp_job_info(p, "low", &info, NULL, 0), CUBE_OK);
    assert_int_equal(info.position, 2);
    assert_int_equal(cube_sp_release(p, "high1"), CUBE_OK);
    r = fx_decide(p);
    assert_int_equal(r->n_admitted, 1);
    assert_string_equal(r->admitted[0].job, "normal");
    cube_sp_free(p);
}

/* A big head job reserves the node that drains first; small jobs backfill
 * elsewhere but never onto its reserved devices. */
static void test_backfill(void **state)
{
    (void)state;
    struct cube_sched_policy *p = fx_new();
    fx_node(p, "n1", NULL, 8, NULL, NULL);
    fx_node(p, "n2", NULL, 8, NULL, NULL);
    fx_node(p, "n3", NULL, 8, NULL, NULL);
    fx_project(p, "a", 0, -1);
    assert_int_equal(fx_submit(p, "l8", "a", CUBE_SP_NORMAL, 8000, 1), CUBE_OK);
    assert_int_equal(fx_submit(p, "l6", "a", CUBE_SP_NORMAL, 6000, 1), CUBE_OK);
    assert_int_equal(fx_submit(p, "l4", "a", CUBE_SP_NORMAL, 4000, 1), CUBE_OK);
    const struct cube_sp_result *r = fx_decide(p);
    assert_int_equal(r->n_admitted, 3);
    const char *n4 = fx_adm(r, "l4")->replicas[0].node;
    const char *n6 = fx_adm(r, "l6")->replicas[0].node;
    char node4[8], node6[8];
    snprintf(node4, sizeof node4, "%s", n4);
    snprintf(node6, sizeof node6, "%s", n6);
    assert_string_not_equal(node4, node6);
    assert_int_equal(fx_submit(p, "head", "a", CUBE_SP_NORMAL, 8000, 1), CUBE_OK);
    assert_int_equal(fx_submit(p, "small1", "a", CUBE_SP_NORMAL, 2000, 1), CUBE_OK);
    assert_int_equal(fx_submit(p, "small2", "a", CUBE_SP_NORMAL, 2000, 1), CUBE_OK);
    assert_int_equal(fx_submit(p, "cpu", "a", CUBE_SP_NORMAL, 0, 1), CUBE_OK);
    r = fx_decide(p);
    const struct cube_sp_admission *s1 = fx_adm(r, "small1");
    assert_non_null(s1);                                   /* backfilled */
    assert_string_equal(s1->replicas[0].node, node6);      /* not the reserved node */
    assert_null(fx_adm(r, "small2"));                      /* would delay the head */
    assert_non_null(fx_adm(r, "cpu"));                     /* takes no reserved room */
    struct cube_sp_job_info info;
    assert_int_equal(cube_sp_job_info(p, "head", &info, NULL, 0), CUBE_OK);
    assert_int_equal(info.holds_reservation, 1);
    assert_int_equal(info.position, 1);
    assert_non_null(strstr(fx_reason(p, "head"), "holds a reservation on 1 node"));
    assert_non_null(strstr(fx_reason(p, "small2"), "reserved for job head"));
    /* the node l4 ran on drains: the head gets it, small2 still waits */
    assert_int_equal(cube_sp_release(p, "l4"), CUBE_OK);
    r = fx_decide(p);
    const struct cube_sp_admission *h = fx_adm(r, "head");
    assert_non_null(h);
    assert_string_equal(h->replicas[0].node, node4);
    assert_int_equal(h->replicas[0].n_devices, 8);
    assert_null(fx_adm(r, "small2"));
    cube_sp_free(p);
}

static void test_preempt_priority(void **state)
{
    (void)state;
    struct cube_sched_policy *p = fx_new();
    fx_node(p, "n1", NULL, 8, NULL, NULL);
    fx_project(p, "a", 0, -1);
    const char *low[] = {"l1", "l2", "l3", "l4"};
    for (int i = 0; i < 4; i++)
        assert_int_equal(fx_submit(p, low[i], "a", CUBE_SP_LOW, 2000, 1), CUBE_OK);
    assert_int_equal(fx_decide(p)->n_admitted, 4);
    assert_int_equal(fx_submit(p, "n", "a", CUBE_SP_NORMAL, 4000, 1), CUBE_OK);
    const struct cube_sp_result *r = fx_decide(p);
    assert_int_equal(r->n_preemptions, 2);
    const char *v0 = r->preemptions[0].victim, *v1 = r->preemptions[1].victim;
    assert_true((!strcmp(v0, "l4") && !strcmp(v1, "l3")) ||
                (!strcmp(v0, "l3") && !strcmp(v1, "l4")));
    assert_int_equal(r->preemptions[0].why, CUBE_SP_BY_PRIORITY);
    /* an equal-priority job never preempts */
    assert_int_equal(fx_submit(p, "l5", "a", CUBE_SP_LOW, 2000, 1), CUBE_OK);
    r = fx_decide(p);
    assert_int_equal(r->n_preemptions, 0);
    assert_int_equal(cube_sp_release(p, "l3"), CUBE_OK);
    assert_int_equal(cube_sp_release(p, "l4"), CUBE_OK);
    r = fx_decide(p);
    assert_non_null(fx_adm(r, "n"));
    assert_null(fx_adm(r, "l5"));
    cube_sp_free(p);
}

/* Over its max, a high-priority job preempts lower-priority work of its
 * own project (the node has room: the quota is what is short). */
static void test_preempt_quota(void **state)
{
    (void)state;
    struct cube_sched_policy *p = fx_new();
    fx_node(p, "n1", NULL, 8, NULL, NULL);
    fx_project(p, "a", 0, 4);
    const char *low[] = {"l1", "l2", "l3", "l4"};
    for (int i = 0; i < 4; i++)
        assert_int_equal(fx_submit(p, low[i], "a", CUBE_SP_LOW, 1000, 1), CUBE_OK);
    assert_int_equal(fx_decide(p)->n_admitted, 4);
    assert_int_equal(fx_submit(p, "h", "a", CUBE_SP_HIGH, 2000, 1), CUBE_OK);
    assert_int_equal(fx_submit(p, "h8", "a", CUBE_SP_HIGH, 8000, 1), CUBE_OK);
    const struct cube_sp_result *r = fx_decide(p);
    assert_int_equal(r->n_preemptions, 2);       /* for h; h8 is over the max alone */
    assert_string_equal(r->preemptions[0].beneficiary, "h");
    assert_int_equal(r->preemptions[0].why, CUBE_SP_BY_PRIORITY);
    assert_non_null(strstr(fx_reason(p, "h"), "preempting 2 jobs"));
    assert_non_null(strstr(fx_reason(p, "h8"), "quota: nvidia.com/gpu 4/4 used"));
    char v0[8], v1[8];
    snprintf(v0, sizeof v0, "%s", r->preemptions[0].victim);
    snprintf(v1, sizeof v1, "%s", r->preemptions[1].victim);
    r = fx_decide(p);
    assert_int_equal(r->n_preemptions, 0);
    assert_non_null(strstr(fx_reason(p, "h"), "preempting 2 jobs"));
    assert_int_equal(cube_sp_release(p, v0), CUBE_OK);
    assert_int_equal(cube_sp_release(p, v1), CUBE_OK);
    r = fx_decide(p);
    assert_non_null(fx_adm(r, "h"));
    assert_int_equal(fx_used_gpu(p, "a"), 4000);
    cube_sp_free(p);
}

static void test_reasons_positions(void **state)
{
    (void)state;
    struct cube_sched_policy *p = fx_new();
    fx_project(p, "a", 0, -1);
    assert_int_equal(fx_submit(p, "x", "a", CUBE_SP_NORMAL, 8000, 1), CUBE_OK);
    assert_string_equal(fx_reason(p, "x"), "");       /* not decided yet */
    fx_decide(p);
    assert_string_equal(fx_reason(p, "x"), "no nodes in pool default");
    fx_node(p, "n1", NULL, 8, NULL, NULL);
    fx_node(p, "n2", NULL, 4, NULL, NULL);
    assert_int_equal(fx_submit(p, "y", "a", CUBE_SP_NORMAL, 8000, 1), CUBE_OK);
    assert_int_equal(fx_submit(p, "z", "a", CUBE_SP_NORMAL, 8000, 1), CUBE_OK);
    assert_int_equal(fx_submit(p, "g", "a", CUBE_SP_NORMAL, 4000, 2), CUBE_OK);
    const struct cube_sp_result *r = fx_decide(p);
    assert_non_null(fx_adm(r, "x"));
    assert_int_equal(r->n_waiting, 3);
    assert_string_equal(fx_reason(p, "y"), "no node fits: needs 8 nvidia.com/gpu on one node;"
                                           " holds a reservation on 1 node until they drain");
    assert_string_equal(fx_reason(p, "z"), "no node fits: needs 8 nvidia.com/gpu on one node;"
                                           " 1 node is reserved for job y");
    assert_non_null(strstr(fx_reason(p, "g"), "no room for all 2 replicas (all or none): "
                                              "each needs 4 nvidia.com/gpu on one node"));
    struct cube_sp_job_info info;
    const char *order[] = {"y", "z", "g"};
    for (unsigned i = 0; i < 3; i++) {
        assert_int_equal(cube_sp_job_info(p, order[i], &info, NULL, 0), CUBE_OK);
        assert_int_equal(info.state, CUBE_SP_PENDING);
        assert_int_equal(info.position, i + 1);
    }
    assert_int_equal(cube_sp_job_info(p, "x", &info, NULL, 0), CUBE_OK);
    assert_int_equal(info.state, CUBE_SP_RUNNING);
    assert_int_equal(cube_sp_job_info(p, "nope", &info, NULL, 0), CUBE_ENOTFOUND);
    /* cancel the head: its reservation goes, z takes the headship */
    assert_int_equal(cube_sp_cancel(p, "y"), CUBE_OK);
    fx_decide(p);
    assert_non_null(strstr(fx_reason(p, "z"), "holds a reservation"));
    assert_int_equal(cube_sp_job_info(p, "z", &info, NULL, 0), CUBE_OK);
    assert_int_equal(info.position, 1);
    cube_sp_free(p);
}

/* Cycles, stats and latency figures are filled. */
static void test_stats(void **state)
{
    (void)state;
    struct cube_sched_policy *p = fx_new();
    fx_node(p, "n1", NULL, 8, NULL, NULL);
    fx_project(p, "a", 0, -1);
    for (int i = 0; i < 10; i++) {
        char id[16];
        snprintf(id, sizeof id, "j%d", i);
        assert_int_equal(fx_submit(p, id, "a", CUBE_SP_NORMAL, 1000, 1), CUBE_OK);
    }
    fx_decide(p);
    struct cube_sp_stats st;
    cube_sp_stats(p, &st);
    assert_int_equal(st.cycles, 1);
    assert_int_equal(st.decisions, 10);
    assert_int_equal(st.admitted, 8);
    assert_int_equal(st.waiting, 2);
    assert_int_equal(st.running, 8);
    assert_int_equal(st.pending, 2);
    assert_int_equal(st.nodes, 1);
    assert_true(st.decision_p99_ns > 0 && st.decision_p99_ns <= st.decision_max_ns);
    cube_sp_free(p);
}

/* Backfill keeps the head's share of a reserved node's cpu: the node's
 * capacity less what was placed there since it was reserved must cover it. */
static void test_backfill_cpu(void **state)
{
    (void)state;
    struct cube_sched_policy *p = fx_new();
    fx_node(p, "n1", NULL, 8, NULL, NULL);            /* 64 cores */
    fx_project(p, "a", 0, -1);
    struct cube_sp_ext e = {GPU, 8000, 0, NULL};
    struct cube_sp_job j = {.id = "l", .project = "a", .priority = 1, .replicas = 1,
                            .cpu_milli = 8000, .ext = &e, .n_ext = 1};
    assert_int_equal(cube_sp_submit(p, &j), CUBE_OK);
    fx_decide(p);
    j.id = "head";
    j.cpu_milli = 48000;
    assert_int_equal(cube_sp_submit(p, &j), CUBE_OK);
    struct cube_sp_job c = {.id = "c1", .project = "a", .priority = 1, .replicas = 1,
                            .cpu_milli = 16000};
    assert_int_equal(cube_sp_submit(p, &c), CUBE_OK);
    c.id = "c2";
    c.cpu_milli = 1000;
    assert_int_equal(cube_sp_submit(p, &c), CUBE_OK);
    const struct cube_sp_result *r = fx_decide(p);
    assert_non_null(fx_adm(r, "c1"));           /* 64 - 16 >= 48: fine */
    assert_null(fx_adm(r, "c2"));               /* 64 - 16 - 1 < 48, though 40 are free */
    assert_int_equal(cube_sp_release(p, "l"), CUBE_OK);
    r = fx_decide(p);
    assert_non_null(fx_adm(r, "head"));         /* as soon as l ended */
    cube_sp_free(p);
}

/* Pools are separate: nodes, quotas, usage and reasons per pool. */
static void test_pools(void **state)
{
    (void)state;
    struct cube_sched_policy *p = fx_new();
    fx_node(p, "b1", "batch", 8, NULL, NULL);
    fx_project(p, "a", 0, -1);                        /* default pool only */
    struct cube_sp_quota q;
    cube_sp_quota_init(&q);
    q.max.v[2] = 2000;
    assert_int_equal(cube_sp_quota_set(p, "a", "batch", &q), CUBE_OK);
    struct cube_sp_ext e = {GPU, 1000, 0, NULL};
    struct cube_sp_job j = {.id = "x", .project = "a", .pool = "batch", .priority = 1,
                            .replicas = 1, .ext = &e, .n_ext = 1};
    assert_int_equal(cube_sp_submit(p, &j), CUBE_OK);
    j.id = "y";
    assert_int_equal(cube_sp_submit(p, &j), CUBE_OK);
    j.id = "z";
    assert_int_equal(cube_sp_submit(p, &j), CUBE_OK);
    assert_int_equal(fx_submit(p, "d", "a", 1, 1000, 1), CUBE_OK);   /* default pool */
    const struct cube_sp_result *r = fx_decide(p);
    assert_int_equal(r->n_admitted, 2);
    assert_string_equal(fx_adm(r, "x")->pool, "batch");
    assert_string_equal(fx_adm(r, "x")->replicas[0].node, "b1");
    assert_string_equal(fx_reason(p, "z"), "quota: nvidia.com/gpu 2/2 used in pool batch "
                                           "(job needs 1)");
    assert_string_equal(fx_reason(p, "d"), "no nodes in pool default");
    struct cube_sp_usage u;
    assert_int_equal(cube_sp_usage(p, "a", "batch", &u), CUBE_OK);
    assert_int_equal(u.used.v[2], 2000);
    assert_int_equal(u.capacity.v[2], 8000);
    assert_true(u.dominant_share > 0.249 && u.dominant_share < 0.251);
    assert_int_equal(fx_used_gpu(p, "a"), 0);
    assert_int_equal(cube_sp_usage(p, "a", "nowhere", &u), CUBE_ENOTFOUND);
    cube_sp_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quota_max),
        cmocka_unit_test(test_borrow_reclaim),
        cmocka_unit_test(test_drf),
        cmocka_unit_test(test_priority_fifo),
        cmocka_unit_test(test_backfill),
        cmocka_unit_test(test_backfill_cpu),
        cmocka_unit_test(test_pools),
        cmocka_unit_test(test_preempt_priority),
        cmocka_unit_test(test_preempt_quota),
        cmocka_unit_test(test_reasons_positions),
        cmocka_unit_test(test_stats),
        cmocka_unit_test(test_gang),
        cmocka_unit_test(test_binpack),
        cmocka_unit_test(test_topology),
        cmocka_unit_test(test_fractional),
        cmocka_unit_test(test_model_selector),
        cmocka_unit_test(test_node_selector),
        cmocka_unit_test(test_node_removal),
        cmocka_unit_test(test_restore),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_random_invariants),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
