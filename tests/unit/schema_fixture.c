/* schema_fixture.c — see schema_fixture.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdbool.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "schema/schema.h"
#include "schema_fixture.h"

const char TASKS_SCHEMA[] =
    "{\"type\":\"object\",\"required\":[\"name\"],\"properties\":{"
    "\"name\":{\"type\":\"string\",\"pattern\":\"^[a-z]+$\"},"
    "\"tasks\":{\"type\":\"array\",\"items\":{\"type\":\"object\","
    "\"properties\":{\"retries\":{\"type\":\"integer\",\"minimum\":0}}}}}}";

cJSON *parse(const char *text)
{
    cJSON *j = cJSON_Parse(text);
    if (!j)
        fail_msg("test JSON does not parse: %s", text);
    return j;
}

int count_errors(const char *schema, const char *inst, unsigned flags)
{
    cJSON *s = parse(schema), *i = parse(inst);
    int n = cube_schema_validate(s, i, flags, NULL, NULL, 0);
    cJSON_Delete(s);
    cJSON_Delete(i);
    return n;
}

void assert_valid(const char *schema, const char *inst)
{
    int n = count_errors(schema, inst, 0);
    if (n != 0)
        fail_msg("%s should accept %s, found %d error(s)", schema, inst, n);
}

void assert_invalid(const char *schema, const char *inst)
{
    if (count_errors(schema, inst, 0) == 0)
        fail_msg("%s should reject %s", schema, inst);
}

void assert_error_with(const char *schema, const char *inst,
                       unsigned flags, const char *prefix,
                       const char *path, const char *message)
{
    cJSON *s = parse(schema), *i = parse(inst);
    struct cube_schema_error errs[4];
    int n = cube_schema_validate(s, i, flags, prefix, errs, 4);
    if (n != 1) {
        cJSON_Delete(s);
        cJSON_Delete(i);
        fail_msg("%s on %s: expected 1 error, found %d (first: %s: %s)",
                 schema, inst, n, n ? errs[0].path : "",
                 n ? errs[0].message : "");
    }
    assert_string_equal(errs[0].path, path);
    assert_string_equal(errs[0].message, message);
    cJSON_Delete(s);
    cJSON_Delete(i);
}

void assert_error(const char *schema, const char *inst,
                  const char *path, const char *message)
{
    assert_error_with(schema, inst, 0, NULL, path, message);
}

bool pattern_accepts(const char *pattern, const char *s)
{
    cJSON *schema = cJSON_CreateObject();
    cJSON_AddStringToObject(schema, "pattern", pattern);
    cJSON *inst = cJSON_CreateString(s);
    char why[256];
    if (cube_schema_check(schema, why, sizeof why) != 0)
        fail_msg("pattern %s rejected: %s", pattern, why);
    int n = cube_schema_validate(schema, inst, 0, NULL, NULL, 0);
    cJSON_Delete(schema);
    cJSON_Delete(inst);
    return n == 0;
}

int check(const char *schema, char *why, size_t len)
{
    cJSON *s = parse(schema);
    why[0] = '\0';
    int rc = cube_schema_check(s, why, len);
    cJSON_Delete(s);
    return rc;
}

void assert_check_fails(const char *schema, const char *message)
{
    char why[256];
    if (check(schema, why, sizeof why) == 0)
        fail_msg("cube_schema_check accepted %s", schema);
    if (!strstr(why, message))
        fail_msg("check of %s said \"%s\", expected \"%s\"", schema, why,
                 message);
}
