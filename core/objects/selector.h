/* selector.h — Kubernetes-style label selectors: parse once, match many.
 *
 * Syntax (comma-separated requirements, all must hold):
 *   key=value  key==value  key!=value  key in (v1,v2)  key notin (v1,v2)
 *   key (exists)  !key (does not exist)
 * Keys: an optional DNS-subdomain prefix and '/', then a name of 1..63
 * chars [A-Za-z0-9][A-Za-z0-9._-]*[A-Za-z0-9]; values: empty or the same
 * name syntax. Whitespace around tokens is ignored. */
#ifndef CUBE_SELECTOR_H
#define CUBE_SELECTOR_H

#include <stddef.h>

#include <cjson/cJSON.h>

struct cube_selector;

/* Parses `text` (NULL or "" selects everything). Returns NULL and writes a
 * message naming the position and problem to err on a syntax error. */
struct cube_selector *cube_selector_parse(const char *text, char *err,
                                          size_t errlen);
/* 1 when the labels object (an object of strings, or NULL: no labels)
 * satisfies every requirement. */
int cube_selector_match(const struct cube_selector *sel, const cJSON *labels);
/* 1 when the selector has no requirements. */
int cube_selector_empty(const struct cube_selector *sel);
void cube_selector_free(struct cube_selector *sel);

#endif
