/* args_render.c — argument values to command-line flags, as Cube Studio
 * builds a task's container args:
 *   - a true bool is the bare flag; a false one is omitted;
 *   - an empty value (null, "", [], {}) is omitted;
 *   - dict, list and json values become one compact JSON string (a json
 *     arg given as a string is passed as it is);
 *   - multiple becomes a comma-separated list ("a,b");
 *   - anything else is the flag and the value as Python's str() writes it;
 *   - the keys "images" and "workdir" are never flags (the custom-image
 *     template uses them for the image and working directory).
 * Args come in schema order (groups, then args within a group); values
 * whose name the schema does not define follow in their own order, typed
 * by their JSON value.
 */
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "args_internal.h"

static bool is_empty(const cJSON *v)
{
    return !v || cJSON_IsNull(v) || (cJSON_IsString(v) && v->valuestring[0] == '\0') ||
           ((cJSON_IsArray(v) || cJSON_IsObject(v)) && v->child == NULL);
}

/* The value of a multiple arg: "a,b" from a list, a string as is. */
static char *joined(const cJSON *v)
{
    if (!cJSON_IsArray(v))
        return pl_arg_scalar_text(v);
    size_t len = 1;
    char *out = calloc(1, 1);
    const cJSON *item;
    cJSON_ArrayForEach(item, v) {
        char *t = pl_arg_scalar_text(item);
        if (!t)
            t = cJSON_PrintUnformatted(item);
        char *grown = out && t ? realloc(out, len + strlen(t) + 1) : NULL;
        if (!grown) {
            free(t);
            free(out);
            return NULL;
        }
        out = grown;
        if (len > 1)
            strcat(out, ",");
        strcat(out, t);
        len += strlen(t) + 1;
        free(t);
    }
    return out;
}

/* The text after the flag, or NULL for "no value" (bare flag or omitted);
 * *bare says which. *oom on allocation failure. */
static char *value_text(enum pl_arg_type t, const cJSON *v, bool *bare, bool *oom)
{
    char *out = NULL;
    *bare = false;
    if (t == PL_ARG_UNKNOWN)  /* not in the schema: go by the JSON type */
        t = cJSON_IsBool(v) ? PL_ARG_BOOL : cJSON_IsArray(v) ? PL_ARG_LIST
            : cJSON_IsObject(v) ? PL_ARG_DICT : PL_ARG_STR;
    if (t == PL_ARG_BOOL) {
        *bare = pl_arg_truthy(v);
        return NULL;
    }
    if (is_empty(v))
        return NULL;
    if (t == PL_ARG_MULTIPLE)
        out = joined(v);
    else if (cJSON_IsArray(v) || cJSON_IsObject(v))
        out = cJSON_PrintUnformatted(v);
    else
        out = pl_arg_scalar_text(v);
    *oom = out == NULL;
    return out;
}

static bool add_arg(cJSON *argv, const char *name, enum pl_arg_type t, const cJSON *v)
{
    if (strcmp(name, "images") == 0 || strcmp(name, "workdir") == 0)
        return true;
    bool bare, oom = false;
    char *text = value_text(t, v, &bare, &oom);
    if (oom)
        return false;
    bool ok = true;
    if (bare || text)
        ok = cJSON_AddItemToArray(argv, cJSON_CreateString(name));
    if (ok && text)
        ok = cJSON_AddItemToArray(argv, cJSON_CreateString(text));
    free(text);
    return ok;
}

cJSON *pl_args_render(const cJSON *schema, const cJSON *args)
{
    cJSON *argv = cJSON_CreateArray();
    const cJSON *group, *def, *v;
    bool ok = argv != NULL;
    cJSON_ArrayForEach(group, schema) cJSON_ArrayForEach(def, group) {
        v = cJSON_GetObjectItemCaseSensitive(args, def->string);
        if (ok && v && pl_args_find(schema, def->string) == def)
            ok = add_arg(argv, def->string, pl_arg_def_type(def), v);
    }
    cJSON_ArrayForEach(v, args) if (ok && !pl_args_find(schema, v->string))
        ok = add_arg(argv, v->string, PL_ARG_UNKNOWN, v);
    if (!ok) {
        cJSON_Delete(argv);
        return NULL;
    }
    return argv;
}
