/* schema_keywords.h — the keywords the validator reads from a schema
 * object, found in one pass (private to core/schema*.c). */
#ifndef CUBE_SCHEMA_KEYWORDS_H
#define CUBE_SCHEMA_KEYWORDS_H

#include <cjson/cJSON.h>

/* The keywords validation reads from one schema object, found in one pass
 * over its members (a lookup per keyword would scan them all each time).
 * A keyword given twice counts once, the first time, as cJSON's own
 * lookup would have it. */
struct keywords {
    const cJSON *additionalItems;
    const cJSON *additionalProperties;
    const cJSON *allOf;
    const cJSON *anyOf;
    const cJSON *const_;
    const cJSON *enum_;
    const cJSON *exclusiveMaximum;
    const cJSON *exclusiveMinimum;
    const cJSON *format;
    const cJSON *items;
    const cJSON *maxItems;
    const cJSON *maxLength;
    const cJSON *maxProperties;
    const cJSON *maximum;
    const cJSON *minItems;
    const cJSON *minLength;
    const cJSON *minProperties;
    const cJSON *minimum;
    const cJSON *not_;
    const cJSON *oneOf;
    const cJSON *pattern;
    const cJSON *properties;
    const cJSON *required;
    const cJSON *type;
    const cJSON *uniqueItems;
};

/* Fills kw from the members of schema (an object); absent keywords NULL. */
void cube_schema_find_keywords(const cJSON *schema, struct keywords *kw);

#endif
