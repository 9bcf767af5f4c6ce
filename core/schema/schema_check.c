/* schema_check.c — cube_schema_check (see schema.h): catches schemas the
 * validator cannot honour before they are used, so that a typo such as
 * "type": "strng" fails at load time instead of rejecting every document.
 * Messages name the spot inside the schema: "properties.name.type: ...". */
#include "schema.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "schema_format.h"

/* How much of an invalid pattern its message quotes. */
#define PATTERN_SHOWN 64

/* Every rule shares one signature; most need neither value nor depth. */
#define UNUSED __attribute__((unused))

struct check {
    char path[256]; /* keyword path inside the schema */
    size_t path_len;
    char *err;
    size_t errlen;
};

static int check_schema(struct check *c, const cJSON *s, int depth);

static int fail(struct check *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int fail(struct check *c, const char *fmt, ...)
{
    if (!c->err || c->errlen == 0)
        return -1;
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    /* Keep the whole message; if the path does not fit, keep its tail,
     * which names the innermost (most telling) keywords. */
    const char *path = c->path;
    size_t room = c->errlen > strlen(msg) + 6 ? c->errlen - strlen(msg) - 6 : 0;
    bool cut = c->path_len > room;
    if (cut)
        path += c->path_len - room;
    if (c->path_len)
        snprintf(c->err, c->errlen, "%s%s: %s", cut ? "..." : "", path, msg);
    else
        snprintf(c->err, c->errlen, "%s", msg);
    return -1;
}

/* Records how much snprintf appended (it truncates at the end). */
static size_t grow(struct check *c, size_t saved, int n)
{
    if (n > 0)
        c->path_len = saved + (size_t)n < sizeof c->path
            ? saved + (size_t)n : sizeof c->path - 1;
    return saved;
}

static size_t push_key(struct check *c, const char *key)
{
    size_t saved = c->path_len;
    return grow(c, saved, snprintf(c->path + saved, sizeof c->path - saved,
                                   "%s%s", saved ? "." : "", key));
}

static size_t push_index(struct check *c, int index)
{
    size_t saved = c->path_len;
    return grow(c, saved, snprintf(c->path + saved, sizeof c->path - saved,
                                   "[%d]", index));
}

static void pop(struct check *c, size_t saved)
{
    c->path_len = saved;
    c->path[saved] = '\0';
}

/* ---- keyword value rules ------------------------------------------------ */

static bool is_type_name(const char *s)
{
    static const char *const TYPES[] = {"integer", "number", "string",
        "object", "array", "boolean", "null"};
    for (size_t i = 0; i < sizeof TYPES / sizeof TYPES[0]; i++)
        if (strcmp(TYPES[i], s) == 0)
            return true;
    return false;
}

static int check_type_kw(struct check *c, const cJSON *v, int depth UNUSED)
{
    if (cJSON_IsString(v))
        return is_type_name(v->valuestring) ? 0
             : fail(c, "unknown type \"%s\"", v->valuestring);
    if (!cJSON_IsArray(v) || !v->child)
        return fail(c, "must be a type name or an array of type names");
    for (const cJSON *t = v->child; t; t = t->next) {
        if (!cJSON_IsString(t))
            return fail(c, "must be a type name or an array of type names");
        if (!is_type_name(t->valuestring))
            return fail(c, "unknown type \"%s\"", t->valuestring);
    }
    return 0;
}

static int check_subschema_kw(struct check *c, const cJSON *v, int depth)
{
    return check_schema(c, v, depth + 1);
}

/* properties: an object whose values are schemas. */
static int check_schema_map_kw(struct check *c, const cJSON *v, int depth)
{
    if (!cJSON_IsObject(v))
        return fail(c, "must be an object of schemas");
    for (const cJSON *m = v->child; m; m = m->next) {
        size_t saved = push_key(c, m->string);
        int rc = check_schema(c, m, depth + 1);
        pop(c, saved);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* allOf, anyOf, oneOf: a non-empty array of schemas. */
static int check_schema_list_kw(struct check *c, const cJSON *v, int depth)
{
    if (!cJSON_IsArray(v) || !v->child)
        return fail(c, "must be a non-empty array of schemas");
    int i = 0;
    for (const cJSON *s = v->child; s; s = s->next, i++) {
        size_t saved = push_index(c, i);
        int rc = check_schema(c, s, depth + 1);
        pop(c, saved);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static int check_items_kw(struct check *c, const cJSON *v, int depth)
{
    if (!cJSON_IsArray(v))
        return check_schema(c, v, depth + 1);
    return v->child ? check_schema_list_kw(c, v, depth) : 0;
}

static int check_required_kw(struct check *c, const cJSON *v, int depth UNUSED)
{
    if (!cJSON_IsArray(v))
        return fail(c, "must be an array of strings");
    for (const cJSON *s = v->child; s; s = s->next)
        if (!cJSON_IsString(s))
            return fail(c, "must be an array of strings");
    return 0;
}

static int check_enum_kw(struct check *c, const cJSON *v, int depth UNUSED)
{
    return cJSON_IsArray(v) && v->child ? 0
         : fail(c, "must be a non-empty array");
}

static int check_number_kw(struct check *c, const cJSON *v, int depth UNUSED)
{
    return cJSON_IsNumber(v) && isfinite(v->valuedouble) ? 0
         : fail(c, "must be a number");
}

/* minLength, maxItems, ...: a non-negative integer. */
static int check_count_kw(struct check *c, const cJSON *v, int depth UNUSED)
{
    bool ok = cJSON_IsNumber(v) && v->valuedouble >= 0
        && v->valuedouble <= 1e15 && v->valuedouble == floor(v->valuedouble);
    return ok ? 0 : fail(c, "must be a non-negative integer");
}

static int check_bool_kw(struct check *c, const cJSON *v, int depth UNUSED)
{
    return cJSON_IsBool(v) ? 0 : fail(c, "must be true or false");
}

static int check_string_kw(struct check *c, const cJSON *v, int depth UNUSED)
{
    return cJSON_IsString(v) ? 0 : fail(c, "must be a string");
}

static int check_pattern_kw(struct check *c, const cJSON *v, int depth UNUSED)
{
    if (!cJSON_IsString(v))
        return fail(c, "must be a string");
    char why[128];
    struct cube_schema_regex *re = cube_schema_regex_get(v->valuestring, why,
                                                         sizeof why);
    if (!re) /* a long pattern is cut, so that the reason still shows */
        return fail(c, "invalid pattern %.*s%s: %s", PATTERN_SHOWN,
                    v->valuestring,
                    strlen(v->valuestring) > PATTERN_SHOWN ? "..." : "", why);
    cube_schema_regex_release(re); /* compiled and cached for validation */
    return 0;
}

static int reject_ref_kw(struct check *c, const cJSON *v UNUSED,
                         int depth UNUSED)
{
    /* Ignoring $ref would silently accept anything, so refuse it. */
    return fail(c, "$ref is not supported");
}

static const struct keyword_rule {
    const char *name;
    int (*check)(struct check *c, const cJSON *value, int depth);
} RULES[] = {
    {"type", check_type_kw},
    {"properties", check_schema_map_kw},
    {"required", check_required_kw},
    {"additionalProperties", check_subschema_kw},
    {"enum", check_enum_kw},
    {"minimum", check_number_kw},
    {"maximum", check_number_kw},
    {"exclusiveMinimum", check_number_kw},
    {"exclusiveMaximum", check_number_kw},
    {"minLength", check_count_kw},
    {"maxLength", check_count_kw},
    {"pattern", check_pattern_kw},
    {"items", check_items_kw},
    {"additionalItems", check_subschema_kw},
    {"minItems", check_count_kw},
    {"maxItems", check_count_kw},
    {"uniqueItems", check_bool_kw},
    {"minProperties", check_count_kw},
    {"maxProperties", check_count_kw},
    {"oneOf", check_schema_list_kw},
    {"anyOf", check_schema_list_kw},
    {"allOf", check_schema_list_kw},
    {"not", check_subschema_kw},
    {"format", check_string_kw}, /* unknown formats: mere annotations */
    {"title", check_string_kw},
    {"description", check_string_kw},
    {"$ref", reject_ref_kw},
};

static const struct keyword_rule *find_rule(const char *name)
{
    for (size_t i = 0; i < sizeof RULES / sizeof RULES[0]; i++)
        if (strcmp(RULES[i].name, name) == 0)
            return &RULES[i];
    return NULL; /* const, default and unknown keywords take any value */
}

static int check_schema(struct check *c, const cJSON *s, int depth)
{
    if (cJSON_IsBool(s))
        return 0;
    if (!cJSON_IsObject(s))
        return fail(c, "must be a schema (an object or a boolean)");
    if (depth >= CUBE_SCHEMA_MAX_DEPTH)
        return fail(c, "nesting too deep");
    for (const cJSON *k = s->child; k; k = k->next) {
        const struct keyword_rule *rule = k->string ? find_rule(k->string)
                                                    : NULL;
        if (!rule)
            continue;
        size_t saved = push_key(c, k->string);
        int rc = rule->check(c, k, depth);
        pop(c, saved);
        if (rc < 0)
            return rc;
    }
    return 0;
}

int cube_schema_check(const cJSON *schema, char *err, size_t errlen)
{
    struct check c = {.err = err, .errlen = err ? errlen : 0};
    if (!cJSON_IsObject(schema))
        return fail(&c, "schema must be an object");
    return check_schema(&c, schema, 0);
}
