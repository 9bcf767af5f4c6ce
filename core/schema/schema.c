/* schema.c — see schema.h. Validation walks the schema and the instance
 * together, keeping the instance path in a buffer that grows and shrinks
 * with the recursion; errors copy it out. This file holds that walk: the
 * path and the errors, the recursion into a subschema and the entry point;
 * what each keyword demands is in schema_rules.c. cube_schema_check lives in
 * schema_check.c, cube_schema_apply_defaults in schema_defaults.c, pattern
 * and format helpers in schema_regex.c and schema_format.c. */
#include "schema.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schema_format.h"
#include "schema_keywords.h"
#include "schema_priv.h"

/* ---- errors and paths ---------------------------------------------------- */

void cube_schema_report(struct validation *v, const cJSON *node,
                        const char *fmt, ...)
{
    int idx = v->count++;
    if (v->probing || idx >= v->max)
        return;
    struct cube_schema_error *e = &v->errs[idx];
    size_t n = v->path_len < sizeof e->path ? v->path_len
                                            : sizeof e->path - 1;
    memcpy(e->path, v->path, n); /* long paths are cut, not rejected */
    e->path[n] = '\0';
    e->node = node;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->message, sizeof e->message, fmt, ap);
    va_end(ap);
}

/* Appends to the path (truncating); returns the length to restore. */
static size_t path_push(struct validation *v, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static size_t path_push(struct validation *v, const char *fmt, ...)
{
    size_t saved = v->path_len;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(v->path + saved, CUBE_SCHEMA_PATH_CAP - saved, fmt, ap);
    va_end(ap);
    if (n > 0)
        v->path_len = saved + (size_t)n < CUBE_SCHEMA_PATH_CAP
                          ? saved + (size_t)n : CUBE_SCHEMA_PATH_CAP - 1;
    return saved;
}

/* Appends n bytes of s to the path (cut at CUBE_SCHEMA_PATH_CAP); no printf:
 * every member validated pushes its name, errors or not. */
static void path_append(struct validation *v, const char *s, size_t n)
{
    if (v->path_len + n >= CUBE_SCHEMA_PATH_CAP)
        n = CUBE_SCHEMA_PATH_CAP - 1 - v->path_len;
    memcpy(v->path + v->path_len, s, n);
    v->path_len += n;
    v->path[v->path_len] = '\0';
}

size_t cube_schema_path_push_key(struct validation *v, const char *key)
{
    size_t saved = v->path_len;
    if (saved)
        path_append(v, ".", 1);
    path_append(v, key, strlen(key));
    return saved;
}

size_t cube_schema_path_push_index(struct validation *v, int index)
{
    char digits[16];
    size_t saved = v->path_len, n = sizeof digits;
    unsigned u = (unsigned)index;   /* indexes are never negative */
    do
        digits[--n] = (char)('0' + u % 10);
    while ((u /= 10) && n > 1);
    digits[--n] = '[';
    path_append(v, digits + n, sizeof digits - n);
    path_append(v, "]", 1);
    return saved;
}

void cube_schema_path_pop(struct validation *v, size_t saved)
{
    v->path_len = saved;
    v->path[saved] = '\0';
}

/* ---- driver -------------------------------------------------------------- */

void cube_schema_validate_node(struct validation *v, const cJSON *schema,
                               const cJSON *inst)
{
    if (cJSON_IsTrue(schema))
        return;
    if (cJSON_IsFalse(schema)) {
        cube_schema_report(v, inst, "is not allowed");
        return;
    }
    if (!cJSON_IsObject(schema)) {
        cube_schema_report(v, inst,
                           "has an invalid schema (not an object or boolean)");
        return;
    }
    if (v->depth >= CUBE_SCHEMA_MAX_DEPTH) {
        cube_schema_report(v, inst, "nesting too deep");
        return;
    }
    struct keywords kw;
    cube_schema_find_keywords(schema, &kw);
    v->depth++;
    cube_schema_validate_keywords(v, &kw, inst);
    v->depth--;
}

int cube_schema_validate(const cJSON *schema, const cJSON *instance,
                         unsigned flags, const char *prefix,
                         struct cube_schema_error *errs, int max)
{
    struct validation *v = calloc(1, sizeof *v);
    if (!v) {
        if (errs && max > 0)
            *errs = (struct cube_schema_error){.message = "out of memory"};
        return 1;
    }
    v->flags = flags;
    v->errs = errs;
    v->max = errs && max > 0 ? max : 0;
    path_push(v, "%s", prefix ? prefix : "");
    if (!schema)
        cube_schema_report(v, instance, "has no schema");
    else if (!instance)
        cube_schema_report(v, NULL, "is missing");
    else
        cube_schema_validate_node(v, schema, instance);
    for (size_t i = 0; i < v->n_regexes; i++)
        cube_schema_regex_release(v->regexes[i].re);
    int count = v->count;
    free(v);
    return count;
}
