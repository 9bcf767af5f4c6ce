/* schema_rules.c — what each keyword demands of an instance, for
 * cube_schema_validate (see schema.h): type, enum and const, the numeric,
 * string, array and object keywords, and the combinators (allOf, anyOf,
 * oneOf, not). Kept apart from the walk in schema.c (paths, errors,
 * recursion), which calls cube_schema_validate_keywords on every schema
 * object it meets; subschemas go back through cube_schema_validate_node. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schema_format.h"
#include "schema_keywords.h"
#include "schema_priv.h"

/* ---- the call's state ---------------------------------------------------- */

/* Whether the next error's text will be kept (worth composing). */
static bool recording(const struct validation *v)
{
    return !v->probing && v->count < v->max;
}

/* A probe only needs to know whether anything failed. */
static bool stop_early(const struct validation *v)
{
    return v->probing && v->count > 0;
}

/* ---- JSON values --------------------------------------------------------- */

/* The keyword's string, or NULL when it is absent or not a string. */
static const char *string_keyword(const cJSON *k)
{
    return cJSON_IsString(k) ? k->valuestring : NULL;
}

static bool is_integral(const cJSON *x)
{
    return cJSON_IsNumber(x) && isfinite(x->valuedouble)
        && x->valuedouble == floor(x->valuedouble);
}

/* Deep JSON equality (1 == 1.0, member order ignored). Returns 1 or 0, or
 * -1 when the values nest deeper than we are willing to recurse. */
static int json_equal(const cJSON *a, const cJSON *b, int depth)
{
    if (depth > CUBE_SCHEMA_MAX_DEPTH)
        return -1;
    if ((a->type & 0xFF) != (b->type & 0xFF))
        return 0;
    if (cJSON_IsNumber(a))
        return a->valuedouble == b->valuedouble;
    if (cJSON_IsString(a) || cJSON_IsRaw(a))
        return a->valuestring && b->valuestring
            && strcmp(a->valuestring, b->valuestring) == 0;
    if (!cJSON_IsArray(a) && !cJSON_IsObject(a))
        return 1; /* true, false, null: the type says it all */
    if (cJSON_GetArraySize(a) != cJSON_GetArraySize(b))
        return 0;
    const cJSON *y = b->child;
    for (const cJSON *x = a->child; x; x = x->next) {
        const cJSON *other = cJSON_IsArray(a) ? y
            : cJSON_GetObjectItemCaseSensitive(b, x->string);
        if (!other)
            return 0;
        int eq = json_equal(x, other, depth + 1);
        if (eq != 1)
            return eq;
        y = y ? y->next : NULL;
    }
    return 1;
}

/* Shortest text that reads back as the same double. */
static void format_number(double d, char out[32])
{
    snprintf(out, 32, "%.15g", d);
    if (strtod(out, NULL) != d)
        snprintf(out, 32, "%.17g", d);
}

/* "s" unless the count is exactly one: "1 item", "2 items". */
static const char *plural(double n)
{
    return n == 1 ? "" : "s";
}

/* Appends to a message, ending it in "..." if it gets cut off. */
static void append_text(char *msg, size_t cap, const char *text)
{
    size_t len = strlen(msg);
    int n = snprintf(msg + len, cap - len, "%s", text);
    if (n >= 0 && len + (size_t)n >= cap && cap > 4)
        memcpy(msg + cap - 4, "...", 4);
}

/* Appends `x` as compact JSON. */
static void append_json(char *msg, size_t cap, const cJSON *x)
{
    char *text = cJSON_PrintUnformatted(x);
    append_text(msg, cap, text ? text : "?");
    free(text);
}

/* ---- type ---------------------------------------------------------------- */

static bool type_matches(const char *type, const cJSON *x)
{
    return strcmp(type, "integer") == 0 ? is_integral(x)
         : strcmp(type, "number") == 0 ? cJSON_IsNumber(x)
         : strcmp(type, "string") == 0 ? cJSON_IsString(x)
         : strcmp(type, "object") == 0 ? cJSON_IsObject(x)
         : strcmp(type, "array") == 0 ? cJSON_IsArray(x)
         : strcmp(type, "boolean") == 0 ? cJSON_IsBool(x)
         : strcmp(type, "null") == 0 ? cJSON_IsNull(x)
         : false;
}

static const char *type_phrase(const char *type)
{
    static const char *const PHRASES[][2] = {
        {"integer", "an integer"}, {"number", "a number"},
        {"string", "a string"}, {"object", "an object"},
        {"array", "an array"}, {"boolean", "a boolean"}, {"null", "null"},
    };
    for (size_t i = 0; i < sizeof PHRASES / sizeof PHRASES[0]; i++)
        if (strcmp(PHRASES[i][0], type) == 0)
            return PHRASES[i][1];
    return type;
}

/* "must be a string or an integer" */
static void report_type(struct validation *v, const cJSON *inst,
                        const cJSON *type)
{
    char msg[256] = "must be ";
    size_t n = cJSON_IsArray(type) ? (size_t)cJSON_GetArraySize(type) : 1;
    size_t i = 0;
    const cJSON *t = cJSON_IsArray(type) ? type->child : type;
    for (; t; t = cJSON_IsArray(type) ? t->next : NULL, i++) {
        append_text(msg, sizeof msg, i == 0 ? "" : i + 1 == n ? " or " : ", ");
        append_text(msg, sizeof msg,
                    cJSON_IsString(t) ? type_phrase(t->valuestring) : "?");
    }
    cube_schema_report(v, inst, "%s", msg);
}

static bool check_type(struct validation *v, const struct keywords *kw,
                       const cJSON *inst)
{
    const cJSON *type = kw->type;
    if (!type)
        return true;
    if (cJSON_IsString(type) && type_matches(type->valuestring, inst))
        return true;
    const cJSON *list = cJSON_IsArray(type) ? type : NULL;
    const cJSON *t;
    cJSON_ArrayForEach(t, list)
        if (cJSON_IsString(t) && type_matches(t->valuestring, inst))
            return true;
    report_type(v, inst, type);
    return false;
}

/* ---- enum, const --------------------------------------------------------- */

static void check_enum(struct validation *v, const struct keywords *kw,
                       const cJSON *inst)
{
    const cJSON *options = kw->enum_;
    if (!cJSON_IsArray(options))
        return;
    const cJSON *o;
    cJSON_ArrayForEach(o, options) {
        int eq = json_equal(o, inst, v->depth);
        if (eq < 0) {
            cube_schema_report(v, inst, "nesting too deep");
            return;
        }
        if (eq)
            return;
    }
    if (!recording(v)) {
        cube_schema_report(v, inst, "must be one of the listed values");
        return;
    }
    char msg[256] = "must be one of: ";
    cJSON_ArrayForEach(o, options) {
        if (o != options->child)
            append_text(msg, sizeof msg, ", ");
        append_json(msg, sizeof msg, o);
    }
    cube_schema_report(v, inst, "%s", msg);
}

static void check_const(struct validation *v, const struct keywords *kw,
                        const cJSON *inst)
{
    const cJSON *expected = kw->const_;
    if (!expected)
        return;
    int eq = json_equal(expected, inst, v->depth);
    if (eq == 1)
        return;
    if (eq < 0) {
        cube_schema_report(v, inst, "nesting too deep");
        return;
    }
    if (!recording(v)) {
        cube_schema_report(v, inst, "must be equal to the constant");
        return;
    }
    char msg[256] = "must be equal to ";
    append_json(msg, sizeof msg, expected);
    cube_schema_report(v, inst, "%s", msg);
}

/* ---- numbers ------------------------------------------------------------- */

/* Reports when the instance breaks `bound` (a keyword; NULL: absent). */
static void check_bound(struct validation *v, const cJSON *bound,
                        const cJSON *inst, const char *op)
{
    if (!cJSON_IsNumber(bound))
        return;
    double d = inst->valuedouble, b = bound->valuedouble;
    bool ok = op[0] == '>' ? (op[1] == '=' ? d >= b : d > b)
                           : (op[1] == '=' ? d <= b : d < b);
    if (ok)
        return;
    char num[32];
    format_number(b, num);
    cube_schema_report(v, inst, "must be %s %s", op, num);
}

static void check_number(struct validation *v, const struct keywords *kw,
                         const cJSON *inst)
{
    if (!cJSON_IsNumber(inst))
        return;
    check_bound(v, kw->minimum, inst, ">=");
    check_bound(v, kw->maximum, inst, "<=");
    check_bound(v, kw->exclusiveMinimum, inst, ">");
    check_bound(v, kw->exclusiveMaximum, inst, "<");
}

/* ---- strings ------------------------------------------------------------- */

/* Whether `s` matches `pattern`: 1 or 0, or -1 if the pattern is unusable
 * (reason in err). Compiled patterns are kept for the rest of the call. */
static int pattern_matches(struct validation *v, const char *pattern,
                           const char *s, char *err, size_t errlen)
{
    for (size_t i = 0; i < v->n_regexes; i++)
        if (v->regexes[i].pattern == pattern)
            return cube_schema_regex_test(v->regexes[i].re, s);
    struct cube_schema_regex *re = cube_schema_regex_get(pattern, err, errlen);
    if (!re)
        return -1;
    int matched = cube_schema_regex_test(re, s);
    if (v->n_regexes < CUBE_SCHEMA_REGEX_CACHE_CAP) {
        v->regexes[v->n_regexes].pattern = pattern;
        v->regexes[v->n_regexes++].re = re;
    } else {
        cube_schema_regex_release(re);
    }
    return matched;
}

static void check_length(struct validation *v, const struct keywords *kw,
                         const cJSON *inst)
{
    const cJSON *min = kw->minLength;
    const cJSON *max = kw->maxLength;
    if (!cJSON_IsNumber(min) && !cJSON_IsNumber(max))
        return;
    double len = (double)cube_schema_utf8_length(inst->valuestring);
    if (cJSON_IsNumber(min) && len < min->valuedouble)
        cube_schema_report(v, inst, "must be at least %.0f character%s long",
                           min->valuedouble, plural(min->valuedouble));
    if (cJSON_IsNumber(max) && len > max->valuedouble)
        cube_schema_report(v, inst, "must be at most %.0f character%s long",
                           max->valuedouble, plural(max->valuedouble));
}

static void check_string(struct validation *v, const struct keywords *kw,
                         const cJSON *inst)
{
    if (!cJSON_IsString(inst) || !inst->valuestring)
        return;
    check_length(v, kw, inst);
    const char *pattern = string_keyword(kw->pattern);
    if (pattern) {
        char why[128];
        int m = pattern_matches(v, pattern, inst->valuestring, why,
                                sizeof why);
        if (m < 0) /* a long pattern is cut, so that the reason shows */
            cube_schema_report(v, inst, "unusable pattern %.64s%s: %s",
                               pattern, strlen(pattern) > 64 ? "..." : "",
                               why);
        else if (m == 0)
            cube_schema_report(v, inst, "must match pattern %s", pattern);
    }
    const char *format = string_keyword(kw->format);
    if (format && !cube_schema_format_ok(format, inst->valuestring))
        cube_schema_report(v, inst, "must be a valid %s",
                           cube_schema_format_noun(format));
}

/* ---- arrays -------------------------------------------------------------- */

static void validate_item(struct validation *v, const cJSON *schema,
                          const cJSON *item, int index)
{
    size_t saved = cube_schema_path_push_index(v, index);
    cube_schema_validate_node(v, schema, item);
    cube_schema_path_pop(v, saved);
}

/* "items" (one schema or one per position) and "additionalItems". */
static void check_items(struct validation *v, const struct keywords *kw,
                        const cJSON *inst)
{
    const cJSON *items = kw->items;
    if (!items)
        return;
    const cJSON *item = inst->child;
    int i = 0;
    if (!cJSON_IsArray(items)) {
        for (; item && !stop_early(v); item = item->next, i++)
            validate_item(v, items, item, i);
        return;
    }
    const cJSON *s = items->child;
    for (; item && s && !stop_early(v); item = item->next, s = s->next, i++)
        validate_item(v, s, item, i);
    const cJSON *extra = kw->additionalItems;
    if (!item || !extra)
        return;
    if (cJSON_IsFalse(extra)) {
        cube_schema_report(v, inst, "must have at most %d item%s", i,
                           plural(i));
        return;
    }
    for (; item && !stop_early(v); item = item->next, i++)
        validate_item(v, extra, item, i);
}

static void check_unique(struct validation *v, const cJSON *inst)
{
    int i = 0;
    for (const cJSON *a = inst->child; a; a = a->next, i++) {
        int j = i + 1;
        for (const cJSON *b = a->next; b; b = b->next, j++) {
            int eq = json_equal(a, b, v->depth);
            if (eq != 0) {
                if (eq < 0)
                    cube_schema_report(v, inst, "nesting too deep");
                else
                    cube_schema_report(v, inst, "must not contain duplicates "
                                       "([%d] equals [%d])", j, i);
                return;
            }
        }
    }
}

static void check_array(struct validation *v, const struct keywords *kw,
                        const cJSON *inst)
{
    if (!cJSON_IsArray(inst))
        return;
    double n = cJSON_GetArraySize(inst);
    const cJSON *min = kw->minItems;
    const cJSON *max = kw->maxItems;
    if (cJSON_IsNumber(min) && n < min->valuedouble)
        cube_schema_report(v, inst, "must have at least %.0f item%s",
                           min->valuedouble, plural(min->valuedouble));
    if (cJSON_IsNumber(max) && n > max->valuedouble)
        cube_schema_report(v, inst, "must have at most %.0f item%s",
                           max->valuedouble, plural(max->valuedouble));
    if (cJSON_IsTrue(kw->uniqueItems))
        check_unique(v, inst);
    check_items(v, kw, inst);
}

/* ---- objects ------------------------------------------------------------- */

static void check_required(struct validation *v, const struct keywords *kw,
                           const cJSON *inst)
{
    const cJSON *name;
    cJSON_ArrayForEach(name, kw->required) {
        if (!cJSON_IsString(name) || !name->valuestring
            || cJSON_GetObjectItemCaseSensitive(inst, name->valuestring))
            continue;
        size_t saved = cube_schema_path_push_key(v, name->valuestring);
        cube_schema_report(v, inst, "is required");
        cube_schema_path_pop(v, saved);
    }
}

/* One member: its property schema, else additionalProperties, else the
 * STRICT rule for objects that list their properties. */
static void check_member(struct validation *v, const struct keywords *kw,
                         const cJSON *member)
{
    const cJSON *props = kw->properties;
    const cJSON *extra = kw->additionalProperties;
    const cJSON *sub = cJSON_IsObject(props)
        ? cJSON_GetObjectItemCaseSensitive(props, member->string) : NULL;
    bool strict = (v->flags & CUBE_SCHEMA_STRICT) && cJSON_IsObject(props);
    size_t saved = cube_schema_path_push_key(v, member->string);
    if (sub)
        cube_schema_validate_node(v, sub, member);
    else if (cJSON_IsFalse(extra) || (!extra && strict))
        cube_schema_report(v, member, "unknown field \"%s\"", member->string);
    else if (extra)
        cube_schema_validate_node(v, extra, member);
    cube_schema_path_pop(v, saved);
}

static void check_object(struct validation *v, const struct keywords *kw,
                         const cJSON *inst)
{
    if (!cJSON_IsObject(inst))
        return;
    check_required(v, kw, inst);
    for (const cJSON *m = inst->child; m && !stop_early(v); m = m->next)
        if (m->string)
            check_member(v, kw, m);
    double n = cJSON_GetArraySize(inst);
    const cJSON *min = kw->minProperties;
    const cJSON *max = kw->maxProperties;
    if (cJSON_IsNumber(min) && n < min->valuedouble)
        cube_schema_report(v, inst, "must have at least %.0f propert%s",
                           min->valuedouble,
                           min->valuedouble == 1 ? "y" : "ies");
    if (cJSON_IsNumber(max) && n > max->valuedouble)
        cube_schema_report(v, inst, "must have at most %.0f propert%s",
                           max->valuedouble,
                           max->valuedouble == 1 ? "y" : "ies");
}

/* ---- combinators --------------------------------------------------------- */

/* Validates without recording errors; true when `inst` is valid. */
static bool probe(struct validation *v, const cJSON *schema,
                  const cJSON *inst)
{
    int saved = v->count;
    v->count = 0;
    v->probing++;
    cube_schema_validate_node(v, schema, inst);
    v->probing--;
    bool valid = v->count == 0;
    v->count = saved;
    return valid;
}

/* Counts matching subschemas of `list`, giving up once `enough` match. */
static int count_matches(struct validation *v, const cJSON *list,
                         const cJSON *inst, int enough)
{
    int matches = 0;
    const cJSON *sub;
    cJSON_ArrayForEach(sub, list)
        if (probe(v, sub, inst) && ++matches >= enough)
            break;
    return matches;
}

static void check_combinators(struct validation *v, const struct keywords *kw,
                              const cJSON *inst)
{
    const cJSON *sub;
    cJSON_ArrayForEach(sub, kw->allOf)
        if (!stop_early(v))
            cube_schema_validate_node(v, sub, inst);
    const cJSON *any = kw->anyOf;
    if (cJSON_IsArray(any) && count_matches(v, any, inst, 1) == 0)
        cube_schema_report(v, inst, "must match at least one schema in anyOf");
    const cJSON *one = kw->oneOf;
    int n = cJSON_IsArray(one) ? count_matches(v, one, inst, 2) : 1;
    if (n == 0)
        cube_schema_report(v, inst, "must match exactly one schema in oneOf, "
                           "matched none");
    else if (n > 1)
        cube_schema_report(v, inst, "must match exactly one schema in oneOf, "
                           "matched more than one");
    const cJSON *not = kw->not_;
    if (not && probe(v, not, inst))
        cube_schema_report(v, inst, "must not match the schema in not");
}

/* ---- driver -------------------------------------------------------------- */

void cube_schema_validate_keywords(struct validation *v,
                                   const struct keywords *kw,
                                   const cJSON *inst)
{
    if (!check_type(v, kw, inst))
        return; /* the rest would only restate the type mismatch */
    check_enum(v, kw, inst);
    check_const(v, kw, inst);
    check_number(v, kw, inst);
    check_string(v, kw, inst);
    check_array(v, kw, inst);
    check_object(v, kw, inst);
    if (!stop_early(v))
        check_combinators(v, kw, inst);
}
