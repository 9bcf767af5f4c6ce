/* test_mock_state.c — the statekv test plugin in the fake host: the ABI
 * 1.5 key-value store, secrets, exported API and log resume slots, as a
 * plugin's own unit test would use them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <cube/cube.h>

#include "cube_mock.h"
#include "statekv_api.h"

const struct cube_plugin_desc *cube_plugin_statekv(void);

static void *STATE;

static int setup(void **ts)
{
    (void)ts;
    cube_mock_keep_state(0);
    assert_int_equal(cube_mock_init(cube_plugin_statekv(), NULL, &STATE), CUBE_OK);
    cube_mock_set_user("admin", "admin");
    return 0;
}

static int teardown(void **ts)
{
    (void)ts;
    cube_mock_keep_state(0);
    cube_mock_reset(cube_plugin_statekv(), STATE);
    return 0;
}

static const struct cube_host *host(cube_plugin **self)
{
    return cube_mock_host(NULL, self);
}

static void test_kv_round_trip(void **ts)
{
    (void)ts;
    cube_plugin *self;
    const struct cube_host *h = host(&self);
    const char bin[] = {'a', 0, 'b', (char)0xff};
    assert_int_equal(h->kv_put(self, "jobs/1", bin, sizeof bin), CUBE_OK);
    assert_int_equal(h->kv_put(self, "jobs/2", "two", 3), CUBE_OK);
    assert_int_equal(h->kv_put(self, "other", "", 0), CUBE_OK);
    size_t len = 0;
    int rc = -1;
    char *v = h->kv_get(self, "jobs/1", &len, &rc);
    assert_int_equal(rc, CUBE_OK);
    assert_int_equal(len, sizeof bin);
    assert_memory_equal(v, bin, sizeof bin);
    h->free(v);
    char *list = h->kv_list(self, "jobs/", &rc);
    assert_string_equal(list, "[\"jobs/1\",\"jobs/2\"]");
    h->free(list);
    assert_int_equal(h->kv_delete(self, "jobs/1"), CUBE_OK);
    assert_int_equal(h->kv_delete(self, "jobs/1"), CUBE_ENOTFOUND);
    assert_null(h->kv_get(self, "jobs/1", &len, &rc));
    assert_int_equal(rc, CUBE_ENOTFOUND);
    /* the same through the plugin's routes */
    struct cube_mock_response r = cube_mock_request("PUT", "/api/v1/statekv/kv/k", NULL, NULL, "v1");
    assert_int_equal(r.status, 200);
    cube_mock_response_free(&r);
    r = cube_mock_request("GET", "/api/v1/statekv/kv/k", NULL, NULL, NULL);
    assert_int_equal(r.status, 200);
    assert_string_equal(r.body, "v1");
    cube_mock_response_free(&r);
}

static void test_kv_limits_and_keys(void **ts)
{
    (void)ts;
    cube_plugin *self;
    const struct cube_host *h = host(&self);
    char *big = calloc(1, CUBE_KV_VALUE_MAX + 1);
    assert_int_equal(h->kv_put(self, "big", big, CUBE_KV_VALUE_MAX), CUBE_OK);
    assert_int_equal(h->kv_put(self, "big", big, CUBE_KV_VALUE_MAX + 1), CUBE_ETOOBIG);
    free(big);
    char key[CUBE_KV_KEY_MAX + 2];
    memset(key, 'k', sizeof key - 1);
    key[sizeof key - 1] = '\0';
    assert_int_equal(h->kv_put(self, key, "x", 1), CUBE_EINVAL);   /* one byte too long */
    key[CUBE_KV_KEY_MAX] = '\0';
    assert_int_equal(h->kv_put(self, key, "x", 1), CUBE_OK);
    assert_int_equal(h->kv_put(self, "", "x", 1), CUBE_EINVAL);
    assert_int_equal(h->kv_put(self, "with space", "x", 1), CUBE_EINVAL);
    assert_int_equal(h->kv_put(self, "tab\t", "x", 1), CUBE_EINVAL);
    assert_int_equal(h->kv_put(self, NULL, "x", 1), CUBE_EINVAL);
    assert_int_equal(h->kv_put(self, "nul", NULL, 1), CUBE_EINVAL);
}

static void test_secrets(void **ts)
{
    (void)ts;
    cube_plugin *self;
    const struct cube_host *h = host(&self);
    assert_int_equal(h->secret_put(self, "token", "s3cr3t", 6), CUBE_OK);
    assert_int_equal(h->secret_put(self, "empty", "", 0), CUBE_EINVAL);
    char *big = calloc(1, CUBE_SECRET_VALUE_MAX + 1);
    assert_int_equal(h->secret_put(self, "big", big, CUBE_SECRET_VALUE_MAX + 1), CUBE_ETOOBIG);
    free(big);
    int rc;
    size_t len;
    /* a secret is not a key */
    assert_null(h->kv_get(self, "token", &len, &rc));
    assert_int_equal(rc, CUBE_ENOTFOUND);
    char *v = h->secret_get(self, "token", &len, &rc);
    assert_int_equal(len, 6);
    assert_memory_equal(v, "s3cr3t", 6);
    memset(v, 0, len);
    h->free(v);
    char *list = h->secret_list(self, NULL, &rc);
    assert_string_equal(list, "[\"token\"]");
    h->free(list);
    assert_int_equal(h->secret_delete(self, "token"), CUBE_OK);
    assert_int_equal(h->secret_delete(self, "token"), CUBE_ENOTFOUND);
}

static void test_state_survives_restart(void **ts)
{
    (void)ts;
    cube_plugin *self;
    const struct cube_host *h = host(&self);
    assert_int_equal(h->kv_put(self, "kept", "yes", 3), CUBE_OK);
    assert_int_equal(h->secret_put(self, "pw", "hunter2", 7), CUBE_OK);
    cube_mock_keep_state(1);
    cube_mock_reset(cube_plugin_statekv(), STATE);
    assert_int_equal(cube_mock_init(cube_plugin_statekv(), NULL, &STATE), CUBE_OK);
    h = host(&self);
    int rc;
    size_t len;
    char *v = h->kv_get(self, "kept", &len, &rc);
    assert_non_null(v);
    assert_memory_equal(v, "yes", 3);
    h->free(v);
    v = h->secret_get(self, "pw", &len, &rc);
    assert_non_null(v);
    assert_memory_equal(v, "hunter2", 7);
    h->free(v);
    /* without keep_state a reset forgets them */
    cube_mock_keep_state(0);
    cube_mock_reset(cube_plugin_statekv(), STATE);
    assert_int_equal(cube_mock_init(cube_plugin_statekv(), NULL, &STATE), CUBE_OK);
    h = host(&self);
    assert_null(h->kv_get(self, "kept", &len, &rc));
}

static void test_exported_api(void **ts)
{
    (void)ts;
    uint32_t version = 0;
    const struct statekv_api *api = cube_mock_api(STATEKV_API_NAME, &version);
    assert_non_null(api);
    assert_int_equal(version, STATEKV_API_VERSION);
    assert_int_equal(api->size, sizeof *api);
    assert_string_equal(api->greet(), "hello from statekv");
    assert_true(api->calls() >= 1);
    /* export is init only; the plugin may read its own API */
    cube_plugin *self;
    const struct cube_host *h = host(&self);
    assert_int_equal(h->api_export(self, "late.api", 1, api), CUBE_ESTATE);
    int rc;
    assert_ptr_equal(h->api_get(self, STATEKV_API_NAME, 1, NULL, &rc), api);
    assert_null(h->api_get(self, STATEKV_API_NAME, 3, NULL, &rc));
    assert_int_equal(rc, CUBE_EVERSION);
    assert_null(h->api_get(self, "no.such", 1, NULL, &rc));
    assert_int_equal(rc, CUBE_ENOTFOUND);
    assert_null(h->api_get(self, "Bad Name", 1, NULL, &rc));
    assert_int_equal(rc, CUBE_EINVAL);
}

static void test_log_resume(void **ts)
{
    (void)ts;
    cube_plugin *self;
    const struct cube_host *h = host(&self);
    uint64_t size = 9;
    int closed = 9;
    assert_int_equal(h->log_stat(self, "Job", "p", "j", "out", &size, &closed), CUBE_ENOTFOUND);
    assert_int_equal(h->log_append_at(self, "Job", "p", "j", "out", 0, "hello ", 6), CUBE_OK);
    assert_int_equal(h->log_append_at(self, "Job", "p", "j", "out", 0, "hello ", 6), CUBE_OK);
    assert_int_equal(h->log_append_at(self, "Job", "p", "j", "out", 3, "lo world", 8), CUBE_OK);
    assert_int_equal(h->log_append_at(self, "Job", "p", "j", "out", 20, "gap", 3),
                     CUBE_ECONFLICT);
    assert_int_equal(h->log_stat(self, "Job", "p", "j", "out", &size, &closed), CUBE_OK);
    assert_int_equal(size, 11);
    assert_int_equal(closed, 0);
    size_t len;
    int rc;
    char *text = h->log_read(self, "Job", "p", "j", "out", 0, 100, &len, &rc);
    assert_string_equal(text, "hello world");
    h->free(text);
    assert_int_equal(h->log_close(self, "Job", "p", "j", "out"), CUBE_OK);
    assert_int_equal(h->log_stat(self, "Job", "p", "j", "out", &size, &closed), CUBE_OK);
    assert_int_equal(closed, 1);
    /* a repeat of shipped bytes is fine; new bytes after the end are not */
    assert_int_equal(h->log_append_at(self, "Job", "p", "j", "out", 6, "world", 5), CUBE_OK);
    assert_int_equal(h->log_append_at(self, "Job", "p", "j", "out", 11, "!", 1), CUBE_ESTATE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_kv_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_kv_limits_and_keys, setup, teardown),
        cmocka_unit_test_setup_teardown(test_secrets, setup, teardown),
        cmocka_unit_test_setup_teardown(test_state_survives_restart, setup, teardown),
        cmocka_unit_test_setup_teardown(test_exported_api, setup, teardown),
        cmocka_unit_test_setup_teardown(test_log_resume, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
