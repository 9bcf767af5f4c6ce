/* schema_defaults.c — cube_schema_apply_defaults (see schema.h). Defaults
 * are copied in before descending, so a defaulted object gets its own
 * nested defaults filled too. */
#include "schema.h"

#include "schema_format.h"

static const cJSON *keyword(const cJSON *schema, const char *name)
{
    return cJSON_GetObjectItemCaseSensitive(schema, name);
}

static int fill_defaults(const cJSON *schema, cJSON *inst, int depth);

/* Adds each absent property that has a default, then descends. */
static int fill_object_defaults(const cJSON *schema, cJSON *inst, int depth)
{
    const cJSON *props = keyword(schema, "properties");
    const cJSON *extra = keyword(schema, "additionalProperties");
    const cJSON *listed = cJSON_IsObject(props) ? props : NULL;
    const cJSON *p;
    cJSON_ArrayForEach(p, listed) {
        const cJSON *def = keyword(p, "default");
        if (!def || !cJSON_IsObject(p)
            || cJSON_GetObjectItemCaseSensitive(inst, p->string))
            continue;
        cJSON *copy = cJSON_Duplicate(def, 1);
        if (!copy || !cJSON_AddItemToObject(inst, p->string, copy)) {
            cJSON_Delete(copy);
            return -1;
        }
    }
    for (cJSON *m = inst->child; m; m = m->next) {
        const cJSON *sub = cJSON_IsObject(props) && m->string
            ? cJSON_GetObjectItemCaseSensitive(props, m->string) : NULL;
        if (fill_defaults(sub ? sub : extra, m, depth + 1) < 0)
            return -1;
    }
    return 0;
}

static int fill_array_defaults(const cJSON *schema, cJSON *inst, int depth)
{
    const cJSON *items = keyword(schema, "items");
    const cJSON *positional = cJSON_IsArray(items) ? items->child : NULL;
    for (cJSON *m = inst->child; m; m = m->next) {
        const cJSON *sub = cJSON_IsArray(items) ? positional : items;
        if (fill_defaults(sub, m, depth + 1) < 0)
            return -1;
        positional = positional ? positional->next : NULL;
    }
    return 0;
}

static int fill_defaults(const cJSON *schema, cJSON *inst, int depth)
{
    /* Past the depth bound we stop filling: validation reports it. */
    if (!cJSON_IsObject(schema) || depth >= CUBE_SCHEMA_MAX_DEPTH)
        return 0;
    if (cJSON_IsObject(inst))
        return fill_object_defaults(schema, inst, depth);
    if (cJSON_IsArray(inst))
        return fill_array_defaults(schema, inst, depth);
    return 0;
}

int cube_schema_apply_defaults(const cJSON *schema, cJSON *instance)
{
    return instance ? fill_defaults(schema, instance, 0) : 0;
}
