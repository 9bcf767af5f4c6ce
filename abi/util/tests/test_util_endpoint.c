/* test_util_endpoint.c — replica endpoints' "host:port" (cube/util/
 * endpoint.h): what splits, what is refused, an endpoints report's rules. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <cube/util/endpoint.h>

static void splits_v4_v6_and_names(void **st)
{
    (void)st;
    char host[64];
    unsigned port;
    int v6;
    assert_int_equal(cu_hostport_split("10.0.0.5:30001", host, sizeof host, &port, &v6), 0);
    assert_string_equal(host, "10.0.0.5");
    assert_int_equal(port, 30001);
    assert_int_equal(v6, 0);
    assert_int_equal(cu_hostport_split("[fd00::5]:8888", host, sizeof host, &port, &v6), 0);
    assert_string_equal(host, "fd00::5");
    assert_int_equal(v6, 1);
    assert_int_equal(cu_hostport_split("nb-0.svc.cluster.local:80", host, sizeof host, &port,
                                       NULL), 0);
    assert_string_equal(host, "nb-0.svc.cluster.local");
    assert_int_equal(cu_hostport_split("h:1", host, 2, &port, NULL), 0);
    assert_int_equal(cu_hostport_split("hh:1", host, 2, &port, NULL), -1);   /* too long */
}

static void bad_ones_are_refused(void **st)
{
    (void)st;
    static const char *const BAD[] = {
        "", "10.0.0.5", "10.0.0.5:", ":80", "10.0.0.5:0", "10.0.0.5:65536", "10.0.0.5:8o",
        "10.0.0.5:-1", "[fd00::5]8888", "[fd00::5", "[not-v6]:80", "fd00::5:80",
        "a b:80", "-x:80", "x-:80", "a..b:80", "a.:80", "1.2.3:80", "999.1.1.1:80",
        "host_name:80", "10.0.0.5:80\n", "10.0.0.5:123456"};
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++)
        assert_false(cu_hostport_ok(BAD[i]));
    assert_false(cu_hostport_ok(NULL));
    char longname[400];
    memset(longname, 'a', sizeof longname);
    strcpy(longname + 300, ":80");
    assert_false(cu_hostport_ok(longname));
    static const char *const GOOD[] = {"127.0.0.1:1", "10.88.0.1:65535", "[::1]:80",
                                       "node-7:29500", "a.b-c.example:443"};
    for (size_t i = 0; i < sizeof GOOD / sizeof GOOD[0]; i++)
        assert_true(cu_hostport_ok(GOOD[i]));
}

static int ok(const char *json, int max)
{
    cJSON *o = cJSON_Parse(json);
    int r = cu_endpoints_ok(o, max);
    cJSON_Delete(o);
    return r;
}

static void an_endpoints_report(void **st)
{
    (void)st;
    assert_true(ok("{}", 16));
    assert_true(ok("{\"http\":\"10.0.0.5:1\",\"rdzv\":\"[::1]:2\"}", 16));
    assert_false(ok("{\"http\":\"10.0.0.5:1\",\"rdzv\":\"[::1]:2\"}", 1));   /* too many */
    assert_false(ok("[]", 16));
    assert_false(ok("{\"HTTP\":\"10.0.0.5:1\"}", 16));                     /* not a label */
    assert_false(ok("{\"http\":30001}", 16));
    assert_false(ok("{\"http\":\"10.0.0.5:1\",\"http\":\"10.0.0.6:1\"}", 16)); /* twice */
    assert_false(ok("{\"http\":\"10.0.0.5\"}", 16));
    assert_false(cu_endpoints_ok(NULL, 16));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(splits_v4_v6_and_names),
        cmocka_unit_test(bad_ones_are_refused),
        cmocka_unit_test(an_endpoints_report),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
