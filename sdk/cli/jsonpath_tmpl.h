/* jsonpath_tmpl.h — `-o jsonpath=TEMPLATE` as kubectl reads it: text with
 * {expressions}: paths ({.metadata.name}, {.items[*].spec.size},
 * {.metadata.labels['app.kubernetes.io/name']}, {$.kind}, {@}), string
 * literals ({"\n"}, {'\t'}) and {range PATH}...{end} loops. Several
 * results of one path print space-separated; strings print as they are,
 * other values as compact JSON; a missing key prints nothing. */
#ifndef CUBECTL_JSONPATH_TMPL_H
#define CUBECTL_JSONPATH_TMPL_H

#include <stddef.h>

#include <cjson/cJSON.h>

struct buf;

/* Checks tmpl's syntax. Returns 0, or -1 with err set. */
int jsonpath_tmpl_check(const char *tmpl, char *err, size_t errlen);
/* Appends tmpl applied to doc to out. Returns 0, or -1 with err set (a
 * syntax error, or out of memory). */
int jsonpath_tmpl_run(const char *tmpl, const cJSON *doc, struct buf *out, char *err,
                      size_t errlen);

#endif
