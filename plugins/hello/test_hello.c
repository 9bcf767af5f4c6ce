/* test_hello.c — the hello plugin against the fake host (no cubed). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "cube_mock.h"

const struct cube_plugin_desc *cube_plugin_hello(void);

static void *state;

static int setup(void **st)
{
    (void)st;
    return cube_mock_init(cube_plugin_hello(), "{\"greeting\":\"Hi\",\"ticks\":4}", &state);
}

static int teardown(void **st)
{
    (void)st;
    cube_mock_reset(cube_plugin_hello(), state);
    state = NULL;
    return 0;
}

static void descriptor_is_complete(void **st)
{
    (void)st;
    const struct cube_plugin_desc *d = cube_plugin_hello();
    assert_int_equal(d->magic, CUBE_PLUGIN_MAGIC);
    assert_int_equal(d->size, sizeof *d);
    assert_string_equal(d->name, "hello");
    assert_non_null(d->config_schema);
    assert_int_equal(cube_mock_route_count(), 4);
}

static void greets_with_configured_word(void **st)
{
    (void)st;
    struct cube_mock_response r = cube_mock_request("GET", "/api/v1/hello/ada", NULL, NULL, NULL);
    assert_int_equal(r.status, 200);
    assert_string_equal(r.body, "{\"message\":\"Hi, ada!\"}");
    assert_true(cube_mock_metric("cube_hello_greetings_total", "default") == 1.0);
    cube_mock_response_free(&r);
}

static void escapes_names_in_json(void **st)
{
    (void)st;
    struct cube_mock_response r = cube_mock_request("GET", "/api/v1/hello/a\"b", "lang=fr", NULL, NULL);
    assert_string_equal(r.body, "{\"message\":\"Hi, a\\\"b!\"}");
    assert_true(cube_mock_metric("cube_hello_greetings_total", "custom") == 1.0);
    cube_mock_response_free(&r);
}

static void admin_route_validates_body(void **st)
{
    (void)st;
    cube_mock_set_user("root", "admin");   /* the route is for administrators */
    struct cube_mock_response r = cube_mock_request("PUT", "/api/v1/hello/greeting", NULL, NULL, "");
    assert_int_equal(r.status, 400);
    cube_mock_response_free(&r);
    r = cube_mock_request("PUT", "/api/v1/hello/greeting", NULL, NULL, "Salut");
    assert_int_equal(r.status, 200);
    cube_mock_response_free(&r);
    r = cube_mock_request("GET", "/api/v1/hello/bob", NULL, NULL, NULL);
    assert_string_equal(r.body, "{\"message\":\"Salut, bob!\"}");
    cube_mock_response_free(&r);
}

static void catalog_is_about_one_kib(void **st)
{
    (void)st;
    struct cube_mock_response r = cube_mock_request("GET", "/api/v1/hello", NULL, NULL, NULL);
    assert_int_equal(r.status, 200);
    assert_in_range(r.body_len, 900, 1100);
    cube_mock_response_free(&r);
}

static void ticks_stream_sends_configured_events(void **st)
{
    (void)st;
    struct cube_mock_response r = cube_mock_request("GET", "/api/v1/hello-ticks", NULL, NULL, NULL);
    assert_int_equal(r.status, 200);
    assert_true(r.streamed);
    assert_string_equal(r.content_type, "text/event-stream");
    assert_non_null(strstr(r.body, "data: {\"n\":4}\n\n"));
    assert_null(strstr(r.body, "\"n\":5"));
    cube_mock_response_free(&r);
}

static void registers_console_page(void **st)
{
    (void)st;
    const struct cube_ui_desc *ui = cube_mock_ui(0);
    assert_non_null(ui);
    assert_string_equal(ui->id, "hello");
    assert_string_equal(ui->permission, CUBE_PERM_USER);
    assert_string_equal(ui->module, "page.js");
    assert_null(ui->asset_dir); /* the default: ui/ beside the .so */
    assert_null(cube_mock_ui(1));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(descriptor_is_complete, setup, teardown),
        cmocka_unit_test_setup_teardown(greets_with_configured_word, setup, teardown),
        cmocka_unit_test_setup_teardown(escapes_names_in_json, setup, teardown),
        cmocka_unit_test_setup_teardown(admin_route_validates_body, setup, teardown),
        cmocka_unit_test_setup_teardown(catalog_is_about_one_kib, setup, teardown),
        cmocka_unit_test_setup_teardown(ticks_stream_sends_configured_events, setup, teardown),
        cmocka_unit_test_setup_teardown(registers_console_page, setup, teardown),
    };
    return cmocka_run_group_tests_name("hello plugin (fake host)", tests, NULL, NULL);
}
