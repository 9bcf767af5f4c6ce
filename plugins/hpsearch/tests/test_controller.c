/* test_controller.c — the Experiment controller through the fake host
 * (tests/mock), with a stand-in Job kind and Job statuses and metrics set
 * by the test as the scheduler and the trials would: trials are Jobs with
 * the nni environment, labels and owner; results come from their metrics;
 * a restart (the plugin's memory dropped) rebuilds the search and the
 * tuner suggests what it would have; missing results and failures are
 * recorded; a refused Job fails the experiment; median stop stops a Job. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cube_mock.h"
#include "hpsearch.h"

const struct cube_plugin_desc *cube_plugin_hpsearch(void);

static struct hs *hs;
static struct cube_plugin_desc desc;

/* The plugin's init and a stand-in for the core's Job kind, whose schema
 * refuses spec.image (as this release's executors do). */
static int init_with_jobs(const struct cube_host *host, cube_plugin *self, void **state)
{
    int rc = cube_plugin_hpsearch()->init(host, self, state);
    const struct cube_kind_desc job = {
        .size = sizeof job, .kind = "Job", .plural = "jobs", .scope = CUBE_SCOPE_PROJECT,
        .spec_schema = "{\"type\":\"object\",\"additionalProperties\":true,\"properties\":{\"image\":{\"type\":\"string\","
                       "\"maxLength\":0}}}"};
    return rc == CUBE_OK ? host->register_kind(self, &job) : rc;
}

static int setup(void **st)
{
    (void)st;
    void *state = NULL;
    desc = *cube_plugin_hpsearch();
    desc.init = init_with_jobs;
    int rc = cube_mock_init(&desc, "{\"status_write_ms\":0}", &state);
    hs = state;
    if (rc != CUBE_OK)
        fprintf(stderr, "init: %s / %s\n", cube_mock_last_error(), cube_mock_last_log());
    return rc;
}

static int teardown(void **st)
{
    (void)st;
    cube_mock_reset(&desc, hs);
    return 0;
}

/* Runs controllers and submitted work until nothing is left. */
static void pump(void)
{
    for (int i = 0; i < 50; i++) {
        int n = cube_mock_run_controllers() + cube_mock_run_timers();
        if (n == 0 && cube_mock_controllers_pending() == 0)
            return;
    }
}

static void create(const char *name, const char *spec)
{
    char doc[4096];
    int rc;
    snprintf(doc, sizeof doc, "{\"kind\":\"Experiment\",\"metadata\":{\"name\":\"%s\",\"project\":"
             "\"p\"},\"spec\":%s}", name, spec);
    char *out = hs->host->obj_create(hs->self, doc, &rc);
    if (!out)
        fail_msg("create %s: %d %s", name, rc, cube_mock_last_log());
    hs->host->free(out);
    pump();
}

static cJSON *object(const char *kind, const char *name)
{
    const char *o = cube_mock_object(kind, "p", name);
    return o ? cJSON_Parse(o) : NULL;
}

static cJSON *status_of(const char *name)
{
    cJSON *o = object("Experiment", name);
    cJSON *st = cJSON_DetachItemFromObjectCaseSensitive(o, "status");
    cJSON_Delete(o);
    return st;
}

/* The Job's parameters (its CUBE_TRIAL_PARAMETERS). */
static cJSON *params_of(const char *job)
{
    cJSON *o = object("Job", job);
    const char *p = cu_str(cJSON_GetObjectItemCaseSensitive(
                               cJSON_GetObjectItemCaseSensitive(o, "spec"), "env"),
                           "CUBE_TRIAL_PARAMETERS");
    cJSON *params = p ? cJSON_Parse(p) : NULL;
    cJSON_Delete(o);
    return params;
}

static void job_phase(const char *job, const char *phase)
{
    char st[256];
    int rc;
    snprintf(st, sizeof st, "{\"phase\":\"%s\",\"started\":\"2026-01-01T00:00:00Z\"%s}", phase,
             strcmp(phase, "Running") ? ",\"finished\":\"2026-01-01T00:00:05Z\"" : "");
    char *out = hs->host->obj_update_status(hs->self, "Job", "p", job, st, NULL, &rc);
    if (!out)
        fail_msg("status of %s: %d", job, rc);
    hs->host->free(out);
}

static void report(const char *job, const char *name, double v, int step)
{
    char body[256], field[64];
    snprintf(body, sizeof body, "{\"metrics\":[{\"name\":\"%s\",\"value\":%.17g,\"step\":%d}]}",
             name, v, step);
    assert_int_equal(cube_mock_job_metrics_report("p", job, body, field, sizeof field), CUBE_OK);
}

/* Runs trial `job` to its end with the final value f(x). */
static double finish_trial(const char *job, int minimize_x)
{
    cJSON *p = params_of(job);
    assert_non_null(p);
    double x = cu_num(p, "x", NAN), v = (x - 0.3) * (x - 0.3);
    cJSON_Delete(p);
    (void)minimize_x;
    job_phase(job, "Running");
    report(job, "default", v * 2, 1);
    report(job, "final/default", v, 1);
    job_phase(job, "Succeeded");
    pump();
    return v;
}

static const char SEARCH[] =
    "{\"searchSpace\":{\"x\":{\"_type\":\"uniform\",\"_value\":[0,1]}},"
    "\"objective\":{\"direction\":\"minimize\"},"
    "\"tuner\":{\"name\":\"tpe\",\"args\":{\"seed\":5,\"n_startup_trials\":2}},"
    "\"trial\":{\"command\":[\"python3\",\"train.py\",\"--x\",\"{{ params.x }}\"]},"
    "\"trialConcurrency\":1,\"maxTrials\":6}";

static void trials_follow_their_jobs(void **st)
{
    (void)st;
    create("e1", SEARCH);
    cJSON *job = object("Job", "e1-1");
    if (!job)
        fail_msg("no Job: %s / %s", cube_mock_object("Experiment", "p", "e1"), cube_mock_last_log());
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(job, "metadata");
    assert_string_equal(cu_str(cJSON_GetObjectItemCaseSensitive(meta, "labels"), "experiment"), "e1");
    assert_string_equal(cu_str(cJSON_GetObjectItemCaseSensitive(meta, "labels"), "trial"), "1");
    const cJSON *ref = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(meta, "ownerReferences"), 0);
    assert_string_equal(cu_str(ref, "kind"), "Experiment");
    assert_true(cu_bool(ref, "controller", 0));
    const cJSON *spec = cJSON_GetObjectItemCaseSensitive(job, "spec");
    const cJSON *env = cJSON_GetObjectItemCaseSensitive(spec, "env");
    assert_string_equal(cu_str(env, "CUBE_EXPERIMENT"), "e1");
    assert_string_equal(cu_str(env, "CUBE_TRIAL_ID"), "e1-1");
    assert_string_equal(cu_str(env, "CUBE_TRIAL_SEQUENCE"), "0");
    cJSON *p = params_of("e1-1");
    char x[40];
    snprintf(x, sizeof x, "%.15g", cu_num(p, "x", NAN));
    if (strtod(x, NULL) != cu_num(p, "x", NAN))
        snprintf(x, sizeof x, "%.17g", cu_num(p, "x", NAN));
    assert_string_equal(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(spec, "command"), 3)
                            ->valuestring, x);   /* {{ params.x }} rendered */
    cJSON_Delete(p);
    cJSON_Delete(job);
    assert_null(cube_mock_object("Job", "p", "e1-2"));   /* concurrency 1 */
    double best = INFINITY;
    for (int n = 1; n <= 6; n++) {
        char name[16];
        snprintf(name, sizeof name, "e1-%d", n);
        assert_non_null(cube_mock_object("Job", "p", name));
        double v = finish_trial(name, 1);
        best = v < best ? v : best;
    }
    assert_null(cube_mock_object("Job", "p", "e1-7"));
    cJSON *s = status_of("e1");
    assert_string_equal(cu_str(s, "phase"), "Succeeded");
    assert_int_equal((int)cu_num(cJSON_GetObjectItemCaseSensitive(s, "trials"), "Succeeded", 0), 6);
    assert_true(fabs(cu_num(cJSON_GetObjectItemCaseSensitive(s, "best"), "value", NAN) - best) < 1e-12);
    cJSON_Delete(s);
}

/* The parameters of trials 1..n of an experiment, as text. */
static void all_params(const char *exp, int n, char out[][128])
{
    for (int i = 1; i <= n; i++) {
        char job[32];
        snprintf(job, sizeof job, "%s-%d", exp, i);
        cJSON *p = params_of(job);
        char *t = cJSON_PrintUnformatted(p);
        snprintf(out[i - 1], 128, "%s", t ? t : "");
        free(t);
        cJSON_Delete(p);
    }
}

static void a_restart_rebuilds_the_same_search(void **st)
{
    (void)st;
    char a[6][128], b[6][128];
    create("ea", SEARCH);
    for (int n = 1; n <= 6; n++) {
        char job[16];
        snprintf(job, sizeof job, "ea-%d", n);
        finish_trial(job, 1);
    }
    all_params("ea", 6, a);
    create("eb", SEARCH);
    for (int n = 1; n <= 6; n++) {
        char job[16];
        snprintf(job, sizeof job, "eb-%d", n);
        if (n == 4) {   /* cubed restarts: the plugin's memory is gone, the store is not */
            hs_memo_fini(hs);
            pump();
        }
        finish_trial(job, 1);
    }
    all_params("eb", 6, b);
    for (int i = 0; i < 6; i++)
        assert_string_equal(a[i], b[i]);   /* the same tuner seed, the same suggestions */
    cJSON *s = status_of("eb");
    assert_string_equal(cu_str(s, "phase"), "Succeeded");
    assert_int_equal((int)cu_num(cJSON_GetObjectItemCaseSensitive(s, "trials"), "total", 0), 6);
    cJSON_Delete(s);
}

static void missing_results_and_failures(void **st)
{
    (void)st;
    create("odd", "{\"searchSpace\":{\"x\":{\"_type\":\"uniform\",\"_value\":[0,1]}},"
                  "\"tuner\":{\"name\":\"random\"},\"trial\":{\"command\":[\"true\"]},"
                  "\"trialConcurrency\":2,\"maxTrials\":2}");
    job_phase("odd-1", "Succeeded");   /* nothing reported */
    report("odd-2", "final/loss", 1, 0);
    job_phase("odd-2", "Failed");
    pump();
    struct hs_exp *x = hs_memo_find(hs, "p", "odd");
    assert_non_null(x);
    assert_int_equal(x->trials[0].phase, HS_SUCCEEDED);
    assert_true(isnan(x->trials[0].value));
    assert_non_null(strstr(x->trials[0].message, "reported no final/default"));
    assert_int_equal(x->trials[1].phase, HS_FAILED);
    hs_memo_release(x);
    cJSON *s = status_of("odd");
    assert_string_equal(cu_str(s, "phase"), "Failed");
    assert_non_null(strstr(cu_str(s, "message"), "no trial reported final/default"));
    assert_non_null(strstr(cu_str(s, "message"), "final/loss"));
    cJSON_Delete(s);
}

static void a_refused_job_fails_the_experiment(void **st)
{
    (void)st;
    create("refused", "{\"searchSpace\":{\"x\":{\"_type\":\"uniform\",\"_value\":[0,1]}},"
                      "\"trial\":{\"command\":[\"true\"],\"image\":\"busybox\"},\"maxTrials\":3}");
    cJSON *s = status_of("refused");
    assert_string_equal(cu_str(s, "phase"), "Failed");
    assert_non_null(strstr(cu_str(s, "message"), "refused"));
    assert_non_null(strstr(cu_str(s, "message"), "image"));   /* why: obj_error */
    cJSON_Delete(s);
}

static void medianstop_stops_a_job(void **st)
{
    (void)st;
    create("med", "{\"searchSpace\":{\"x\":{\"_type\":\"uniform\",\"_value\":[0,1]}},"
                  "\"tuner\":{\"name\":\"random\"},\"trial\":{\"command\":[\"true\"]},"
                  "\"assessor\":{\"name\":\"medianstop\",\"args\":{\"start_step\":2}},"
                  "\"trialConcurrency\":1,\"maxTrials\":3}");
    for (int n = 1; n <= 2; n++) {   /* two good curves */
        char job[16];
        snprintf(job, sizeof job, "med-%d", n);
        job_phase(job, "Running");
        for (int s = 1; s <= 4; s++)
            report(job, "default", 0.8 + 0.01 * s, s);
        report(job, "final/default", 0.85, 4);
        job_phase(job, "Succeeded");
        pump();
    }
    job_phase("med-3", "Running");
    report("med-3", "default", 0.1, 1);
    pump();
    cJSON *spared = object("Job", "med-3");   /* step 1 < start_step: spared */
    assert_false(cu_bool(cJSON_GetObjectItemCaseSensitive(spared, "status"), "stopRequested", 0));
    cJSON_Delete(spared);
    report("med-3", "default", 0.1, 2);
    pump();
    cJSON *job = object("Job", "med-3");
    assert_true(cu_bool(cJSON_GetObjectItemCaseSensitive(job, "status"), "stopRequested", 0));
    const char *why = cu_str(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(job, "metadata"), "annotations"), HS_ANN_EARLY);
    assert_non_null(why);
    assert_non_null(strstr(why, "medianstop"));
    cJSON_Delete(job);
    int n;
    const struct cube_mock_event *ev = cube_mock_events(&n);
    int early = 0;
    for (int i = 0; i < n; i++)
        early += !strcmp(ev[i].reason, "EarlyStopped");
    assert_true(early >= 1);
    job_phase("med-3", "Cancelled");   /* the core ends the stopped Job */
    pump();
    cJSON *s = status_of("med");
    assert_string_equal(cu_str(s, "phase"), "Succeeded");
    assert_int_equal((int)cu_num(cJSON_GetObjectItemCaseSensitive(s, "trials"), "EarlyStopped", 0), 1);
    cJSON_Delete(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(trials_follow_their_jobs, setup, teardown),
        cmocka_unit_test_setup_teardown(a_restart_rebuilds_the_same_search, setup, teardown),
        cmocka_unit_test_setup_teardown(missing_results_and_failures, setup, teardown),
        cmocka_unit_test_setup_teardown(a_refused_job_fails_the_experiment, setup, teardown),
        cmocka_unit_test_setup_teardown(medianstop_stops_a_job, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
