/* schema_format.h — string helpers behind the schema validator: ECMA-262
 * patterns run through POSIX regex, the "format" checks, and Unicode
 * length. Internal to core/schema*.c; not part of the public API. */
#ifndef CUBE_SCHEMA_FORMAT_H
#define CUBE_SCHEMA_FORMAT_H

#include <stdbool.h>
#include <stddef.h>

/* How deep validation, default filling and schema checks may recurse. */
#define CUBE_SCHEMA_MAX_DEPTH 64

/* Limits on a "pattern": beyond them it is refused as "too complex", so
 * that no schema can make regcomp spend seconds or gigabytes. A cost model
 * (schema_regex_cost.c: what the repeats, skippable runs and assertions
 * expand to) refuses the rest of what would still be too dear. */
#define CUBE_SCHEMA_PATTERN_MAX_BYTES 4096
#define CUBE_SCHEMA_PATTERN_MAX_REPEAT 1000   /* m and n of {m,n} */
#define CUBE_SCHEMA_PATTERN_MAX_COPIES 10000  /* nested repeats, multiplied */
#define CUBE_SCHEMA_PATTERN_MAX_ALTERNATIVES 256
#define CUBE_SCHEMA_PATTERN_MAX_DEPTH 32      /* groups inside groups */

/* An ECMA-262 pattern (the subset documented in schema_regex.c) compiled
 * for regexec, shared through a process-wide cache. */
struct cube_schema_regex;

/* The compiled `pattern`, from the cache or compiled and cached now; NULL
 * with a reason in err when it is unusable. Thread-safe; the caller must
 * pass it to cube_schema_regex_release when done. */
struct cube_schema_regex *cube_schema_regex_get(const char *pattern,
                                                char *err, size_t errlen);

/* True when `s` contains a match for `r`; safe from several threads. */
bool cube_schema_regex_test(struct cube_schema_regex *r, const char *s);

/* Gives back what cube_schema_regex_get returned (NULL is ignored). */
void cube_schema_regex_release(struct cube_schema_regex *r);

/* Patterns the cache holds now (for tests and diagnostics). */
size_t cube_schema_regex_cache_count(void);

/* Empties the cache; patterns in use stay valid until released. */
void cube_schema_regex_cache_clear(void);

/* True when `format` names a format this validator checks. */
bool cube_schema_format_known(const char *format);

/* True when `s` conforms to `format`; unknown formats accept anything. */
bool cube_schema_format_ok(const char *format, const char *s);

/* Describes `format` for messages ("date-time", "email address", "URI"). */
const char *cube_schema_format_noun(const char *format);

/* Number of Unicode code points in the UTF-8 string `s`. */
size_t cube_schema_utf8_length(const char *s);

#endif
