/* test_router.c — path templates, params, methods, precedence, bad input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "http/router.h"

static int T_LIST, T_GET, T_PUT, T_ACTION, T_STATIC, T_FILES, T_ROOT;
static char err[256];

static int setup(void **st)
{
    struct cube_router *r = cube_router_new();
    assert_non_null(r);
    assert_int_equal(cube_router_add(r, "GET", "/api/v1/projects/{project}/{plural}", &T_LIST, err, sizeof err), 0);
    assert_int_equal(cube_router_add(r, "GET", "/api/v1/projects/{project}/{plural}/{name}", &T_GET, err, sizeof err), 0);
    assert_int_equal(cube_router_add(r, "PUT", "/api/v1/projects/{project}/{plural}/{name}", &T_PUT, err, sizeof err), 0);
    assert_int_equal(cube_router_add(r, "POST", "/api/v1/projects/{project}/{plural}/{name}/{action}", &T_ACTION, err, sizeof err), 0);
    assert_int_equal(cube_router_add(r, "GET", "/api/v1/projects/{project}/jobs/special", &T_STATIC, err, sizeof err), 0);
    assert_int_equal(cube_router_add(r, "GET", "/files/{path*}", &T_FILES, err, sizeof err), 0);
    assert_int_equal(cube_router_add(r, "GET", "/", &T_ROOT, err, sizeof err), 0);
    *st = r;
    return 0;
}

static int teardown(void **st)
{
    cube_router_free(*st);
    return 0;
}

static void params_are_extracted_and_decoded(void **st)
{
    struct cube_route_match m;
    assert_int_equal(cube_router_match(*st, "GET", "/api/v1/projects/p%20one/jobs/j1", &m), CUBE_ROUTE_FOUND);
    assert_ptr_equal(m.target, &T_GET);
    assert_string_equal(cube_route_match_param(&m, "project"), "p one");
    assert_string_equal(cube_route_match_param(&m, "plural"), "jobs");
    assert_string_equal(cube_route_match_param(&m, "name"), "j1");
    assert_null(cube_route_match_param(&m, "nope"));
    assert_string_equal(m.pattern, "/api/v1/projects/{project}/{plural}/{name}");
    cube_route_match_clear(&m);
}

static void encoded_slash_stays_in_param(void **st)
{
    struct cube_route_match m;
    assert_int_equal(cube_router_match(*st, "GET", "/api/v1/projects/a%2Fb/jobs/x", &m), CUBE_ROUTE_FOUND);
    assert_string_equal(cube_route_match_param(&m, "project"), "a/b");
    cube_route_match_clear(&m);
}

static void literal_beats_param(void **st)
{
    struct cube_route_match m;
    assert_int_equal(cube_router_match(*st, "GET", "/api/v1/projects/p/jobs/special", &m), CUBE_ROUTE_FOUND);
    assert_ptr_equal(m.target, &T_STATIC);
    cube_route_match_clear(&m);
    /* backtracking: literal "jobs" then param falls back for other names */
    assert_int_equal(cube_router_match(*st, "GET", "/api/v1/projects/p/jobs/other", &m), CUBE_ROUTE_FOUND);
    assert_ptr_equal(m.target, &T_GET);
    cube_route_match_clear(&m);
}

static void method_mismatch_reports_allow(void **st)
{
    struct cube_route_match m;
    assert_int_equal(cube_router_match(*st, "DELETE", "/api/v1/projects/p/jobs/j", &m), CUBE_ROUTE_BAD_METHOD);
    assert_string_equal(m.allow, "GET, HEAD, PUT");
    assert_int_equal(cube_router_match(*st, "OPTIONS", "/api/v1/projects/p/jobs", &m), CUBE_ROUTE_BAD_METHOD);
    assert_int_equal(cube_router_match(*st, "HEAD", "/api/v1/projects/p/jobs", &m), CUBE_ROUTE_FOUND);
    assert_ptr_equal(m.target, &T_LIST);
    cube_route_match_clear(&m);
}

static void rest_param_takes_remaining_segments(void **st)
{
    struct cube_route_match m;
    assert_int_equal(cube_router_match(*st, "GET", "/files/a/b%20c/d.txt", &m), CUBE_ROUTE_FOUND);
    assert_ptr_equal(m.target, &T_FILES);
    assert_string_equal(cube_route_match_param(&m, "path"), "a/b c/d.txt");
    cube_route_match_clear(&m);
    assert_int_equal(cube_router_match(*st, "GET", "/files", &m), CUBE_ROUTE_NOT_FOUND);
}

static void malformed_paths_are_not_found(void **st)
{
    struct cube_route_match m;
    const char *bad[] = {"", "api", "/api//v1", "/api/v1/projects/p/jobs/", "/api/v1/projects/%zz/jobs",
                         "/api/v1/projects/%00/jobs", "/api/v1/projects/%4/jobs", "/nothing/here"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(cube_router_match(*st, "GET", bad[i], &m), CUBE_ROUTE_NOT_FOUND);
    assert_int_equal(cube_router_match(*st, "GET", "/", &m), CUBE_ROUTE_FOUND);
    assert_ptr_equal(m.target, &T_ROOT);
}

static void too_many_segments_is_not_found(void **st)
{
    struct cube_route_match m;
    char path[1024] = "";
    for (int i = 0; i < 100; i++)
        strcat(path, "/a");
    assert_int_equal(cube_router_match(*st, "GET", path, &m), CUBE_ROUTE_NOT_FOUND);
}

static void bad_templates_are_rejected(void **st)
{
    struct cube_router *r = *st;
    const char *bad[] = {"nope", "/a//b", "/a/{}", "/a/{x", "/a/b{x}", "/a/{x*}/b", "/a/{x}/{x}", "/a/{x-y}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        assert_int_equal(cube_router_add(r, "GET", bad[i], &T_ROOT, err, sizeof err), -1);
        assert_true(err[0] != '\0');
    }
    assert_int_equal(cube_router_add(r, "BREW", "/coffee", &T_ROOT, err, sizeof err), -1);
    assert_int_equal(cube_router_add(r, "HEAD", "/coffee", &T_ROOT, err, sizeof err), -1);
    /* same shape, other param names: a conflict */
    assert_int_equal(cube_router_add(r, "GET", "/api/v1/projects/{p}/{k}", &T_ROOT, err, sizeof err), -2);
    assert_non_null(strstr(err, "conflicts"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(params_are_extracted_and_decoded, setup, teardown),
        cmocka_unit_test_setup_teardown(encoded_slash_stays_in_param, setup, teardown),
        cmocka_unit_test_setup_teardown(literal_beats_param, setup, teardown),
        cmocka_unit_test_setup_teardown(method_mismatch_reports_allow, setup, teardown),
        cmocka_unit_test_setup_teardown(rest_param_takes_remaining_segments, setup, teardown),
        cmocka_unit_test_setup_teardown(malformed_paths_are_not_found, setup, teardown),
        cmocka_unit_test_setup_teardown(too_many_segments_is_not_found, setup, teardown),
        cmocka_unit_test_setup_teardown(bad_templates_are_rejected, setup, teardown),
    };
    return cmocka_run_group_tests_name("router", tests, NULL, NULL);
}
