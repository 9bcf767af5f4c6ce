/* json_pretty.h — JSON for people: two-space indents, "key": value, keys
 * in their order (cJSON_Print indents with tabs). */
#ifndef CUBECTL_JSON_PRETTY_H
#define CUBECTL_JSON_PRETTY_H

#include <cjson/cJSON.h>

struct buf;

/* Appends v as indented JSON followed by a newline. Returns 0 or -1. */
int json_pretty(const cJSON *v, struct buf *out);

#endif
