/* schema_priv.h — the state of one cube_schema_validate call, shared by
 * schema.c (the walk: instance path, errors, recursion) and schema_rules.c
 * (what each keyword demands). Internal to core/schema*.c; not part of the
 * core's interface. */
#ifndef CUBE_SCHEMA_PRIV_H
#define CUBE_SCHEMA_PRIV_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "schema.h"
#include "schema_format.h"
#include "schema_keywords.h"

#define CUBE_SCHEMA_PATH_CAP 512
#define CUBE_SCHEMA_REGEX_CACHE_CAP 32

/* A compiled pattern (from the process-wide cache) held for the rest of
 * the validate call, keyed by the schema string. */
struct cached_regex {
    const char *pattern;
    struct cube_schema_regex *re;
};

struct validation {
    unsigned flags;
    struct cube_schema_error *errs;
    int max;
    int count;      /* errors found so far */
    int probing;    /* > 0 inside anyOf/oneOf/not: only validity matters */
    int depth;
    char path[CUBE_SCHEMA_PATH_CAP];
    size_t path_len;
    struct cached_regex regexes[CUBE_SCHEMA_REGEX_CACHE_CAP];
    size_t n_regexes;
};

/* schema.c: counts an error at the current path and, unless probing or past
 * the caller's max, records it with the printf-style message. */
void cube_schema_report(struct validation *v, const cJSON *node,
                        const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Appends ".key" ("key" at the root) or "[index]" to the path (cut at
 * CUBE_SCHEMA_PATH_CAP); returns the length cube_schema_path_pop restores. */
size_t cube_schema_path_push_key(struct validation *v, const char *key);
size_t cube_schema_path_push_index(struct validation *v, int index);
void cube_schema_path_pop(struct validation *v, size_t saved);
/* Validates `inst` against `schema` (an object or boolean schema) at the
 * current path, one level deeper. */
void cube_schema_validate_node(struct validation *v, const cJSON *schema,
                               const cJSON *inst);

/* schema_rules.c: applies the keywords of one schema object to `inst`. */
void cube_schema_validate_keywords(struct validation *v,
                                   const struct keywords *kw,
                                   const cJSON *inst);

#endif
