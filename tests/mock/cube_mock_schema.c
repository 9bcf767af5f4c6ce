/* cube_mock_schema.c — the fake host's JSON Schema work, done by the core's
 * own validator (core/schema*.c, linked in) exactly where cubed does it:
 * a plugin's config gets its schema's defaults and is validated (strict:
 * unknown keys refused) before init; a kind's schemas are checked at
 * register_kind; an object's spec gets its defaults before the kind's
 * defaulting callback, and the whole object is validated after it; a
 * status is validated against the kind's status schema. Messages name the
 * field as cubed's do. Test-only code: global state is fine here. */
#include "cube_mock.h"
#include "cube_mock_priv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "schema/schema.h"

/* The parsed schemas of one registered kind. */
struct mschema {
    char *kind;
    cJSON *spec, *status, *object;
};

static struct {
    struct mschema *items;
    int n, cap;
} S;

/* Writes "<path>: <message>" (or the message alone for the root). */
static void say(const struct cube_schema_error *e, char *why, size_t len)
{
    snprintf(why, len, "%s%s%s", e->path, e->path[0] ? ": " : "", e->message);
}

char *cube_mock_config(const char *schema_json, const char *config_json, char *err,
                       size_t errlen)
{
    cJSON *inst = cJSON_Parse(config_json ? config_json : "{}");
    cJSON *schema = schema_json ? cJSON_Parse(schema_json) : NULL;
    char why[256] = "";
    struct cube_schema_error e;
    char *out = NULL;
    if (!cJSON_IsObject(inst))
        snprintf(err, errlen, "config: must be an object");
    else if (!schema_json && inst->child)
        snprintf(err, errlen, "config: the plugin takes no configuration");
    else if (schema_json && (!schema || cube_schema_check(schema, why, sizeof why) < 0))
        snprintf(err, errlen, "config schema is unusable: %s", schema ? why : "not JSON");
    else if (schema && cube_schema_apply_defaults(schema, inst) < 0)
        snprintf(err, errlen, "config: out of memory");
    else if (schema && cube_schema_validate(schema, inst, CUBE_SCHEMA_STRICT, "",
                                            &e, 1) > 0)
        say(&e, err, errlen);
    else if (!(out = cJSON_PrintUnformatted(inst)))
        snprintf(err, errlen, "config: out of memory");
    cJSON_Delete(inst);
    cJSON_Delete(schema);
    return out;
}

/* -- kinds --------------------------------------------------------------- */

/* The schema of metadata as clients may send it, as core/kinds.c builds it
 * (the server fills the rest). */
static cJSON *metadata_schema(void)
{
    return cJSON_Parse(
        "{\"type\":\"object\",\"properties\":{"
        "\"name\":{\"type\":\"string\",\"maxLength\":63},"
        "\"project\":{\"type\":\"string\"},\"uid\":{\"type\":\"string\"},"
        "\"labels\":{\"type\":\"object\",\"additionalProperties\":{\"type\":\"string\"}},"
        "\"annotations\":{\"type\":\"object\",\"additionalProperties\":{\"type\":\"string\"}},"
        "\"owner\":{\"type\":\"string\"},"
        "\"ownerReferences\":{\"type\":\"array\",\"items\":{\"type\":\"object\","
        "\"required\":[\"kind\",\"name\",\"uid\"],\"properties\":{"
        "\"kind\":{\"type\":\"string\"},\"name\":{\"type\":\"string\"},"
        "\"uid\":{\"type\":\"string\"},\"controller\":{\"type\":\"boolean\"}}}},"
        "\"created\":{\"type\":\"string\"},\"updated\":{\"type\":\"string\"},"
        "\"resourceVersion\":{\"type\":\"string\"},\"generation\":{\"type\":\"integer\"},"
        "\"deletionTimestamp\":{\"type\":\"string\"},"
        "\"finalizers\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}}}}");
}

/* The whole object's schema, as cube_kind_object_schema builds it. */
static cJSON *object_schema(const cJSON *spec, const cJSON *status)
{
    cJSON *s = cJSON_CreateObject();
    cJSON *props = cJSON_AddObjectToObject(s, "properties");
    cJSON_AddStringToObject(s, "type", "object");
    cJSON_AddItemToObject(props, "kind", cJSON_Parse("{\"type\":\"string\"}"));
    cJSON_AddItemToObject(props, "apiVersion", cJSON_Parse("{\"type\":\"string\"}"));
    cJSON_AddItemToObject(props, "metadata", metadata_schema());
    cJSON_AddItemToObject(props, "spec", cJSON_Duplicate(spec, 1));
    cJSON_AddItemToObject(props, "status", status ? cJSON_Duplicate(status, 1)
                                                  : cJSON_Parse("{\"type\":\"object\"}"));
    return s;
}

/* One schema text, parsed and checked; NULL with why. */
static cJSON *load(const char *text, const char *field, char *why, size_t len)
{
    char err[256];
    cJSON *schema = cJSON_Parse(text);
    if (!schema)
        snprintf(why, len, "%s: not valid JSON", field);
    else if (cube_schema_check(schema, err, sizeof err) < 0)
        snprintf(why, len, "%s: %s", field, err), cJSON_Delete(schema), schema = NULL;
    return schema;
}

int mock_schema_kind_add(const struct cube_kind_desc *d, char *why, size_t len)
{
    struct mschema m = {0};
    m.spec = load(d->spec_schema, "spec_schema", why, len);
    if (m.spec && d->status_schema)
        m.status = load(d->status_schema, "status_schema", why, len);
    if (m.spec && (!d->status_schema || m.status))
        m.object = object_schema(m.spec, m.status);
    struct mschema *grown = m.object ? mock_grow(S.items, S.n, &S.cap, sizeof *S.items) : NULL;
    if (grown && (m.kind = mock_strdup(d->kind))) {
        S.items = grown;
        S.items[S.n++] = m;
        return CUBE_OK;
    }
    if (grown)
        S.items = grown, snprintf(why, len, "out of memory");
    cJSON_Delete(m.spec), cJSON_Delete(m.status), cJSON_Delete(m.object);
    return CUBE_EINVAL;
}

static const struct mschema *find(const char *kind)
{
    for (int i = 0; kind && i < S.n; i++)
        if (strcmp(S.items[i].kind, kind) == 0)
            return &S.items[i];
    return NULL;
}

int mock_schema_default_spec(const char *kind, cJSON *obj)
{
    const struct mschema *m = find(kind);
    cJSON *spec = cJSON_GetObjectItemCaseSensitive(obj, "spec");
    if (!m || !cJSON_IsObject(spec))
        return 0;
    return cube_schema_apply_defaults(m->spec, spec) < 0 ? -1 : 0;
}

int mock_schema_check_object(const char *kind, const cJSON *obj, char *why, size_t len)
{
    const struct mschema *m = find(kind);
    struct cube_schema_error e;
    if (!m || cube_schema_validate(m->object, obj, CUBE_SCHEMA_STRICT, "", &e, 1) == 0)
        return 0;
    say(&e, why, len);
    return -1;
}

int mock_schema_check_status(const char *kind, const cJSON *status, char *why, size_t len)
{
    const struct mschema *m = find(kind);
    struct cube_schema_error e;
    if (!m || !m->status ||
        cube_schema_validate(m->status, status, CUBE_SCHEMA_STRICT, "status", &e, 1) == 0)
        return 0;
    say(&e, why, len);
    return -1;
}

void mock_schema_reset(void)
{
    for (int i = 0; i < S.n; i++)
        free(S.items[i].kind), cJSON_Delete(S.items[i].spec), cJSON_Delete(S.items[i].status),
            cJSON_Delete(S.items[i].object);
    free(S.items);
    memset(&S, 0, sizeof S);
}
