/* args.h — job template argument schemas in Cube Studio's format.
 *
 * A schema is {group: {"--arg": {type, item_type, label, require, choice,
 * range "min,max", default, placeholder, describe, editable, sub_args}}}
 * with type one of int, bool, str, text, enum, float, multiple, dict,
 * list, file, json.
 *
 * Contract:
 *  - pl_args_check_schema: 0, or -1 with a message naming the group/arg
 *    and field in err.
 *  - pl_args_validate: checks `args` (a JSON object "--arg" -> value)
 *    against the schema, filling defaults in place; unknown args, missing
 *    required ones, wrong types, values outside range or choice give -1
 *    with a message naming the arg in err. Values that contain "{{" are
 *    templates and are checked after rendering, not here.
 *  - pl_args_render: the command-line flags, as Cube Studio renders them:
 *    a true bool is a bare flag, a false one is omitted, empty values are
 *    omitted, dict and list (and json) become one JSON string, multiple
 *    a comma-separated list. Returns a cJSON array of strings (caller
 *    frees) or NULL on allocation failure. Args come in schema order; the
 *    names "images" and "workdir" are not flags (Cube Studio uses them for
 *    the image and working directory). Details in args.c, args_validate.c
 *    and args_render.c.
 */
#ifndef PL_ARGS_H
#define PL_ARGS_H

#include <stddef.h>

#include <cjson/cJSON.h>

int pl_args_check_schema(const cJSON *schema, char *err, size_t errlen);
int pl_args_validate(const cJSON *schema, cJSON *args, char *err, size_t errlen);
cJSON *pl_args_render(const cJSON *schema, const cJSON *args);

#endif
