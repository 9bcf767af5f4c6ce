/* names.h — validation of object names, label and annotation maps. Each
 * check returns 0, or -1 with a message (without the field path) in err. */
#ifndef CUBE_NAMES_H
#define CUBE_NAMES_H

#include <stddef.h>

#include <cjson/cJSON.h>

/* An RFC 1123 DNS label: 1..63 chars of [a-z0-9-], starting and ending
 * alphanumeric. Used for object and project names. */
int cube_name_check(const char *name, char *err, size_t errlen);
/* labels: an object whose keys are label keys (optional DNS-subdomain
 * prefix of at most 253 chars + '/', name of 1..63 chars
 * [A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?) and values are strings of the
 * same name syntax or empty; at most 64 labels. On error *bad_key names
 * the offending key (borrowed from labels) or is NULL. */
int cube_labels_check(const cJSON *labels, const char **bad_key, char *err,
                      size_t errlen);
/* annotations: keys as labels, values any strings; total size of keys and
 * values at most 256 KiB. */
int cube_annotations_check(const cJSON *annotations, const char **bad_key,
                           char *err, size_t errlen);

#endif
