/* args_internal.h — shared pieces of the argument-schema code. Internal. */
#ifndef PL_ARGS_INTERNAL_H
#define PL_ARGS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

enum pl_arg_type {
    PL_ARG_INT, PL_ARG_BOOL, PL_ARG_STR, PL_ARG_TEXT, PL_ARG_ENUM, PL_ARG_FLOAT,
    PL_ARG_MULTIPLE, PL_ARG_DICT, PL_ARG_LIST, PL_ARG_FILE, PL_ARG_JSON, PL_ARG_UNKNOWN
};

/* sub_args may nest (a dict inside a dict ...) at most this deep. */
#define PL_ARGS_MAX_DEPTH 4

enum pl_arg_type pl_arg_type_of(const char *name);
/* The definition's type (PL_ARG_UNKNOWN when missing or unknown). */
enum pl_arg_type pl_arg_def_type(const cJSON *def);
/* The item_type of enum/multiple/list; PL_ARG_UNKNOWN when absent. */
enum pl_arg_type pl_arg_def_item_type(const cJSON *def);
/* The definition of arg `name` in a grouped schema, or NULL. */
const cJSON *pl_args_find(const cJSON *schema, const char *name);
/* JSON true, or a number other than 0, or "true"/"1" (any case). */
bool pl_arg_truthy(const cJSON *v);
/* Whether a string value holds a template ("{{"). */
bool pl_arg_is_template(const cJSON *v);
/* A scalar as text: strings as they are, numbers as Python's str() writes
 * them ("3", "0.25", "1e+100"), bools "True"/"False"; NULL otherwise. */
char *pl_arg_scalar_text(const cJSON *v);
/* Checks `v` against definition `def`; -1 with a message naming `name`. */
int pl_arg_check_value(const cJSON *def, const char *name, cJSON *v, int depth,
                       char *err, size_t errlen);
/* Validates an object of values against an object of definitions (the
 * flat sub_args form), filling defaults; depth bounds the recursion. */
int pl_args_validate_flat(const cJSON *defs, cJSON *values, const char *where, int depth,
                          char *err, size_t errlen);
bool pl_arg_parse_range(const char *s, double *lo, double *hi);
int pl_args_check_defs(const cJSON *defs, const char *where, int depth, char *err,
                       size_t errlen);

#endif
