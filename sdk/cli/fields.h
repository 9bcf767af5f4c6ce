/* fields.h — request bodies from the command line: --field key=value
 * items, dotted keys nesting, values read as JSON when they are JSON. */
#ifndef CUBECTL_FIELDS_H
#define CUBECTL_FIELDS_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "args.h"

/* Adds each "key=value" of l to obj (a JSON object): "a.b=1" sets
 * obj.a.b; a value that is a whole JSON text (3, true, null, "x", {...},
 * [...]) is taken as that, anything else as a string ("2024-05-01",
 * "train"). A later item replaces an earlier one. Returns 0, or -1 with
 * err set ("no '='", an empty key segment, a key below a non-object). */
int fields_add(cJSON *obj, const struct flag_list *l, char *err, size_t errlen);
/* Sets obj[key] to a copy of text as a string; NULL text: nothing. The
 * key is not split. Returns 0 or -1. */
int fields_set_str(cJSON *obj, const char *key, const char *text);

#endif
