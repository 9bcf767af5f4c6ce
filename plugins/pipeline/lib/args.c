/* args.c — job template argument schemas: the schema check.
 *
 * A schema is {group: {name: definition}}; names are usually "--arg" but
 * any non-empty string is accepted ("images", "workdir" in the custom-image
 * template). A definition is an object:
 *   type        required: int bool str text enum float multiple dict list
 *               file json
 *   item_type   required for enum, multiple and list: int str text float
 *               dict (dict only for list)
 *   choice      required, non-empty, for enum and multiple: scalars
 *   range       "min,max" for int and float (either side may be empty)
 *   default     must be a valid value (templates with "{{" are not checked)
 *   require, editable   booleans (or 0/1)
 *   label, placeholder, describe   strings
 *   sub_args    required for dict and for list of dict: {name: definition}
 * Other keys are ignored. An arg name may appear in one group only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "args_internal.h"

static const char *const type_names[] = {"int", "bool", "str", "text", "enum", "float",
                                          "multiple", "dict", "list", "file", "json"};

enum pl_arg_type pl_arg_type_of(const char *name)
{
    for (int i = 0; name && i < PL_ARG_UNKNOWN; i++)
        if (strcmp(name, type_names[i]) == 0)
            return (enum pl_arg_type)i;
    return PL_ARG_UNKNOWN;
}

enum pl_arg_type pl_arg_def_type(const cJSON *def)
{
    return pl_arg_type_of(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(def, "type")));
}

enum pl_arg_type pl_arg_def_item_type(const cJSON *def)
{
    return pl_arg_type_of(
        cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(def, "item_type")));
}

const cJSON *pl_args_find(const cJSON *schema, const char *name)
{
    const cJSON *group;
    cJSON_ArrayForEach(group, schema) {
        const cJSON *def = cJSON_GetObjectItemCaseSensitive(group, name);
        if (cJSON_IsObject(def))
            return def;
    }
    return NULL;
}

static bool is_flag(const cJSON *v)
{
    return !v || cJSON_IsBool(v) ||
           (cJSON_IsNumber(v) && (v->valuedouble == 0 || v->valuedouble == 1));
}

/* "min,max" with optional sides; false when malformed. */
bool pl_arg_parse_range(const char *s, double *lo, double *hi)
{
    const char *comma = s ? strchr(s, ',') : NULL;
    char *end;
    if (!comma || strchr(comma + 1, ','))
        return false;
    *lo = -1e308, *hi = 1e308;
    if (comma > s && ((*lo = strtod(s, &end)), end != comma))
        return false;
    if (comma[1] && ((*hi = strtod(comma + 1, &end)), *end != '\0'))
        return false;
    return *lo <= *hi;
}

static int check_choice(const cJSON *def, const char *name, char *err, size_t errlen)
{
    const cJSON *choice = cJSON_GetObjectItemCaseSensitive(def, "choice"), *c;
    if (!cJSON_IsArray(choice) || cJSON_GetArraySize(choice) == 0) {
        snprintf(err, errlen, "%s: \"choice\" must be a non-empty list", name);
        return -1;
    }
    cJSON_ArrayForEach(c, choice) if (!cJSON_IsString(c) && !cJSON_IsNumber(c)) {
        snprintf(err, errlen, "%s: \"choice\" items must be strings or numbers", name);
        return -1;
    }
    return 0;
}

static int check_item_type(const cJSON *def, enum pl_arg_type t, const char *name, char *err,
                           size_t errlen)
{
    enum pl_arg_type it = pl_arg_def_item_type(def);
    bool ok = it == PL_ARG_INT || it == PL_ARG_STR || it == PL_ARG_TEXT || it == PL_ARG_FLOAT ||
              (it == PL_ARG_DICT && t == PL_ARG_LIST);
    if (!ok)
        snprintf(err, errlen, "%s: \"item_type\" must be one of int, str, text, float%s", name,
                 t == PL_ARG_LIST ? ", dict" : "");
    return ok ? 0 : -1;
}

static int check_strings(const cJSON *def, const char *name, char *err, size_t errlen)
{
    static const char *const keys[] = {"label", "placeholder", "describe"};
    for (size_t i = 0; i < 3; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(def, keys[i]);
        if (v && !cJSON_IsString(v)) {
            snprintf(err, errlen, "%s: \"%s\" must be a string", name, keys[i]);
            return -1;
        }
    }
    if (!is_flag(cJSON_GetObjectItemCaseSensitive(def, "require")) ||
        !is_flag(cJSON_GetObjectItemCaseSensitive(def, "editable"))) {
        snprintf(err, errlen, "%s: \"require\" and \"editable\" must be true or false", name);
        return -1;
    }
    return 0;
}

static int check_def(const cJSON *def, const char *name, int depth, char *err, size_t errlen)
{
    if (!cJSON_IsObject(def)) {
        snprintf(err, errlen, "%s: the definition must be an object", name);
        return -1;
    }
    enum pl_arg_type t = pl_arg_def_type(def);
    if (t == PL_ARG_UNKNOWN) {
        snprintf(err, errlen, "%s: \"type\" must be one of int, bool, str, text, enum, float, "
                 "multiple, dict, list, file, json", name);
        return -1;
    }
    if (check_strings(def, name, err, errlen) < 0)
        return -1;
    bool itemized = t == PL_ARG_ENUM || t == PL_ARG_MULTIPLE || t == PL_ARG_LIST;
    if (itemized && check_item_type(def, t, name, err, errlen) < 0)
        return -1;
    if ((t == PL_ARG_ENUM || t == PL_ARG_MULTIPLE) && check_choice(def, name, err, errlen) < 0)
        return -1;
    const cJSON *range = cJSON_GetObjectItemCaseSensitive(def, "range");
    double lo, hi;
    if (range && ((t != PL_ARG_INT && t != PL_ARG_FLOAT) ||
                  !pl_arg_parse_range(cJSON_GetStringValue(range), &lo, &hi))) {
        snprintf(err, errlen, "%s: \"range\" must be \"min,max\" on an int or float", name);
        return -1;
    }
    if (t == PL_ARG_DICT || (t == PL_ARG_LIST && pl_arg_def_item_type(def) == PL_ARG_DICT)) {
        const cJSON *sub = cJSON_GetObjectItemCaseSensitive(def, "sub_args");
        if (!cJSON_IsObject(sub)) {
            snprintf(err, errlen, "%s: \"sub_args\" must be an object of definitions", name);
            return -1;
        }
        if (pl_args_check_defs(sub, name, depth + 1, err, errlen) < 0)
            return -1;
    }
    const cJSON *dflt = cJSON_GetObjectItemCaseSensitive(def, "default");
    if (dflt && !cJSON_IsNull(dflt) && !pl_arg_is_template(dflt) &&
        !(cJSON_IsString(dflt) && dflt->valuestring[0] == '\0')) {
        char why[256];
        cJSON *copy = cJSON_Duplicate(dflt, true);
        snprintf(why, sizeof why, "%s: out of memory", name);
        int rc = copy ? pl_arg_check_value(def, name, copy, depth, why, sizeof why) : -1;
        cJSON_Delete(copy);
        if (rc < 0) {
            snprintf(err, errlen, "\"default\" of %s", why);
            return -1;
        }
    }
    return 0;
}

int pl_args_check_defs(const cJSON *defs, const char *where, int depth, char *err, size_t errlen)
{
    const cJSON *def;
    if (depth > PL_ARGS_MAX_DEPTH) {
        snprintf(err, errlen, "%s: sub_args nest deeper than %d levels", where,
                 PL_ARGS_MAX_DEPTH);
        return -1;
    }
    cJSON_ArrayForEach(def, defs) {
        char name[192];
        if (!def->string || !def->string[0]) {
            snprintf(err, errlen, "%s: an argument has an empty name", where);
            return -1;
        }
        if (depth == 0)
            snprintf(name, sizeof name, "%.60s/%.120s", where, def->string);
        else
            snprintf(name, sizeof name, "%.60s.%.120s", where, def->string);
        if (check_def(def, name, depth, err, errlen) < 0)
            return -1;
    }
    return 0;
}

int pl_args_check_schema(const cJSON *schema, char *err, size_t errlen)
{
    const cJSON *group, *def;
    if (!cJSON_IsObject(schema)) {
        snprintf(err, errlen, "args: the schema must be an object of groups");
        return -1;
    }
    cJSON_ArrayForEach(group, schema) {
        if (!cJSON_IsObject(group)) {
            snprintf(err, errlen, "args: group \"%.100s\" must be an object of arguments",
                     group->string);
            return -1;
        }
        if (pl_args_check_defs(group, group->string, 0, err, errlen) < 0)
            return -1;
        cJSON_ArrayForEach(def, group) if (pl_args_find(schema, def->string) != def) {
            snprintf(err, errlen, "%.60s/%.100s: the argument is defined more than once",
                     group->string, def->string);
            return -1;
        }
    }
    return 0;
}
