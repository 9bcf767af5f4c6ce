/* schema_keywords.c — see schema_keywords.h. */
#include "schema_keywords.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

struct keyword_entry {
    const char *name;
    size_t offset; /* of its pointer in struct keywords */
};

static const struct keyword_entry KEYWORDS[] = { /* sorted by name */
    {"additionalItems", offsetof(struct keywords, additionalItems)},
    {"additionalProperties", offsetof(struct keywords, additionalProperties)},
    {"allOf", offsetof(struct keywords, allOf)},
    {"anyOf", offsetof(struct keywords, anyOf)},
    {"const", offsetof(struct keywords, const_)},
    {"enum", offsetof(struct keywords, enum_)},
    {"exclusiveMaximum", offsetof(struct keywords, exclusiveMaximum)},
    {"exclusiveMinimum", offsetof(struct keywords, exclusiveMinimum)},
    {"format", offsetof(struct keywords, format)},
    {"items", offsetof(struct keywords, items)},
    {"maxItems", offsetof(struct keywords, maxItems)},
    {"maxLength", offsetof(struct keywords, maxLength)},
    {"maxProperties", offsetof(struct keywords, maxProperties)},
    {"maximum", offsetof(struct keywords, maximum)},
    {"minItems", offsetof(struct keywords, minItems)},
    {"minLength", offsetof(struct keywords, minLength)},
    {"minProperties", offsetof(struct keywords, minProperties)},
    {"minimum", offsetof(struct keywords, minimum)},
    {"not", offsetof(struct keywords, not_)},
    {"oneOf", offsetof(struct keywords, oneOf)},
    {"pattern", offsetof(struct keywords, pattern)},
    {"properties", offsetof(struct keywords, properties)},
    {"required", offsetof(struct keywords, required)},
    {"type", offsetof(struct keywords, type)},
    {"uniqueItems", offsetof(struct keywords, uniqueItems)},
};

static int keyword_cmp(const void *name, const void *entry)
{
    return strcmp(name, ((const struct keyword_entry *)entry)->name);
}

void cube_schema_find_keywords(const cJSON *schema, struct keywords *kw)
{
    memset(kw, 0, sizeof *kw);
    for (const cJSON *m = schema->child; m; m = m->next) {
        const struct keyword_entry *e = m->string
            ? bsearch(m->string, KEYWORDS, sizeof KEYWORDS / sizeof KEYWORDS[0],
                      sizeof KEYWORDS[0], keyword_cmp)
            : NULL;
        const cJSON **slot = e ? (const cJSON **)((char *)kw + e->offset) : NULL;
        if (slot && !*slot)
            *slot = m;
    }
}
