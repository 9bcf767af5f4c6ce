/* schema_format.h — string helpers behind the schema validator: ECMA-262
 * patterns run through POSIX regex, the "format" checks, and Unicode
 * length. Internal to core/schema*.c; not part of the public API. */
#ifndef CUBE_SCHEMA_FORMAT_H
#define CUBE_SCHEMA_FORMAT_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>

/* How deep validation, default filling and schema checks may recurse. */
#define CUBE_SCHEMA_MAX_DEPTH 64

/* Compiles an ECMA-262 pattern (the subset documented in schema_format.c)
 * into `re` as REG_EXTENDED|REG_NOSUB. Returns 0 (caller must regfree), or
 * -1 with a reason in err (err may be NULL when errlen is 0). */
int cube_schema_regex_compile(regex_t *re, const char *pattern,
                              char *err, size_t errlen);

/* True when `s` contains a match for `re` (ECMA search semantics). */
bool cube_schema_regex_match(const regex_t *re, const char *s);

/* True when `format` names a format this validator checks. */
bool cube_schema_format_known(const char *format);

/* True when `s` conforms to `format`; unknown formats accept anything. */
bool cube_schema_format_ok(const char *format, const char *s);

/* Describes `format` for messages ("date-time", "email address", "URI"). */
const char *cube_schema_format_noun(const char *format);

/* Number of Unicode code points in the UTF-8 string `s`. */
size_t cube_schema_utf8_length(const char *s);

#endif
