/* test_sim_endpoints.c — executor-sim's replica endpoints (ABI 1.5) with the
 * fake host: node and endpoint addresses, the report a start makes (host
 * ports, own_ports), the env line a start records (no secret in it), bad
 * address settings, and the replica_endpoints slot's checks. */
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

static int up_with(const char *config)
{
    int rc = cube_mock_init(cube_plugin_executor_sim(), config, &state);
    return rc == CUBE_OK ? cube_plugin_executor_sim()->start(state) : rc;
}

static void down(void)
{
    cube_mock_reset(cube_plugin_executor_sim(), state);
    state = NULL;
}

#define GROUP "\"node_groups\":[{\"prefix\":\"n\",\"count\":3"
#define ADDRESSES ",\"address\":\"10.77.0.1\",\"endpoint_address\":\"10.88.0.1\"}]"

/* A replica of a Job with spec.ports http and rdzv on node, the host's
 * ports 30001 and 30002 (none with own), and a secret in its env. */
static const char *replica(const char *node, int own)
{
    static char buf[1024];
    snprintf(buf, sizeof buf,
             "{\"job\":{\"kind\":\"Job\",\"metadata\":{\"name\":\"train\",\"project\":\"p\"},"
             "\"spec\":{\"ports\":[{\"name\":\"http\"},{\"name\":\"rdzv\"}]}},"
             "\"replica\":1,\"replicas\":2,\"node\":\"%s\",\"address\":\"127.0.0.1\",%s"
             "\"env\":{\"CUBE_TOKEN\":\"s3cret\",\"MASTER_ADDR\":\"10.88.0.1\","
             "\"MASTER_PORT\":\"29500\",\"CUBE_PORT_HTTP\":\"30001\"},"
             "\"command\":[\"x\"],\"log\":{\"kind\":\"Job\",\"project\":\"p\","
             "\"name\":\"train\",\"stream\":\"replica-1\"}}",
             node, own ? "" : "\"ports\":{\"http\":30001,\"rdzv\":30002},");
    return buf;
}

static void start(const char *json, char *id)
{
    char msg[256];
    assert_int_equal(cube_mock_executor()->start(state, json, id, 128, msg, sizeof msg),
                     CUBE_OK);
}

static void expect_report(const char *id, const char *want)
{
    char *got = cube_mock_replica_endpoints(id);
    assert_non_null(got);
    assert_string_equal(got, want);
    free(got);
}

static void nodes_and_replicas_get_addresses(void **st)
{
    (void)st;
    char id[128];
    assert_int_equal(up_with("{" GROUP ADDRESSES "}"), CUBE_OK);
    assert_non_null(strstr(cube_mock_node("n2"), "\"address\":\"10.77.0.3\""));
    assert_false(cube_mock_executor()->flags & CUBE_EXECUTOR_OWN_PORTS);
    start(replica("n1", 0), id);
    expect_report(id, "{\"http\":\"10.88.0.2:30001\",\"rdzv\":\"10.88.0.2:30002\"}");
    struct sim *s = state;
    size_t len;
    int rc;
    char *log = s->host->log_read(s->self, "Job", "p", "train", "replica-1", 0, 4096, &len, &rc);
    assert_non_null(log);
    assert_non_null(strstr(log, "sim: started on n1 devices none env MASTER_ADDR=10.88.0.1 "
                                "MASTER_PORT=29500 CUBE_PORT_HTTP=30001\n"));
    assert_null(strstr(log, "s3cret"));
    s->host->free(log);
    down();
}

static void without_addresses_the_document_address(void **st)
{
    (void)st;
    char id[128];
    assert_int_equal(up_with("{" GROUP "}]}"), CUBE_OK);
    assert_null(strstr(cube_mock_node("n0"), "address"));
    start(replica("n0", 0), id);
    expect_report(id, "{\"http\":\"127.0.0.1:30001\",\"rdzv\":\"127.0.0.1:30002\"}");
    down();
}

static void own_ports_assigns_its_own(void **st)
{
    (void)st;
    char id[128];
    assert_int_equal(up_with("{\"own_ports\":true," GROUP ADDRESSES "}"), CUBE_OK);
    assert_true(cube_mock_executor()->flags & CUBE_EXECUTOR_OWN_PORTS);
    start(replica("n0", 1), id);
    expect_report(id, "{\"http\":\"10.88.0.1:8000\",\"rdzv\":\"10.88.0.1:8001\"}");
    down();
}

static void bad_addresses_name_the_setting(void **st)
{
    (void)st;
    static const char *const BAD[] = {
        "{" GROUP ",\"address\":\"10.0.0\"}]}",
        "{" GROUP ",\"endpoint_address\":\"fd00::1\"}]}",
        "{" GROUP ",\"address\":\"255.255.255.254\"}]}",   /* no room for 3 */
    };
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        assert_int_not_equal(up_with(BAD[i]), CUBE_OK);
        assert_non_null(strstr(cube_mock_last_error(), "node_groups[0]."));
        assert_non_null(strstr(cube_mock_last_error(), "address"));
        down();
    }
}

/* The slot's checks, as cubed makes them (the same libcube-util code). */
static void the_slot_checks_reports(void **st)
{
    (void)st;
    assert_int_equal(up_with("{" GROUP "}]}"), CUBE_OK);
    struct sim *s = state;
    int (*report)(cube_plugin *, const char *, const char *) = s->host->replica_endpoints;
    static const char *const BAD[] = {
        NULL, "", "[]", "{\"http\":30001}", "{\"Http\":\"1.2.3.4:5\"}",
        "{\"http\":\"1.2.3.4\"}", "{\"http\":\"1.2.3.4:5\",\"http\":\"1.2.3.4:6\"}",
        "{\"h\":\"[zz]:5\"}"};
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++)
        assert_int_equal(report(s->self, "sim:x", BAD[i]), CUBE_EINVAL);
    assert_int_equal(report(s->self, NULL, "{}"), CUBE_EINVAL);
    assert_int_equal(report(s->self, "", "{}"), CUBE_EINVAL);
    assert_int_equal(report(s->self, "sim:x", "{\"http\":\"[fd00::5]:80\"}"), CUBE_OK);
    expect_report("sim:x", "{\"http\":\"[fd00::5]:80\"}");
    assert_int_equal(report(s->self, "sim:x", "{}"), CUBE_OK);   /* replaces, clears */
    expect_report("sim:x", "{}");
    assert_null(cube_mock_replica_endpoints("sim:never"));
    down();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(nodes_and_replicas_get_addresses),
        cmocka_unit_test(without_addresses_the_document_address),
        cmocka_unit_test(own_ports_assigns_its_own),
        cmocka_unit_test(bad_addresses_name_the_setting),
        cmocka_unit_test(the_slot_checks_reports),
    };
    return cmocka_run_group_tests_name("executor-sim endpoints (fake host)", tests, NULL, NULL);
}
