/* fuzz_schema.c — libFuzzer target: the input is a schema and an instance,
 * split at the first NUL (or half-way when there is none), both parsed as
 * JSON. Every schema goes through cube_schema_check; usable ones validate
 * the instance with and without CUBE_SCHEMA_STRICT and fill defaults into a
 * copy. Crashes, sanitizer reports and broken invariants (a failed check
 * without a message, an error without a message or node, a count that
 * depends on how many errors are kept) are findings. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "schema/schema.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_ERRS 4

/* Splits data into [0, *first) and [*second, size). */
static void split(const uint8_t *data, size_t size, size_t *first,
                  size_t *second)
{
    const uint8_t *nul = memchr(data, '\0', size);
    *first = nul ? (size_t)(nul - data) : size / 2;
    *second = nul ? *first + 1 : *first;
}

static void validate_with(const cJSON *schema, const cJSON *inst,
                          unsigned flags)
{
    struct cube_schema_error errs[MAX_ERRS];
    int n = cube_schema_validate(schema, inst, flags, "spec", errs, MAX_ERRS);
    if (n < 0 || cube_schema_validate(schema, inst, flags, NULL, NULL, 0) != n)
        abort();
    for (int i = 0; i < n && i < MAX_ERRS; i++) {
        if (!errs[i].message[0] || !errs[i].node ||
            strncmp(errs[i].path, "spec", 4) != 0 ||
            !memchr(errs[i].path, '\0', sizeof errs[i].path))
            abort();
    }
}

static void apply_defaults(const cJSON *schema, const cJSON *inst)
{
    cJSON *copy = cJSON_Duplicate(inst, 1);
    if (!copy)
        return;
    if (cube_schema_apply_defaults(schema, copy) == 0)
        validate_with(schema, copy, 0);
    cJSON_Delete(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t first, second;
    split(data, size, &first, &second);
    cJSON *schema = cJSON_ParseWithLength((const char *)data, first);
    cJSON *inst = cJSON_ParseWithLength((const char *)data + second,
                                        size - second);
    char err[256] = "";
    if (schema && inst) {
        if (cube_schema_check(schema, err, sizeof err) == 0) {
            validate_with(schema, inst, 0);
            validate_with(schema, inst, CUBE_SCHEMA_STRICT);
            apply_defaults(schema, inst);
        } else if (!err[0]) {
            abort();
        }
    }
    cJSON_Delete(inst);
    cJSON_Delete(schema);
    return 0;
}
