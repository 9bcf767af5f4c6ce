/* yaml_internal.h — what yaml.c and yaml_scalar.c share (not installed). */
#ifndef CUBE_UTIL_YAML_INTERNAL_H
#define CUBE_UTIL_YAML_INTERNAL_H

#include <cjson/cJSON.h>

/* The node plain scalar s stands for under the YAML 1.2 core schema.
 * .inf/.nan: a number with nonfinite, else NULL with *refused set. NULL
 * without *refused: out of memory. */
cJSON *cu_yaml_resolve_plain(const char *s, int nonfinite, int *refused);

#endif
