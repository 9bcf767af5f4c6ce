/* test_unit.c — executor-local without processes or root: config checks,
 * the node document, replica documents, argv/env, engine ids, status
 * verdicts and the executor callbacks. What isolates a replica (account
 * names, cgroups, mount views, bubblewrap) is in test_isolation.c. */
#include "xl_test.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>

#include <cjson/cJSON.h>

static char root[256];

static int make_root(void **st)
{
    (void)st;
    assert_true(snprintf(root, sizeof root, "%s", xt_tmpdir("unit", 0755)) < (int)sizeof root);
    return 0;
}

static int drop_root(void **st)
{
    (void)st;
    xt_sh("rm -rf '%s'", root);
    return 0;
}

static void descriptor_is_complete(void **st)
{
    (void)st;
    const struct cube_plugin_desc *d = cube_plugin_executor_local();
    assert_int_equal(d->magic, CUBE_PLUGIN_MAGIC);
    assert_int_equal(d->size, sizeof *d);
    assert_string_equal(d->name, "executor-local");
    assert_non_null(d->init);
    assert_non_null(d->fini);
    cJSON *schema = cJSON_Parse(d->config_schema);
    assert_true(cJSON_IsObject(schema));
    assert_non_null(cJSON_GetObjectItem(cJSON_GetObjectItem(schema, "properties"), "uid_min"));
    cJSON_Delete(schema);
}

/* xl_conf_load of a config as the host hands it over: validated against
 * the plugin's schema, its defaults applied (what cubed does, and the fake
 * host through cube_mock_config). A refusal is the host's. */
static int load_via_host(struct xl_conf *c, const char *json, const char *data_dir,
                         char *err, size_t len)
{
    char *cfg = cube_mock_config(cube_plugin_executor_local()->config_schema, json, err, len);
    if (!cfg)
        return CUBE_EINVAL;
    int rc = xl_conf_load(c, cfg, data_dir, err, len);
    free(cfg);
    return rc;
}

/* The defaults are the schema's alone: the host applies them. */
static void config_defaults(void **st)
{
    (void)st;
    struct xl_conf c;
    char err[256] = "", host[256] = "";
    assert_int_equal(load_via_host(&c, "{}", "/var/lib/cube/plugins/executor-local", err,
                                   sizeof err), CUBE_OK);
    gethostname(host, sizeof host);
    host[strcspn(host, ".")] = '\0';
    for (char *p = host; *p; p++)
        *p = (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
    assert_string_equal(c.node_name, host);
    assert_string_equal(c.pool, "default");
    assert_string_equal(c.labels_json, "{}");
    assert_int_equal(c.uid_min, 20000);
    assert_int_equal(c.uid_max, 29999);
    assert_string_equal(c.user_prefix, "cube-");
    assert_string_equal(c.group_prefix, "cube-p-");
    assert_string_equal(c.home_root, "/var/lib/cube/plugins/executor-local/home");
    assert_string_equal(c.projects_root, "/var/lib/cube/projects");
    assert_string_equal(c.run_root, "/var/lib/cube/plugins/executor-local/run");
    assert_int_equal(c.sandbox, XL_SANDBOX_NONE);
    assert_int_equal(c.cgroup_mode, XL_CG_AUTO);
    assert_int_equal(c.poll_ms, 10);
    assert_int_equal(c.timeout_grace, 10);
    /* A replica's default fits many times under the total of all of them,
     * which is computed at start (0 here) below the kernel's pid_max. */
    assert_int_equal(c.pids_max, 4096);
    assert_int_equal(c.pids_max_total, 0);
    assert_true(c.pids_max < xl_pids_total_auto(32768, 192725));
    xl_conf_free(&c);
}

/* Each bad setting is refused, by the host's schema check or by the
 * plugin, with an error that starts with its name. */
static void config_rejects_bad_settings(void **st)
{
    (void)st;
    static const char *const cases[][2] = {
        {"{\"uid_min\":30000,\"uid_max\":20000}", "uid_max:"},
        {"{\"uid_min\":10}", "uid_min:"},
        {"{\"bogus\":1}", "bogus:"},
        {"{\"reserved_cpus\":100000}", "reserved_cpus:"},
        {"{\"reserved_memory\":\"lots\"}", "reserved_memory:"},
        {"{\"user_prefix\":\"Cube\"}", "user_prefix:"},
        {"{\"group_prefix\":\"-x\"}", "group_prefix:"},
        {"{\"home_root\":\"rel/x\"}", "home_root:"},
        {"{\"run_dir\":\"/a/../b\"}", "run_dir:"},
        {"{\"sandbox\":\"docker\"}", "sandbox:"},
        {"{\"cgroup\":\"v3\"}", "cgroup:"},
        {"{\"cgroup_parent\":\"relative\"}", "cgroup_parent:"},
        {"{\"labels\":{\"zone\":1}}", "labels.zone:"},
        {"{\"node_name\":\"Bad_Name\"}", "node_name:"},
        {"{\"pool\":\"a.b\"}", "pool:"},
        {"{\"poll_ms\":5}", "poll_ms:"},
        {"{\"pids_max\":-1}", "pids_max:"},
        {"{\"pids_max_total\":-1}", "pids_max_total:"},
        {"{\"pids_max_total\":1.5}", "pids_max_total:"},
        {"{\"path\":\"\"}", "path:"},
        {"{\"supervisor\":\"rel/cube-xl-supervisor\"}", "supervisor:"},
        {"{\"supervisor\":\"/no/such/cube-xl-supervisor\"}", "supervisor:"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct xl_conf c;
        char err[256] = "";
        assert_int_equal(load_via_host(&c, cases[i][0], "/d", err, sizeof err), CUBE_EINVAL);
        if (strncmp(err, cases[i][1], strlen(cases[i][1])) != 0)
            fail_msg("%s: error \"%s\" does not start with %s", cases[i][0], err, cases[i][1]);
    }
    assert_int_equal(xl_parse_bytes("512Mi"), 512LL << 20);
    assert_int_equal(xl_parse_bytes("2G"), 2000000000LL);
    assert_int_equal(xl_parse_bytes("1x"), -1);
}

static void init_fails_naming_the_setting(void **st)
{
    (void)st;
    char *cfg = xt_config(root, "\"uid_min\":25000,\"uid_max\":21000");
    void *state = NULL;
    assert_int_equal(cube_mock_init(cube_plugin_executor_local(), cfg, &state), CUBE_EINVAL);
    assert_null(state);
    assert_non_null(strstr(cube_mock_last_error(), "uid_max"));
    assert_null(cube_mock_executor());
    cube_mock_reset(cube_plugin_executor_local(), NULL);
    free(cfg);
}

/* Settings left out get the schema's defaults from the host (conf.c has
 * none of its own): they reach the node document. */
static void host_defaults_reach_the_node(void **st)
{
    (void)st;
    char *cfg = xt_config(root, "\"node_name\":\"n-def\"");
    void *state = NULL;
    assert_int_equal(cube_mock_init(cube_plugin_executor_local(), cfg, &state), CUBE_OK);
    cJSON *n = cJSON_Parse(cube_mock_node("n-def"));
    assert_non_null(n);
    assert_string_equal(cJSON_GetObjectItem(n, "pool")->valuestring, "default");
    cJSON *ports = cJSON_GetObjectItem(n, "jobPorts");
    assert_int_equal(cJSON_GetObjectItem(ports, "min")->valueint, 29500);
    assert_int_equal(cJSON_GetObjectItem(ports, "max")->valueint, 30999);
    cJSON_Delete(n);
    cube_mock_reset(cube_plugin_executor_local(), state);
    free(cfg);
}

/* A fake accelerator, to see devices reach the node document. */
static int fake_discover(void *state, char **json)
{
    (void)state;
    *json = strdup("[{\"id\":\"0\",\"model\":\"Fake\",\"memory\":\"8Gi\",\"healthy\":true}]");
    return CUBE_OK;
}

static int fake_pin(void *state, const char *ids, double share, char **env)
{
    (void)state, (void)ids, (void)share;
    *env = strdup("{}");
    return CUBE_OK;
}

/* MemTotal in KiB. */
static unsigned long long mem_kib(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    unsigned long long kb = 0;
    assert_non_null(f);
    assert_int_equal(fscanf(f, "MemTotal: %llu kB", &kb), 1);
    fclose(f);
    return kb;
}

static void node_is_advertised(void **st)
{
    (void)st;
    cube_plugin *self;
    const struct cube_host *h = cube_mock_host(NULL, &self);
    const struct cube_accel_desc acc = {.size = sizeof acc, .name = "fake",
        .resource = "example.com/gpu", .discover = fake_discover, .pin_env = fake_pin};
    assert_int_equal(h->register_accel(self, &acc), CUBE_OK);
    char *cfg = xt_config(root, "\"node_name\":\"gpu-01\",\"pool\":\"train\","
                                "\"labels\":{\"zone\":\"a\"},\"reserved_memory\":\"1Mi\"");
    void *state;
    assert_int_equal(cube_mock_init(cube_plugin_executor_local(), cfg, &state), CUBE_OK);
    const struct cube_executor_desc *ex = cube_mock_executor();
    assert_non_null(ex);
    assert_string_equal(ex->name, "local");
    assert_non_null(ex->start);
    assert_non_null(ex->stop);
    assert_non_null(ex->adopt);
    cJSON *n = cJSON_Parse(cube_mock_node("gpu-01"));
    assert_non_null(n);
    assert_string_equal(cJSON_GetObjectItem(n, "pool")->valuestring, "train");
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(n, "labels"), "zone")->valuestring, "a");
    cJSON *cap = cJSON_GetObjectItem(n, "capacity");
    char want[64];
    snprintf(want, sizeof want, "%ld", sysconf(_SC_NPROCESSORS_ONLN));
    assert_string_equal(cJSON_GetObjectItem(cap, "cpu")->valuestring, want);
    snprintf(want, sizeof want, "%lluKi", mem_kib() - 1024);
    assert_string_equal(cJSON_GetObjectItem(cap, "memory")->valuestring, want);
    cJSON *dev = cJSON_GetArrayItem(cJSON_GetObjectItem(n, "devices"), 0);
    assert_string_equal(cJSON_GetObjectItem(dev, "resource")->valuestring, "example.com/gpu");
    assert_string_equal(cJSON_GetObjectItem(dev, "model")->valuestring, "Fake");
    cJSON_Delete(n);
    assert_int_equal(cube_mock_node_count(), 1);
    cube_mock_reset(cube_plugin_executor_local(), state);
    free(cfg);
}

static void node_without_devices_says_empty_list(void **st)
{
    (void)st;
    char msg[256];
    struct xl_conf c;
    assert_int_equal(load_via_host(&c, "{\"node_name\":\"n1\",\"reserved_cpus\":0}", "/d",
                                   msg, sizeof msg), CUBE_OK);
    char *doc = xl_node_document(&c, "[]", msg, sizeof msg);
    assert_non_null(doc);
    assert_non_null(strstr(doc, "\"devices\":[]"));
    assert_non_null(strstr(doc, "\"name\":\"n1\""));
    free(doc);
    xl_conf_free(&c);
}

static void replica_document_is_parsed(void **st)
{
    (void)st;
    struct xl_replica r;
    char msg[256] = "";
    const char *doc =
        "{\"job\":{},\"replica\":1,\"replicas\":2,\"node\":\"gpu-01\",\"user\":\"alice\","
        "\"project\":\"vision\",\"command\":[\"python3\",\"train.py\",\"--lr=0.1\"],"
        "\"workdir\":\"/w\",\"image\":\"img:1\",\"timeoutSeconds\":3600,"
        "\"limits\":{\"cpuMillis\":2000,\"memoryBytes\":4294967296},"
        "\"env\":{\"RANK\":\"1\",\"CUDA_VISIBLE_DEVICES\":\"0,1\"},"
        "\"log\":{\"kind\":\"Job\",\"project\":\"vision\",\"name\":\"train\","
        "\"stream\":\"replica-1\"}}";
    assert_int_equal(xl_replica_parse(&r, doc, msg, sizeof msg), CUBE_OK);
    assert_int_equal(r.argc, 3);
    assert_string_equal(r.argv[2], "--lr=0.1");
    assert_null(r.argv[3]);
    assert_int_equal(r.envc, 2);
    assert_string_equal(xl_env_get(r.env, "CUDA_VISIBLE_DEVICES"), "0,1");
    assert_string_equal(r.user, "alice");
    assert_string_equal(r.project, "vision");
    assert_string_equal(r.workdir, "/w");
    assert_string_equal(r.image, "img:1");
    assert_int_equal(r.timeout_s, 3600);
    assert_int_equal(r.cpu_millis, 2000);
    assert_int_equal(r.memory_bytes, 4294967296LL);
    assert_int_equal(r.index, 1);
    assert_string_equal(r.log.stream, "replica-1");
    assert_string_equal(r.log.name, "train");

    char **env = xl_env_build(&r, "/h/alice", "cube-alice", "/p/vision", "/usr/bin:/bin");
    assert_string_equal(xl_env_get(env, "HOME"), "/h/alice");
    assert_string_equal(xl_env_get(env, "USER"), "cube-alice");
    assert_string_equal(xl_env_get(env, "PATH"), "/usr/bin:/bin");
    assert_string_equal(xl_env_get(env, "CUBE_PROJECT_DIR"), "/p/vision");
    assert_string_equal(xl_env_get(env, "RANK"), "1");
    xl_strv_free(env);
    xl_replica_free(&r);
}

/* The replica's own variables win over the defaults. */
static void replica_env_overrides_defaults(void **st)
{
    (void)st;
    struct xl_replica r;
    char msg[256];
    char *doc = xt_replica("bob", "p", "j", "[\"true\"]",
                           "\"env\":{\"PATH\":\"/opt/bin\",\"HOME\":\"/elsewhere\"}");
    assert_int_equal(xl_replica_parse(&r, doc, msg, sizeof msg), CUBE_OK);
    char **env = xl_env_build(&r, "/h/bob", "cube-bob", "/p/p", "/usr/bin");
    assert_string_equal(xl_env_get(env, "PATH"), "/opt/bin");
    assert_string_equal(xl_env_get(env, "HOME"), "/elsewhere");
    int paths = 0;
    for (char **e = env; *e; e++)
        paths += strncmp(*e, "PATH=", 5) == 0;
    assert_int_equal(paths, 1);
    xl_strv_free(env);
    xl_replica_free(&r);
    free(doc);
}

static void replica_document_errors_name_the_field(void **st)
{
    (void)st;
    static const char *const cases[][3] = {
        {"[]", "", "command"},
        {"\"ls\"", "", "command"},
        {"[\"\"]", "", "command[0]"},
        {"[\"ls\",1]", "", "command[1]"},
        {"[\"ls\"]", "\"env\":{\"A\":1}", "env.A"},
        {"[\"ls\"]", "\"env\":[]", "env"},
        {"[\"ls\"]", "\"timeoutSeconds\":-1", "timeoutSeconds"},
        {"[\"ls\"]", "\"limits\":{\"memoryBytes\":-1}", "limits.memoryBytes"},
        {"[\"ls\"]", "\"limits\":{\"cpuMillis\":1.5}", "limits.cpuMillis"},
        {"[\"ls\"]", "\"workdir\":\"relative\"", "workdir"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct xl_replica r;
        char msg[256] = "";
        char *doc = xt_replica("alice", "p", "j", cases[i][0], cases[i][1]);
        assert_int_equal(xl_replica_parse(&r, doc, msg, sizeof msg), CUBE_EINVAL);
        if (strncmp(msg, cases[i][2], strlen(cases[i][2])) != 0)
            fail_msg("%s %s: \"%s\" does not start with %s", cases[i][0], cases[i][1], msg,
                     cases[i][2]);
        free(doc);
    }
    struct xl_replica r;
    char msg[256];
    char *doc = xt_replica("Alice!", "p", "j", "[\"ls\"]", "");
    assert_int_equal(xl_replica_parse(&r, doc, msg, sizeof msg), CUBE_EINVAL);
    assert_non_null(strstr(msg, "user"));
    free(doc);
    assert_int_equal(xl_replica_parse(&r, "{\"command\":[\"ls\"],\"user\":\"a\","
                                          "\"project\":\"p\"}", msg, sizeof msg), CUBE_EINVAL);
    assert_non_null(strstr(msg, "log"));
    assert_int_equal(xl_replica_parse(&r, "not json", msg, sizeof msg), CUBE_EINVAL);
    /* Limits below the floor are raised to it; null (NaN from the core) is none. */
    doc = xt_replica("alice", "p", "j", "[\"ls\"]", "\"limits\":{\"memoryBytes\":1024,"
                     "\"cpuMillis\":1},\"timeoutSeconds\":null");
    assert_int_equal(xl_replica_parse(&r, doc, msg, sizeof msg), CUBE_OK);
    assert_int_equal(r.memory_bytes, 4 << 20);
    assert_int_equal(r.cpu_millis, 10);
    assert_int_equal(r.timeout_s, 0);
    xl_replica_free(&r);
    free(doc);
}

static void executable_is_found_along_path(void **st)
{
    (void)st;
    char msg[256];
    char *env[] = {"PATH=/nonexistent:/usr/bin:/bin", NULL};
    char **p = xl_exec_paths("sh", env, "/x", msg, sizeof msg);
    assert_non_null(p);
    assert_true(strcmp(p[0], "/usr/bin/sh") == 0 || strcmp(p[0], "/bin/sh") == 0);
    xl_strv_free(p);
    assert_null(xl_exec_paths("no-such-command-xl", env, "/x", msg, sizeof msg));
    assert_non_null(strstr(msg, "not found in PATH"));
    assert_null(xl_exec_paths("/etc/passwd", env, "/x", msg, sizeof msg));
    assert_non_null(strstr(msg, "not an executable"));
    p = xl_exec_paths("./run.sh", env, "/x", msg, sizeof msg);   /* from the workdir */
    assert_non_null(p);
    assert_string_equal(p[0], "./run.sh");
    xl_strv_free(p);
    char *noenv[] = {NULL};
    p = xl_exec_paths("true", noenv, "/usr/bin:/bin", msg, sizeof msg);
    assert_non_null(p);
    xl_strv_free(p);
}

static void engine_id_round_trips(void **st)
{
    (void)st;
    char id[XL_ID_LEN], slot[64];
    pid_t pid;
    unsigned long long start;
    assert_int_equal(xl_engine_id_format(id, sizeof id, 4242, 987654321ULL, "18c-7b-3"), 0);
    assert_string_equal(id, "pid:4242:987654321:18c-7b-3");
    assert_int_equal(xl_engine_id_parse(id, &pid, &start, slot, sizeof slot), 0);
    assert_int_equal(pid, 4242);
    assert_true(start == 987654321ULL);
    assert_string_equal(slot, "18c-7b-3");
    static const char *const bad[] = {
        "pid:1:2", "pid:abc:1:s", "pid:12:0:s", "pid:012:5:s", "pid:12:5:../x",
        "pid:12:5:S", "pid:12:5:s/t", "job:12:5:s", "pid:12:5:", "pid:-3:5:s",
        "pid:12:5:s ", "", NULL,
    };
    for (int i = 0; bad[i]; i++)
        if (xl_engine_id_parse(bad[i], &pid, &start, slot, sizeof slot) == 0)
            fail_msg("accepted engine id \"%s\"", bad[i]);
    assert_int_equal(xl_engine_id_parse(NULL, &pid, &start, slot, sizeof slot), -1);
    /* The start time of a live process, and none for a gone one. */
    assert_true(xl_proc_start_time(getpid()) > 0);
    assert_true(xl_proc_start_time(4194303) == 0);
}

static void stat_start_time_is_field_22(void **st)
{
    (void)st;
    const char *line = "123 (a b) c) S 1 123 123 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 "
                       "55555 1000 10";
    assert_true(xl_stat_start_time(line) == 55555ULL);
    assert_true(xl_stat_start_time("garbage") == 0);
}

/* One verdict: status text in, code/reason/message out. */
static void check_verdict(const char *text, int code, const char *reason, const char *in_msg)
{
    int c;
    const char *r;
    char msg[256];
    xl_status_verdict(text, 32 << 20, 5, &c, &r, msg, sizeof msg);
    assert_int_equal(c, code);
    assert_string_equal(r, reason);
    if (!strstr(msg, in_msg))
        fail_msg("\"%s\" lacks \"%s\"", msg, in_msg);
}

static void status_verdicts(void **st)
{
    (void)st;
    check_verdict("status 0\nverdict none\noom 0\nfailcnt -1\n", 0, "Completed", "code 0");
    check_verdict("status 768\nverdict none\noom 0\n", 3, "Completed", "exited with code 3");
    check_verdict("status 9\nverdict none\noom 1\n", -1, "OOMKilled", "memory limit");
    check_verdict("status 9\nverdict none\noom -1\nfailcnt 5\n", -1, "OOMKilled", "SIGKILL");
    check_verdict("status 0\nverdict none\noom 1\n", 0, "Completed", "code 0");
    check_verdict("status 15\nverdict timeout\noom 0\n", -1, "Timeout", "timeoutSeconds (5 s)");
    check_verdict("status 15\nverdict stopped\noom 0\n", -1, "Stopped", "SIGTERM");
    check_verdict("status 11\nverdict none\noom 0\n", -1, "Completed", "killed by SIGSEGV");
    check_verdict("status 32512\nverdict starterror\nstep 10\nerrno 13\n", 127, "StartError",
                  "cannot exec the command: Permission denied");
}

/* Callbacks refuse what they do not know, without starting anything. */
static void callbacks_refuse_unknown_and_bad(void **st)
{
    (void)st;
    char *cfg = xt_config(root, "");
    void *state;
    assert_int_equal(cube_mock_init(cube_plugin_executor_local(), cfg, &state), CUBE_OK);
    const struct cube_executor_desc *ex = cube_mock_executor();
    char id[XL_ID_LEN], msg[256];
    assert_int_equal(ex->start(state, "{\"command\":[]}", id, sizeof id, msg, sizeof msg),
                     CUBE_EINVAL);
    assert_non_null(strstr(msg, "command"));
    assert_int_equal(ex->stop(state, "pid:99999:1:nope", 5), CUBE_ENOTFOUND);
    assert_int_equal(ex->adopt(state, "garbage", NULL), CUBE_ENOTFOUND);
    assert_int_equal(ex->adopt(state, "pid:99999:12345:no-such-slot", NULL), CUBE_ENOTFOUND);
    cube_mock_reset(cube_plugin_executor_local(), state);
    free(cfg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(descriptor_is_complete),
        cmocka_unit_test(config_defaults),
        cmocka_unit_test(config_rejects_bad_settings),
        cmocka_unit_test(init_fails_naming_the_setting),
        cmocka_unit_test(host_defaults_reach_the_node),
        cmocka_unit_test(node_is_advertised),
        cmocka_unit_test(node_without_devices_says_empty_list),
        cmocka_unit_test(replica_document_is_parsed),
        cmocka_unit_test(replica_env_overrides_defaults),
        cmocka_unit_test(replica_document_errors_name_the_field),
        cmocka_unit_test(executable_is_found_along_path),
        cmocka_unit_test(engine_id_round_trips),
        cmocka_unit_test(stat_start_time_is_field_22),
        cmocka_unit_test(status_verdicts),
        cmocka_unit_test(callbacks_refuse_unknown_and_bad),
    };
    return cmocka_run_group_tests_name("executor-local (no processes)", tests, make_root,
                                       drop_root);
}
