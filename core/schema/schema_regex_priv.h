/* schema_regex_priv.h — what the regex engine's files share: the output
 * buffer and code-point classes (schema_regex_class.c), the cost model
 * (schema_regex_cost.c), and the translator's entry point and limits
 * (schema_regex.c) that the compiled-pattern cache (schema_regex_cache.c)
 * uses. Internal to core/schema_regex*.c; not part of the core's interface. */
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

/* The translator's reading position, the ERE written so far, and its first
 * failure (a static string); translation stops once failure is set. */
struct re_scan {
    const char *p;
    struct re_buf out;
    const char *failure;
};

enum re_escape { ESC_CHAR, ESC_CLASS, ESC_BOUNDARY, ESC_ERROR };

/* Decodes the UTF-8 character at s into cp; its byte length, or 0 if it is
 * malformed. */
size_t cube_re_utf8_decode(const char *s, uint32_t *cp);
/* Parses the escape after a backslash (s->p just past it): a character in
 * cp, a shorthand class merged into cc, \b or \B outside brackets
 * (ESC_BOUNDARY; cp is '\b' for \b), or ESC_ERROR with s->failure set. */
enum re_escape cube_re_parse_escape(struct re_scan *s, bool in_class,
                                    uint32_t *cp, struct char_class *cc);
/* Parses "[...]" (s->p just past '[') and writes its ERE equivalent. */
void cube_re_translate_class(struct re_scan *s);

/* What a piece of a pattern will cost glibc's regcomp, estimated from the
 * shape of the NFA it builds: node count after it copies repeated pieces
 * (X{m,n} is n copies, X+ is X X*), and the total size of the nodes'
 * epsilon closures, which grows with the square of a run of pieces that
 * can all be skipped. Assertions (^ $ \b \B) cost far more: regcomp
 * duplicates the closure behind each one, so chains of them that need no
 * input in between are counted apart; so are the input-free paths around
 * a loop that needs no input. Composed bottom-up as the translator walks
 * the pattern; the limits are below and in schema_regex.c. */
struct re_cost {
    double nodes;    /* ERE bytes, repeats expanded */
    double first;    /* nodes reached from the entry without input */
    double last;     /* input-free nodes that reach the exit without input */
    double closures; /* sum of the epsilon closures' sizes */
    double copies;   /* most copies of one atom made by nested repeats */
    int through;     /* most assertions on an input-free path from entry to
                      * exit; -1 when every path consumes input */
    int head, tail;  /* most assertions on input-free paths from the
                      * entry / to the exit */
    int chain;       /* most assertions on any input-free path */
    double paths;    /* input-free paths from entry to exit */
    bool cyclic;     /* holds a loop that needs no input (X* where X can
                      * match empty): regcomp's closures then grow with
                      * the number of paths */
    bool empty;      /* matches the empty string wherever it is (no
                      * assertion needed) */
    bool blank;      /* matches nothing else: can be left out */
};

/* The empty sequence: the identity of cube_re_cost_concat. */
void cube_re_cost_empty(struct re_cost *c);
/* One node that needs no input (as a group's open and close nodes). */
void cube_re_cost_epsilon(struct re_cost *c);
/* One atom written as `bytes` ERE bytes in `branches` alternatives (a
 * class may be several byte sequences). */
void cube_re_cost_atom(struct re_cost *c, size_t bytes, size_t branches);
/* One assertion: needs no input but a condition. */
void cube_re_cost_assertion(struct re_cost *c);
/* a = a followed by b. */
void cube_re_cost_concat(struct re_cost *a, const struct re_cost *b);
/* a = a | b. */
void cube_re_cost_alternate(struct re_cost *a, const struct re_cost *b);
/* c = c{min,max} as regcomp expands it; max UINT_MAX: unbounded. */
void cube_re_cost_repeat(struct re_cost *c, unsigned min, unsigned max);

/* Past these the cost model calls a pattern too complex. What they let
 * through costs glibc's regcomp under about 100 MB and half a second; the
 * cache sizes its weight budget from them. */
#define CUBE_RE_NODES_MAX 200000.0
#define CUBE_RE_CLOSURES_MAX 2000000.0

/* Translates the ECMA-262 pattern to a POSIX ERE: the ERE (malloc'd, the
 * caller frees it) with its estimated regcomp cost in *weight, or NULL
 * with the reason (a static string) in *failure. */
char *cube_re_translate(const char *pattern, const char **failure,
                        double *weight);

#endif
