/* test_mock_refusal.c — the fake host's ABI 1.5 obj_error: a refused
 * object write answers the refusal (status, code, field, message) on the
 * thread that made it, a later successful call clears it, and a call that
 * never failed answers NULL. */
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

static int widget_init(const struct cube_host *h, cube_plugin *s, void **state)
{
    host = h;
    self = s;
    *state = NULL;
    const struct cube_kind_desc k = {
        .size = sizeof k, .kind = "Widget", .plural = "widgets", .scope = CUBE_SCOPE_PROJECT,
        .spec_schema = "{\"type\":\"object\",\"properties\":{\"size\":{\"type\":\"integer\","
                       "\"maximum\":10}}}"};
    return h->register_kind(s, &k);
}

static const struct cube_plugin_desc WIDGET = {
    .magic = CUBE_PLUGIN_MAGIC, .abi_major = CUBE_ABI_MAJOR, .abi_minor = CUBE_ABI_MINOR,
    .size = sizeof WIDGET, .name = "widget", .init = widget_init,
};

static void refusals_are_answered(void **st)
{
    (void)st;
    void *state;
    assert_int_equal(cube_mock_init(&WIDGET, NULL, &state), CUBE_OK);
    assert_null(host->obj_error(self));   /* nothing refused yet */
    int rc;
    char *out = host->obj_create(self, "{\"kind\":\"Widget\",\"metadata\":{\"name\":\"w\","
                                       "\"project\":\"p\"},\"spec\":{\"size\":50}}", &rc);
    assert_null(out);
    assert_int_equal(rc, CUBE_EINVAL);
    char *why = host->obj_error(self);
    assert_non_null(why);
    cJSON *e = cJSON_Parse(why);
    assert_int_equal((int)cJSON_GetNumberValue(cJSON_GetObjectItem(e, "status")), 422);
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(e, "code")), "Invalid");
    assert_non_null(strstr(cJSON_GetStringValue(cJSON_GetObjectItem(e, "message")), "size"));
    cJSON_Delete(e);
    host->free(why);
    /* a successful call forgets it */
    out = host->obj_create(self, "{\"kind\":\"Widget\",\"metadata\":{\"name\":\"w\","
                                 "\"project\":\"p\"},\"spec\":{\"size\":5}}", &rc);
    assert_non_null(out);
    host->free(out);
    assert_null(host->obj_error(self));
    /* a duplicate, a missing object */
    assert_null(host->obj_create(self, "{\"kind\":\"Widget\",\"metadata\":{\"name\":\"w\","
                                       "\"project\":\"p\"}}", &rc));
    why = host->obj_error(self);
    assert_non_null(strstr(why, "\"status\":409"));
    host->free(why);
    assert_null(host->obj_get(self, "Widget", "p", "nosuch", &rc));
    why = host->obj_error(self);
    assert_non_null(strstr(why, "\"status\":404"));
    host->free(why);
    cube_mock_reset(&WIDGET, state);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(refusals_are_answered)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
