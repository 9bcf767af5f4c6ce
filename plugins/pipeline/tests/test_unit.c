/* test_unit.c — the pipeline plugin against the fake host (no cubed):
 * validation naming the field, names, times, YAML round trips, and runs
 * driven step by step with fake Job statuses (fan-in, failure, skip,
 * parallelism, stop, rerun). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cube/util/yaml.h>

#include "cube_mock.h"
#include "pipeline.h"

const struct cube_plugin_desc *cube_plugin_pipeline(void);

static struct pl *pl;
static struct cube_plugin_desc desc;   /* the plugin's, with the init below */
static char files[64];                 /* the project files of a test */

/* The plugin's init, plus a stand-in for the core's Job kind (the fake
 * host has no core kinds; kinds may be registered only during init). */
static int init_with_jobs(const struct cube_host *host, cube_plugin *self, void **state)
{
    int rc = cube_plugin_pipeline()->init(host, self, state);
    const struct cube_kind_desc job = {
        .size = sizeof job, .kind = "Job", .plural = "jobs", .scope = CUBE_SCOPE_PROJECT,
        .spec_schema = "{\"type\":\"object\"}"};
    return rc == CUBE_OK ? host->register_kind(self, &job) : rc;
}

static int setup(void **st)
{
    (void)st;
    void *state = NULL;
    desc = *cube_plugin_pipeline();
    desc.init = init_with_jobs;
    int rc = cube_mock_init(&desc, "{\"templates_dir\":\"none\",\"pass_gap_ms\":0,\"status_write_ms\":0}", &state);
    pl = state;
    cube_mock_set_user("alice", "ops");
    snprintf(files, sizeof files, "/tmp/cube-pl-files-XXXXXX");
    assert_non_null(mkdtemp(files));
    if (pl)
        snprintf(pl->files_root, sizeof pl->files_root, "%s", files);
    if (rc != CUBE_OK)
        fprintf(stderr, "init: %s / %s\n", cube_mock_last_error(), cube_mock_last_log());
    return rc;
}

static int teardown(void **st)
{
    (void)st;
    char cmd[100];
    cube_mock_reset(&desc, pl);
    pl = NULL;
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", files);
    assert_int_equal(system(cmd), 0);
    return 0;
}

/* Validates a Pipeline spec; returns the field ("" when valid). */
static const char *check(const char *spec, char *msg)
{
    static char field[256];
    char doc[8192];
    snprintf(doc, sizeof doc, "{\"kind\":\"Pipeline\",\"metadata\":{\"name\":\"p\","
             "\"project\":\"demo\"},\"spec\":%s}", spec);
    field[0] = msg[0] = '\0';
    const struct cube_kind_desc *k = cube_mock_kind("Pipeline");
    int rc = k->validate(pl, doc, NULL, field, sizeof field, msg, 400);
    assert_true(rc == CUBE_OK ? field[0] == '\0' : 1);
    return field;
}

static void registers_kinds_and_actions(void **st)
{
    (void)st;
    assert_int_equal(cube_mock_kind_count(), 5);   /* with the stand-in Job */
    assert_non_null(cube_mock_kind("JobTemplate"));
    assert_int_equal(cube_mock_kind("JobTemplate")->scope, CUBE_SCOPE_CLUSTER);
    assert_int_equal(cube_mock_kind("ProjectJobTemplate")->scope, CUBE_SCOPE_PROJECT);
    assert_non_null(cube_mock_kind("PipelineRun")->reconcile);
    assert_int_equal(cube_mock_action_count(), 6);
}

static void bad_specs_name_the_field(void **st)
{
    (void)st;
    char msg[400];
    assert_string_equal(check("{\"tasks\":[{\"name\":\"a\",\"command\":[\"true\"]}]}", msg), "");
    assert_string_equal(check("{\"tasks\":[{\"name\":\"a\",\"command\":[\"true\"],"
                              "\"upstream\":[\"b\"]},{\"name\":\"b\",\"command\":[\"true\"],"
                              "\"upstream\":[\"a\"]}]}", msg), "spec.tasks[0].upstream");
    assert_non_null(strstr(msg, "cycle"));
    assert_string_equal(check("{\"tasks\":[{\"name\":\"a\",\"command\":[\"x\"]},{\"name\":\"b\","
                              "\"command\":[\"x\"],\"upstream\":[\"a\",\"zz\"]}]}", msg),
                        "spec.tasks[1].upstream[1]");
    assert_non_null(strstr(msg, "zz"));
    assert_string_equal(check("{\"tasks\":[{\"name\":\"a\",\"command\":[\"x\"]},"
                              "{\"name\":\"a\",\"command\":[\"x\"]}]}", msg),
                        "spec.tasks[1].name");
    assert_string_equal(check("{\"tasks\":[{\"name\":\"a\",\"template\":\"nope\"}]}", msg),
                        "spec.tasks[0].template");
    assert_string_equal(check("{\"tasks\":[{\"name\":\"a\",\"command\":[\"x\"]}],"
                              "\"schedule\":\"0 0 32 * *\"}", msg), "spec.schedule");
    assert_string_equal(check("{\"tasks\":[{\"name\":\"a\",\"command\":[\"x\"]}],"
                              "\"schedule\":\"@daily\",\"timezone\":\"Nowhere/Else\"}", msg),
                        "spec.timezone");
    /* no executor mounts volumes: refused here, not accepted and ignored */
    assert_string_equal(check("{\"tasks\":[{\"name\":\"a\",\"command\":[\"x\"]},"
                              "{\"name\":\"b\",\"command\":[\"x\"],\"mounts\":"
                              "[{\"name\":\"data\",\"path\":\"/data\"}]}]}", msg),
                        "spec.tasks[1].mounts");
    assert_non_null(strstr(msg, "not supported"));
}

static void template_args_are_checked(void **st)
{
    (void)st;
    char msg[400];
    int rc;
    const char *tmpl =
        "{\"kind\":\"ProjectJobTemplate\",\"metadata\":{\"name\":\"rf\",\"project\":\"demo\"},"
        "\"spec\":{\"command\":[\"train\"],\"args\":{\"train\":{\"--n_estimators\":{"
        "\"type\":\"int\",\"label\":\"Trees\",\"require\":1,\"default\":10,\"range\":\"1,1000\","
        "\"describe\":\"trees\"}}}}}";
    char *out = pl->host->obj_create(pl->self, tmpl, &rc);
    assert_non_null(out);
    pl->host->free(out);
    assert_string_equal(check("{\"tasks\":[{\"name\":\"t\",\"template\":\"rf\",\"args\":"
                              "{\"--n_estimators\":5000}}]}", msg),
                        "spec.tasks[0].args.--n_estimators");
    assert_string_equal(check("{\"tasks\":[{\"name\":\"t\",\"template\":\"rf\",\"args\":"
                              "{\"--n_estimators\":\"{{ tasks.x.outputs.n }}\"}}]}", msg), "");
    assert_string_equal(check("{\"tasks\":[{\"name\":\"t\",\"template\":\"rf\",\"args\":"
                              "{\"--depth\":3}}]}", msg), "spec.tasks[0].args");
    assert_non_null(strstr(msg, "--depth"));
    /* a bad schema is refused when the template is stored */
    const char *bad =
        "{\"kind\":\"ProjectJobTemplate\",\"metadata\":{\"name\":\"bad\",\"project\":\"demo\"},"
        "\"spec\":{\"command\":[\"x\"],\"args\":{\"g\":{\"--a\":{\"type\":\"colour\"}}}}}";
    out = pl->host->obj_create(pl->self, bad, &rc);
    assert_null(out);
    assert_int_equal(rc, CUBE_EINVAL);
}

static void names_and_times(void **st)
{
    (void)st;
    char name[80];
    pl_join_name("short", "task", name, sizeof name);
    assert_string_equal(name, "short-task");
    const char *longp = "a-very-long-pipeline-name-that-goes-on-and-on-and-on-for-ever";
    pl_join_name(longp, "202601010000-train-the-model", name, sizeof name);
    assert_true(strlen(name) <= 63);
    assert_true(name[strlen(name) - 1] != '-');
    char other[80];
    pl_join_name(longp, "202601010000-train-the-modem", other, sizeof other);
    assert_string_not_equal(name, other);
    assert_int_equal(pl_time_parse("2026-01-02"), 1767312000);
    assert_int_equal(pl_time_parse("2026-01-02T01:00:00+01:00"), 1767312000);
    assert_int_equal(pl_time_parse("2026-01-02 00:00:30.5Z"), 1767312030);
    assert_int_equal(pl_time_parse("2026-13-02"), -1);
    assert_int_equal(pl_time_parse("soon"), -1);
    char t[40];
    pl_time_format(1767312000, t, sizeof t);
    assert_string_equal(t, "2026-01-02T00:00:00Z");
}

/* The import route's reading of a body: one document, "line N: ..." on a fault. */
static cJSON *yaml_read(const char *text, char *msg, size_t mlen)
{
    return cu_yaml_parse(text, strlen(text), NULL, msg, mlen);
}

static void yaml_round_trip(void **st)
{
    (void)st;
    const char *json =
        "{\"kind\":\"Pipeline\",\"metadata\":{\"name\":\"p\"},\"spec\":{\"description\":"
        "\"a: b # c\\n'q'\",\"parallelism\":2.5,\"paused\":false,\"x\":null,\"env\":{},"
        "\"tasks\":[{\"name\":\"a\",\"args\":{\"--lr\":0.1,\"--list\":[1,\"two\"]},"
        "\"command\":[\"echo\",\"- dash\",\"\"]},{\"name\":\"b\",\"upstream\":[]}],"
        "\"matrix\":[[1,2],[3]]}}";
    cJSON *in = cJSON_Parse(json);
    char *y = pl_yaml_write(in), msg[200];
    assert_non_null(y);
    cJSON *back = yaml_read(y, msg, sizeof msg);
    assert_non_null(back);
    assert_true(cJSON_Compare(in, back, 1));
    cJSON_Delete(back);
    free(y);
    cJSON_Delete(in);
    /* hand-written YAML of the same subset, and errors with line numbers */
    back = yaml_read("# a pipeline\nkind: Pipeline\nspec:\n  tasks:\n  - name: a\n"
                        "    command: [\"true\"]\n  - name: 'b'\n    upstream:\n    - a\n",
                        msg, sizeof msg);
    assert_non_null(back);
    cJSON *tasks = cJSON_GetObjectItem(cJSON_GetObjectItem(back, "spec"), "tasks");
    assert_int_equal(cJSON_GetArraySize(tasks), 2);
    assert_string_equal(cu_str(cJSON_GetArrayItem(tasks, 1), "name"), "b");
    cJSON_Delete(back);
    assert_null(yaml_read("a: 1\nb: &anchor 2\n", msg, sizeof msg));
    assert_non_null(strstr(msg, "line 2"));
    assert_null(yaml_read("a:\n\tb: 1\n", msg, sizeof msg));
}

/* -- runs driven with fake Job statuses ----------------------------------- */

static void make_pipeline(const char *name, const char *spec)
{
    char doc[4096];
    int rc;
    snprintf(doc, sizeof doc, "{\"kind\":\"Pipeline\",\"metadata\":{\"name\":\"%s\","
             "\"project\":\"demo\"},\"spec\":%s}", name, spec);
    char *out = pl->host->obj_create(pl->self, doc, &rc);
    assert_non_null(out);
    pl->host->free(out);
}

/* POSTs the run action; returns the run's name (static). */
static const char *start_run(const char *pipeline)
{
    static char name[80];
    char path[200];
    snprintf(path, sizeof path, "/api/v1/projects/demo/pipelines/%s/run", pipeline);
    struct cube_mock_response r = cube_mock_request("POST", path, NULL, NULL, "{}");
    assert_int_equal(r.status, 201);
    cJSON *o = cJSON_Parse(r.body);
    snprintf(name, sizeof name, "%s", cu_meta(o, "name"));
    cJSON_Delete(o);
    cube_mock_response_free(&r);
    return name;
}

static void settle(void)
{
    for (int i = 0; i < 20 && cube_mock_controllers_pending(); i++)
        cube_mock_run_controllers();
}

/* The phase of task (or of the run when task is NULL). */
static const char *phase(const char *run, const char *task)
{
    static char out[40];
    cJSON *o = cJSON_Parse(cube_mock_object("PipelineRun", "demo", run));
    const cJSON *st = cJSON_GetObjectItem(o, "status");
    if (task)
        st = cJSON_GetObjectItem(cJSON_GetObjectItem(st, "tasks"), task);
    snprintf(out, sizeof out, "%s", cu_str(st, "phase") ? cu_str(st, "phase") : "");
    cJSON_Delete(o);
    return out;
}

/* Sets the phase of a task's Job, as the scheduler would. */
static void job_ends(const char *run, const char *task, const char *job_phase)
{
    char job[128], status[200];
    int rc;
    pl_join_name(run, task, job, sizeof job);
    if (!cube_mock_object("Job", "demo", job))
        fail_msg("no Job %s; run: %s", job, cube_mock_object("PipelineRun", "demo", run));
    snprintf(status, sizeof status, "{\"phase\":\"%s\",\"attempts\":1,\"reason\":\"Error\","
             "\"message\":\"exit 1\"}", job_phase);
    char *out = pl->host->obj_update_status(pl->self, "Job", "demo", job, status, NULL, &rc);
    assert_non_null(out);
    pl->host->free(out);
    settle();
}

static int job_exists(const char *run, const char *task)
{
    char job[128];
    pl_join_name(run, task, job, sizeof job);
    return cube_mock_object("Job", "demo", job) != NULL;
}

static void dag_with_fake_jobs(void **st)
{
    (void)st;
    make_pipeline("dag", "{\"parallelism\":2,\"tasks\":["
                  "{\"name\":\"a\",\"command\":[\"echo\",\"{{ execution_date | ds_add(-1) }}\"]},"
                  "{\"name\":\"b\",\"command\":[\"true\"],\"upstream\":[\"a\"]},"
                  "{\"name\":\"c\",\"command\":[\"true\"],\"upstream\":[\"a\"]},"
                  "{\"name\":\"d\",\"command\":[\"true\"],\"upstream\":[\"a\"]},"
                  "{\"name\":\"s\",\"command\":[\"true\"],\"upstream\":[\"a\"],\"skip\":true},"
                  "{\"name\":\"e\",\"command\":[\"true\"],\"upstream\":[\"b\",\"c\"]},"
                  "{\"name\":\"f\",\"command\":[\"true\"],\"upstream\":[\"s\"]}]}");
    const char *run0 = start_run("dag");
    char run[80];
    snprintf(run, sizeof run, "%s", run0);
    settle();
    assert_string_equal(phase(run, NULL), "Running");
    assert_true(job_exists(run, "a"));
    assert_false(job_exists(run, "b"));
    job_ends(run, "a", "Succeeded");
    /* parallelism 2: b and c start (in order); s is skipped; d and f wait */
    assert_true(job_exists(run, "b") && job_exists(run, "c"));
    assert_false(job_exists(run, "d") || job_exists(run, "f"));
    assert_string_equal(phase(run, "s"), "Skipped");
    assert_string_equal(phase(run, "f"), "Pending");
    job_ends(run, "b", "Failed");
    assert_string_equal(phase(run, "b"), "Failed");
    assert_string_equal(phase(run, "e"), "UpstreamFailed");
    assert_true(job_exists(run, "d"));
    assert_false(job_exists(run, "f"));
    job_ends(run, "c", "Succeeded");
    assert_true(job_exists(run, "f"));   /* after a skipped upstream */
    job_ends(run, "d", "Succeeded");
    assert_string_equal(phase(run, NULL), "Running");
    job_ends(run, "f", "Succeeded");
    assert_string_equal(phase(run, NULL), "Failed");
    /* the Job spec carries the wrapper, env and owner */
    char job[128];
    pl_join_name(run, "a", job, sizeof job);
    cJSON *j = cJSON_Parse(cube_mock_object("Job", "demo", job));
    const cJSON *env = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "spec"), "env");
    assert_non_null(strstr(cu_str(env, "CUBE_OUTPUTS"), "/demo/pipeline-runs/"));
    assert_string_equal(cu_str(env, "CUBE_TASK"), "a");
    /* the command was rendered: the day before the execution date */
    cJSON *r0 = cJSON_Parse(cube_mock_object("PipelineRun", "demo", run));
    char day[16], want[40];
    snprintf(day, sizeof day, "%.10s", cu_str(cJSON_GetObjectItem(r0, "spec"), "executionDate"));
    pl_time_format(pl_time_parse(day) - 86400, want, sizeof want);
    want[10] = '\0';
    const char *rendered = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "spec"),
                                                                  "command"), 5)->valuestring;
    assert_non_null(strstr(rendered, want));
    cJSON_Delete(r0);
    /* the host made the run's owner (who started it) the Job's: it runs as alice */
    assert_string_equal(cu_meta(j, "owner"), "alice");
    assert_null(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "metadata"), "annotations"));
    cJSON_Delete(j);
    /* rerun the failed part: b gets a new Job, then e */
    char path[200];
    snprintf(path, sizeof path, "/api/v1/projects/demo/pipelineruns/%s/rerun", run);
    struct cube_mock_response r = cube_mock_request("POST", path, NULL, NULL, "{}");
    assert_int_equal(r.status, 200);
    cube_mock_response_free(&r);
    settle();
    assert_string_equal(phase(run, NULL), "Running");
    assert_true(job_exists(run, "b-1"));
    job_ends(run, "b-1", "Succeeded");
    job_ends(run, "e-1", "Succeeded");   /* reset with b: its second Job */
    assert_string_equal(phase(run, NULL), "Succeeded");
}

static void stop_stops_running_and_pending(void **st)
{
    (void)st;
    make_pipeline("st", "{\"alerts\":[\"Stopped\"],\"tasks\":[{\"name\":\"a\",\"command\":[\"sleep\",\"9\"]},"
                  "{\"name\":\"b\",\"command\":[\"true\"],\"upstream\":[\"a\"]}]}");
    char run[80], path[200];
    snprintf(run, sizeof run, "%s", start_run("st"));
    settle();
    assert_true(job_exists(run, "a"));
    snprintf(path, sizeof path, "/api/v1/projects/demo/pipelineruns/%s/stop", run);
    cube_mock_set_user("bob", "dev");
    struct cube_mock_response r = cube_mock_request("POST", path, NULL, NULL, NULL);
    assert_int_equal(r.status, 403);   /* a dev may stop only their own runs */
    cube_mock_response_free(&r);
    cube_mock_set_user("alice", "dev");
    r = cube_mock_request("POST", path, NULL, NULL, NULL);
    assert_int_equal(r.status, 200);
    cube_mock_response_free(&r);
    settle();
    /* the running task's Job is asked to stop (as the Job stop action
     * would), not deleted: the core's Job controller ends it Cancelled */
    char job[128];
    pl_join_name(run, "a", job, sizeof job);
    cJSON *j = cJSON_Parse(cube_mock_object("Job", "demo", job));
    assert_non_null(j);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(j, "status"), "stopRequested")));
    cJSON_Delete(j);
    assert_string_equal(phase(run, NULL), "Running");   /* until the Job has ended */
    assert_string_equal(phase(run, "b"), "Stopped");
    job_ends(run, "a", "Cancelled");
    assert_string_equal(phase(run, NULL), "Stopped");
    assert_string_equal(phase(run, "a"), "Stopped");
    assert_true(job_exists(run, "a"));
    int n, alerts = 0;
    const struct cube_mock_event *ev = cube_mock_events(&n);
    for (int i = 0; i < n; i++)
        alerts += !strcmp(ev[i].reason, "Alert") && !strcmp(ev[i].name, run);
    assert_int_equal(alerts, 1);   /* asked for Stopped only */
}

/* With a pass gap, a second pass right after the first is put off: the
 * host is asked to call again (a positive ms, at most twice what the pass
 * took and never more than the gap), and nothing is read. */
static void passes_are_paced(void **st)
{
    (void)st;
    make_pipeline("pace", "{\"tasks\":[{\"name\":\"a\",\"command\":[\"true\"]}]}");
    char run[80];
    snprintf(run, sizeof run, "%s", start_run("pace"));
    settle();
    const char *doc = cube_mock_object("PipelineRun", "demo", run);
    assert_non_null(doc);
    char *text = strdup(doc);
    pl->pass_gap_ms = 1000;
    double t0 = pl_clock();
    assert_true(pl_run_reconcile(pl, "PipelineRun", "demo", run, text) <= 0);   /* a pass */
    double took = pl_clock() - t0;
    int wait = pl_run_reconcile(pl, "PipelineRun", "demo", run, text);
    assert_true(wait >= 0 && wait <= (int)(2 * took * 1000) + 1);
    pl->pass_gap_ms = 0;   /* no pacing: a pass at once */
    assert_true(pl_run_reconcile(pl, "PipelineRun", "demo", run, text) <= 0);
    free(text);
}

static int near(double a, double b)
{
    return a - b < 1e-9 && b - a < 1e-9;
}

/* The delay after a pass: twice the pass, capped by the gap; none
 * without a gap. */
static void pace_delay_is_twice_the_pass_up_to_the_gap(void **st)
{
    (void)st;
    assert_true(near(pl_pace_delay(20, 0.001), 0.002));    /* a chain's pass */
    assert_true(near(pl_pace_delay(20, 0.022), 0.020));    /* a wide run's */
    assert_true(near(pl_pace_delay(1000, 0.3), 0.6));
    assert_true(pl_pace_delay(0, 0.5) == 0);
    assert_true(pl_pace_delay(20, -1) == 0);   /* a clock step back */
}

/* The env value `key` of a task's Job ("" when none). */
static const char *job_env(const char *run, const char *task, const char *key)
{
    static char out[1024];
    char job[128];
    pl_join_name(run, task, job, sizeof job);
    cJSON *o = cJSON_Parse(cube_mock_object("Job", "demo", job));
    const char *v = cu_str(cJSON_GetObjectItem(cJSON_GetObjectItem(o, "spec"), "env"), key);
    snprintf(out, sizeof out, "%s", v ? v : "");
    cJSON_Delete(o);
    return out;
}

/* Checks a run's task directories in its layout (pipeline.h): before the
 * work directory exists nothing is made; after the wrapper of a task made
 * it and succeeded, b's result directory and the one above it (layout 1:
 * tasks/b; layout 2: the run's outputs) are made like the run's directory,
 * by the plugin's thread. */
static void task_dirs_in_layout(const char *root, const char *run, int layout)
{
    char path[1024], above[1024], work[1024], rundir[1024], cmd[1100];
    struct stat ws, rs;
    settle();
    assert_true(job_exists(run, "a"));
    snprintf(path, sizeof path, layout == 2 ? "%s/demo/pipeline-runs/%s/results/%s"
             : "%s/demo/pipeline-runs/%s/tasks/%s/results", root, run, "a");
    assert_string_equal(job_env(run, "a", "CUBE_OUTPUT_DIR"), path);
    assert_int_equal(access(path, F_OK), -1);   /* no work directory yet */
    snprintf(path, sizeof path, layout == 2 ? "%s/demo/pipeline-runs/%s/outputs/%s"
             : "%s/demo/pipeline-runs/%s/tasks/%s/outputs", root, run, "a");
    assert_string_equal(job_env(run, "a", "CUBE_OUTPUTS"), path);
    snprintf(work, sizeof work, "%s/demo/pipeline-runs/%s/work", root, run);
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", work);
    assert_int_equal(system(cmd), 0);           /* as task a's wrapper does */
    snprintf(rundir, sizeof rundir, "%s/demo/pipeline-runs/%s", root, run);
    const char *own[] = {rundir, work};         /* the task's account's */
    for (int i = 0; i < 2; i++) {
        assert_int_equal(chmod(own[i], 02751), 0);
        if (geteuid() == 0)
            assert_int_equal(chown(own[i], 4321, 8765), 0);
    }
    assert_int_equal(stat(rundir, &ws), 0);
    job_ends(run, "a", "Succeeded");            /* its wrapper vouched for the run's */
    assert_true(job_exists(run, "b"));
    snprintf(path, sizeof path, layout == 2 ? "%s/demo/pipeline-runs/%s/results/b"
             : "%s/demo/pipeline-runs/%s/tasks/b/results", root, run);
    snprintf(above, sizeof above, layout == 2 ? "%s/demo/pipeline-runs/%s/outputs"
             : "%s/demo/pipeline-runs/%s/tasks/b", root, run);
    for (int i = 0; i < 400 && (stat(path, &rs) < 0 || stat(above, &rs) < 0); i++)
        usleep(5000);   /* the plugin's thread */
    const char *dirs[] = {path, above};
    for (int i = 0; i < 2; i++) {
        if (stat(dirs[i], &rs) < 0)
            fail_msg("layout %d: %s was not made within 2 s", layout, dirs[i]);
        assert_true(S_ISDIR(rs.st_mode));
        assert_int_equal(rs.st_mode & 07777, 02751);
        assert_int_equal(rs.st_uid, ws.st_uid);
        assert_int_equal(rs.st_gid, ws.st_gid);
    }
}

/* New runs use layout 2; a run without spec.layout (made before it) keeps
 * layout 1, in its Jobs' paths and in the directories made for them. */
static void task_dirs_are_made_like_the_work_dir(void **st)
{
    (void)st;
    char root[] = "/tmp/cube-pl-dirs-XXXXXX", cmd[100];
    assert_non_null(mkdtemp(root));
    snprintf(pl->files_root, sizeof pl->files_root, "%s", root);
    make_pipeline("dirs", "{\"parallelism\":2,\"tasks\":["
                  "{\"name\":\"a\",\"command\":[\"true\"]},"
                  "{\"name\":\"b\",\"command\":[\"true\"],\"upstream\":[\"a\"]}]}");
    char run[80], old[96];
    snprintf(run, sizeof run, "%s", start_run("dirs"));
    cJSON *o = cJSON_Parse(cube_mock_object("PipelineRun", "demo", run));
    assert_int_equal(cu_num(cJSON_GetObjectItem(o, "spec"), "layout", 0), PL_LAYOUT);
    /* the same snapshot as a run of an older version */
    snprintf(old, sizeof old, "%s-old", run);
    cJSON_DeleteItemFromObject(cJSON_GetObjectItem(o, "spec"), "layout");
    cJSON_DeleteItemFromObject(cJSON_GetObjectItem(o, "spec"), "creator");
    cJSON_DeleteItemFromObject(o, "status");
    cJSON *meta = cJSON_GetObjectItem(o, "metadata");
    cJSON_DeleteItemFromObject(meta, "uid");
    cJSON_DeleteItemFromObject(meta, "resourceVersion");
    cJSON_ReplaceItemInObject(meta, "name", cJSON_CreateString(old));
    char *doc = cJSON_PrintUnformatted(o), *made;
    int rc;
    assert_non_null(made = pl->host->obj_create(pl->self, doc, &rc));
    pl->host->free(made);
    free(doc);
    cJSON_Delete(o);
    task_dirs_in_layout(root, run, 2);
    task_dirs_in_layout(root, old, 1);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    assert_int_equal(system(cmd), 0);
}

/* A pass within status_write_ms of the last write starts tasks from its
 * memory without writing (asking to come back when it may); the stored
 * status catches up later. A pass given another text (a restart, someone
 * else's write) reads the stored run again and adopts the Jobs created
 * meanwhile: nothing is lost or started twice. */
static void spaced_status_writes(int stop)
{
    make_pipeline("memo", "{\"parallelism\":4,\"tasks\":["
                  "{\"name\":\"a\",\"command\":[\"true\"]},"
                  "{\"name\":\"b\",\"command\":[\"true\"],\"upstream\":[\"a\"]},"
                  "{\"name\":\"c\",\"command\":[\"true\"],\"upstream\":[\"a\"]}]}");
    char run[80];
    snprintf(run, sizeof run, "%s", start_run("memo"));
    settle();
    assert_string_equal(phase(run, "a"), "Running");   /* the start is written at once */
    pl->status_write_ms = 60000;
    job_ends(run, "a", "Succeeded");
    /* b and c started from memory; the stored status still says Running */
    assert_true(job_exists(run, "b") && job_exists(run, "c"));
    assert_string_equal(phase(run, "a"), "Running");
    assert_string_equal(phase(run, "b"), "Pending");
    char *text = strdup(cube_mock_object("PipelineRun", "demo", run));
    int wait = pl_run_reconcile(pl, "PipelineRun", "demo", run, text);
    assert_true(wait > 0 && wait <= 60001);   /* back when it may write */
    if (stop) {
        /* stopped before b and c were written: their Jobs are stopped, not
         * left running behind tasks marked "stopped before it ran" */
        char path[200], job[128];
        snprintf(path, sizeof path, "/api/v1/projects/demo/pipelineruns/%s/stop", run);
        struct cube_mock_response r = cube_mock_request("POST", path, NULL, NULL, NULL);
        assert_int_equal(r.status, 200);
        cube_mock_response_free(&r);
        settle();
        free(text);
        assert_string_equal(phase(run, "b"), "Running");
        pl_join_name(run, "b", job, sizeof job);
        cJSON *j = cJSON_Parse(cube_mock_object("Job", "demo", job));
        assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(j, "status"), "stopRequested")));
        cJSON_Delete(j);
        job_ends(run, "b", "Cancelled");
        job_ends(run, "c", "Cancelled");
        assert_string_equal(phase(run, "b"), "Stopped");
        assert_string_equal(phase(run, NULL), "Stopped");
        return;
    }
    /* a restart: the memo is gone; the next pass reads the stored run and
     * its Jobs, adopts b and c, and writes (the write is due) */
    pl_memo_forget(pl, "demo", run);
    pl->status_write_ms = 0;
    assert_true(pl_run_reconcile(pl, "PipelineRun", "demo", run, text) <= 0);
    free(text);
    assert_string_equal(phase(run, "a"), "Succeeded");
    assert_string_equal(phase(run, "b"), "Running");
    assert_string_equal(phase(run, "c"), "Running");
    job_ends(run, "b", "Succeeded");
    job_ends(run, "c", "Succeeded");
    assert_string_equal(phase(run, NULL), "Succeeded");
}

static void status_writes_are_spaced_and_lose_nothing(void **st)
{
    (void)st;
    spaced_status_writes(0);
}

static void a_stop_meets_jobs_not_written_yet(void **st)
{
    (void)st;
    spaced_status_writes(1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(registers_kinds_and_actions, setup, teardown),
        cmocka_unit_test_setup_teardown(bad_specs_name_the_field, setup, teardown),
        cmocka_unit_test_setup_teardown(template_args_are_checked, setup, teardown),
        cmocka_unit_test_setup_teardown(names_and_times, setup, teardown),
        cmocka_unit_test_setup_teardown(yaml_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(dag_with_fake_jobs, setup, teardown),
        cmocka_unit_test_setup_teardown(task_dirs_are_made_like_the_work_dir, setup, teardown),
        cmocka_unit_test_setup_teardown(status_writes_are_spaced_and_lose_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(a_stop_meets_jobs_not_written_yet, setup, teardown),
        cmocka_unit_test_setup_teardown(stop_stops_running_and_pending, setup, teardown),
        cmocka_unit_test_setup_teardown(passes_are_paced, setup, teardown),
        cmocka_unit_test(pace_delay_is_twice_the_pass_up_to_the_gap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
