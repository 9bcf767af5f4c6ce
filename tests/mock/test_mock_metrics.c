/* test_mock_metrics.c — the fake host's ABI 1.5 Job metrics: a replica's
 * 100 points in batches reach the job_metrics slot (filters by name and
 * step), the plugin owning the Job is reconciled (coalesced, not once per
 * point), and bad batches are refused naming the field. */
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

static const struct cube_host *host;
static cube_plugin *self;
static int reconciles;

static int count_reconcile(void *state, const char *kind, const char *project,
                           const char *name, const char *object_json)
{
    (void)state, (void)project, (void)name, (void)object_json;
    if (!strcmp(kind, "Sweep"))
        reconciles++;
    return CUBE_OK;
}

static int sweep_init(const struct cube_host *h, cube_plugin *s, void **state)
{
    host = h;
    self = s;
    const struct cube_kind_desc sweep = {.size = sizeof sweep, .kind = "Sweep",
                                         .plural = "sweeps", .scope = CUBE_SCOPE_PROJECT, .spec_schema = "{}",
                                         .reconcile = count_reconcile};
    const struct cube_kind_desc job = {.size = sizeof job, .kind = "Job", .plural = "jobs",
                                       .scope = CUBE_SCOPE_PROJECT, .spec_schema = "{}"};
    *state = &reconciles;
    int rc = h->register_kind(s, &sweep);
    return rc == CUBE_OK ? h->register_kind(s, &job) : rc;
}

static const struct cube_plugin_desc SWEEP = {
    .magic = CUBE_PLUGIN_MAGIC, .abi_major = CUBE_ABI_MAJOR, .abi_minor = CUBE_ABI_MINOR,
    .size = sizeof SWEEP, .name = "sweep", .init = sweep_init,
};

static int setup(void **st)
{
    (void)st;
    void *state;
    int rc;
    reconciles = 0;
    if ((rc = cube_mock_init(&SWEEP, NULL, &state)) != CUBE_OK) {
        fprintf(stderr, "init: %d %s\n", rc, cube_mock_last_log());
        return -1;
    }
    char *s = host->obj_create(self, "{\"kind\":\"Sweep\",\"metadata\":{\"name\":\"s1\","
                                     "\"project\":\"p\"}}", &rc);
    cJSON *sw = cJSON_Parse(s);
    char job[512];
    snprintf(job, sizeof job, "{\"kind\":\"Job\",\"metadata\":{\"name\":\"trial-1\",\"project\":"
             "\"p\",\"ownerReferences\":[{\"kind\":\"Sweep\",\"name\":\"s1\",\"uid\":\"%s\","
             "\"controller\":true}]}}",
             cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
                 cJSON_GetObjectItemCaseSensitive(sw, "metadata"), "uid")));
    host->free(s);
    cJSON_Delete(sw);
    host->free(host->obj_create(self, job, &rc));
    cube_mock_run_controllers();
    reconciles = 0;
    if (rc != CUBE_OK)
        fprintf(stderr, "setup: %d %s\n", rc, cube_mock_last_log());
    return rc == CUBE_OK ? 0 : -1;
}

static int teardown(void **st)
{
    (void)st;
    cube_mock_reset(NULL, NULL);
    return 0;
}

static int count(const char *json)
{
    cJSON *d = cJSON_Parse(json);
    int n = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(d, "metrics"));
    cJSON_Delete(d);
    return n;
}

static void hundred_points_reconcile_the_owner(void **st)
{
    (void)st;
    char body[4096], field[64];
    for (int b = 0; b < 10; b++) {
        size_t len = (size_t)snprintf(body, sizeof body, "{\"metrics\":[");
        for (int i = 0; i < 10; i++)
            len += (size_t)snprintf(body + len, sizeof body - len,
                                    "%s{\"name\":\"%s\",\"value\":%g,\"step\":%d}", i ? "," : "",
                                    i % 2 ? "acc" : "loss", 1.0 / (b * 10 + i + 1), b * 10 + i);
        snprintf(body + len, sizeof body - len, "]}");
        assert_int_equal(cube_mock_job_metrics_report("p", "trial-1", body, field, sizeof field),
                         CUBE_OK);
    }
    assert_int_equal(cube_mock_run_controllers(), 1);   /* coalesced: one, not 10 or 100 */
    assert_int_equal(reconciles, 1);
    int rc;
    char *all = host->job_metrics(self, "p", "trial-1", NULL, -1, &rc);
    assert_int_equal(rc, CUBE_OK);
    assert_int_equal(count(all), 100);
    host->free(all);
    char *loss = host->job_metrics(self, "p", "trial-1", "loss", 89, &rc);
    assert_int_equal(count(loss), 5);   /* steps 90, 92 ... 98 */
    assert_non_null(strstr(loss, "\"step\":90"));
    host->free(loss);
    assert_null(host->job_metrics(self, "p", "nope", NULL, -1, &rc));
    assert_int_equal(rc, CUBE_ENOTFOUND);
    assert_null(host->job_metrics(self, "p", "trial-1", "bad name", -1, &rc));
    assert_int_equal(rc, CUBE_EINVAL);
}

static void bad_batches_name_the_field(void **st)
{
    (void)st;
    static const char *const bad[][2] = {
        {"{\"metrics\":[]}", "metrics"},
        {"{\"other\":1}", "metrics"},
        {"{\"metrics\":[{\"name\":\"loss\",\"value\":1},{\"name\":\"\",\"value\":1}]}",
         "metrics[1].name"},
        {"{\"metrics\":[{\"name\":\"loss\",\"value\":\"0.3\"}]}", "metrics[0].value"},
        {"{\"metrics\":[{\"name\":\"loss\",\"value\":1,\"step\":1.5}]}", "metrics[0].step"},
        {"{\"metrics\":[{\"name\":\"loss\",\"value\":1,\"step\":-1}]}", "metrics[0].step"},
    };
    char field[64];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(cube_mock_job_metrics_report("p", "trial-1", bad[i][0], field,
                                                      sizeof field), CUBE_EINVAL);
        assert_string_equal(field, bad[i][1]);
    }
    assert_int_equal(cube_mock_run_controllers(), 0);   /* nothing stored, nothing queued */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(hundred_points_reconcile_the_owner, setup, teardown),
        cmocka_unit_test_setup_teardown(bad_batches_name_the_field, setup, teardown),
    };
    return cmocka_run_group_tests_name("fake host: Job metrics", tests, NULL, NULL);
}
