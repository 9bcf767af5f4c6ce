/* test_mock_host.c — the fake host checks what cubed checks, the same way:
 * config defaults and validation before init, kind schemas, object and
 * status validation with spec defaults, and route and action permissions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cube_mock.h"

static const struct cube_host *host;
static cube_plugin *self;
static int init_calls;
static long long seen_times;

static const char CONFIG_SCHEMA[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"times\":{\"type\":\"integer\",\"minimum\":1,\"default\":3},"
    "\"mode\":{\"type\":\"string\",\"enum\":[\"fast\",\"slow\"],\"default\":\"fast\"}}}";

static const char SPEC_SCHEMA[] =
    "{\"type\":\"object\",\"required\":[\"image\"],\"properties\":{"
    "\"image\":{\"type\":\"string\",\"minLength\":1},"
    "\"replicas\":{\"type\":\"integer\",\"minimum\":1,\"default\":1}}}";

static const char STATUS_SCHEMA[] =
    "{\"type\":\"object\",\"properties\":{\"phase\":{\"type\":\"string\","
    "\"enum\":[\"Pending\",\"Done\"]}}}";

static int answer(void *state, cube_req *req)
{
    (void)state;
    return host->resp_json(req, 200, "{}");
}

/* One route per permission: /api/v1/projects/{project}/probe/<perm>. */
static const char *const PERMS[] = {
    CUBE_PERM_PUBLIC, CUBE_PERM_USER, CUBE_PERM_ADMIN, CUBE_PERM_PROJECT_VIEW,
    CUBE_PERM_PROJECT_EDIT, CUBE_PERM_PROJECT_MANAGE,
};

static int probe_init(const struct cube_host *h, cube_plugin *s, void **state)
{
    static char paths[6][96];
    host = h;
    self = s;
    init_calls++;
    seen_times = h->config_int(s, "times", -1);
    const struct cube_kind_desc kind = {
        .size = sizeof kind, .kind = "Probe", .plural = "probes", .scope = CUBE_SCOPE_PROJECT,
        .spec_schema = SPEC_SCHEMA, .status_schema = STATUS_SCHEMA,
    };
    const struct cube_action_desc poke = {
        .size = sizeof poke, .kind = "Probe", .method = "POST", .action = "poke",
        .permission = CUBE_PERM_PROJECT_OPERATE, .handler = answer,
    };
    int rc = h->register_kind(s, &kind);
    if (rc == CUBE_OK)
        rc = h->register_action(s, &poke);
    for (size_t i = 0; rc == CUBE_OK && i < sizeof PERMS / sizeof PERMS[0]; i++) {
        snprintf(paths[i], sizeof paths[i], "/api/v1/projects/{project}/probe/%s", PERMS[i]);
        const struct cube_route_desc r = {.size = sizeof r, .method = "GET", .path = paths[i],
                                          .permission = PERMS[i], .handler = answer};
        rc = h->register_route(s, &r);
    }
    *state = &init_calls;
    return rc;
}

static const struct cube_plugin_desc PROBE = {
    .magic = CUBE_PLUGIN_MAGIC, .abi_major = CUBE_ABI_MAJOR, .abi_minor = CUBE_ABI_MINOR,
    .size = sizeof PROBE, .name = "probe", .config_schema = CONFIG_SCHEMA, .init = probe_init,
};

static int setup(void **st)
{
    (void)st;
    void *state;
    init_calls = 0;
    return cube_mock_init(&PROBE, "{\"mode\":\"slow\"}", &state);
}

static int teardown(void **st)
{
    (void)st;
    cube_mock_reset(NULL, NULL);
    return 0;
}

static void config_defaults_reach_init(void **st)
{
    (void)st;
    assert_int_equal(seen_times, 3);
    char *cfg = host->config_json(self);
    assert_string_equal(cfg, "{\"mode\":\"slow\",\"times\":3}");
    host->free(cfg);
}

static void refused_config_never_reaches_init(void **st)
{
    (void)st;
    static const char *const bad[][2] = {
        {"{\"times\":0}", "times: "},
        {"{\"mode\":\"warp\"}", "mode: "},
        {"{\"tmies\":2}", "tmies: "},   /* unknown keys: strict, as cubed */
        {"[1]", "config: "},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        void *state = (void *)1;
        cube_mock_reset(NULL, NULL);
        init_calls = 0;
        assert_int_equal(cube_mock_init(&PROBE, bad[i][0], &state), CUBE_EINVAL);
        assert_int_equal(init_calls, 0);
        assert_null(state);
        if (strncmp(cube_mock_last_error(), bad[i][1], strlen(bad[i][1])) != 0)
            fail_msg("%s: \"%s\" does not name the setting", bad[i][0], cube_mock_last_error());
    }
    char err[256];
    char *none = cube_mock_config(NULL, "{\"x\":1}", err, sizeof err);
    assert_null(none);                       /* no schema: no config */
    assert_non_null(strstr(err, "no configuration"));
    char *empty = cube_mock_config(NULL, NULL, err, sizeof err);
    assert_string_equal(empty, "{}");
    free(empty);
}

static char *create(const char *spec, int *rc)
{
    char json[512];
    snprintf(json, sizeof json, "{\"kind\":\"Probe\",\"metadata\":{\"name\":\"a\","
             "\"project\":\"p\"},\"spec\":%s}", spec);
    return host->obj_create(self, json, rc);
}

static void objects_are_defaulted_and_validated(void **st)
{
    (void)st;
    int rc;
    assert_null(create("{\"replicas\":2}", &rc));          /* image required */
    assert_int_equal(rc, CUBE_EINVAL);
    assert_non_null(strstr(cube_mock_last_log(), "spec"));
    assert_null(create("{\"image\":\"x\",\"replicas\":0}", &rc));
    assert_int_equal(rc, CUBE_EINVAL);
    assert_non_null(strstr(cube_mock_last_log(), "spec.replicas"));
    assert_null(create("{\"image\":\"x\",\"colour\":\"red\"}", &rc));   /* strict */
    assert_int_equal(rc, CUBE_EINVAL);
    assert_non_null(strstr(cube_mock_last_log(), "colour"));
    assert_null(host->obj_create(self, "{\"kind\":\"Probe\",\"metadata\":{\"name\":\"a\","
                                 "\"project\":\"p\"},\"spec\":{\"image\":\"x\"},\"extra\":1}",
                                 &rc));
    assert_int_equal(rc, CUBE_EINVAL);
    char *o = create("{\"image\":\"x\"}", &rc);
    assert_non_null(o);
    assert_non_null(strstr(o, "\"replicas\":1"));        /* the schema's default */
    host->free(o);
    assert_null(host->obj_update_status(self, "Probe", "p", "a", "{\"phase\":\"Lost\"}", NULL,
                                        &rc));
    assert_int_equal(rc, CUBE_EINVAL);
    assert_non_null(strstr(cube_mock_last_log(), "status.phase"));
    o = host->obj_update_status(self, "Probe", "p", "a", "{\"phase\":\"Done\"}", NULL, &rc);
    assert_non_null(o);
    host->free(o);
}

static void unusable_kind_schema_is_refused(void **st)
{
    (void)st;
    cube_mock_reset(NULL, NULL);
    host = cube_mock_host(NULL, &self);
    const struct cube_kind_desc kind = {
        .size = sizeof kind, .kind = "Bad", .plural = "bads", .scope = CUBE_SCOPE_PROJECT,
        .spec_schema = "{\"type\":\"object\",\"properties\":{\"x\":{\"type\":\"strnig\"}}}",
    };
    assert_int_equal(host->register_kind(self, &kind), CUBE_EINVAL);
    assert_non_null(strstr(cube_mock_last_log(), "spec_schema"));
}

static int status_of(const char *perm)
{
    char path[128];
    snprintf(path, sizeof path, "/api/v1/projects/p/probe/%s", perm);
    struct cube_mock_response r = cube_mock_request("GET", path, NULL, NULL, NULL);
    int status = r.status;
    cube_mock_response_free(&r);
    return status;
}

static void routes_check_permissions(void **st)
{
    (void)st;
    /* {user, role, public, user, admin, project:view, project:edit, project:manage} */
    static const struct { const char *user, *role; int want[6]; } cases[] = {
        {NULL, NULL, {200, 401, 401, 401, 401, 401}},
        {"nora", NULL, {200, 200, 403, 404, 404, 404}},
        {"vic", "viewer", {200, 200, 403, 200, 403, 403}},
        {"dora", "dev", {200, 200, 403, 200, 200, 403}},
        {"cleo", "creator", {200, 200, 403, 200, 200, 200}},
        {"root", "admin", {200, 200, 200, 200, 200, 200}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cube_mock_set_user(cases[i].user, cases[i].role);
        for (size_t j = 0; j < 6; j++)
            if (status_of(PERMS[j]) != cases[i].want[j])
                fail_msg("%s (%s) on %s: %d, expected %d", cases[i].user ? cases[i].user : "-",
                         cases[i].role ? cases[i].role : "-", PERMS[j], status_of(PERMS[j]),
                         cases[i].want[j]);
    }
}

static int poke(void)
{
    struct cube_mock_response r = cube_mock_request("POST", "/api/v1/projects/p/probes/a/poke",
                                                    NULL, NULL, NULL);
    int status = r.status;
    cube_mock_response_free(&r);
    return status;
}

/* project:operate: ops and above, or a dev who owns the object. */
static void actions_check_permissions(void **st)
{
    (void)st;
    int rc;
    cube_mock_set_user("dora", "dev");
    char *o = create("{\"image\":\"x\"}", &rc);             /* owned by plugin:probe */
    assert_non_null(o);
    host->free(o);
    assert_int_equal(poke(), 403);
    cube_mock_set_user("olga", "ops");
    assert_int_equal(poke(), 200);
    cube_mock_set_user(NULL, NULL);
    assert_int_equal(poke(), 401);
    cube_mock_set_user("nora", NULL);
    assert_int_equal(poke(), 404);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(config_defaults_reach_init, setup, teardown),
        cmocka_unit_test_setup_teardown(refused_config_never_reaches_init, setup, teardown),
        cmocka_unit_test_setup_teardown(objects_are_defaulted_and_validated, setup, teardown),
        cmocka_unit_test_setup_teardown(unusable_kind_schema_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(routes_check_permissions, setup, teardown),
        cmocka_unit_test_setup_teardown(actions_check_permissions, setup, teardown),
    };
    return cmocka_run_group_tests_name("fake host checks as cubed", tests, NULL, NULL);
}
