/* test_mock_serving.c — the ABI 1.5 proxy serving slots through the fake
 * host: the servingprobe plugin's mirror sampling, parking and wake,
 * done's figures and proxy_stats, as cubed would drive them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cube_mock.h"

const struct cube_plugin_desc *cube_plugin_servingprobe(void);

enum { SERVE = 0, CAP = 1 };
static const char CONFIG[] = "{\"port\":1000,\"mirror_port\":1001,\"dead_port\":1002}";

static int setup(void **state)
{
    void *st;
    cube_mock_set_user("alice", "viewer");
    assert_int_equal(cube_mock_init(cube_plugin_servingprobe(), CONFIG, &st), CUBE_OK);
    *state = st;
    return 0;
}

static int teardown(void **state)
{
    cube_mock_reset(cube_plugin_servingprobe(), *state);
    return 0;
}

/* The JSON an api route answered (the test frees it). */
static char *get(const char *method, const char *path, const char *query)
{
    struct cube_mock_response r = cube_mock_request(method, path, query, NULL, NULL);
    assert_int_equal(r.status, 200);
    char *body = r.body;
    r.body = NULL;
    cube_mock_response_free(&r);
    return body;
}

static void assert_has(const char *text, const char *want)
{
    if (!text)
        fail_msg("no answer (looking for %s)", want);
    else if (!strstr(text, want))
        fail_msg("%s not in %s", want, text);
}

static void registered_with_done_and_park_max(void **state)
{
    (void)state;
    const struct cube_proxy_desc *d = cube_mock_proxy(CAP);
    assert_non_null(d->done);
    assert_int_equal(d->park_max, 2);
    assert_int_equal(cube_mock_proxy(SERVE)->mirror_body_max, 4096);
}

static void mirror_takes_half_and_skips_big_bodies(void **state)
{
    (void)state;
    for (int i = 0; i < 10; i++)
        assert_int_equal(cube_mock_proxy_send(SERVE, "/serve/p/m50a/x", 200, 10, 20), 200);
    char *s = get("GET", "/api/v1/servingprobe/stats", "key=p/m50a");
    assert_has(s, "\"rc\":0,\"requests\":10,\"inflight\":0,\"parked\":0,\"errors\":0,"
                  "\"mirrored\":5,\"mirror_errors\":0");
    free(s);
    /* a body over mirror_body_max (4096) is relayed, not copied */
    for (int i = 0; i < 4; i++)
        cube_mock_proxy_send(SERVE, "/serve/p/m50big/x", 200, 5000, 1);
    s = get("GET", "/api/v1/servingprobe/stats", "key=p/m50big");
    assert_has(s, "\"mirrored\":0");
    free(s);
    s = get("GET", "/api/v1/servingprobe/done", "key=p/m50a");
    assert_has(s, "{\"status\":200,\"upstream\":1,\"error\":0,\"mirrored\":0,\"parked\":0");
    assert_has(s, "\"mirrored\":1");
    assert_has(s, "\"bytes_in\":10,\"bytes_out\":20");
    free(s);
    /* a misconfigured mirror is the plugin's bug: 503, logged */
    assert_int_equal(cube_mock_proxy_send(SERVE, "/serve/p/badmirror/x", 200, 0, 0), 503);
    assert_non_null(strstr(cube_mock_last_log(), "mirror_percent"));
}

static void parked_requests_wake_expire_and_hang_up(void **state)
{
    (void)state;
    for (int i = 0; i < 3; i++)
        assert_int_equal(cube_mock_proxy_send(SERVE, "/serve/p/cold1/v1/models", 200, 0, 7), 0);
    assert_int_equal(cube_mock_proxy_send(SERVE, "/serve/p/cold2/x", 200, 0, 0), 0);
    assert_int_equal(cube_mock_proxy_parked(), 4);
    char *s = get("GET", "/api/v1/servingprobe/stats", "key=p/cold1");
    assert_has(s, "\"requests\":3,\"inflight\":3,\"parked\":3");
    free(s);
    /* the plugin's route marks the key ready and wakes its requests only */
    s = get("POST", "/api/v1/servingprobe/ready", "key=p/cold1");
    assert_has(s, "{\"woken\":3}");
    free(s);
    assert_int_equal(cube_mock_proxy_run_woken(), 3);
    assert_int_equal(cube_mock_proxy_parked(), 1);
    s = get("GET", "/api/v1/servingprobe/done", "key=p/cold1");
    assert_has(s, "{\"status\":200,\"upstream\":1,\"error\":0,\"mirrored\":0,\"parked\":1");
    free(s);
    s = get("GET", "/api/v1/servingprobe/stats", "key=p/cold1");
    assert_has(s, "\"requests\":3,\"inflight\":0,\"parked\":0,\"errors\":0");
    free(s);
    /* a caller that hangs up leaves the park; a deadline answers 504 */
    assert_int_equal(cube_mock_proxy_send(SERVE, "/serve/p/cold3/x", 200, 0, 0), 0);
    assert_int_equal(cube_mock_proxy_hang_up("p/cold3"), 1);
    assert_int_equal(cube_mock_proxy_expire(), 1);
    int n;
    const int *ended = cube_mock_proxy_ended(&n);
    assert_int_equal(ended[n - 2], 499);
    assert_int_equal(ended[n - 1], 504);
    s = get("GET", "/api/v1/servingprobe/stats", "key=p/cold2");
    assert_has(s, "\"requests\":1,\"inflight\":0,\"parked\":0,\"errors\":1");
    free(s);
    s = get("GET", "/api/v1/servingprobe/stats", NULL);
    assert_has(s, "\"requests\":5,\"inflight\":0,\"parked\":0,\"errors\":1");
    free(s);
}

static void a_wake_during_resolve_is_not_lost(void **state)
{
    (void)state;
    assert_int_equal(cube_mock_proxy_send(SERVE, "/serve/p/race1/x", 200, 0, 0), 200);
    assert_int_equal(cube_mock_proxy_parked(), 0);
}

static void park_max_answers_503(void **state)
{
    (void)state;
    assert_int_equal(cube_mock_proxy_send(CAP, "/servecap/p/cold9/x", 200, 0, 0), 0);
    assert_int_equal(cube_mock_proxy_send(CAP, "/servecap/p/cold9/x", 200, 0, 0), 0);
    assert_int_equal(cube_mock_proxy_send(CAP, "/servecap/p/cold9/x", 200, 0, 0), 503);
    char *s = get("POST", "/api/v1/servingprobe/ready", "prefix=servecap&key=p/cold9");
    assert_has(s, "{\"woken\":2}");
    free(s);
    assert_int_equal(cube_mock_proxy_run_woken(), 2);
}

static void stats_keys_and_errors(void **state)
{
    (void)state;
    assert_int_equal(cube_mock_proxy_send(SERVE, "/serve/p/keyed/x", 502, 0, 0), 502);
    char *s = get("GET", "/api/v1/servingprobe/stats", "key=custom-key");
    assert_has(s, "\"rc\":0,\"requests\":1,\"inflight\":0,\"parked\":0,\"errors\":1");
    free(s);
    s = get("GET", "/api/v1/servingprobe/stats", "key=p/nobody");
    assert_has(s, "\"rc\":-3,\"requests\":0"); /* CUBE_ENOTFOUND, zeroed */
    free(s);
    cube_plugin *self;
    const struct cube_host *h = cube_mock_host(CONFIG, &self);
    struct cube_proxy_stats st = {.size = 4};
    assert_int_equal(h->proxy_stats(self, "/serve/{project}/{name}", NULL, &st), CUBE_EINVAL);
    assert_int_equal(h->proxy_wake(self, "/nope", NULL), CUBE_ENOTFOUND);
    assert_int_equal(h->proxy_wake(self, NULL, NULL), CUBE_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(registered_with_done_and_park_max, setup, teardown),
        cmocka_unit_test_setup_teardown(mirror_takes_half_and_skips_big_bodies, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(parked_requests_wake_expire_and_hang_up, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(a_wake_during_resolve_is_not_lost, setup, teardown),
        cmocka_unit_test_setup_teardown(park_max_answers_503, setup, teardown),
        cmocka_unit_test_setup_teardown(stats_keys_and_errors, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
