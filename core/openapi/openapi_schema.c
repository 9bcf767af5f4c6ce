/* openapi_schema.c — JSON Schema draft-07 to the OpenAPI 3.0 schema dialect,
 * and the document's fixed component schemas (see openapi.h). */
#include "openapi.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "schema/schema_format.h" /* CUBE_SCHEMA_MAX_DEPTH */

/* What the keyword loop leaves for the finishing pass. */
struct conv {
    const cJSON *src;
    cJSON *out;
    const cJSON *type, *min, *max, *xmin, *xmax;
    int depth;
    bool oom;
};

static cJSON *convert(const cJSON *s, int depth, bool *oom);

/* Sets obj[key] = item, replacing a member of that name (a schema may
 * repeat a key); an item that cannot be added is freed. */
static void put(struct conv *c, cJSON *obj, const char *key, cJSON *item)
{
    bool ok = item && (cJSON_GetObjectItemCaseSensitive(obj, key)
                       ? cJSON_ReplaceItemInObjectCaseSensitive(obj, key, item)
                       : cJSON_AddItemToObject(obj, key, item));
    if (!ok) {
        cJSON_Delete(item);
        c->oom = true;
    }
}

static void append(struct conv *c, cJSON *list, cJSON *item)
{
    if (!item || !cJSON_AddItemToArray(list, item)) {
        cJSON_Delete(item);
        c->oom = true;
    }
}

static void kw_copy(struct conv *c, const char *key, const cJSON *v)
{
    put(c, c->out, key, cJSON_Duplicate(v, 1));
}

static void kw_string(struct conv *c, const char *key, const cJSON *v)
{
    if (cJSON_IsString(v))
        kw_copy(c, key, v);
}

static void kw_bool(struct conv *c, const char *key, const cJSON *v)
{
    if (cJSON_IsBool(v))
        kw_copy(c, key, v);
}

/* minLength, maxItems ...: checked non-negative integers at load time. */
static void kw_count(struct conv *c, const char *key, const cJSON *v)
{
    if (cJSON_IsNumber(v) && v->valuedouble >= 0)
        kw_copy(c, key, v);
}

static void kw_multiple(struct conv *c, const char *key, const cJSON *v)
{
    if (cJSON_IsNumber(v) && v->valuedouble > 0)
        kw_copy(c, key, v);
}

/* const narrows at least as much as an enum beside it, so it wins. */
static void kw_enum(struct conv *c, const char *key, const cJSON *v)
{
    if (cJSON_IsArray(v) && v->child && !cJSON_GetObjectItemCaseSensitive(c->src, "const"))
        kw_copy(c, key, v);
}

static void kw_const(struct conv *c, const char *key, const cJSON *v)
{
    (void)key;
    cJSON *list = cJSON_CreateArray();
    append(c, list, cJSON_Duplicate(v, 1));
    put(c, c->out, "enum", list);
}

/* required: OpenAPI wants at least one name, each once. */
static void kw_required(struct conv *c, const char *key, const cJSON *v)
{
    cJSON *names = cJSON_CreateArray();
    const cJSON *n;
    cJSON_ArrayForEach(n, v) {
        bool seen = false;
        for (const cJSON *m = names ? names->child : NULL; m && !seen; m = m->next)
            seen = strcmp(m->valuestring, n->valuestring) == 0;
        if (cJSON_IsString(n) && !seen)
            append(c, names, cJSON_CreateString(n->valuestring));
    }
    if (names && !names->child)
        cJSON_Delete(names);
    else
        put(c, c->out, key, names);
}

static void kw_schema(struct conv *c, const char *key, const cJSON *v)
{
    put(c, c->out, key, convert(v, c->depth + 1, &c->oom));
}

/* additionalProperties: a boolean stays one. */
static void kw_additional(struct conv *c, const char *key, const cJSON *v)
{
    if (cJSON_IsBool(v))
        kw_copy(c, key, v);
    else
        kw_schema(c, key, v);
}

static cJSON *convert_list(struct conv *c, const cJSON *v)
{
    cJSON *list = cJSON_CreateArray();
    const cJSON *s;
    cJSON_ArrayForEach(s, v) {
        append(c, list, convert(s, c->depth + 1, &c->oom));
    }
    return list;
}

/* allOf, anyOf, oneOf. */
static void kw_schema_list(struct conv *c, const char *key, const cJSON *v)
{
    if (cJSON_IsArray(v) && v->child)
        put(c, c->out, key, convert_list(c, v));
}

static void kw_properties(struct conv *c, const char *key, const cJSON *v)
{
    if (!cJSON_IsObject(v))
        return;
    cJSON *props = cJSON_CreateObject();
    for (const cJSON *m = v->child; m && props; m = m->next)
        put(c, props, m->string, convert(m, c->depth + 1, &c->oom));
    put(c, c->out, key, props);
}

/* items: a tuple (array of schemas) has no OpenAPI 3.0 form; any of its
 * schemas is the closest. */
static void kw_items(struct conv *c, const char *key, const cJSON *v)
{
    if (!cJSON_IsArray(v)) {
        kw_schema(c, key, v);
        return;
    }
    cJSON *items = cJSON_CreateObject();
    if (v->child)
        put(c, items, "anyOf", convert_list(c, v));
    put(c, c->out, key, items);
}

/* examples -> its first one, unless an example is given too. */
static void kw_examples(struct conv *c, const char *key, const cJSON *v)
{
    (void)key;
    if (cJSON_IsArray(v) && v->child && !cJSON_GetObjectItemCaseSensitive(c->src, "example"))
        put(c, c->out, "example", cJSON_Duplicate(v->child, 1));
}

/* Kept for the finishing pass. */
static void kw_later(struct conv *c, const char *key, const cJSON *v)
{
    const cJSON **slot = strcmp(key, "type") == 0 ? &c->type
                       : strcmp(key, "minimum") == 0 ? &c->min
                       : strcmp(key, "maximum") == 0 ? &c->max
                       : strcmp(key, "exclusiveMinimum") == 0 ? &c->xmin : &c->xmax;
    *slot = v;
}

static const struct {
    const char *name;
    void (*fn)(struct conv *c, const char *key, const cJSON *v);
} KEYWORDS[] = {
    {"title", kw_string}, {"description", kw_string}, {"format", kw_string},
    {"pattern", kw_string}, {"type", kw_later}, {"minimum", kw_later},
    {"maximum", kw_later}, {"exclusiveMinimum", kw_later},
    {"exclusiveMaximum", kw_later}, {"multipleOf", kw_multiple},
    {"minLength", kw_count}, {"maxLength", kw_count}, {"minItems", kw_count},
    {"maxItems", kw_count}, {"minProperties", kw_count},
    {"maxProperties", kw_count}, {"uniqueItems", kw_bool},
    {"readOnly", kw_bool}, {"writeOnly", kw_bool}, {"deprecated", kw_bool},
    {"nullable", kw_bool}, {"enum", kw_enum}, {"const", kw_const},
    {"required", kw_required}, {"properties", kw_properties},
    {"additionalProperties", kw_additional}, {"items", kw_items},
    {"not", kw_schema}, {"allOf", kw_schema_list}, {"anyOf", kw_schema_list},
    {"oneOf", kw_schema_list}, {"default", kw_copy}, {"examples", kw_examples},
    {"example", kw_copy},
};

/* minimum + exclusiveMinimum (draft-07: a number) -> the stricter bound,
 * with exclusiveMinimum: true when the exclusive one is it. */
static void bound(struct conv *c, const cJSON *incl, const cJSON *excl,
                  const char *name, const char *xname, bool lower)
{
    bool has_i = cJSON_IsNumber(incl), has_x = cJSON_IsNumber(excl);
    bool use_x = has_x && (!has_i || (lower ? excl->valuedouble >= incl->valuedouble
                                            : excl->valuedouble <= incl->valuedouble));
    if (use_x) {
        put(c, c->out, name, cJSON_CreateNumber(excl->valuedouble));
        put(c, c->out, xname, cJSON_CreateTrue());
    } else if (has_i) {
        put(c, c->out, name, cJSON_CreateNumber(incl->valuedouble));
    }
}

static void set_nullable(struct conv *c, cJSON *on)
{
    put(c, on, "nullable", cJSON_CreateTrue());
}

/* Several types: anyOf one schema per type (beside an anyOf of its own, the
 * two meet in an allOf). */
static void several_types(struct conv *c, const cJSON *type, bool null)
{
    cJSON *any = cJSON_CreateArray();
    for (const cJSON *t = type->child; t && any; t = t->next) {
        if (!cJSON_IsString(t) || strcmp(t->valuestring, "null") == 0)
            continue;
        cJSON *one = cJSON_CreateObject();
        put(c, one, "type", cJSON_CreateString(t->valuestring));
        if (strcmp(t->valuestring, "array") == 0) /* see finish_type */
            put(c, one, "items", cJSON_CreateObject());
        if (null)
            set_nullable(c, one);
        append(c, any, one);
    }
    if (!cJSON_GetObjectItemCaseSensitive(c->out, "anyOf")) {
        put(c, c->out, "anyOf", any);
        return;
    }
    if (!cJSON_GetObjectItemCaseSensitive(c->out, "allOf"))
        put(c, c->out, "allOf", cJSON_CreateArray());
    cJSON *wrap = cJSON_CreateObject();
    put(c, wrap, "anyOf", any);
    append(c, cJSON_GetObjectItemCaseSensitive(c->out, "allOf"), wrap);
}

/* type: a name, or an array of names maybe with "null" -> type + nullable
 * (OpenAPI 3.0 has no "null" type). */
static void finish_type(struct conv *c)
{
    const cJSON *t = c->type, *only = NULL;
    int n = 0;
    bool null = false;
    if (cJSON_IsString(t)) {
        null = strcmp(t->valuestring, "null") == 0;
        only = null ? NULL : t, n = !null;
    } else if (cJSON_IsArray(t)) {
        for (const cJSON *x = t->child; x; x = x->next)
            if (cJSON_IsString(x) && strcmp(x->valuestring, "null") == 0)
                null = true;
            else if (cJSON_IsString(x))
                only = x, n++;
    }
    if (n == 1)
        put(c, c->out, "type", cJSON_CreateString(only->valuestring));
    else if (n > 1)
        several_types(c, t, null);
    if (null)
        set_nullable(c, c->out);
    if (null && n == 0 && !cJSON_GetObjectItemCaseSensitive(c->out, "enum"))
        put(c, c->out, "enum", cJSON_Parse("[null]"));
    /* OpenAPI 3.0: items MUST be present when the type is array. */
    if (n == 1 && strcmp(only->valuestring, "array") == 0 &&
        !cJSON_GetObjectItemCaseSensitive(c->out, "items"))
        put(c, c->out, "items", cJSON_CreateObject());
}

static cJSON *convert(const cJSON *s, int depth, bool *oom)
{
    struct conv c = {.src = s, .out = cJSON_CreateObject(), .depth = depth};
    if (!c.out)
        return NULL;
    if (cJSON_IsFalse(s))
        put(&c, c.out, "not", cJSON_CreateObject());
    if (!cJSON_IsObject(s) || depth >= CUBE_SCHEMA_MAX_DEPTH) {
        *oom |= c.oom;
        return c.out;
    }
    for (const cJSON *k = s->child; k; k = k->next)
        for (size_t i = 0; k->string && i < sizeof KEYWORDS / sizeof KEYWORDS[0]; i++)
            if (strcmp(KEYWORDS[i].name, k->string) == 0) {
                KEYWORDS[i].fn(&c, k->string, k);
                break;
            }
    finish_type(&c);
    bound(&c, c.min, c.xmin, "minimum", "exclusiveMinimum", true);
    bound(&c, c.max, c.xmax, "maximum", "exclusiveMaximum", false);
    /* For the reader: the type first. */
    cJSON *type = cJSON_DetachItemFromObjectCaseSensitive(c.out, "type");
    if (type && !cJSON_InsertItemInArray(c.out, 0, type)) {
        cJSON_Delete(type);
        c.oom = true;
    }
    *oom |= c.oom;
    return c.out;
}

cJSON *cube_openapi_schema(const cJSON *schema)
{
    bool oom = false;
    cJSON *out = convert(schema, 0, &oom);
    if (oom) {
        cJSON_Delete(out);
        return NULL;
    }
    return out;
}

/* The base component schemas (Error, Status, Event, EventList, KindList,
 * Readiness):
 * components.schema.json beside this file, embedded at build time. */
#include "openapi/components_schema.h"

int cube_openapi_base_schemas(cJSON *schemas)
{
    cJSON *all = cJSON_Parse(COMPONENTS_SCHEMA);
    if (!all)
        return -1;
    while (all->child) {
        cJSON *s = cJSON_DetachItemViaPointer(all, all->child);
        char *name = s->string;
        s->string = NULL;
        int ok = cJSON_AddItemToObject(schemas, name, s);
        free(name);
        if (!ok) {
            cJSON_Delete(s);
            cJSON_Delete(all);
            return -1;
        }
    }
    cJSON_Delete(all);
    return 0;
}
