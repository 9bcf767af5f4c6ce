/* kinds.c — see kinds.h. */
#include "kinds.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/perm.h"
#include "base/names.h"
#include "schema/schema.h"

static void kind_free(struct cube_kind *k)
{
    if (!k)
        return;
    free(k->kind), free(k->plural), free(k->singular), free(k->group);
    free(k->description);
    cube_kind_names_free(k);
    cJSON_Delete(k->spec_schema);
    cJSON_Delete(k->status_schema);
    cJSON_Delete(k->printer_columns);
    cJSON_Delete(k->object_schema);
    free(k);
}

static int camel_case(const char *s)
{
    if (!s || !isupper((unsigned char)s[0]) || strlen(s) > 63)
        return 0;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s))
            return 0;
    return 1;
}

/* Parses and checks one schema text; NULL + err on failure. */
static cJSON *load_schema(const char *text, const char *field, char *err,
                          size_t errlen)
{
    cJSON *schema = cJSON_Parse(text);
    char why[200];
    if (!schema) {
        snprintf(err, errlen, "%s: not valid JSON", field);
        return NULL;
    }
    if (cube_schema_check(schema, why, sizeof why) < 0) {
        snprintf(err, errlen, "%s: %s", field, why);
        cJSON_Delete(schema);
        return NULL;
    }
    return schema;
}

static int check_columns(const cJSON *cols, char *err, size_t errlen)
{
    const cJSON *c;
    if (!cJSON_IsArray(cols)) {
        snprintf(err, errlen, "printer_columns: must be a JSON array");
        return -1;
    }
    cJSON_ArrayForEach(c, cols) {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(c, "name");
        const cJSON *path = cJSON_GetObjectItemCaseSensitive(c, "jsonPath");
        if (!cJSON_IsString(name) || !cJSON_IsString(path) ||
            path->valuestring[0] != '.') {
            snprintf(err, errlen, "printer_columns: each needs \"name\" and a "
                     "\"jsonPath\" starting with '.'");
            return -1;
        }
    }
    return 0;
}

static int check_names(const struct cube_kind_desc *d, char *err, size_t errlen)
{
    char why[128];
    if (!camel_case(d->kind)) {
        snprintf(err, errlen, "kind: '%s' must be CamelCase letters and digits",
                 d->kind ? d->kind : "(null)");
        return -1;
    }
    if (!d->plural || cube_name_check(d->plural, why, sizeof why) < 0) {
        snprintf(err, errlen, "plural: '%s': %s", d->plural ? d->plural : "(null)",
                 d->plural ? why : "required");
        return -1;
    }
    if (d->singular && cube_name_check(d->singular, why, sizeof why) < 0) {
        snprintf(err, errlen, "singular: %s", why);
        return -1;
    }
    if (d->scope != CUBE_SCOPE_PROJECT && d->scope != CUBE_SCOPE_CLUSTER) {
        snprintf(err, errlen, "scope: must be CUBE_SCOPE_PROJECT or CUBE_SCOPE_CLUSTER");
        return -1;
    }
    if (!d->spec_schema) {
        snprintf(err, errlen, "spec_schema: required");
        return -1;
    }
    return 0;
}

static char *lower_dup(const char *s)
{
    char *out = strdup(s);
    for (char *p = out; p && *p; p++)
        *p = (char)tolower((unsigned char)*p);
    return out;
}

static int push(void ***items, size_t *n, size_t *cap, void *item)
{
    if (*n == *cap) {
        size_t ncap = *cap ? *cap * 2 : 16;
        void **grown = realloc(*items, ncap * sizeof *grown);
        if (!grown)
            return -1;
        *items = grown;
        *cap = ncap;
    }
    (*items)[(*n)++] = item;
    return 0;
}

/* Copies the checked descriptor's texts into k. */
static int fill_kind(struct cube_kind *k, const struct cube_kind_desc *d,
                     char *err, size_t errlen)
{
    k->kind = strdup(d->kind);
    k->plural = strdup(d->plural);
    k->singular = d->singular ? strdup(d->singular) : lower_dup(d->kind);
    k->group = strdup(d->group ? d->group : "Other");
    k->description = strdup(d->description ? d->description : "");
    k->scope = d->scope;
    if (!k->kind || !k->plural || !k->singular || !k->group || !k->description) {
        snprintf(err, errlen, "out of memory");
        return CUBE_ENOMEM;
    }
    int rc = cube_kind_names_fill(k, d, err, errlen);
    if (rc != CUBE_OK)
        return rc;
    if (!(k->spec_schema = load_schema(d->spec_schema, "spec_schema", err, errlen)))
        return CUBE_EINVAL;
    if (d->status_schema &&
        !(k->status_schema = load_schema(d->status_schema, "status_schema", err, errlen)))
        return CUBE_EINVAL;
    k->printer_columns = d->printer_columns ? cJSON_Parse(d->printer_columns)
                                            : cJSON_CreateArray();
    if (d->printer_columns && !k->printer_columns) {
        snprintf(err, errlen, "printer_columns: not valid JSON");
        return CUBE_EINVAL;
    }
    if (check_columns(k->printer_columns, err, errlen) < 0)
        return CUBE_EINVAL;
    if (!(k->object_schema = cube_kind_object_schema(k))) {
        snprintf(err, errlen, "out of memory");
        return CUBE_ENOMEM;
    }
    return CUBE_OK;
}

int cube_kinds_add(struct cube_kinds *reg, struct cube_plugin *plugin,
                   const struct cube_kind_desc *in, char *err, size_t errlen)
{
    size_t min = offsetof(struct cube_kind_desc, resync_seconds) + sizeof(unsigned);
    if (!in || in->size < min) {
        snprintf(err, errlen, "descriptor size %zu is smaller than ABI 1.1's %zu",
                 in ? in->size : 0, min);
        return CUBE_EINVAL;
    }
    struct cube_kind *k = calloc(1, sizeof *k);
    if (!k)
        return CUBE_ENOMEM;
    memcpy(&k->desc, in, in->size < sizeof k->desc ? in->size : sizeof k->desc);
    k->plugin = plugin;
    int rc = check_names(&k->desc, err, errlen) < 0 ? CUBE_EINVAL
             : fill_kind(k, &k->desc, err, errlen);
    if (rc == CUBE_OK && (cube_kinds_by_kind(reg, k->kind) ||
                          cube_kinds_by_plural(reg, k->plural))) {
        snprintf(err, errlen, "kind %s (plural %s) is already registered", k->kind,
                 k->plural);
        rc = CUBE_EEXIST;
    }
    if (rc == CUBE_OK && push((void ***)&reg->items, &reg->n, &reg->cap, k) < 0)
        rc = CUBE_ENOMEM;
    /* The descriptor's strings are the plugin's; keep only our copies. */
    k->desc.kind = k->desc.plural = k->desc.singular = k->desc.group = NULL;
    k->desc.description = k->desc.spec_schema = k->desc.status_schema = NULL;
    k->desc.printer_columns = NULL;
    k->desc.display_name = k->desc.display_plural = NULL;
    k->desc.display_name_zh = k->desc.display_plural_zh = k->desc.group_zh = NULL;
    if (rc != CUBE_OK)
        kind_free(k);
    return rc;
}

static void action_free(struct cube_action *a)
{
    if (!a)
        return;
    free(a->kind), free(a->method), free(a->action), free(a->summary);
    free(a);
}

int cube_kinds_add_action(struct cube_kinds *reg, struct cube_plugin *plugin,
                          const struct cube_action_desc *in, char *err,
                          size_t errlen)
{
    struct cube_action_desc d = {0};
    char why[128];
    if (!in || in->size < offsetof(struct cube_action_desc, summary) + sizeof(char *)) {
        snprintf(err, errlen, "descriptor too small");
        return CUBE_EINVAL;
    }
    memcpy(&d, in, in->size < sizeof d ? in->size : sizeof d);
    if (!d.kind || !d.handler || !d.method ||
        (strcmp(d.method, "POST") != 0 && strcmp(d.method, "GET") != 0)) {
        snprintf(err, errlen, "kind, handler and method (POST or GET) are required");
        return CUBE_EINVAL;
    }
    if (!d.action || cube_name_check(d.action, why, sizeof why) < 0 ||
        strcmp(d.action, "status") == 0 || strcmp(d.action, "events") == 0) {
        snprintf(err, errlen, "action: '%s' must be a DNS label other than status "
                 "and events", d.action ? d.action : "(null)");
        return CUBE_EINVAL;
    }
    int perm = cube_perm_parse(d.permission, 0);
    if (perm < 0) {
        snprintf(err, errlen, "permission: '%s' is not one of the CUBE_PERM_* values",
                 d.permission ? d.permission : "(null)");
        return CUBE_EINVAL;
    }
    if (cube_kinds_action(reg, d.kind, d.method, d.action)) {
        snprintf(err, errlen, "%s %s/%s is already registered", d.method, d.kind, d.action);
        return CUBE_EEXIST;
    }
    struct cube_action *a = calloc(1, sizeof *a);
    if (!a || !(a->kind = strdup(d.kind)) || !(a->method = strdup(d.method)) ||
        !(a->action = strdup(d.action)) || !(a->summary = strdup(d.summary ? d.summary : "")) ||
        push((void ***)&reg->actions, &reg->n_actions, &reg->cap_actions, a) < 0) {
        action_free(a);
        return CUBE_ENOMEM;
    }
    a->perm = perm;
    a->handler = d.handler;
    a->plugin = plugin;
    return CUBE_OK;
}

void cube_kinds_drop_plugin(struct cube_kinds *reg, struct cube_plugin *plugin)
{
    size_t keep = 0;
    for (size_t i = 0; i < reg->n; i++) {
        if (reg->items[i]->plugin == plugin)
            kind_free(reg->items[i]);
        else
            reg->items[keep++] = reg->items[i];
    }
    reg->n = keep;
    keep = 0;
    for (size_t i = 0; i < reg->n_actions; i++) {
        if (reg->actions[i]->plugin == plugin)
            action_free(reg->actions[i]);
        else
            reg->actions[keep++] = reg->actions[i];
    }
    reg->n_actions = keep;
}

struct cube_kind *cube_kinds_by_plural(const struct cube_kinds *reg,
                                       const char *plural)
{
    for (size_t i = 0; plural && i < reg->n; i++)
        if (strcmp(reg->items[i]->plural, plural) == 0)
            return reg->items[i];
    return NULL;
}

struct cube_kind *cube_kinds_by_kind(const struct cube_kinds *reg, const char *kind)
{
    for (size_t i = 0; kind && i < reg->n; i++)
        if (strcmp(reg->items[i]->kind, kind) == 0)
            return reg->items[i];
    return NULL;
}

const struct cube_action *cube_kinds_action(const struct cube_kinds *reg,
                                            const char *kind, const char *method,
                                            const char *action)
{
    if (method && strcmp(method, "HEAD") == 0)
        method = "GET";
    for (size_t i = 0; i < reg->n_actions; i++) {
        const struct cube_action *a = reg->actions[i];
        if (strcmp(a->kind, kind) == 0 && strcmp(a->method, method) == 0 &&
            strcmp(a->action, action) == 0)
            return a;
    }
    return NULL;
}

/* The schema of metadata as clients may send it (the server fills the rest). */
/* metadata.schema.json beside this file, embedded at build time. */
#include "objects/metadata_schema.h"

static cJSON *metadata_schema(void)
{
    return cJSON_Parse(METADATA_SCHEMA);

}

cJSON *cube_kind_object_schema(const struct cube_kind *k)
{
    cJSON *s = cJSON_CreateObject();
    cJSON *props = cJSON_AddObjectToObject(s, "properties");
    cJSON_AddStringToObject(s, "type", "object");
    cJSON_AddStringToObject(s, "title", k->kind);
    if (k->description[0])
        cJSON_AddStringToObject(s, "description", k->description);
    cJSON *kind = cJSON_AddObjectToObject(props, "kind");
    cJSON_AddStringToObject(kind, "type", "string");
    cJSON_AddItemToObject(props, "apiVersion", cJSON_Parse("{\"type\":\"string\"}"));
    cJSON_AddItemToObject(props, "metadata", metadata_schema());
    cJSON_AddItemToObject(props, "spec", cJSON_Duplicate(k->spec_schema, 1));
    cJSON_AddItemToObject(props, "status", k->status_schema
                          ? cJSON_Duplicate(k->status_schema, 1)
                          : cJSON_Parse("{\"type\":\"object\"}"));
    return s;
}

cJSON *cube_kinds_to_json(const struct cube_kinds *reg)
{
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "kind", "KindList");
    cJSON *items = cJSON_AddArrayToObject(doc, "items");
    for (size_t i = 0; i < reg->n; i++) {
        const struct cube_kind *k = reg->items[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "kind", k->kind);
        cJSON_AddStringToObject(o, "plural", k->plural);
        cJSON_AddStringToObject(o, "singular", k->singular);
        cJSON_AddStringToObject(o, "scope", k->scope == CUBE_SCOPE_PROJECT ? "project" : "cluster");
        cJSON_AddStringToObject(o, "group", k->group);
        cJSON_AddStringToObject(o, "description", k->description);
        cube_kind_names_json(k, o);
        cJSON_AddItemToObject(o, "schema", cJSON_Duplicate(k->spec_schema, 1));
        if (k->status_schema)
            cJSON_AddItemToObject(o, "statusSchema", cJSON_Duplicate(k->status_schema, 1));
        cJSON_AddItemToObject(o, "printerColumns", cJSON_Duplicate(k->printer_columns, 1));
        cJSON *acts = cJSON_AddArrayToObject(o, "actions");
        for (size_t j = 0; j < reg->n_actions; j++)
            if (strcmp(reg->actions[j]->kind, k->kind) == 0) {
                cJSON *a = cJSON_CreateObject();
                cJSON_AddStringToObject(a, "name", reg->actions[j]->action);
                cJSON_AddStringToObject(a, "method", reg->actions[j]->method);
                cJSON_AddStringToObject(a, "summary", reg->actions[j]->summary);
                cJSON_AddItemToArray(acts, a);
            }
        cJSON_AddItemToArray(items, o);
    }
    return doc;
}

void cube_kinds_free(struct cube_kinds *reg)
{
    for (size_t i = 0; i < reg->n; i++)
        kind_free(reg->items[i]);
    for (size_t i = 0; i < reg->n_actions; i++)
        action_free(reg->actions[i]);
    free(reg->items);
    free(reg->actions);
    memset(reg, 0, sizeof *reg);
}
