/* test_rundirs.c — who may write a run's files (rundirs.c), against the
 * fake host: pipeline-runs/ made root's and sticky, task directories made
 * ahead only in a run directory vouched for, and a run made before (group
 * writable) made its owner's alone. Needs root (skipped otherwise): the
 * run's account is played by uid 4321, another member by 4322. */
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

#include "cube_mock.h"
#include "pipeline.h"

#define OWNER 4321
#define OTHER 4322

const struct cube_plugin_desc *cube_plugin_pipeline(void);

static struct pl *pl;
static struct cube_plugin_desc desc;
static char files[64], path[1024];

/* The plugin's init plus a stand-in Job kind (as test_unit.c). */
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
    if (geteuid() != 0)
        skip();
    desc = *cube_plugin_pipeline();
    desc.init = init_with_jobs;
    assert_int_equal(cube_mock_init(&desc, "{\"templates_dir\":\"none\",\"pass_gap_ms\":0,"
                                    "\"status_write_ms\":0}", &state), CUBE_OK);
    pl = state;
    cube_mock_set_user("alice", "ops");
    snprintf(files, sizeof files, "/tmp/cube-pl-rundirs-XXXXXX");
    assert_non_null(mkdtemp(files));
    snprintf(pl->files_root, sizeof pl->files_root, "%s", files);
    return 0;
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

/* files/demo/<rel> (static). */
static const char *at(const char *fmt, const char *arg)
{
    char rel[512];
    snprintf(rel, sizeof rel, fmt, arg);
    snprintf(path, sizeof path, "%s/demo/%s", files, rel);
    return path;
}

static void sh(const char *fmt, const char *arg)
{
    char cmd[2048], rel[1024];
    snprintf(rel, sizeof rel, fmt, arg);
    snprintf(cmd, sizeof cmd, "cd '%s/demo' && %s", files, rel);
    assert_int_equal(system(cmd), 0);
}

static struct stat stat_of(const char *fmt, const char *arg)
{
    struct stat st;
    if (lstat(at(fmt, arg), &st) < 0)
        fail_msg("%s is missing", path);
    return st;
}

/* A chain a -> b -> c -> d started; its run's name (static). */
static const char *start_chain(void)
{
    static char run[80];
    int rc;
    char *out = pl->host->obj_create(pl->self, "{\"kind\":\"Pipeline\",\"metadata\":{"
        "\"name\":\"chain\",\"project\":\"demo\"},\"spec\":{\"parallelism\":1,\"tasks\":["
        "{\"name\":\"a\",\"command\":[\"true\"]},"
        "{\"name\":\"b\",\"command\":[\"true\"],\"upstream\":[\"a\"]},"
        "{\"name\":\"c\",\"command\":[\"true\"],\"upstream\":[\"b\"]},"
        "{\"name\":\"d\",\"command\":[\"true\"],\"upstream\":[\"c\"]}]}}", &rc);
    assert_non_null(out);
    pl->host->free(out);
    struct cube_mock_response r = cube_mock_request(
        "POST", "/api/v1/projects/demo/pipelines/chain/run", NULL, NULL, "{}");
    assert_int_equal(r.status, 201);
    cJSON *o = cJSON_Parse(r.body);
    snprintf(run, sizeof run, "%s", cu_meta(o, "name"));
    cJSON_Delete(o);
    cube_mock_response_free(&r);
    for (int i = 0; i < 20 && cube_mock_controllers_pending(); i++)
        cube_mock_run_controllers();
    return run;
}

/* Task's Job succeeds; the run's passes follow. */
static void succeeds(const char *run, const char *task)
{
    char job[128];
    int rc;
    pl_join_name(run, task, job, sizeof job);
    char *out = pl->host->obj_update_status(pl->self, "Job", "demo", job,
                                            "{\"phase\":\"Succeeded\",\"attempts\":1}", NULL, &rc);
    assert_non_null(out);
    pl->host->free(out);
    for (int i = 0; i < 20 && cube_mock_controllers_pending(); i++)
        cube_mock_run_controllers();
    /* What a pass handed the plugin's directory worker is made before the
     * test looks: stopping it drains its queue (the next pass starts one). */
    pl_task_dirs_stop(pl);
}

/* 1 when task's Job runs through the wrapper. */
static int wrapped(const char *run, const char *task)
{
    char job[128];
    pl_join_name(run, task, job, sizeof job);
    const char *doc = cube_mock_object("Job", "demo", job);
    assert_non_null(doc);
    return strstr(doc, "cube-task") != NULL;
}

/* The run's directory and work, as its first task's wrapper makes them,
 * of OWNER with mode. */
static void make_run_dir(const char *run, mode_t mode)
{
    sh("mkdir -p pipeline-runs/%s/work", run);
    const char *dirs[] = {"pipeline-runs/%s", "pipeline-runs/%s/work"};
    for (int i = 0; i < 2; i++) {
        assert_int_equal(chown(at(dirs[i], run), OWNER, OWNER), 0);
        assert_int_equal(chmod(at(dirs[i], run), mode), 0);
    }
}

/* pipeline-runs/ is made root's and sticky before a run's first Job
 * (01777 while the project dir is root's group, 03770 with the project's
 * group), taken back from a task that made it, and a link put in its
 * place is moved aside. */
static void pipeline_runs_is_roots_and_sticky(void **st)
{
    (void)st;
    start_chain();
    struct stat s = stat_of("pipeline-runs", "");
    assert_true(S_ISDIR(s.st_mode));
    assert_int_equal(s.st_uid, 0);
    assert_int_equal(s.st_mode & 07777, 01777);
    assert_int_equal(chown(at("%s", ""), 0, 8765), 0);   /* the project's group */
    assert_int_equal(chown(at("pipeline-runs", ""), OWNER, OWNER), 0);
    assert_int_equal(chmod(at("pipeline-runs", ""), 02755), 0);
    assert_int_equal(pl_runs_dir_prepare(pl, "demo"), 0);
    s = stat_of("pipeline-runs", "");
    assert_int_equal(s.st_uid, 0);
    assert_int_equal(s.st_gid, 8765);
    assert_int_equal(s.st_mode & 07777, 03770);
    sh("mv pipeline-runs elsewhere && ln -s elsewhere pipeline-runs", "");
    assert_int_equal(pl_runs_dir_prepare(pl, "demo"), 0);
    s = stat_of("pipeline-runs", "");
    assert_true(S_ISDIR(s.st_mode));
    assert_int_equal(s.st_mode & 07777, 03770);
}

/* Task directories are made ahead (and tasks run without the wrapper)
 * only in a run directory vouched for: not in a link (to a directory of the
 * run's own account, even), not in one of root's; then, once a task that
 * ran through the wrapper succeeded in a real one of the account's, made
 * with its owner and group, writable by the owner only. */
static void dirs_are_made_only_in_a_run_dir_vouched_for(void **st)
{
    (void)st;
    char run[80];
    snprintf(run, sizeof run, "%s", start_chain());
    assert_true(wrapped(run, "a"));
    sh("mkdir -p elsewhere/work && chown -R 4321:4321 elsewhere && "
       "ln -s ../elsewhere pipeline-runs/%s", run);
    succeeds(run, "a");
    assert_true(wrapped(run, "b"));
    assert_false(pl_run_dir_vouched(pl, "demo", run, NULL));
    assert_int_equal(access(at("elsewhere/results", ""), F_OK), -1);
    sh("rm pipeline-runs/%s", run);
    make_run_dir(run, 02755);
    assert_int_equal(chown(at("pipeline-runs/%s", run), 0, 0), 0);   /* root's */
    succeeds(run, "b");
    assert_false(pl_run_dir_vouched(pl, "demo", run, NULL));
    assert_int_equal(access(at("pipeline-runs/%s/results", run), F_OK), -1);
    assert_int_equal(chown(at("pipeline-runs/%s", run), OWNER, OWNER), 0);
    assert_true(wrapped(run, "c"));
    succeeds(run, "c");   /* its wrapper checked a directory of the account's own */
    assert_true(pl_run_dir_vouched(pl, "demo", run, NULL));
    struct stat s = stat_of("pipeline-runs/%s/results/d", run);
    assert_int_equal(s.st_uid, OWNER);
    assert_int_equal(s.st_gid, OWNER);
    assert_int_equal(s.st_mode & 07777, 02755);
    /* a deleted run's voucher goes: a run of that name made later is another's */
    pl_run_reconcile(pl, "PipelineRun", "demo", run, NULL);
    assert_false(pl_run_dir_vouched(pl, "demo", run, NULL));
    /* a voucher is for that directory: one put in its place is not */
    sh("mv pipeline-runs/%1$s moved && mkdir pipeline-runs/%1$s && chown 4321 "
       "pipeline-runs/%1$s", run);
    assert_false(pl_run_dir_vouched(pl, "demo", run, NULL));
}

/* A run made before (umask 002) is made its owner's alone once vouched
 * for: write bits of group and others cleared, another account's file
 * taken over, its link and its second name of a file elsewhere removed
 * (that file untouched). */
static void an_old_run_is_made_private(void **st)
{
    (void)st;
    char run[80];
    snprintf(run, sizeof run, "%s", start_chain());
    make_run_dir(run, 02775);
    sh("cd pipeline-runs/%s/work && mkdir models && echo m > models/m.joblib && "
       "echo f > foreign && ln -s /etc/passwd link && echo x > ../../../outside && "
       "ln ../../../outside hard && chown -R 4321:4321 models && chmod 0664 models/m.joblib && "
       "chmod 2775 models && chown 4322 foreign hard && chmod 0666 foreign hard && "
       "chown -h 4322 link", run);
    succeeds(run, "a");
    assert_true(pl_run_dir_vouched(pl, "demo", run, NULL));
    struct stat s = stat_of("pipeline-runs/%s", run);
    assert_int_equal(s.st_mode & 07777, 02755);
    assert_int_equal(stat_of("pipeline-runs/%s/work", run).st_mode & 07777, 02755);
    assert_int_equal(stat_of("pipeline-runs/%s/work/models", run).st_mode & 07777, 02755);
    assert_int_equal(stat_of("pipeline-runs/%s/work/models/m.joblib", run).st_mode & 07777,
                     0644);
    s = stat_of("pipeline-runs/%s/work/foreign", run);
    assert_int_equal(s.st_uid, OWNER);
    assert_int_equal(s.st_mode & 07777, 0644);
    assert_int_equal(access(at("pipeline-runs/%s/work/link", run), F_OK), -1);
    assert_int_equal(access(at("pipeline-runs/%s/work/hard", run), F_OK), -1);
    s = stat_of("outside", "");
    assert_int_equal(s.st_uid, OTHER);
    assert_int_equal(s.st_mode & 07777, 0666);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(pipeline_runs_is_roots_and_sticky, setup, teardown),
        cmocka_unit_test_setup_teardown(dirs_are_made_only_in_a_run_dir_vouched_for, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(an_old_run_is_made_private, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
