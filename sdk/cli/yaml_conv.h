/* yaml_conv.h — YAML <-> cJSON for cubectl: manifests and the config file
 * come in as YAML (or JSON), `-o yaml` goes out through libyaml's emitter.
 * Standalone on purpose: the client shares no code with the server. */
#ifndef CUBECTL_YAML_CONV_H
#define CUBECTL_YAML_CONV_H

#include <stddef.h>

#include <cjson/cJSON.h>

struct buf;

/* Parses text holding JSON or one or more YAML documents (separated by
 * ---) into a new cJSON array, one element per non-empty document. Plain
 * scalars follow the YAML 1.2 core schema; quoted ones stay strings.
 * Anchors/aliases, duplicate keys and non-scalar keys are refused. On error
 * returns NULL and writes "name:line:col: message" into err. */
cJSON *yaml_parse_docs(const char *text, size_t len, const char *name,
                       char *err, size_t errlen);
/* Returns 1 when plain scalar s would be read back as a string (not null,
 * a boolean or a number, in YAML 1.2 core or the older 1.1 words). */
int yaml_plain_is_string(const char *s);
/* Appends v as one YAML document in block style, object keys in their
 * order, strings quoted only where needed. explicit_start writes "---"
 * first (for a stream of documents). Returns 0, or -1 on failure. */
int yaml_emit(const cJSON *v, int explicit_start, struct buf *out);

#endif
