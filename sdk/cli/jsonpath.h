/* jsonpath.h — the small JSONPath subset printer columns use:
 * ".spec.size", "{.status.phase}", ".spec.tasks[0].name",
 * ".metadata.labels['app.kubernetes.io/name']" or with "\." escapes. */
#ifndef CUBECTL_JSONPATH_H
#define CUBECTL_JSONPATH_H

#include <cjson/cJSON.h>

/* Returns the node of obj that path names, or NULL (missing, or a path
 * outside the subset). */
const cJSON *jsonpath_get(const cJSON *obj, const char *path);
/* Returns v as a table cell (malloc'd): strings as they are, numbers as
 * JSON prints them, other values as compact JSON, NULL as "<none>". */
char *jsonpath_cell(const cJSON *v);

#endif
