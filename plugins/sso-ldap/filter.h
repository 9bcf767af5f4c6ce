/* filter.h — RFC 4515 escaping, filter templates and user-name checks for
 * the sso-ldap plugin. No libldap here, so unit tests use it directly. */
#ifndef SSO_LDAP_FILTER_H
#define SSO_LDAP_FILTER_H

#include <stddef.h>

/** Longest user name accepted, in bytes. */
#define SSOLDAP_USERNAME_MAX 256

/** Writes `len` bytes of `value` RFC 4515-escaped (NUL ( ) * \ and control
 *  bytes as \XX) into a new string; NULL when out of memory. */
char *ssoldap_filter_escape(const char *value, size_t len);

/** Expands a filter template: every "{key}" for key in keys[0..n) becomes
 *  the matching escaped value, in one pass (a value is never re-expanded).
 *  Returns a new string (free) or NULL when out of memory. */
char *ssoldap_filter_expand(const char *tmpl, const char *const *keys,
                            const char *const *values, size_t n);

/** 1 when tmpl contains "{key}". */
int ssoldap_filter_has(const char *tmpl, const char *key);

/** 1 when tmpl looks like one LDAP filter: starts with '(', ends with the
 *  ')' closing it, parentheses balanced (escaped ones aside). */
int ssoldap_filter_shape_ok(const char *tmpl);

/** 1 when a typed user name may be looked up: 1..SSOLDAP_USERNAME_MAX
 *  bytes, valid UTF-8, no control characters. */
int ssoldap_username_ok(const char *name);

#endif
