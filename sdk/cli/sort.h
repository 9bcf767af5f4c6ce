/* sort.h — get --sort-by: list items ordered by one field. */
#ifndef CUBECTL_SORT_H
#define CUBECTL_SORT_H

#include <cjson/cJSON.h>

/* Sorts the items array in place by the value at path (".spec.size" or
 * "{.metadata.name}", as printer columns write it): numbers by value,
 * strings by byte order, items without the field first, mixed types by
 * type; ties keep their order. Returns 0, or -1 when out of memory. */
int sort_items(cJSON *items, const char *path);

#endif
