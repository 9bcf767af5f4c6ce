/* schema.h — a JSON Schema (draft-07 subset) validator over cJSON.
 *
 * Keywords: type (string or array), properties, required, additionalProperties
 * (bool or schema), enum, const, minimum, maximum, exclusiveMinimum,
 * exclusiveMaximum (draft-07 numeric form), minLength, maxLength (in Unicode
 * code points), pattern (ECMA-262 subset via POSIX ERE), items (schema or
 * array of schemas), additionalItems, minItems, maxItems, uniqueItems,
 * minProperties, maxProperties, oneOf, anyOf, allOf, not, format (date-time,
 * email, uri), default, title, description. Other keywords are ignored. */
#ifndef CUBE_SCHEMA_H
#define CUBE_SCHEMA_H

#include <stddef.h>

#include <cjson/cJSON.h>

/* Validation flags. */
enum {
    /* Objects whose schema has "properties" but no "additionalProperties"
     * reject unknown keys (used for config files and resource specs). */
    CUBE_SCHEMA_STRICT = 1u << 0,
};

struct cube_schema_error {
    char path[256];      /* e.g. "spec.tasks[2].retries"; "" for the root */
    const cJSON *node;   /* the offending instance node (borrowed); for a
                            missing required key, the object lacking it */
    char message[256];   /* e.g. "must be an integer" */
};

/* Validates `instance` against `schema`. Writes up to `max` errors into errs
 * (which may be NULL when max is 0) and returns the total number found
 * (0: valid). `prefix` starts every path (may be NULL or ""). */
int cube_schema_validate(const cJSON *schema, const cJSON *instance,
                         unsigned flags, const char *prefix,
                         struct cube_schema_error *errs, int max);

/* Fills absent object members that have a "default" in their property
 * schema, recursively through objects (and array items with an "items"
 * schema). Returns 0, or -1 on OOM. */
int cube_schema_apply_defaults(const cJSON *schema, cJSON *instance);

/* Checks that `schema` is itself usable: an object, keywords of the right
 * JSON types, patterns that compile. Returns 0, or -1 with a message. */
int cube_schema_check(const cJSON *schema, char *err, size_t errlen);

#endif
