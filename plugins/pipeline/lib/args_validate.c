/* args_validate.c — checking argument values against a schema, filling
 * defaults.
 *
 * Values as the UI sends them are accepted: int and float take numbers or
 * numeric strings, bool takes true/false or "true"/"false", multiple takes
 * a list or a comma-separated string. A string holding "{{" is a template
 * and is checked after rendering, not here. A missing or null value gets
 * the default when there is one; a required arg that is missing, null or
 * "" (after defaults) is an error; an empty value of an optional arg is
 * kept (and omitted on the command line).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "args.h"
#include "args_internal.h"

bool pl_arg_is_template(const cJSON *v)
{
    return cJSON_IsString(v) && strstr(v->valuestring, "{{") != NULL;
}

bool pl_arg_truthy(const cJSON *v)
{
    if (cJSON_IsBool(v))
        return cJSON_IsTrue(v);
    if (cJSON_IsNumber(v))
        return v->valuedouble != 0;
    return cJSON_IsString(v) &&
           (strcasecmp(v->valuestring, "true") == 0 || strcmp(v->valuestring, "1") == 0);
}

char *pl_arg_scalar_text(const cJSON *v)
{
    char buf[64];
    if (cJSON_IsString(v))
        return strdup(v->valuestring);
    if (cJSON_IsBool(v))
        return strdup(cJSON_IsTrue(v) ? "True" : "False");
    if (!cJSON_IsNumber(v))
        return NULL;
    double d = v->valuedouble;
    if (d == floor(d) && fabs(d) < 1e16)
        snprintf(buf, sizeof buf, "%.0f", d);
    else {  /* the shortest text that reads back as the same double */
        for (int prec = 1; prec <= 17; prec++) {
            snprintf(buf, sizeof buf, "%.*g", prec, d);
            if (strtod(buf, NULL) == d)
                break;
        }
    }
    return strdup(buf);
}

static bool empty_value(const cJSON *v)
{
    return !v || cJSON_IsNull(v) || (cJSON_IsString(v) && v->valuestring[0] == '\0');
}

/* A number from a JSON number or a numeric string. */
static bool numeric(const cJSON *v, bool integer, double *out)
{
    if (cJSON_IsNumber(v))
        *out = v->valuedouble;
    else if (cJSON_IsString(v)) {
        char *end;
        errno = 0;
        *out = strtod(v->valuestring, &end);
        if (end == v->valuestring || *end != '\0' || errno != 0)
            return false;
    } else
        return false;
    return isfinite(*out) && (!integer || (*out == floor(*out) && fabs(*out) < 9e15));
}

static int check_number(const cJSON *def, const char *name, const cJSON *v, bool integer,
                        char *err, size_t errlen)
{
    double d, lo, hi;
    if (!numeric(v, integer, &d)) {
        char *text = cJSON_PrintUnformatted(v);
        snprintf(err, errlen, "%s: expected %s, got %.64s", name,
                 integer ? "an integer" : "a number", text ? text : "?");
        free(text);
        return -1;
    }
    const char *range = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(def, "range"));
    if (range && pl_arg_parse_range(range, &lo, &hi) && (d < lo || d > hi)) {
        snprintf(err, errlen, "%s: %.17g is outside the range %s", name, d, range);
        return -1;
    }
    return 0;
}

static int check_choice(const cJSON *def, const char *name, const cJSON *item, char *err,
                        size_t errlen)
{
    const cJSON *c;
    char *text = pl_arg_scalar_text(item);
    if (!text || cJSON_IsBool(item)) {
        free(text);
        snprintf(err, errlen, "%s: choices are strings or numbers", name);
        return -1;
    }
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(def, "choice")) {
        char *ct = pl_arg_scalar_text(c);
        bool same = ct && strcmp(ct, text) == 0;
        free(ct);
        if (same) {
            free(text);
            return 0;
        }
    }
    snprintf(err, errlen, "%s: \"%.64s\" is not one of the choices", name, text);
    free(text);
    return -1;
}

static int check_multiple(const cJSON *def, const char *name, const cJSON *v, char *err,
                          size_t errlen)
{
    const cJSON *item;
    if (cJSON_IsArray(v)) {
        cJSON_ArrayForEach(item, v) if (check_choice(def, name, item, err, errlen) < 0)
            return -1;
        return 0;
    }
    if (!cJSON_IsString(v)) {
        snprintf(err, errlen, "%s: expected a list of choices or a comma-separated string", name);
        return -1;
    }
    char *copy = strdup(v->valuestring), *save = NULL;
    int rc = copy ? 0 : -1;
    for (char *p = copy ? strtok_r(copy, ",", &save) : NULL; p && rc == 0;
         p = strtok_r(NULL, ",", &save)) {
        cJSON *piece = cJSON_CreateString(p);
        rc = piece ? check_choice(def, name, piece, err, errlen) : -1;
        cJSON_Delete(piece);
    }
    free(copy);
    return rc;
}

/* A list: every item of item_type (dicts checked against sub_args). */
static int check_list(const cJSON *def, const char *name, cJSON *v, int depth, char *err,
                      size_t errlen)
{
    if (!cJSON_IsArray(v)) {
        snprintf(err, errlen, "%s: expected a list", name);
        return -1;
    }
    enum pl_arg_type it = pl_arg_def_item_type(def);
    const cJSON *sub = cJSON_GetObjectItemCaseSensitive(def, "sub_args");
    cJSON *item;
    int i = 0;
    cJSON_ArrayForEach(item, v) {
        char where[192];
        snprintf(where, sizeof where, "%.150s[%d]", name, i++);
        int rc;
        if (pl_arg_is_template(item))
            rc = 0;
        else if (it == PL_ARG_DICT)
            rc = pl_args_validate_flat(sub, item, where, depth + 1, err, errlen);
        else if (it == PL_ARG_INT || it == PL_ARG_FLOAT)
            rc = check_number(def, where, item, it == PL_ARG_INT, err, errlen);
        else if ((rc = cJSON_IsString(item) ? 0 : -1) < 0)
            snprintf(err, errlen, "%s: expected a string", where);
        if (rc < 0)
            return -1;
    }
    return 0;
}

int pl_arg_check_value(const cJSON *def, const char *name, cJSON *v, int depth, char *err,
                       size_t errlen)
{
    if (pl_arg_is_template(v))
        return 0;
    switch (pl_arg_def_type(def)) {
    case PL_ARG_INT: return check_number(def, name, v, true, err, errlen);
    case PL_ARG_FLOAT: return check_number(def, name, v, false, err, errlen);
    case PL_ARG_BOOL:
        if (cJSON_IsBool(v) || (cJSON_IsString(v) && (strcasecmp(v->valuestring, "true") == 0 ||
                                                       strcasecmp(v->valuestring, "false") == 0)))
            return 0;
        snprintf(err, errlen, "%s: expected true or false", name);
        return -1;
    case PL_ARG_STR: case PL_ARG_TEXT: case PL_ARG_FILE:
        if (cJSON_IsString(v))
            return 0;
        snprintf(err, errlen, "%s: expected a string", name);
        return -1;
    case PL_ARG_ENUM: return check_choice(def, name, v, err, errlen);
    case PL_ARG_MULTIPLE: return check_multiple(def, name, v, err, errlen);
    case PL_ARG_DICT: {
        const cJSON *sub = cJSON_GetObjectItemCaseSensitive(def, "sub_args");
        if (cJSON_IsObject(v) && !sub)
            return 0;
        return pl_args_validate_flat(sub, v, name, depth + 1, err, errlen);
    }
    case PL_ARG_LIST: return check_list(def, name, v, depth, err, errlen);
    case PL_ARG_JSON:
        if (cJSON_IsString(v)) {
            cJSON *parsed = cJSON_Parse(v->valuestring);
            bool ok = parsed != NULL;
            cJSON_Delete(parsed);
            if (!ok) {
                snprintf(err, errlen, "%s: not valid JSON", name);
                return -1;
            }
        }
        return 0;
    default:
        snprintf(err, errlen, "%s: the schema gives no valid type", name);
        return -1;
    }
}

/* Fills the default of a missing value, then checks presence and value. */
static int check_one(const cJSON *def, const char *key, const char *name, cJSON *values,
                     int depth, char *err, size_t errlen)
{
    cJSON *v = cJSON_GetObjectItemCaseSensitive(values, key);
    const cJSON *dflt = cJSON_GetObjectItemCaseSensitive(def, "default");
    if ((!v || cJSON_IsNull(v)) && dflt && !cJSON_IsNull(dflt)) {
        cJSON *copy = cJSON_Duplicate(dflt, true);
        if (!copy || !(v ? cJSON_ReplaceItemInObjectCaseSensitive(values, key, copy)
                         : cJSON_AddItemToObject(values, key, copy))) {
            cJSON_Delete(copy);
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        v = copy;
    }
    if (empty_value(v)) {
        if (pl_arg_truthy(cJSON_GetObjectItemCaseSensitive(def, "require"))) {
            snprintf(err, errlen, "%s is required", name);
            return -1;
        }
        return 0;
    }
    return pl_arg_check_value(def, name, v, depth, err, errlen);
}

int pl_args_validate_flat(const cJSON *defs, cJSON *values, const char *where, int depth,
                          char *err, size_t errlen)
{
    const cJSON *def, *v;
    if (depth > PL_ARGS_MAX_DEPTH || !cJSON_IsObject(values)) {
        snprintf(err, errlen, "%s: expected an object%s", where,
                 depth > PL_ARGS_MAX_DEPTH ? " (nested too deep)" : "");
        return -1;
    }
    cJSON_ArrayForEach(v, values) if (!cJSON_GetObjectItemCaseSensitive(defs, v->string)) {
        snprintf(err, errlen, "%s: unknown field \"%.100s\"", where, v->string);
        return -1;
    }
    cJSON_ArrayForEach(def, defs) {
        char name[256];
        snprintf(name, sizeof name, "%.150s.%.100s", where, def->string);
        if (check_one(def, def->string, name, values, depth, err, errlen) < 0)
            return -1;
    }
    return 0;
}

int pl_args_validate(const cJSON *schema, cJSON *args, char *err, size_t errlen)
{
    const cJSON *group, *def, *v;
    if (!cJSON_IsObject(args)) {
        snprintf(err, errlen, "args: expected an object of \"--arg\": value");
        return -1;
    }
    cJSON_ArrayForEach(v, args) if (!pl_args_find(schema, v->string)) {
        snprintf(err, errlen, "unknown argument \"%.100s\"", v->string);
        return -1;
    }
    cJSON_ArrayForEach(group, schema) cJSON_ArrayForEach(def, group) {
        if (check_one(def, def->string, def->string, args, 0, err, errlen) < 0)
            return -1;
    }
    return 0;
}
