/* yaml_conv.h — cJSON to YAML for cubectl: `-o yaml` goes out through
 * libyaml's emitter. Manifests and the config file come in as YAML (or
 * JSON) through libcube-util's reader (cu_yaml_parse_all,
 * <cube/util/yaml.h>), the one plugins use; cubectl shares no code with
 * the server. */
#ifndef CUBECTL_YAML_CONV_H
#define CUBECTL_YAML_CONV_H

#include <stddef.h>

#include <cjson/cJSON.h>

struct buf;

/* Appends v as one YAML document in block style, object keys in their
 * order, strings quoted only where needed. explicit_start writes "---"
 * first (for a stream of documents). Returns 0, or -1 on failure. */
int yaml_emit(const cJSON *v, int explicit_start, struct buf *out);

#endif
