/* mergepatch.h — JSON Merge Patch (RFC 7386) over cJSON. */
#ifndef CUBE_MERGEPATCH_H
#define CUBE_MERGEPATCH_H

#include <cjson/cJSON.h>

/* Applies `patch` to `target` and returns the result as a new tree (target
 * and patch are not modified): a patch that is not an object replaces the
 * target; null members delete; objects merge recursively. Returns NULL on
 * OOM or when nesting exceeds 64 levels. */
cJSON *cube_merge_patch(const cJSON *target, const cJSON *patch);
/* Deep JSON equality (numbers compared as doubles, object member order
 * ignored). NULL equals only NULL. */
int cube_json_equal(const cJSON *a, const cJSON *b);

#endif
