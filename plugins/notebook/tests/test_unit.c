/* test_unit.c — the notebook plugin against the fake host: spec checks
 * name their field, defaults come from the config, the Job a notebook runs
 * as (owner, ownerReferences, spec.ports, bind address, base URL, no
 * secret), the server's endpoint read from its Job (ABI 1.5), the private
 * server files (mode 0600, reloaded after a restart), the launch action
 * that accepts a server's secret once per generation, ops kept out by
 * default, a stopped notebook's proxy answer and open's own redirect. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <cjson/cJSON.h>

#include "cube_mock.h"
#include "notebook.h"
#include "config_schema.h"   /* NB_CONFIG_SCHEMA */

const struct cube_plugin_desc *cube_plugin_notebook(void);

static const char CONFIG[] =
    "{\"idle_timeout_seconds\":600,\"gpu_expires_after_seconds\":7200,"
    "\"expires_after_seconds\":0,\"cull_interval_seconds\":60,"
    "\"jupyter_command\":\"/bin/true\",\"python\":\"/usr/bin/python3\"}";

static void *state;
static char data_dir[] = "/tmp/nb-unit-data-XXXXXX";

static int setup(void **st)
{
    (void)st;
    cube_mock_set_data_dir(data_dir);   /* made in main: the servers/ dir goes there */
    int rc = cube_mock_init(cube_plugin_notebook(), CONFIG, &state);
    if (rc != CUBE_OK)
        fprintf(stderr, "init: %s\n", cube_mock_last_error());
    return rc;
}

static int teardown(void **st)
{
    (void)st;
    cube_mock_reset(cube_plugin_notebook(), state);
    return 0;
}

/* Runs the kind's validate on a spec; returns the field ("" when valid). */
static const char *check(const char *spec, char *msg, size_t len)
{
    static char field[160];
    char obj[2048];
    snprintf(obj, sizeof obj, "{\"kind\":\"Notebook\",\"metadata\":{\"name\":\"nb\","
             "\"project\":\"p\"},\"spec\":%s}", spec);
    field[0] = msg[0] = '\0';
    const struct cube_kind_desc *k = cube_mock_kind("Notebook");
    assert_non_null(k);
    int rc = k->validate(state, obj, NULL, field, sizeof field, msg, len);
    assert_int_equal(rc == CUBE_OK, field[0] == '\0');
    return field;
}

static void kind_and_actions_registered(void **st)
{
    (void)st;
    const struct cube_kind_desc *k = cube_mock_kind("Notebook");
    assert_non_null(k);
    assert_string_equal(k->plural, "notebooks");
    assert_int_equal(k->scope, CUBE_SCOPE_PROJECT);
    assert_non_null(k->reconcile);
    assert_int_equal(cube_mock_action_count(), 5);
    const struct cube_proxy_desc *p = cube_mock_proxy(0);
    assert_non_null(p);
    assert_string_equal(p->prefix, "/notebook/{project}/{name}");
    assert_string_equal(p->permission, CUBE_PERM_PROJECT_OPERATE);
    assert_string_equal(p->kind, "Notebook");
    assert_int_equal(p->strip_prefix, 0);
    assert_true(p->login_redirect);
}

static void bad_specs_name_their_field(void **st)
{
    (void)st;
    char msg[256];
    assert_string_equal(check("{\"resources\":{\"cpu\":\"-1\"}}", msg, sizeof msg),
                        "spec.resources.cpu");
    assert_string_equal(check("{\"resources\":{\"memory\":\"4Gx\"}}", msg, sizeof msg),
                        "spec.resources.memory");
    assert_string_equal(check("{\"resources\":{\"nvidia.com/gpu\":1.5}}", msg, sizeof msg),
                        "spec.resources.nvidia.com/gpu");
    assert_non_null(strstr(msg, "whole devices"));
    assert_string_equal(check("{\"resources\":{\"gpus\":1}}", msg, sizeof msg),
                        "spec.resources.gpus");
    assert_string_equal(check("{\"env\":{\"1BAD\":\"x\"}}", msg, sizeof msg), "spec.env.1BAD");
    assert_string_equal(check("{\"env\":{\"CUBE_TOKEN\":\"x\"}}", msg, sizeof msg),
                        "spec.env.CUBE_TOKEN");
    assert_string_equal(check("{\"ide\":\"vscode\"}", msg, sizeof msg), "spec.ide");
    assert_non_null(strstr(msg, "vscode.enabled"));
    assert_null(strstr(msg, "spec.ide"));   /* the host puts the field first */
    assert_string_equal(check("{\"ide\":\"jupyter\",\"resources\":{\"cpu\":\"500m\","
                              "\"memory\":\"2Gi\",\"nvidia.com/gpu\":0.25},"
                              "\"env\":{\"SEED\":\"1\"}}", msg, sizeof msg), "");
}

static void defaults_come_from_the_config(void **st)
{
    (void)st;
    const struct cube_kind_desc *k = cube_mock_kind("Notebook");
    char *out = NULL;
    assert_int_equal(k->defaulting(state, "{\"kind\":\"Notebook\",\"metadata\":{\"name\":\"a\"},"
                                          "\"spec\":{\"resources\":{\"nvidia.com/gpu\":1}}}",
                                   &out), CUBE_OK);
    cJSON *o = cJSON_Parse(out), *spec = cJSON_GetObjectItem(o, "spec");
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(spec, "ide")), "jupyter");
    assert_int_equal(cJSON_GetNumberValue(cJSON_GetObjectItem(spec, "idleTimeoutSeconds")), 600);
    assert_int_equal(cJSON_GetNumberValue(cJSON_GetObjectItem(spec, "expiresAfterSeconds")), 7200);
    cJSON_Delete(o);
    free(out);
    assert_int_equal(k->defaulting(state, "{\"kind\":\"Notebook\",\"metadata\":{\"name\":\"a\"},"
                                          "\"spec\":{\"idleTimeoutSeconds\":5}}", &out), CUBE_OK);
    o = cJSON_Parse(out);
    spec = cJSON_GetObjectItem(o, "spec");
    assert_int_equal(cJSON_GetNumberValue(cJSON_GetObjectItem(spec, "idleTimeoutSeconds")), 5);
    assert_int_equal(cJSON_GetNumberValue(cJSON_GetObjectItem(spec, "expiresAfterSeconds")), 0);
    cJSON_Delete(o);
    free(out);
}

static void the_job_carries_no_secret(void **st)
{
    (void)st;
    const char *nbj = "{\"kind\":\"Notebook\",\"metadata\":{\"name\":\"lab\",\"project\":\"vision\","
                      "\"uid\":\"u-1\",\"owner\":\"alice\"},\"spec\":{\"ide\":\"jupyter\","
                      "\"resources\":{\"cpu\":\"1\"},\"env\":{\"SEED\":\"7\"},\"image\":\"x:1\"}}";
    char *text = nb_job_json(state, nbj, "lab-nb3", 3);
    assert_non_null(text);
    cJSON *job = cJSON_Parse(text), *meta = cJSON_GetObjectItem(job, "metadata");
    cJSON *spec = cJSON_GetObjectItem(job, "spec");
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(meta, "name")), "lab-nb3");
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(
        cJSON_GetObjectItem(meta, "annotations"), "cube.dev/user")), "alice");
    cJSON *ref = cJSON_GetArrayItem(cJSON_GetObjectItem(meta, "ownerReferences"), 0);
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(ref, "kind")), "Notebook");
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(ref, "uid")), "u-1");
    cJSON *cmd = cJSON_GetObjectItem(spec, "command");
    assert_string_equal(cJSON_GetStringValue(cJSON_GetArrayItem(cmd, 7)), "127.0.0.1");
    cJSON *port = cJSON_GetArrayItem(cJSON_GetObjectItem(spec, "ports"), 0);
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(port, "name")), "http");
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(port, "protocol")), "http");
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(spec, "ports")), 1);
    assert_string_equal(cJSON_GetStringValue(cJSON_GetArrayItem(cmd, 8)), "/notebook/vision/lab/");
    assert_string_equal(cJSON_GetStringValue(cJSON_GetArrayItem(cmd, 11)), "3");
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(
        cJSON_GetObjectItem(spec, "env"), "SEED")), "7");
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(spec, "image")), "x:1");
    assert_null(strstr(text, "JUPYTER_TOKEN\":"));
    assert_null(strstr(text, "token\":\""));
    cJSON_Delete(job);
    free(text);
}

static void server_files_are_private_and_reload(void **st)
{
    (void)st;
    char dir[] = "/tmp/nb-unit-XXXXXX", msg[256], path[512];
    assert_non_null(mkdtemp(dir));
    struct nb_table t;
    assert_int_equal(nb_table_init(&t, dir, msg, sizeof msg), 0);
    struct nb_entry e = {.port = 0, .generation = 2};   /* its endpoint not known yet */
    snprintf(e.key, sizeof e.key, "vision/lab");
    snprintf(e.job, sizeof e.job, "lab-nb2");
    snprintf(e.ide, sizeof e.ide, "jupyter");
    snprintf(e.owner, sizeof e.owner, "alice");
    assert_int_equal(nb_table_put(&t, &e), 0);
    assert_int_equal(nb_table_set_token(&t, "vision/lab", 1, "ab"), -1);  /* old generation */
    assert_int_equal(nb_table_set_token(&t, "vision/lab", 2, "0123456789abcdef0123456789abcdef"), 0);
    assert_int_equal(nb_table_set_token(&t, "vision/lab", 2, "ffffffffffffffffffffffffffffffff"), -1);
    assert_int_equal(nb_table_set_endpoint(&t, "vision/lab", 1, "10.1.2.3", 40001), -1);
    assert_int_equal(nb_table_set_endpoint(&t, "vision/lab", 2, "10.1.2.3", 40001), 0);
    snprintf(path, sizeof path, "%s/servers/vision.lab", dir);
    struct stat sb;
    assert_int_equal(stat(path, &sb), 0);
    assert_int_equal(sb.st_mode & 0777, 0600);
    nb_table_fini(&t);
    assert_int_equal(nb_table_init(&t, dir, msg, sizeof msg), 0);
    nb_table_load(&t);
    struct nb_entry g;
    assert_int_equal(nb_table_get(&t, "vision/lab", &g), 0);
    assert_string_equal(g.token, "0123456789abcdef0123456789abcdef");
    assert_int_equal(g.port, 40001);
    assert_string_equal(g.host, "10.1.2.3");
    assert_string_equal(g.owner, "alice");
    /* a file written before endpoints (seven fields): a server on loopback */
    snprintf(path, sizeof path, "%s/servers/vision.old", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("vision/old old-nb1 40009 1 jupyter - bob\n", f);
    fclose(f);
    nb_table_load(&t);
    assert_int_equal(nb_table_get(&t, "vision/old", &g), 0);
    assert_string_equal(g.host, "127.0.0.1");
    assert_int_equal(g.port, 40009);
    nb_table_drop(&t, "vision/old");
    snprintf(path, sizeof path, "%s/servers/vision.lab", dir);
    nb_table_drop(&t, "vision/lab");
    assert_int_equal(access(path, F_OK), -1);
    nb_table_fini(&t);
    snprintf(path, sizeof path, "rm -rf '%s'", dir);
    assert_int_equal(system(path), 0);
}

static void launch_is_accepted_once(void **st)
{
    (void)st;
    int rc;
    struct nb *nb = state;
    char *o = nb->host->obj_create(nb->self,
        "{\"kind\":\"Notebook\",\"metadata\":{\"name\":\"l1\",\"project\":\"p\"},"
        "\"spec\":{\"ide\":\"jupyter\"}}", &rc);
    assert_non_null(o);
    nb->host->free(o);
    struct nb_entry e = {.port = 40002, .generation = 1};
    snprintf(e.key, sizeof e.key, "p/l1");
    snprintf(e.job, sizeof e.job, "l1-nb1");
    snprintf(e.ide, sizeof e.ide, "jupyter");
    snprintf(e.owner, sizeof e.owner, "-");
    assert_int_equal(nb_table_put(&nb->table, &e), 0);
    const char *path = "/api/v1/projects/p/notebooks/l1/launch";
    cube_mock_set_user("olga", "ops");   /* project:operate */
    struct cube_mock_response r = cube_mock_request("POST", path, NULL, NULL,
                                                    "{\"generation\":1,\"token\":\"xyz\"}");
    assert_int_equal(r.status, 400);
    cube_mock_response_free(&r);
    r = cube_mock_request("POST", path, NULL, NULL,
                          "{\"generation\":1,\"token\":\"0123456789abcdef0123456789abcdef\"}");
    assert_int_equal(r.status, 200);
    cube_mock_response_free(&r);
    r = cube_mock_request("POST", path, NULL, NULL,
                          "{\"generation\":1,\"token\":\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"}");
    assert_int_equal(r.status, 409);
    cube_mock_response_free(&r);
    assert_null(strstr(cube_mock_object("Notebook", "p", "l1"), "0123456789abcdef"));
    r = cube_mock_request("GET", "/api/v1/projects/p/notebooks/l1/open", NULL, NULL, NULL);
    assert_int_equal(r.status, 409);                  /* not Running */
    cube_mock_response_free(&r);
    nb_table_drop(&nb->table, "p/l1");
}

/* Calls the i-th proxy's resolve for /notebook/p/r1 as `user` with `role`. */
static int resolve_as(int i, const char *user, const char *role, struct cube_proxy_upstream *up)
{
    cube_mock_set_user(user, role);
    return cube_mock_proxy_resolve(i, i == 0 ? "/notebook/p/r1/tree" : "/vscode/p/r1/", up);
}

static void proxy_resolves_only_ready_servers(void **st)
{
    (void)st;
    struct nb *nb = state;
    struct cube_proxy_upstream up;
    assert_int_equal(resolve_as(0, "alice", "dev", &up), CUBE_EUNAVAIL);     /* not running */
    struct nb_entry e = {.generation = 1};
    snprintf(e.key, sizeof e.key, "p/r1");
    snprintf(e.job, sizeof e.job, "r1-nb1");
    snprintf(e.ide, sizeof e.ide, "jupyter");
    snprintf(e.owner, sizeof e.owner, "alice");
    assert_int_equal(nb_table_put(&nb->table, &e), 0);
    assert_int_equal(resolve_as(0, "alice", "dev", &up), CUBE_EUNAVAIL);     /* no secret yet */
    assert_int_equal(nb_table_set_token(&nb->table, "p/r1", 1, "0123456789abcdef0123456789abcdef"), 0);
    assert_int_equal(resolve_as(0, "alice", "dev", &up), CUBE_EUNAVAIL);     /* no endpoint yet */
    assert_int_equal(nb_table_set_endpoint(&nb->table, "p/r1", 1, "127.0.0.1", 40003), 0);
    nb_table_touch(&nb->table, "p/r1", 1, 0);
    assert_int_equal(resolve_as(0, "alice", "dev", &up), CUBE_OK);
    assert_string_equal(up.host, "127.0.0.1");
    assert_int_equal(up.port, 40003);
    assert_string_equal(up.header_name, "Authorization");
    assert_string_equal(up.header_value, "token 0123456789abcdef0123456789abcdef");
    assert_int_equal(resolve_as(1, "alice", "dev", &up), CUBE_ENOTFOUND);    /* not VS Code */
    assert_int_equal(resolve_as(0, "olga", "ops", &up), CUBE_EPERM);    /* ops_access: false */
    nb->conf.ops_access = 1;
    assert_int_equal(resolve_as(0, "olga", "ops", &up), CUBE_OK);
    assert_int_equal(resolve_as(0, "alice", "dev", &up), CUBE_OK);
    nb_table_drop(&nb->table, "p/r1");
}

/* Project ops do not run code in others' notebooks unless configured. */
static void ops_access_is_off_by_default(void **st)
{
    (void)st;
    struct nb *nb = state;
    assert_int_equal(nb->conf.ops_access, 0);          /* CONFIG does not set it */
    cJSON *schema = cJSON_Parse(NB_CONFIG_SCHEMA);
    const cJSON *d = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(
        schema, "properties"), "ops_access"), "default");
    assert_true(cJSON_IsFalse(d));                     /* what the host applies */
    cJSON_Delete(schema);
}

/* A notebook that is not running is answered with what to do. */
static void a_stopped_notebook_says_how_to_start_it(void **st)
{
    (void)st;
    struct nb *nb = state;
    struct cube_proxy_upstream up;
    struct cube_mock_response r;
    int rc;
    char *o = nb->host->obj_create(nb->self,
        "{\"kind\":\"Notebook\",\"metadata\":{\"name\":\"s1\",\"project\":\"p\"},"
        "\"spec\":{\"ide\":\"jupyter\"}}", &rc);
    nb->host->free(o);
    o = nb->host->obj_update_status(nb->self, NB_KIND, "p", "s1",
                                    "{\"phase\":\"Stopped\",\"reason\":\"Idle\"}", NULL, &rc);
    assert_non_null(o);
    nb->host->free(o);
    cube_mock_set_user("alice", "dev");
    assert_int_equal(cube_mock_proxy_answer(0, "/notebook/p/s1/lab", &up, &r), CUBE_EUNAVAIL);
    assert_int_equal(r.status, 503);
    assert_non_null(strstr(r.body, "not running (phase Stopped, Idle)"));
    assert_non_null(strstr(r.body, "POST /api/v1/projects/p/notebooks/s1/restart"));
    cube_mock_response_free(&r);
    o = nb->host->obj_update_status(nb->self, NB_KIND, "p", "s1", "{\"phase\":\"Pending\"}",
                                    NULL, &rc);
    nb->host->free(o);
    assert_int_equal(cube_mock_proxy_answer(0, "/notebook/p/s1/lab", &up, &r), CUBE_EUNAVAIL);
    assert_int_equal(r.status, 503);
    assert_non_null(strstr(r.body, "is starting"));
    assert_non_null(strstr(r.headers, "Retry-After: 2"));
    cube_mock_response_free(&r);
}

/* open redirects to the notebook's own proxied path, whatever a status
 * writer put in status.url. */
static void open_goes_to_the_notebooks_own_path(void **st)
{
    (void)st;
    struct nb *nb = state;
    int rc;
    char *o = nb->host->obj_create(nb->self,
        "{\"kind\":\"Notebook\",\"metadata\":{\"name\":\"o1\",\"project\":\"p\"},"
        "\"spec\":{\"ide\":\"jupyter\"}}", &rc);
    nb->host->free(o);
    o = nb->host->obj_update_status(nb->self, NB_KIND, "p", "o1", "{\"phase\":\"Running\","
                                    "\"url\":\"https://evil.example/login\"}", NULL, &rc);
    assert_non_null(o);
    nb->host->free(o);
    cube_mock_set_user("olga", "ops");   /* project:operate */
    struct cube_mock_response r = cube_mock_request("GET", "/api/v1/projects/p/notebooks/o1/open",
                                                    NULL, NULL, NULL);
    assert_int_equal(r.status, 302);
    assert_non_null(strstr(r.headers, "Location: /notebook/p/o1/\n"));
    assert_null(strstr(r.headers, "evil"));
    cube_mock_response_free(&r);
}

int main(void)
{
    if (!mkdtemp(data_dir))
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(kind_and_actions_registered, setup, teardown),
        cmocka_unit_test_setup_teardown(bad_specs_name_their_field, setup, teardown),
        cmocka_unit_test_setup_teardown(defaults_come_from_the_config, setup, teardown),
        cmocka_unit_test_setup_teardown(the_job_carries_no_secret, setup, teardown),
        cmocka_unit_test(server_files_are_private_and_reload),
        cmocka_unit_test_setup_teardown(launch_is_accepted_once, setup, teardown),
        cmocka_unit_test_setup_teardown(proxy_resolves_only_ready_servers, setup, teardown),
        cmocka_unit_test_setup_teardown(ops_access_is_off_by_default, setup, teardown),
        cmocka_unit_test_setup_teardown(a_stopped_notebook_says_how_to_start_it, setup, teardown),
        cmocka_unit_test_setup_teardown(open_goes_to_the_notebooks_own_path, setup, teardown),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", data_dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", data_dir);
    return failed;
}
