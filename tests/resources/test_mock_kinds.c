/* test_mock_kinds.c — the fake host's ABI 1.1 slots (kinds, actions,
 * objects, controllers, events, logs, project files), driven by the
 * testkinds plugin compiled into this test. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cube_mock.h"

const struct cube_plugin_desc *cube_plugin_testkinds(void);

static const struct cube_host *host;
static cube_plugin *self;
static void *state;

static int setup(void **st)
{
    (void)st;
    host = cube_mock_host(NULL, &self);
    return cube_mock_init(cube_plugin_testkinds(), NULL, &state);
}

static int teardown(void **st)
{
    (void)st;
    cube_mock_reset(cube_plugin_testkinds(), state);
    state = NULL;
    return 0;
}

/* Creates an object from JSON text, asserting the result code; returns
 * the stored object parsed (NULL on failure). */
static cJSON *create(const char *json, int want_rc)
{
    int rc = 12345;
    char *out = host->obj_create(self, json, &rc);
    assert_int_equal(rc, want_rc);
    cJSON *doc = out ? cJSON_Parse(out) : NULL;
    host->free(out);
    if (want_rc == CUBE_OK)
        assert_non_null(doc);
    else
        assert_null(doc);
    return doc;
}

static const char *meta_str(const cJSON *doc, const char *key)
{
    return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(doc, "metadata"), key));
}

static double meta_num(const cJSON *doc, const char *key)
{
    return cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(doc, "metadata"), key));
}

/* The stored object, parsed (the caller deletes it), or NULL. */
static cJSON *stored(const char *kind, const char *project, const char *name)
{
    const char *text = cube_mock_object(kind, project, name);
    return text ? cJSON_Parse(text) : NULL;
}

static const char W1[] =
    "{\"kind\":\"Widget\",\"metadata\":{\"name\":\"w1\",\"project\":\"p1\","
    "\"labels\":{\"app\":\"x\"}},\"spec\":{\"size\":3}}";

/* ABI 1.5's error channel through the fake host: Gauge's check names
 * spec.target, its reconcile polls with CUBE_EAGAIN + retry_after, and a
 * failing reconcile's set_error is what cube_mock_last_reconcile reports. */
static void error_channel(void **st)
{
    (void)st;
    create("{\"kind\":\"Gauge\",\"metadata\":{\"name\":\"g0\",\"project\":\"p1\"},"
           "\"spec\":{\"target\":5,\"step\":2}}", CUBE_EINVAL);
    assert_string_equal(cube_mock_last_log(), "spec.target: must be a multiple of spec.step (2)");
    cJSON_Delete(create("{\"kind\":\"Gauge\",\"metadata\":{\"name\":\"g1\","
                        "\"project\":\"p1\"},\"spec\":{\"target\":2,\"everyMs\":250}}",
                        CUBE_OK));
    int retry = 0;
    char why[128];
    assert_int_equal(cube_mock_run_controllers(), 1);
    assert_int_equal(cube_mock_last_reconcile(&retry, why, sizeof why), CUBE_EAGAIN);
    assert_int_equal(retry, 250);
    cJSON_Delete(create("{\"kind\":\"Gauge\",\"metadata\":{\"name\":\"g2\","
                        "\"project\":\"p1\"},\"spec\":{\"target\":1,\"fail\":true}}",
                        CUBE_OK));
    assert_int_equal(cube_mock_run_controllers(), 1);
    assert_int_equal(cube_mock_last_reconcile(&retry, why, sizeof why), CUBE_EIO);
    assert_int_equal(retry, -1);
    assert_string_equal(why, "gauge g2 asked to fail");
    /* Outside a callback set_error keeps its init/start meaning. */
    host->set_error(self, "from outside");
    assert_string_equal(cube_mock_last_error(), "from outside");
}

static void registers_kinds_and_actions(void **st)
{
    (void)st;
    assert_int_equal(cube_mock_kind_count(), 5);
    assert_int_equal(cube_mock_action_count(), 2);
    assert_int_equal(cube_mock_route_count(), 1);
    const struct cube_kind_desc *w = cube_mock_kind("Widget");
    assert_non_null(w);
    assert_string_equal(w->plural, "widgets");
    assert_string_equal(w->singular, "widget");
    assert_int_equal(w->scope, CUBE_SCOPE_PROJECT);
    assert_non_null(w->reconcile);
    assert_int_equal(cube_mock_kind("Gadget")->scope, CUBE_SCOPE_CLUSTER);
    assert_non_null(cube_mock_kind("Lock")->finalize);
    assert_null(cube_mock_kind("Nope"));
    /* after init: refused */
    struct cube_kind_desc late = {.size = sizeof late, .kind = "Late", .plural = "lates",
                                  .scope = CUBE_SCOPE_PROJECT, .spec_schema = "{}"};
    assert_int_equal(host->register_kind(self, &late), CUBE_ESTATE);
}

static void controller_sets_status(void **st)
{
    (void)st;
    cJSON *w = create(W1, CUBE_OK);
    assert_string_equal(meta_str(w, "resourceVersion"), "1");
    assert_true(meta_num(w, "generation") == 1);
    assert_non_null(meta_str(w, "uid"));
    assert_non_null(meta_str(w, "created"));
    assert_string_equal(meta_str(w, "owner"), "plugin:testkinds");
    assert_null(cJSON_GetObjectItemCaseSensitive(w, "status"));
    cJSON_Delete(w);

    /* nothing runs inline: the reconcile waits for the test */
    assert_int_equal(cube_mock_controllers_pending(), 1);
    assert_int_equal(cube_mock_run_controllers(), 1);
    w = stored("Widget", "p1", "w1");
    const cJSON *status = cJSON_GetObjectItemCaseSensitive(w, "status");
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(status, "phase")),
                        "Ready");
    assert_true(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(status, "observedSize")) == 3);
    assert_string_equal(meta_str(w, "resourceVersion"), "2");
    cJSON_Delete(w);

    /* the status write queued one more call, which writes nothing new */
    assert_int_equal(cube_mock_run_controllers(), 1);
    assert_int_equal(cube_mock_run_controllers(), 0);
    struct cube_mock_response r = cube_mock_request("GET", "/api/v1/testkinds/reconciles",
                                                    NULL, NULL, NULL);
    assert_string_equal(r.body, "{\"p1/w1\":2}");
    cube_mock_response_free(&r);
}

static void create_checks_identity(void **st)
{
    (void)st;
    cJSON_Delete(create(W1, CUBE_OK));
    create(W1, CUBE_EEXIST);
    create("{\"kind\":\"Widget\",\"metadata\":{\"project\":\"p1\"}}", CUBE_EINVAL);
    create("{\"kind\":\"Widget\",\"metadata\":{\"name\":\"w2\"}}", CUBE_EINVAL);
    create("{\"kind\":\"Widget\",\"metadata\":{\"name\":\"Bad_Name\",\"project\":\"p1\"}}",
           CUBE_EINVAL);
    create("{\"kind\":\"Nope\",\"metadata\":{\"name\":\"n\"}}", CUBE_EINVAL);
    create("{\"kind\":\"Gadget\",\"metadata\":{\"name\":\"g\",\"project\":\"p1\"}}", CUBE_EINVAL);
    create("not json", CUBE_EINVAL);
    /* the kind's validate callback runs (no schema validation) */
    create("{\"kind\":\"Widget\",\"metadata\":{\"name\":\"w3\",\"project\":\"p1\"},"
           "\"spec\":{\"color\":\"blue\",\"size\":13}}", CUBE_EINVAL);
    assert_string_equal(cube_mock_last_log(), "spec.size: blue widgets cannot be size 13");
    cJSON *g = create("{\"kind\":\"Gadget\",\"metadata\":{\"name\":\"g\"}}", CUBE_OK);
    assert_null(meta_str(g, "project"));
    assert_non_null(cJSON_GetObjectItemCaseSensitive(g, "spec"));
    cJSON_Delete(g);
    /* the same name in another project is another object */
    cJSON_Delete(create("{\"kind\":\"Widget\",\"metadata\":{\"name\":\"w1\",\"project\":\"p2\"}}",
                        CUBE_OK));
    assert_non_null(cube_mock_object("Gadget", NULL, "g"));
}

static void update_keeps_status_and_checks_version(void **st)
{
    (void)st;
    int rc;
    cJSON_Delete(create(W1, CUBE_OK));
    cube_mock_run_controllers();
    char *out = host->obj_update(self, "{\"kind\":\"Widget\",\"metadata\":{\"name\":\"w1\","
                                 "\"project\":\"p1\",\"resourceVersion\":\"1\"},\"spec\":{}}", &rc);
    assert_null(out);
    assert_int_equal(rc, CUBE_ECONFLICT);
    out = host->obj_update(self, "{\"kind\":\"Widget\",\"metadata\":{\"name\":\"w1\","
                           "\"project\":\"p1\",\"resourceVersion\":\"2\",\"labels\":{\"app\":\"x\"}},"
                           "\"spec\":{\"size\":5}}", &rc);
    assert_int_equal(rc, CUBE_OK);
    cJSON *w = cJSON_Parse(out);
    host->free(out);
    assert_true(meta_num(w, "generation") == 2);
    assert_string_equal(meta_str(w, "resourceVersion"), "3");
    assert_non_null(cJSON_GetObjectItemCaseSensitive(w, "status")); /* kept */
    cJSON_Delete(w);
    /* an unchanged body writes nothing */
    out = host->obj_update(self, "{\"kind\":\"Widget\",\"metadata\":{\"name\":\"w1\","
                           "\"project\":\"p1\",\"labels\":{\"app\":\"x\"}},\"spec\":{\"size\":5}}", &rc);
    w = cJSON_Parse(out);
    host->free(out);
    assert_string_equal(meta_str(w, "resourceVersion"), "3");
    cJSON_Delete(w);
    /* labels only: a new version, the same generation */
    out = host->obj_update(self, "{\"kind\":\"Widget\",\"metadata\":{\"name\":\"w1\","
                           "\"project\":\"p1\",\"labels\":{\"app\":\"y\"}},\"spec\":{\"size\":5}}", &rc);
    w = cJSON_Parse(out);
    host->free(out);
    assert_true(meta_num(w, "generation") == 2);
    assert_string_equal(meta_str(w, "resourceVersion"), "4");
    cJSON_Delete(w);
    out = host->obj_update(self, "{\"kind\":\"Widget\",\"metadata\":{\"name\":\"zz\","
                           "\"project\":\"p1\"}}", &rc);
    assert_null(out);
    assert_int_equal(rc, CUBE_ENOTFOUND);
    /* status: stale version, then a replace */
    out = host->obj_update_status(self, "Widget", "p1", "w1", "{\"phase\":\"X\"}", "1", &rc);
    assert_int_equal(rc, CUBE_ECONFLICT);
    out = host->obj_update_status(self, "Widget", "p1", "w1", "{\"phase\":\"X\"}", "4", &rc);
    assert_int_equal(rc, CUBE_OK);
    host->free(out);
    assert_non_null(strstr(cube_mock_object("Widget", "p1", "w1"), "\"status\":{\"phase\":\"X\"}"));
    cube_mock_run_controllers(); /* the controller sets observedSize 5 */
    assert_non_null(strstr(cube_mock_object("Widget", "p1", "w1"), "\"observedSize\":5"));
}

static void list_selects_and_delete_removes(void **st)
{
    (void)st;
    int rc;
    cJSON_Delete(create(W1, CUBE_OK));
    cJSON_Delete(create("{\"kind\":\"Widget\",\"metadata\":{\"name\":\"a0\",\"project\":\"p1\","
                        "\"labels\":{\"app\":\"z\"}}}", CUBE_OK));
    cJSON_Delete(create("{\"kind\":\"Widget\",\"metadata\":{\"name\":\"b0\",\"project\":\"p2\"}}",
                        CUBE_OK));
    char *out = host->obj_list(self, "Widget", "p1", NULL, &rc);
    cJSON *l = cJSON_Parse(out);
    host->free(out);
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(l, "kind")),
                        "WidgetList");
    cJSON *items = cJSON_GetObjectItemCaseSensitive(l, "items");
    assert_int_equal(cJSON_GetArraySize(items), 2);
    assert_string_equal(meta_str(cJSON_GetArrayItem(items, 0), "name"), "a0"); /* by name */
    cJSON_Delete(l);
    out = host->obj_list(self, "Widget", "p1", "app=x", &rc);
    assert_non_null(strstr(out, "\"name\":\"w1\""));
    assert_null(strstr(out, "\"name\":\"a0\""));
    host->free(out);
    out = host->obj_list(self, "Widget", NULL, "app!=x", &rc);
    assert_non_null(strstr(out, "\"a0\""));
    assert_non_null(strstr(out, "\"b0\""));
    assert_null(strstr(out, "\"w1\""));
    host->free(out);
    assert_null(host->obj_list(self, "Widget", "p1", "app in (x)", &rc));
    assert_int_equal(rc, CUBE_EINVAL);

    while (cube_mock_run_controllers() > 0)
        ; /* until every status is written */
    assert_int_equal(host->obj_delete(self, "Widget", "p1", "w1"), CUBE_OK);
    assert_int_equal(host->obj_delete(self, "Widget", "p1", "w1"), CUBE_ENOTFOUND);
    assert_null(host->obj_get(self, "Widget", "p1", "w1", &rc));
    assert_int_equal(rc, CUBE_ENOTFOUND);
    assert_null(cube_mock_object("Widget", "p1", "w1"));
    /* the controller hears of the deletion (object NULL) */
    assert_int_equal(cube_mock_run_controllers(), 1);
}

static void delete_cascades_to_owned(void **st)
{
    (void)st;
    cJSON *w = create(W1, CUBE_OK);
    char lock[512];
    snprintf(lock, sizeof lock, "{\"kind\":\"Lock\",\"metadata\":{\"name\":\"l1\",\"project\":"
             "\"p1\",\"ownerReferences\":[{\"kind\":\"Widget\",\"name\":\"w1\",\"uid\":\"%s\","
             "\"controller\":true}]}}", meta_str(w, "uid"));
    cJSON_Delete(w);
    cube_mock_run_controllers();
    cube_mock_run_controllers();
    cJSON_Delete(create(lock, CUBE_OK));
    assert_int_equal(cube_mock_run_controllers(), 1); /* the owner's controller */
    assert_int_equal(host->obj_delete(self, "Widget", "p1", "w1"), CUBE_OK);
    assert_null(cube_mock_object("Lock", "p1", "l1"));
}

static void poke_action_records_event(void **st)
{
    (void)st;
    cube_mock_set_user("root", "admin");   /* poke is for administrators */
    struct cube_mock_response r = cube_mock_request("POST", "/api/v1/projects/p1/widgets/w1/poke",
                                                    NULL, NULL, NULL);
    assert_int_equal(r.status, 404); /* no such widget yet */
    cube_mock_response_free(&r);
    int n = -1;
    cube_mock_events(&n);
    assert_int_equal(n, 0);

    cJSON_Delete(create(W1, CUBE_OK));
    r = cube_mock_request("POST", "/api/v1/projects/p1/widgets/w1/poke", NULL, NULL, NULL);
    assert_int_equal(r.status, 200);
    assert_string_equal(r.body, "{\"poked\":true}");
    cube_mock_response_free(&r);
    const struct cube_mock_event *ev = cube_mock_events(&n);
    assert_int_equal(n, 1);
    assert_string_equal(ev[0].kind, "Widget");
    assert_string_equal(ev[0].project, "p1");
    assert_string_equal(ev[0].name, "w1");
    assert_string_equal(ev[0].type, "Normal");
    assert_string_equal(ev[0].reason, "Poked");
    assert_string_equal(ev[0].message, "someone poked it");
    /* wrong method: not routed */
    r = cube_mock_request("GET", "/api/v1/projects/p1/widgets/w1/poke", NULL, NULL, NULL);
    assert_int_equal(r.status, 404);
    cube_mock_response_free(&r);
    assert_int_equal(host->obj_event(self, "Widget", "p1", "w1", "Odd", "X", ""), CUBE_EINVAL);
}

/* A route that answers with the widget's "main" log (for resp_log). */
static int show_log(void *st, cube_req *req)
{
    (void)st;
    return host->resp_log(req, "Widget", host->req_param(req, "project"),
                          host->req_param(req, "name"), "main", 0, 1);
}

static void say_action_appends_to_log(void **st)
{
    (void)st;
    int rc;
    size_t len;
    cJSON_Delete(create(W1, CUBE_OK));
    assert_null(host->log_read(self, "Widget", "p1", "w1", "main", 0, 100, &len, &rc));
    assert_int_equal(rc, CUBE_ENOTFOUND);
    cube_mock_set_user("root", "admin");   /* say is for administrators */
    struct cube_mock_response r = cube_mock_request("POST", "/api/v1/projects/p1/widgets/w1/say",
                                                    "text=hello", NULL, NULL);
    assert_int_equal(r.status, 200);
    cube_mock_response_free(&r);
    char *text = host->log_read(self, "Widget", "p1", "w1", "main", 0, 100, &len, &rc);
    assert_int_equal(rc, CUBE_OK);
    assert_string_equal(text, "hello\n");
    assert_int_equal(len, 6);
    host->free(text);
    assert_int_equal(cube_mock_log_closed("Widget", "p1", "w1", "main"), 0);
    r = cube_mock_request("POST", "/api/v1/projects/p1/widgets/w1/say", "text=w%6Frld&close=1",
                          NULL, NULL);
    cube_mock_response_free(&r);
    assert_int_equal(cube_mock_log_closed("Widget", "p1", "w1", "main"), 1);
    text = host->log_read(self, "Widget", "p1", "w1", "main", 6, 3, &len, &rc);
    assert_string_equal(text, "wor");
    host->free(text);

    const struct cube_route_desc route = {.size = sizeof route, .method = "GET",
        .path = "/api/v1/test/{project}/{name}/log", .permission = CUBE_PERM_PUBLIC,
        .handler = show_log};
    assert_int_equal(host->register_route(self, &route), CUBE_OK);
    r = cube_mock_request("GET", "/api/v1/test/p1/w1/log", NULL, NULL, NULL);
    assert_int_equal(r.status, 200);
    assert_string_equal(r.body, "hello\nworld\n");
    cube_mock_response_free(&r);
    r = cube_mock_request("GET", "/api/v1/test/p1/nope/log", NULL, NULL, NULL);
    assert_int_equal(r.status, 404);
    cube_mock_response_free(&r);
    /* deleting the widget drops its logs */
    assert_int_equal(host->obj_delete(self, "Widget", "p1", "w1"), CUBE_OK);
    assert_int_equal(cube_mock_log_closed("Widget", "p1", "w1", "main"), -1);
}

static void project_files(void **st)
{
    (void)st;
    int rc;
    size_t len;
    assert_int_equal(host->file_write(self, "p1", "a/b.txt", "bee", 3), CUBE_OK);
    assert_int_equal(host->file_write(self, "p1", "a/c.txt", "sea!", 4), CUBE_OK);
    assert_int_equal(host->file_write(self, "p1", "top.txt", "t", 1), CUBE_OK);
    assert_int_equal(host->file_write(self, "p2", "other", "o", 1), CUBE_OK);
    char *out = host->file_list(self, "p1", NULL, &rc);
    assert_string_equal(out, "[{\"name\":\"a\",\"size\":0,\"dir\":true},"
                             "{\"name\":\"top.txt\",\"size\":1,\"dir\":false}]");
    host->free(out);
    out = host->file_list(self, "p1", "a", &rc);
    assert_string_equal(out, "[{\"name\":\"b.txt\",\"size\":3,\"dir\":false},"
                             "{\"name\":\"c.txt\",\"size\":4,\"dir\":false}]");
    host->free(out);
    assert_null(host->file_list(self, "p1", "zz", &rc));
    assert_int_equal(rc, CUBE_ENOTFOUND);
    out = host->file_list(self, "p3", "", &rc);
    assert_string_equal(out, "[]");
    host->free(out);
    out = host->file_read(self, "p1", "a/c.txt", &len, &rc);
    assert_int_equal(len, 4);
    assert_string_equal(out, "sea!");
    host->free(out);
    static const char *const bad[] = {"", "/abs", "../up", "a/../b", "a//b", "a/./b", "a/"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(host->file_write(self, "p1", bad[i], "x", 1), CUBE_EINVAL);
        assert_null(host->file_read(self, "p1", bad[i], &len, &rc));
        assert_int_equal(rc, CUBE_EINVAL);
    }
    assert_int_equal(host->file_write(self, "p1", "top.txt/x", "x", 1), CUBE_EEXIST);
    assert_int_equal(host->file_write(self, "p1", "a", "x", 1), CUBE_EEXIST);
    assert_int_equal(host->file_delete(self, "p1", "a"), CUBE_ECONFLICT);
    assert_int_equal(host->file_write(self, "p1", "top.txt", "replaced", 8), CUBE_OK);
    assert_int_equal(host->file_delete(self, "p1", "a/b.txt"), CUBE_OK);
    assert_int_equal(host->file_delete(self, "p1", "a/b.txt"), CUBE_ENOTFOUND);
    assert_null(host->file_read(self, "p1", "a/b.txt", &len, &rc));
    assert_int_equal(rc, CUBE_ENOTFOUND);
    out = host->file_read(self, "p1", "top.txt", &len, &rc);
    assert_string_equal(out, "replaced");
    host->free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(registers_kinds_and_actions, setup, teardown),
        cmocka_unit_test_setup_teardown(error_channel, setup, teardown),
        cmocka_unit_test_setup_teardown(controller_sets_status, setup, teardown),
        cmocka_unit_test_setup_teardown(create_checks_identity, setup, teardown),
        cmocka_unit_test_setup_teardown(update_keeps_status_and_checks_version, setup, teardown),
        cmocka_unit_test_setup_teardown(list_selects_and_delete_removes, setup, teardown),
        cmocka_unit_test_setup_teardown(delete_cascades_to_owned, setup, teardown),
        cmocka_unit_test_setup_teardown(poke_action_records_event, setup, teardown),
        cmocka_unit_test_setup_teardown(say_action_appends_to_log, setup, teardown),
        cmocka_unit_test_setup_teardown(project_files, setup, teardown),
    };
    return cmocka_run_group_tests_name("fake host 1.1 slots (testkinds)", tests, NULL, NULL);
}
