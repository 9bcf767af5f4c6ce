/* test_sim_run.c — executor-sim replicas with the fake host and a fake
 * clock: start/stop/exit reporting through replica_exited, annotations and
 * env, timeouts, time_scale, the heap's order, adopt, logs, lost nodes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cube_mock.h"
#include "sim.h"

const struct cube_plugin_desc *cube_plugin_executor_sim(void);

static void *state;
static uint64_t clock_ms = 1700000000000ull;

static uint64_t fake_clock(void) { return clock_ms; }

static int up_with(const char *config)
{
    int rc = cube_mock_init(cube_plugin_executor_sim(), config, &state);
    if (rc == CUBE_OK) {
        ((struct sim *)state)->now_ms = fake_clock;
        rc = cube_plugin_executor_sim()->start(state);
    }
    return rc;
}

static int setup(void **st)
{
    (void)st;
    return up_with("{\"run_seconds\":10,\"node_groups\":[{\"prefix\":\"n\",\"count\":3,"
                   "\"devices\":{\"count\":4}}]}");
}

static int teardown(void **st)
{
    (void)st;
    cube_mock_reset(cube_plugin_executor_sim(), state);
    state = NULL;
    return 0;
}

/* A replica document on node with extra JSON members (or ""). */
static char *replica(const char *node, int index, const char *extra)
{
    static char buf[2048];
    snprintf(buf, sizeof buf,
             "{\"job\":{\"kind\":\"Job\",\"metadata\":{\"name\":\"train\",\"project\":\"p\"%s}},"
             "\"replica\":%d,\"replicas\":2,\"node\":\"%s\",\"devices\":[\"0\",\"1\"],"
             "\"command\":[\"python3\",\"train.py\"],\"env\":{%s},"
             "\"log\":{\"kind\":\"Job\",\"project\":\"p\",\"name\":\"train\","
             "\"stream\":\"replica-%d\"}}",
             extra && strstr(extra, "annotations") ? extra : "", index, node,
             extra && !strstr(extra, "annotations") ? extra : "", index);
    return buf;
}

static int start(const char *json, char *id, char *msg)
{
    return cube_mock_executor()->start(state, json, id, 128, msg, 256);
}

/* The log stream replica-<i> of Job p/train, or "" (static buffer). */
static const char *job_log(int i)
{
    static char text[4096];
    struct sim *s = state;
    char stream[32];
    size_t len = 0;
    int rc;
    snprintf(stream, sizeof stream, "replica-%d", i);
    char *got = s->host->log_read(s->self, "Job", "p", "train", stream, 0, sizeof text - 1,
                                  &len, &rc);
    snprintf(text, sizeof text, "%.*s", (int)len, got ? got : "");
    s->host->free(got);
    return text;
}

static int exits(void)
{
    int n;
    cube_mock_exits(&n);
    return n;
}

static const struct cube_mock_exit *exit_at(int i)
{
    return &cube_mock_exits(NULL)[i];
}

static void runs_and_completes(void **st)
{
    (void)st;
    char id[128], msg[256];
    assert_int_equal(start(replica("n1", 0, ""), id, msg), CUBE_OK);
    assert_memory_equal(id, "sim:", 4);
    assert_string_equal(job_log(0), "sim: started on n1 devices 0,1\n");
    cube_mock_run_timers();                   /* joins the heap */
    clock_ms += 9999;
    cube_mock_run_timers();
    assert_int_equal(exits(), 0);
    clock_ms += 1;
    cube_mock_run_timers();
    assert_int_equal(exits(), 1);
    assert_string_equal(exit_at(0)->engine_id, id);
    assert_int_equal(exit_at(0)->exit_code, 0);
    assert_string_equal(exit_at(0)->reason, CUBE_EXIT_COMPLETED);
    assert_string_equal(job_log(0), "sim: started on n1 devices 0,1\nsim: exited 0\n");
    assert_int_equal(cube_mock_log_closed("Job", "p", "train", "replica-0"), 1);
    assert_int_equal(sim_running(state), 0);
}

static void never_reported_before_start_returned(void **st)
{
    (void)st;
    char id[128], msg[256];
    assert_int_equal(start(replica("n0", 0, "\"SIM_RUN_SECONDS\":\"0\""), id, msg), CUBE_OK);
    clock_ms += 1000;
    cube_mock_run_timers();   /* the tick that admits it does not report it */
    assert_int_equal(exits(), 0);
    cube_mock_run_timers();
    assert_int_equal(exits(), 1);
}

static void annotations_win_over_env(void **st)
{
    (void)st;
    char id[128], msg[256];
    assert_int_equal(start(replica("n0", 0, ",\"annotations\":{\"sim.cube.dev/run-seconds\":\"5\","
                                            "\"sim.cube.dev/exit-code\":\"3\"}"), id, msg), CUBE_OK);
    assert_int_equal(start(replica("n0", 1, "\"SIM_RUN_SECONDS\":\"2\",\"SIM_EXIT_CODE\":\"7\""),
                           id, msg), CUBE_OK);
    cube_mock_run_timers();
    clock_ms += 2000;
    cube_mock_run_timers();
    assert_int_equal(exits(), 1);
    assert_int_equal(exit_at(0)->exit_code, 7);
    clock_ms += 3000;
    cube_mock_run_timers();
    assert_int_equal(exits(), 2);
    assert_int_equal(exit_at(1)->exit_code, 3);
    assert_string_equal(exit_at(1)->reason, CUBE_EXIT_COMPLETED);
    assert_string_equal(job_log(0), "sim: started on n0 devices 0,1\nsim: exited 3\n");
}

static void per_replica_failure_and_reasons(void **st)
{
    (void)st;
    char id[128], msg[256];
    const char *ann = ",\"annotations\":{\"sim.cube.dev/exit-code.1\":\"9\","
                      "\"sim.cube.dev/exit-reason.0\":\"OOMKilled\"}";
    assert_int_equal(start(replica("n0", 0, ann), id, msg), CUBE_OK);
    assert_int_equal(start(replica("n1", 1, ann), id, msg), CUBE_OK);
    cube_mock_run_timers();
    clock_ms += 10000;
    cube_mock_run_timers();
    assert_int_equal(exits(), 2);
    assert_string_equal(exit_at(0)->reason, CUBE_EXIT_OOM);
    assert_int_equal(exit_at(0)->exit_code, -1);
    assert_string_equal(exit_at(1)->reason, CUBE_EXIT_COMPLETED);
    assert_int_equal(exit_at(1)->exit_code, 9);
    assert_non_null(strstr(job_log(0), "sim: exited -1 (OOMKilled)\n"));
}

static void start_errors_say_why(void **st)
{
    (void)st;
    char id[128], msg[256];
    assert_int_not_equal(start(replica("nope", 0, ""), id, msg), CUBE_OK);
    assert_non_null(strstr(msg, "nope is not a node"));
    assert_int_not_equal(start(replica("n0", 0, "\"SIM_EXIT_REASON\":\"StartError\""), id, msg),
                         CUBE_OK);
    assert_non_null(strstr(msg, "simulated start failure"));
    assert_int_equal(start(replica("n0", 0, ",\"annotations\":{\"sim.cube.dev/run-seconds\":\"x\"}"),
                           id, msg), CUBE_EINVAL);
    assert_non_null(strstr(msg, "sim.cube.dev/run-seconds"));
    assert_int_equal(start(replica("n0", 0, "\"SIM_EXIT_CODE\":\"300\""), id, msg), CUBE_EINVAL);
    assert_non_null(strstr(msg, "SIM_EXIT_CODE"));
    assert_int_equal(start("[]", id, msg), CUBE_EINVAL);
    assert_int_equal(start("{\"replica\":0}", id, msg), CUBE_EINVAL);
    assert_int_equal(sim_running(state), 0);
}

static void timeout_cuts_the_run(void **st)
{
    (void)st;
    char id[128], msg[256], json[2048];
    snprintf(json, sizeof json, "%s", replica("n2", 0, ""));
    memcpy(json + strlen(json) - 1, ",\"timeoutSeconds\":4}", 21);
    assert_int_equal(start(json, id, msg), CUBE_OK);
    cube_mock_run_timers();
    clock_ms += 4000;
    cube_mock_run_timers();
    assert_int_equal(exits(), 1);
    assert_string_equal(exit_at(0)->reason, CUBE_EXIT_TIMEOUT);
    assert_int_equal(exit_at(0)->exit_code, -1);
    assert_non_null(strstr(exit_at(0)->message, "timeoutSeconds"));
}

static void stop_ends_it_early(void **st)
{
    (void)st;
    char id[128], msg[256];
    const struct cube_executor_desc *e = cube_mock_executor();
    assert_int_equal(start(replica("n0", 0, ""), id, msg), CUBE_OK);
    cube_mock_run_timers();
    clock_ms += 1000;
    assert_int_equal(e->stop(state, id, 30), CUBE_OK);
    assert_int_equal(e->stop(state, id, 30), CUBE_OK);        /* twice is fine */
    assert_int_equal(e->stop(state, "sim:x:1:2", 30), CUBE_ENOTFOUND);
    cube_mock_run_timers();
    assert_int_equal(exits(), 1);
    assert_string_equal(exit_at(0)->reason, CUBE_EXIT_STOPPED);
    assert_int_equal(exit_at(0)->exit_code, -1);
    assert_string_equal(job_log(0), "sim: started on n0 devices 0,1\nsim: exited -1 (Stopped)\n");
    clock_ms += 100000;
    cube_mock_run_timers();
    assert_int_equal(exits(), 1);                              /* reported once */
    assert_int_equal(e->stop(state, id, 30), CUBE_ENOTFOUND);
}

static void stop_before_admission(void **st)
{
    (void)st;
    char id[128], msg[256];
    assert_int_equal(start(replica("n0", 0, ""), id, msg), CUBE_OK);
    assert_int_equal(cube_mock_executor()->stop(state, id, 0), CUBE_OK);
    cube_mock_run_timers();
    cube_mock_run_timers();
    assert_int_equal(exits(), 1);
    assert_string_equal(exit_at(0)->reason, CUBE_EXIT_STOPPED);
}

static void time_scale_compresses_runs(void **st)
{
    (void)st;
    teardown(NULL);
    assert_int_equal(up_with("{\"run_seconds\":120,\"time_scale\":60,\"node_groups\":"
                             "[{\"prefix\":\"n\",\"count\":1}]}"), CUBE_OK);
    char id[128], msg[256];
    assert_int_equal(start(replica("n0", 0, ""), id, msg), CUBE_OK);
    cube_mock_run_timers();
    clock_ms += 1999;
    cube_mock_run_timers();
    assert_int_equal(exits(), 0);
    clock_ms += 1;
    cube_mock_run_timers();
    assert_int_equal(exits(), 1);
}

/* 250 replicas with shuffled run times end in end-time order. */
static void ends_come_in_order(void **st)
{
    (void)st;
    char id[128], msg[256], ids[250][128], env[64];
    for (int i = 0; i < 250; i++) {
        snprintf(env, sizeof env, "\"SIM_RUN_SECONDS\":\"%d\"", (i * 97) % 250 + 1);
        assert_int_equal(start(replica("n1", i, env), id, msg), CUBE_OK);
        snprintf(ids[(i * 97) % 250], sizeof ids[0], "%s", id);
    }
    cube_mock_run_timers();
    for (int t = 1; t <= 250; t++) {
        clock_ms += 1000;
        cube_mock_run_timers();
        assert_int_equal(exits(), t);
        assert_string_equal(exit_at(t - 1)->engine_id, ids[t - 1]);
    }
    assert_int_equal(sim_running(state), 0);
}

/* More replicas end in one tick than one lock round takes. */
static void many_end_at_once(void **st)
{
    (void)st;
    char id[128], msg[256];
    for (int i = 0; i < 600; i++)
        assert_int_equal(start(replica("n2", i, ""), id, msg), CUBE_OK);
    assert_int_equal(sim_running(state), 600);
    cube_mock_run_timers();
    clock_ms += 10000;
    cube_mock_run_timers();
    assert_int_equal(sim_running(state), 0);
}

/* cubed restarts: the plugin comes back and adopts what was running. */
static void restart(void)
{
    teardown(NULL);
    assert_int_equal(setup(NULL), 0);
}

static void adopt_keeps_the_end_time(void **st)
{
    (void)st;
    char id[128], msg[256], json[2048];
    snprintf(json, sizeof json, "%s", replica("n0", 0, ""));
    assert_int_equal(start(json, id, msg), CUBE_OK);
    clock_ms += 4000;
    restart();
    const struct cube_executor_desc *e = cube_mock_executor();
    assert_int_equal(e->adopt(state, id, json), CUBE_OK);
    assert_int_equal(e->adopt(state, id, json), CUBE_OK);       /* idempotent */
    assert_int_equal(sim_running(state), 1);
    assert_non_null(strstr(job_log(0), "sim: adopted on n0 after a restart\n"));
    cube_mock_run_timers();
    clock_ms += 5999;
    cube_mock_run_timers();
    assert_int_equal(exits(), 0);
    clock_ms += 1;
    cube_mock_run_timers();
    assert_int_equal(exits(), 1);
    assert_string_equal(exit_at(0)->engine_id, id);
}

static void adopt_other_sources_of_time(void **st)
{
    (void)st;
    const struct cube_executor_desc *e = cube_mock_executor();
    /* an end time in the annotations: 2023-11-14T22:13:30Z is clock + 10 s */
    clock_ms = 1700000000000ull;
    assert_int_equal(e->adopt(state, "foreign-1", replica("n0", 0,
        ",\"annotations\":{\"sim.cube.dev/end-time\":\"2023-11-14T22:13:30Z\"}")), CUBE_OK);
    /* nothing recorded: a whole run from now (10 s) */
    assert_int_equal(e->adopt(state, "foreign-2", replica("n1", 1, "")), CUBE_OK);
    /* ended while cubed was down: reported at once */
    assert_int_equal(e->adopt(state, "sim:old:7:1600000000000", replica("n1", 1, "")), CUBE_OK);
    /* its node is gone */
    assert_int_equal(e->adopt(state, "foreign-3", replica("gone", 0, "")), CUBE_ENOTFOUND);
    assert_int_equal(e->adopt(state, "foreign-4", "not json"), CUBE_ENOTFOUND);
    cube_mock_run_timers();
    cube_mock_run_timers();
    assert_int_equal(exits(), 1);
    assert_string_equal(exit_at(0)->engine_id, "sim:old:7:1600000000000");
    clock_ms += 10000;
    cube_mock_run_timers();
    assert_int_equal(exits(), 3);
}

static void removed_node_loses_its_replicas(void **st)
{
    (void)st;
    char id[128], msg[256];
    assert_int_equal(start(replica("n2", 0, ""), id, msg), CUBE_OK);
    assert_int_equal(start(replica("n2", 1, ""), id, msg), CUBE_OK);
    cube_mock_run_timers();
    assert_int_equal(start(replica("n1", 2, ""), id, msg), CUBE_OK);  /* still pending */
    cube_mock_set_user("root", "admin");   /* the node routes are for administrators */
    struct cube_mock_response r = cube_mock_request("DELETE", "/api/v1/sim/nodes/n2", NULL,
                                                    NULL, NULL);
    assert_int_equal(r.status, 200);
    assert_string_equal(r.body, "{\"removed\":\"n2\",\"lost\":2}");
    cube_mock_response_free(&r);
    assert_int_equal(sim_running(state), 1);
    assert_int_not_equal(start(replica("n2", 0, ""), id, msg), CUBE_OK);
    clock_ms += 20000;
    cube_mock_run_timers();
    cube_mock_run_timers();
    assert_int_equal(exits(), 1);                       /* only n1's */
}

static void parses_times(void **st)
{
    (void)st;
    assert_int_equal(sim_parse_time("1700000000"), 1700000000000ll);
    assert_int_equal(sim_parse_time("1700000000.25"), 1700000000250ll);
    assert_int_equal(sim_parse_time("2023-11-14T22:13:20Z"), 1700000000000ll);
    assert_int_equal(sim_parse_time("2023-11-14T22:13:20.5Z"), 1700000000500ll);
    assert_int_equal(sim_parse_time("2023-11-15T00:13:20+02:00"), 1700000000000ll);
    assert_int_equal(sim_parse_time("2023-11-14T22:13:20"), -1);
    assert_int_equal(sim_parse_time("soon"), -1);
    assert_int_equal(sim_parse_time("-5"), -1);
}

/* The last replica_status phase reported for id, or "" (static buffer). */
static const char *reported(const char *id)
{
    static char phase[16];
    char node[64], message[256];
    if (cube_mock_replica_status(id, phase, sizeof phase, node, sizeof node, message,
                                 sizeof message) < 0)
        phase[0] = 0;
    return phase;
}

/* engine_queue (ABI 1.5): held until released, reported Pending then
 * Running, and only then does its run start. */
static void engine_queue_holds_until_released(void **st)
{
    (void)st;
    char id[128], msg[256];
    teardown(NULL);
    assert_int_equal(up_with("{\"run_seconds\":10,\"engine_queue\":true,"
                             "\"node_groups\":[{\"prefix\":\"n\",\"count\":1}]}"), CUBE_OK);
    assert_true(cube_mock_executor()->flags & CUBE_EXECUTOR_ENGINE_QUEUE);
    assert_int_equal(start(replica("n0", 0, ""), id, msg), CUBE_OK);
    assert_string_equal(reported(id), "Pending");
    clock_ms += 60000;
    cube_mock_run_timers();
    cube_mock_run_timers();
    assert_int_equal(exits(), 0);               /* held: it never ran */
    assert_string_equal(reported(id), "Pending");
    cube_mock_set_user("root", "admin");
    struct cube_mock_response r = cube_mock_request("POST", "/api/v1/sim/release", NULL,
                                                    NULL, "{}");
    assert_int_equal(r.status, 200);
    assert_string_equal(r.body, "{\"released\":1}");
    cube_mock_response_free(&r);
    cube_mock_run_timers();
    assert_string_equal(reported(id), "Running");
    clock_ms += 9999;
    cube_mock_run_timers();
    assert_int_equal(exits(), 0);               /* its 10 s started at the release */
    clock_ms += 1;
    cube_mock_run_timers();
    assert_int_equal(exits(), 1);
}

/* held_ms: the wait ends by itself; a stop while held ends it Stopped. */
static void engine_queue_held_ms_and_stop(void **st)
{
    (void)st;
    char id[128], id2[128], msg[256];
    teardown(NULL);
    assert_int_equal(up_with("{\"run_seconds\":1,\"engine_queue\":true,\"held_ms\":500,"
                             "\"node_groups\":[{\"prefix\":\"n\",\"count\":1}]}"), CUBE_OK);
    assert_int_equal(start(replica("n0", 0, ""), id, msg), CUBE_OK);
    assert_int_equal(start(replica("n0", 1, ""), id2, msg), CUBE_OK);
    assert_int_equal(cube_mock_executor()->stop(state, id2, 0), CUBE_OK);
    cube_mock_run_timers();
    cube_mock_run_timers();
    assert_int_equal(exits(), 1);
    assert_string_equal(exit_at(0)->engine_id, id2);
    assert_string_equal(exit_at(0)->reason, CUBE_EXIT_STOPPED);
    assert_string_equal(reported(id), "Pending");
    clock_ms += 500;
    cube_mock_run_timers();
    assert_string_equal(reported(id), "Running");
    clock_ms += 1000;
    cube_mock_run_timers();
    cube_mock_run_timers();
    assert_int_equal(exits(), 2);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(runs_and_completes), T(never_reported_before_start_returned),
        T(annotations_win_over_env), T(per_replica_failure_and_reasons),
        T(start_errors_say_why), T(timeout_cuts_the_run), T(stop_ends_it_early),
        T(stop_before_admission), T(time_scale_compresses_runs), T(ends_come_in_order),
        T(many_end_at_once), T(adopt_keeps_the_end_time), T(adopt_other_sources_of_time),
        T(removed_node_loses_its_replicas), T(parses_times),
        T(engine_queue_holds_until_released), T(engine_queue_held_ms_and_stop),
    };
    return cmocka_run_group_tests_name("executor-sim replicas (fake host)", tests, NULL, NULL);
}
