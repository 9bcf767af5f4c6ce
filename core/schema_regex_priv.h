/* schema_regex_priv.h — what schema_regex.c's translator shares with
 * schema_regex_class.c: the output buffer and code-point classes. Internal to
 * core/schema_regex*.c; not part of the core's interface. */
#ifndef CUBE_SCHEMA_REGEX_PRIV_H
#define CUBE_SCHEMA_REGEX_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A growable NUL-terminated string; oom is set (and later writes dropped)
 * once an allocation fails. */
struct re_buf {
    char *s;
    size_t len, cap;
    bool oom;
};

/* Appends the n bytes at s (nothing once b->oom is set). */
void cube_re_putn(struct re_buf *b, const char *s, size_t n);
/* Appends the NUL-terminated string s. */
void cube_re_puts(struct re_buf *b, const char *s);
/* Appends the byte c. */
void cube_re_putc(struct re_buf *b, char c);

/* A set of code points as ranges. Classes are emitted as byte-level UTF-8
 * alternatives and matched in the C locale, so a class (or '.') always
 * consumes one whole character, whatever the process locale is. */
#define CLASS_RANGES 96

struct cp_range {
    uint32_t lo, hi;
};

struct char_class {
    struct cp_range r[CLASS_RANGES];
    size_t n;
    bool overflow;
};

/* Adds lo..hi (NUL left out); sets cc->overflow when the set cannot hold
 * it even after merging. */
void cube_re_class_add(struct char_class *cc, uint32_t lo, uint32_t hi);
/* Replaces cc by its complement within U+0001..U+10FFFF. */
void cube_re_class_negate(struct char_class *cc);
/* Unions \d \w \s (lower case letter) or their complements (upper case). */
void cube_re_class_add_shorthand(struct char_class *cc, char letter);
/* Makes an empty cc ECMA '.': any character but the line terminators. */
void cube_re_class_set_dot(struct char_class *cc);
/* Writes cc as an ERE that consumes exactly one member character (a pattern
 * that never matches when cc is empty). Sorts and merges cc's ranges. */
void cube_re_emit_class(struct re_buf *b, struct char_class *cc);
/* Writes the code point cp as an ERE literal: escaped when special, grouped
 * when multi-byte so that a quantifier repeats the whole character. */
void cube_re_emit_literal(struct re_buf *b, uint32_t cp);

#endif
