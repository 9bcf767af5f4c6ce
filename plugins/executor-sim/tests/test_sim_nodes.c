/* test_sim_nodes.c — executor-sim with the fake host: registration, node
 * documents (counts, shapes, domains), 10,000 nodes, config errors and the
 * admin routes that add and remove nodes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "cube_mock.h"
#include "sim.h"

const struct cube_plugin_desc *cube_plugin_executor_sim(void);

static void *state;

static const char SHAPES[] =
    "{\"pool\":\"bench\",\"node_groups\":["
    "{\"prefix\":\"h200-\",\"count\":100,\"cpu\":\"96\",\"memory\":\"1Ti\","
    " \"labels\":{\"gpu\":\"h200\",\"zone\":\"a\"},"
    " \"devices\":{\"resource\":\"nvidia.com/gpu\",\"count\":8,\"model\":\"H200\","
    "  \"memory\":\"141Gi\",\"domains\":2,\"numa\":2}},"
    "{\"prefix\":\"cpu-\",\"count\":10,\"cpu\":\"500m\",\"memory\":\"4e9\"}]}";

static int up(const char *config)
{
    int rc = cube_mock_init(cube_plugin_executor_sim(), config, &state);
    if (rc == CUBE_OK && cube_plugin_executor_sim()->start(state) != CUBE_OK)
        rc = -100;
    return rc;
}

static int teardown(void **st)
{
    (void)st;
    cube_mock_reset(cube_plugin_executor_sim(), state);
    state = NULL;
    return 0;
}

/* The stored node document, parsed (cJSON_Delete it). */
static cJSON *node(const char *name)
{
    const char *text = cube_mock_node(name);
    return text ? cJSON_Parse(text) : NULL;
}

static const char *str_at(const cJSON *o, const char *a, const char *b)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, a);
    return cJSON_GetStringValue(b ? cJSON_GetObjectItemCaseSensitive(x, b) : x);
}

static void descriptor_and_registration(void **st)
{
    (void)st;
    const struct cube_plugin_desc *d = cube_plugin_executor_sim();
    assert_int_equal(d->magic, CUBE_PLUGIN_MAGIC);
    assert_string_equal(d->name, "executor-sim");
    cJSON *schema = cJSON_Parse(d->config_schema);
    assert_non_null(schema);
    cJSON_Delete(schema);
    assert_int_equal(up(NULL), CUBE_OK);
    const struct cube_executor_desc *e = cube_mock_executor();
    assert_non_null(e);
    assert_string_equal(e->name, "sim");
    assert_non_null(e->start);
    assert_non_null(e->stop);
    assert_non_null(e->adopt);
    assert_int_equal(cube_mock_route_count(), 3);
    /* the default: one group of 4 nodes with 8 H200 each */
    assert_int_equal(cube_mock_node_count(), 4);
    cJSON *n = node("sim-0");
    assert_non_null(n);
    assert_string_equal(str_at(n, "pool", NULL), "sim");
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(n, "devices")), 8);
    cJSON_Delete(n);
}

static void shapes_counts_and_domains(void **st)
{
    (void)st;
    assert_int_equal(up(SHAPES), CUBE_OK);
    assert_int_equal(cube_mock_node_count(), 110);
    assert_null(cube_mock_node("h200-100"));
    cJSON *n = node("h200-42");
    assert_non_null(n);
    assert_string_equal(str_at(n, "name", NULL), "h200-42");
    assert_string_equal(str_at(n, "pool", NULL), "bench");
    assert_string_equal(str_at(n, "capacity", "cpu"), "96");
    assert_string_equal(str_at(n, "capacity", "memory"), "1Ti");
    assert_string_equal(str_at(n, "labels", "gpu"), "h200");
    const cJSON *devs = cJSON_GetObjectItem(n, "devices");
    assert_int_equal(cJSON_GetArraySize(devs), 8);
    for (int i = 0; i < 8; i++) {
        const cJSON *d = cJSON_GetArrayItem(devs, i);
        char id[4], dom[8];
        snprintf(id, sizeof id, "%d", i);
        snprintf(dom, sizeof dom, "nvl-%d", i / 4);
        assert_string_equal(str_at(d, "id", NULL), id);
        assert_string_equal(str_at(d, "domain", NULL), dom);
        assert_int_equal(cJSON_GetNumberValue(cJSON_GetObjectItem(d, "numa")), i / 4);
        assert_string_equal(str_at(d, "model", NULL), "H200");
        assert_string_equal(str_at(d, "memory", NULL), "141Gi");
        assert_string_equal(str_at(d, "resource", NULL), "nvidia.com/gpu");
        assert_true(cJSON_IsTrue(cJSON_GetObjectItem(d, "healthy")));
    }
    cJSON_Delete(n);
    n = node("cpu-9");
    assert_non_null(n);
    assert_string_equal(str_at(n, "capacity", "cpu"), "500m");
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(n, "devices")), 0);
    cJSON_Delete(n);
}

static void uneven_domains_split_evenly(void **st)
{
    (void)st;
    assert_int_equal(up("{\"node_groups\":[{\"prefix\":\"n\",\"count\":1,"
                        "\"devices\":{\"count\":6,\"domains\":4,\"numa\":3}}]}"), CUBE_OK);
    cJSON *n = node("n0");
    const cJSON *devs = cJSON_GetObjectItem(n, "devices");
    const char *want[] = {"nvl-0", "nvl-0", "nvl-1", "nvl-2", "nvl-2", "nvl-3"};
    for (int i = 0; i < 6; i++) {
        assert_string_equal(str_at(cJSON_GetArrayItem(devs, i), "domain", NULL), want[i]);
        assert_int_equal(cJSON_GetNumberValue(cJSON_GetObjectItem(cJSON_GetArrayItem(devs, i),
                                                                  "numa")), i / 2);
    }
    cJSON_Delete(n);
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static const char TEN_K[] =
    "{\"node_groups\":[{\"prefix\":\"h200-\",\"count\":10000,\"cpu\":\"96\","
    "\"memory\":\"1Ti\",\"devices\":{\"count\":8,\"model\":\"H200\","
    "\"memory\":\"141Gi\",\"domains\":2,\"numa\":2}}]}";

static int stub_nodes;
static size_t stub_bytes;

/* A node_set that only counts: what the plugin itself costs. */
static int stub_node_set(cube_plugin *self, const char *doc)
{
    (void)self;
    stub_nodes++;
    stub_bytes += strlen(doc);
    return strncmp(doc, "{\"name\":\"h200-", 14) == 0 ? CUBE_OK : CUBE_EINVAL;
}

static void ten_thousand_nodes_fast(void **st)
{
    (void)st;
    cube_plugin *self;
    struct cube_host h = *cube_mock_host(TEN_K, &self);
    h.node_set = stub_node_set;
    const struct cube_plugin_desc *d = cube_plugin_executor_sim();
    void *s = NULL;
    if (d->init(&h, self, &s) != CUBE_OK)
        fail_msg("init: %s", cube_mock_last_error());
    assert_int_equal(d->start(s), CUBE_OK);
    double own = ((struct sim *)s)->advertise_ms;
    printf("# 10,000 nodes: %.1f ms in the plugin (%d node_set calls, %zu bytes)\n", own,
           stub_nodes, stub_bytes);
    assert_int_equal(stub_nodes, 10000);
    assert_true(own < 250.0);
    cube_mock_reset(d, s);

    double t0 = now_ms();
    assert_int_equal(up(TEN_K), CUBE_OK);
    printf("# 10,000 nodes through the fake host's node_set: %.1f ms (init+start %.1f ms)\n",
           ((struct sim *)state)->advertise_ms, now_ms() - t0);
    assert_int_equal(cube_mock_node_count(), 10000);
    assert_non_null(cube_mock_node("h200-0000"));
    assert_non_null(cube_mock_node("h200-9999"));
}

/* init fails and set_error names the setting. */
static void expect_error(const char *config, const char *setting)
{
    assert_int_not_equal(cube_mock_init(cube_plugin_executor_sim(), config, &state), CUBE_OK);
    assert_null(state);
    const char *err = cube_mock_last_error();
    size_t n = strlen(setting) - 1;   /* "x:"; the host's schema may name x.y or x[0] */
    if (strncmp(err, setting, n) != 0 || !strchr(":.[", err[n]))
        fail_msg("error \"%s\" does not start with \"%s\"", err, setting);
    cube_mock_reset(NULL, NULL);
}

static void bad_config_names_the_setting(void **st)
{
    (void)st;
    expect_error("{\"pool\":\"Bad_Pool\"}", "pool:");
    expect_error("{\"time_scale\":0}", "time_scale:");
    expect_error("{\"run_seconds\":-1}", "run_seconds:");
    expect_error("{\"tick_ms\":1.5}", "tick_ms:");
    expect_error("{\"admin_routes\":\"yes\"}", "admin_routes:");
    expect_error("{\"node_groups\":{}}", "node_groups:");
    expect_error("{\"node_groups\":[{\"prefix\":\"a-\"}]}", "node_groups[0]:");
    expect_error("{\"node_groups\":[{\"prefix\":\"a-\",\"count\":1,\"cpu\":\"lots\"}]}",
                 "node_groups[0].cpu:");
    expect_error("{\"node_groups\":[{\"prefix\":\"a-\",\"count\":1,\"memory\":\"1XB\"}]}",
                 "node_groups[0].memory:");
    expect_error("{\"node_groups\":[{\"prefix\":\"A\",\"count\":1}]}", "node_groups[0].prefix:");
    expect_error("{\"node_groups\":[{\"prefix\":\"a-\",\"count\":0}]}", "node_groups[0].count:");
    expect_error("{\"node_groups\":[{\"prefix\":\"a-\",\"count\":1,\"labels\":{\"x\":1}}]}",
                 "node_groups[0].labels:");
    expect_error("{\"node_groups\":[{\"prefix\":\"a-\",\"count\":2},{\"prefix\":\"b-\","
                 "\"count\":1,\"devices\":{\"count\":2,\"domains\":3}}]}",
                 "node_groups[1].devices.domains:");
    expect_error("{\"node_groups\":[{\"prefix\":\"a-\",\"count\":1,\"devices\":{\"count\":2,"
                 "\"resource\":\"gpu\"}}]}", "node_groups[0].devices.resource:");
    expect_error("{\"node_groups\":[{\"prefix\":\"a-\",\"count\":1},{\"prefix\":\"a-\","
                 "\"count\":1}]}", "node_groups[1]:");
}

static void admin_routes_add_and_remove(void **st)
{
    (void)st;
    assert_int_equal(up(SHAPES), CUBE_OK);
    cube_mock_set_user("root", "admin");   /* the node routes are for administrators */
    struct cube_mock_response r = cube_mock_request("POST", "/api/v1/sim/nodes", NULL, NULL,
        "{\"name\":\"extra-1\",\"cpu\":\"4\",\"memory\":\"8Gi\",\"devices\":{\"count\":2}}");
    assert_int_equal(r.status, 201);
    assert_non_null(strstr(r.body, "\"first\":\"extra-1\""));
    cube_mock_response_free(&r);
    cJSON *n = node("extra-1");
    assert_non_null(n);
    assert_string_equal(str_at(n, "capacity", "cpu"), "4");
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(n, "devices")), 2);
    cJSON_Delete(n);
    r = cube_mock_request("POST", "/api/v1/sim/nodes", NULL, NULL,
                          "{\"prefix\":\"burst-\",\"count\":12}");
    assert_int_equal(r.status, 201);
    assert_non_null(strstr(r.body, "\"last\":\"burst-11\""));
    cube_mock_response_free(&r);
    assert_int_equal(cube_mock_node_count(), 110 + 1 + 12);
    r = cube_mock_request("POST", "/api/v1/sim/nodes", NULL, NULL,
                          "{\"prefix\":\"x-\",\"count\":1,\"cpu\":\"many\"}");
    assert_int_equal(r.status, 400);
    assert_non_null(strstr(r.body, "body.cpu"));
    cube_mock_response_free(&r);
    r = cube_mock_request("DELETE", "/api/v1/sim/nodes/burst-03", NULL, NULL, NULL);
    assert_int_equal(r.status, 200);
    assert_string_equal(r.body, "{\"removed\":\"burst-03\",\"lost\":0}");
    cube_mock_response_free(&r);
    assert_null(cube_mock_node("burst-03"));
    r = cube_mock_request("DELETE", "/api/v1/sim/nodes/burst-03", NULL, NULL, NULL);
    assert_int_equal(r.status, 404);
    cube_mock_response_free(&r);
    r = cube_mock_request("GET", "/api/v1/sim", NULL, NULL, NULL);
    assert_int_equal(r.status, 200);
    assert_non_null(strstr(r.body, "\"pool\":\"bench\",\"nodes\":122,\"running\":0"));
    cube_mock_response_free(&r);
}

static void admin_routes_can_be_turned_off(void **st)
{
    (void)st;
    assert_int_equal(up("{\"admin_routes\":false}"), CUBE_OK);
    assert_int_equal(cube_mock_route_count(), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(descriptor_and_registration, teardown),
        cmocka_unit_test_teardown(shapes_counts_and_domains, teardown),
        cmocka_unit_test_teardown(uneven_domains_split_evenly, teardown),
        cmocka_unit_test_teardown(ten_thousand_nodes_fast, teardown),
        cmocka_unit_test(bad_config_names_the_setting),
        cmocka_unit_test_teardown(admin_routes_add_and_remove, teardown),
        cmocka_unit_test_teardown(admin_routes_can_be_turned_off, teardown),
    };
    return cmocka_run_group_tests_name("executor-sim nodes (fake host)", tests, NULL, NULL);
}
