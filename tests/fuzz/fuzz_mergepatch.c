/* fuzz_mergepatch.c — libFuzzer target: the input is a target and a patch,
 * split at the first NUL (or half-way when there is none), both parsed as
 * JSON. Findings besides crashes and sanitizer reports: an input modified
 * by the merge, a patch that is not idempotent, a non-object patch that
 * does not replace, a null member that survives, a failure on input
 * nested no deeper than 64 levels (or success on deeper input), or
 * cube_json_equal not being reflexive, symmetric and consistent with a deep
 * copy. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "objects/mergepatch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void split(const uint8_t *data, size_t size, size_t *first,
                  size_t *second)
{
    const uint8_t *nul = memchr(data, '\0', size);
    *first = nul ? (size_t)(nul - data) : size / 2;
    *second = nul ? *first + 1 : *first;
}

/* Whether containers nest more than `levels` deep (stops looking there). */
static int deeper_than(const cJSON *j, int levels)
{
    if (!cJSON_IsArray(j) && !cJSON_IsObject(j))
        return 0;
    if (levels == 0)
        return 1;
    for (const cJSON *c = j->child; c; c = c->next)
        if (deeper_than(c, levels - 1))
            return 1;
    return 0;
}

static void check_unchanged(const cJSON *j, const char *before)
{
    char *after = cJSON_PrintUnformatted(j);
    if (before && after && strcmp(before, after) != 0)
        abort();
    free(after);
}

static void check_equal_laws(const cJSON *a, const cJSON *b)
{
    cJSON *copy = cJSON_Duplicate(a, 1);
    if (!cube_json_equal(a, a) || (copy && !cube_json_equal(a, copy)) ||
        cube_json_equal(a, b) != cube_json_equal(b, a))
        abort();
    cJSON_Delete(copy);
}

/* Whether m is the last member of obj with its name. */
static int is_last(const cJSON *m)
{
    for (const cJSON *o = m->next; o; o = o->next)
        if (strcmp(o->string, m->string) == 0)
            return 0;
    return 1;
}

/* The last word on each name decides: null deletes, a non-object sets. */
static void check_members(const cJSON *r, const cJSON *patch)
{
    for (const cJSON *m = patch->child; m; m = m->next) {
        if (!is_last(m))
            continue;
        const cJSON *got = cJSON_GetObjectItemCaseSensitive(r, m->string);
        int ok = cJSON_IsNull(m)     ? got == NULL
                 : cJSON_IsObject(m) ? cJSON_IsObject(got)
                                     : cube_json_equal(got, m);
        if (!ok)
            abort();
    }
}

static void check_result(const cJSON *target, const cJSON *patch, cJSON *r)
{
    check_equal_laws(r, target);
    if (!cJSON_IsObject(patch) ? !cube_json_equal(r, patch)
                               : !cJSON_IsObject(r))
        abort();
    if (cJSON_IsObject(patch))
        check_members(r, patch);
    cJSON *again = cube_merge_patch(r, patch);
    if (!again || !cube_json_equal(again, r))
        abort();
    cJSON_Delete(again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t first, second;
    split(data, size, &first, &second);
    cJSON *target = cJSON_ParseWithLength((const char *)data, first);
    cJSON *patch = cJSON_ParseWithLength((const char *)data + second,
                                         size - second);
    if (target && patch) {
        char *t0 = cJSON_PrintUnformatted(target);
        char *p0 = cJSON_PrintUnformatted(patch);
        cJSON *r = cube_merge_patch(target, patch);
        check_unchanged(target, t0);
        check_unchanged(patch, p0);
        int too_deep = deeper_than(target, 64) || deeper_than(patch, 64);
        if ((r == NULL) != too_deep)
            abort();
        if (r) {
            check_equal_laws(target, patch);
            check_result(target, patch, r);
        }
        cJSON_Delete(r);
        free(p0);
        free(t0);
    }
    cJSON_Delete(patch);
    cJSON_Delete(target);
    return 0;
}
