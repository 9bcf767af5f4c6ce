/* names_priv.h — label key and value syntax, shared by names.c and
 * selector.c. Each check takes a counted string (no NUL needed) and returns
 * 0, or -1 with a message in err (err may be NULL). */
#ifndef CUBE_NAMES_PRIV_H
#define CUBE_NAMES_PRIV_H

#include <stddef.h>

/* A label key: optional DNS-subdomain prefix (<= 253 chars) and '/', then a
 * name of 1..63 chars [A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?. */
int cube_label_key_valid(const char *key, size_t len, char *err,
                         size_t errlen);
/* A label value: empty, or the name syntax of a label key. */
int cube_label_value_valid(const char *value, size_t len, char *err,
                           size_t errlen);

#endif
