/* schema_regex.c — ECMA-262 pattern to POSIX ERE; schema_format.h helpers.
 *
 * JSON Schema patterns are ECMA-262 regexes; we translate them to POSIX ERE
 * for regcomp. Supported: literals, `.`, anchors, groups (capturing,
 * `(?:...)`, named), alternation, greedy and lazy quantifiers (laziness
 * cannot change whether a string matches), bracket classes with ranges and
 * negation, the shorthands \d \w \s \D \W \S inside and outside brackets,
 * \b \B, and character escapes (\n \t \xHH \uHHHH \cX, identity escapes).
 * Rejected with a reason: lookaround, backreferences, \p{...}, NUL, and as
 * in ECMA a quantifier with nothing to repeat (a**, ^*, (+)).
 *
 * glibc's regcomp can take seconds and gigabytes on short patterns (stacked
 * or nested repeats, skippable runs, assertions it must re-check), so
 * patterns over the limits in schema_format.h, or dearer than the cost
 * model (schema_regex_priv.h) allows, are refused as "too complex". A
 * repeated piece that matches the empty string is written the cheap way
 * (X+ as X*, X{m,n} as X{n}, X? as X): the same strings match.
 *
 * Matching is by Unicode code point, independent of the process locale:
 * classes and '.' become alternatives of UTF-8 byte sequences (see
 * schema_regex_class.c), and the regex engine runs in the C locale. \d and
 * \w are ASCII as in ECMA; \s includes the Unicode spaces.
 *
 * This file holds the translator's structure: groups, alternation, atoms,
 * quantifiers and the cost checks. Bracket classes and escapes are read in
 * schema_regex_class.c, the cost model is schema_regex_cost.c, and
 * compiling and caching the result is schema_regex_cache.c. */
#include "schema_format.h"
#include "schema_regex_priv.h"

#include <ctype.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Counts the bytes that start a character (so malformed input still ends). */
size_t cube_schema_utf8_length(const char *s)
{
    size_t n = 0;
    for (const unsigned char *u = (const unsigned char *)s; *u; u++)
        n += (*u & 0xC0) != 0x80; /* count every byte that starts a char */
    return n;
}

/* ---- ECMA-262 to ERE translation ---------------------------------------- */

/* Past these (and CUBE_RE_NODES_MAX, CUBE_RE_CLOSURES_MAX in
 * schema_regex_priv.h) the cost model calls a pattern too complex. */
#define ASSERTION_CHAIN_MAX 8
#define PATHS_MAX 10000.0

#define STR_(x) #x
#define STR(x) STR_(x)
#define TOO_COMPLEX "too complex: "

/* One level of group: its finished alternatives and the current one. */
struct frame {
    struct re_cost done;
    struct re_cost seq;
    bool alternated;   /* done holds at least one alternative */
    size_t open_at;    /* where the group's ERE begins in out */
};

struct translation {
    struct re_scan s; /* position, output, failure */
    struct frame frames[CUBE_SCHEMA_PATTERN_MAX_DEPTH + 1];
    int depth;
    struct re_cost atom; /* the last atom, which a quantifier may repeat */
    bool has_atom;
    size_t atom_at;      /* where the atom's ERE begins in out */
    unsigned alternatives;
};

/* ---- structure and cost ---------------------------------------------- */

/* Refuses the pattern once c is dearer than the model allows. */
static void check_cost(struct translation *t, const struct re_cost *c)
{
    if (t->s.failure)
        return;
    if (c->copies > CUBE_SCHEMA_PATTERN_MAX_COPIES)
        t->s.failure = TOO_COMPLEX "nested repeats make more than "
                       STR(CUBE_SCHEMA_PATTERN_MAX_COPIES) " copies";
    else if (c->chain > ASSERTION_CHAIN_MAX)
        t->s.failure = TOO_COMPLEX "more than " STR(ASSERTION_CHAIN_MAX)
                       " assertions with no input between them";
    else if (c->cyclic && c->paths > PATHS_MAX)
        t->s.failure = TOO_COMPLEX "too many ways to match the empty string "
                       "around a loop";
    else if (c->nodes > CUBE_RE_NODES_MAX ||
             c->closures > CUBE_RE_CLOSURES_MAX)
        t->s.failure = TOO_COMPLEX "it expands to too many states";
}

/* Moves the pending atom (if any) into the current alternative. */
static void flush_atom(struct translation *t)
{
    if (!t->has_atom)
        return;
    struct re_cost *seq = &t->frames[t->depth].seq;
    cube_re_cost_concat(seq, &t->atom);
    t->has_atom = false;
    check_cost(t, seq);
}

static void begin_atom(struct translation *t)
{
    flush_atom(t);
    t->atom_at = t->s.out.len;
}

/* Makes what was written since begin_atom the atom a quantifier repeats. */
static void end_atom(struct translation *t)
{
    if (t->s.failure || t->s.out.oom)
        return;
    size_t branches = 1;
    for (size_t i = t->atom_at; i < t->s.out.len; i++)
        branches += t->s.out.s[i] == '|';
    cube_re_cost_atom(&t->atom, t->s.out.len - t->atom_at, branches);
    t->has_atom = true;
}

static void add_assertion(struct translation *t, const char *ere)
{
    flush_atom(t);
    struct re_cost a;
    cube_re_cost_assertion(&a);
    cube_re_cost_concat(&t->frames[t->depth].seq, &a);
    check_cost(t, &t->frames[t->depth].seq);
    cube_re_puts(&t->s.out, ere);
}

/* An alternative that matches only "" adds nothing once the group can
 * already match "" (as in "a?|", "a||"): takes it and the '|' before it
 * back out. */
static bool drop_blank_alternative(struct translation *t, struct frame *f)
{
    struct re_buf *out = &t->s.out;
    if (!f->alternated || !f->seq.blank || !f->done.empty || out->oom ||
        out->len == 0 || out->s[out->len - 1] != '|')
        return false;
    out->s[--out->len] = '\0';
    return true;
}

/* The current group's alternatives as one cost. */
static struct re_cost close_alternatives(struct translation *t,
                                         struct frame *f)
{
    if (drop_blank_alternative(t, f))
        return f->done;
    if (!f->alternated)
        return f->seq;
    struct re_cost all = f->done;
    cube_re_cost_alternate(&all, &f->seq);
    return all;
}

/* Takes the pending atom's ERE back out; it now matches only "". */
static void drop_atom_text(struct translation *t)
{
    if (!t->s.out.oom) {
        t->s.out.len = t->atom_at;
        t->s.out.s[t->s.out.len] = '\0';
    }
    cube_re_cost_empty(&t->atom);
}

static void open_group(struct translation *t)
{
    flush_atom(t);
    if (t->depth == CUBE_SCHEMA_PATTERN_MAX_DEPTH) {
        t->s.failure = TOO_COMPLEX "groups nested more than "
                       STR(CUBE_SCHEMA_PATTERN_MAX_DEPTH) " deep";
        return;
    }
    struct frame *f = &t->frames[++t->depth];
    f->alternated = false;
    f->open_at = t->s.out.len;
    cube_re_cost_empty(&f->seq);
    cube_re_putc(&t->s.out, '(');
}

static void close_group(struct translation *t)
{
    flush_atom(t);
    if (t->depth == 0) {
        t->s.failure = "unmatched ')'";
        return;
    }
    struct frame *f = &t->frames[t->depth--];
    struct re_cost inner = close_alternatives(t, f);
    t->atom_at = f->open_at;
    t->has_atom = true;
    if (inner.blank) { /* "()", "(?:|)": nothing to match, leave it out */
        drop_atom_text(t);
        return;
    }
    /* regcomp gives a group an open and a close node */
    cube_re_cost_epsilon(&t->atom);
    cube_re_cost_concat(&t->atom, &inner);
    cube_re_cost_epsilon(&inner);
    cube_re_cost_concat(&t->atom, &inner);
    cube_re_putc(&t->s.out, ')');
}

static void alternate(struct translation *t)
{
    flush_atom(t);
    if (++t->alternatives >= CUBE_SCHEMA_PATTERN_MAX_ALTERNATIVES) {
        t->s.failure = TOO_COMPLEX "more than "
                       STR(CUBE_SCHEMA_PATTERN_MAX_ALTERNATIVES)
                       " alternatives";
        return;
    }
    struct frame *f = &t->frames[t->depth];
    f->done = close_alternatives(t, f);
    f->alternated = true;
    cube_re_cost_empty(&f->seq);
    cube_re_putc(&t->s.out, '|');
}

/* ---- atoms and quantifiers ------------------------------------------- */

static void translate_escape(struct translation *t)
{
    struct char_class cc = {0};
    uint32_t cp;
    begin_atom(t);
    switch (cube_re_parse_escape(&t->s, false, &cp, &cc)) {
    case ESC_CHAR:
        cube_re_emit_literal(&t->s.out, cp);
        end_atom(t);
        break;
    case ESC_CLASS:
        cube_re_emit_class(&t->s.out, &cc);
        end_atom(t);
        break;
    case ESC_BOUNDARY: /* GNU regex operators with the ECMA meaning */
        add_assertion(t, cp == '\b' ? "\\b" : "\\B");
        break;
    case ESC_ERROR:
        break;
    }
}

/* Reads decimal digits at s[*i], saturating below UINT_MAX. */
static unsigned read_count(const char *s, size_t *i)
{
    unsigned long v = 0;
    for (; isdigit((unsigned char)s[*i]); (*i)++)
        if (v < UINT_MAX / 2)
            v = v * 10 + (unsigned)(s[*i] - '0');
    return v < UINT_MAX / 2 ? (unsigned)v : UINT_MAX / 2;
}

/* Parses a "{m}", "{m,}" or "{m,n}" quantifier at s into min and max
 * (UINT_MAX: no bound); its length, else 0 (ECMA then reads the brace as
 * a literal). */
static size_t read_braces(const char *s, unsigned *min, unsigned *max)
{
    size_t i = 1;
    if (!isdigit((unsigned char)s[i]))
        return 0;
    *min = *max = read_count(s, &i);
    if (s[i] == ',') {
        i++;
        *max = isdigit((unsigned char)s[i]) ? read_count(s, &i) : UINT_MAX;
    }
    return s[i] == '}' ? i + 1 : 0;
}

/* Writes the ERE quantifier for min..max ("" for exactly once). */
static void emit_quantifier(struct re_buf *b, unsigned min, unsigned max)
{
    char text[32];
    if (max == UINT_MAX && min <= 1)
        snprintf(text, sizeof text, "%s", min ? "+" : "*");
    else if (max == UINT_MAX)
        snprintf(text, sizeof text, "{%u,}", min);
    else if (min == max && min == 1)
        text[0] = '\0';
    else if (min == max)
        snprintf(text, sizeof text, "{%u}", min);
    else if (min == 0 && max == 1)
        snprintf(text, sizeof text, "?");
    else
        snprintf(text, sizeof text, "{%u,%u}", min, max);
    cube_re_puts(b, text);
}

/* Repeats the pending atom min..max times; a lazy '?' after it is read
 * too (laziness cannot change whether a string matches). */
static void translate_quantifier(struct translation *t, unsigned min,
                                 unsigned max)
{
    struct re_cost *a = &t->atom;
    if (!t->has_atom) {
        t->s.failure = "nothing to repeat";
        return;
    }
    if (min > max) {
        t->s.failure = "numbers out of order in {} quantifier";
        return;
    }
    if (min > CUBE_SCHEMA_PATTERN_MAX_REPEAT ||
        (max != UINT_MAX && max > CUBE_SCHEMA_PATTERN_MAX_REPEAT)) {
        t->s.failure = TOO_COMPLEX "a repeat count above "
                       STR(CUBE_SCHEMA_PATTERN_MAX_REPEAT);
        return;
    }
    if (max > 1 && a->through > 0) {
        t->s.failure = TOO_COMPLEX "a repeated part can match the empty "
                       "string through an assertion";
        return;
    }
    if (a->blank || max == 0) {
        drop_atom_text(t);
    } else {
        if (a->empty) /* X+ X{m,}: X*; X? X{m,n}: X{n} */
            min = max == UINT_MAX ? 0 : max;
        emit_quantifier(&t->s.out, min, max);
        cube_re_cost_repeat(a, min, max);
        check_cost(t, a);
    }
    flush_atom(t);
    t->s.p += *t->s.p == '?';
}

static void translate_brace(struct translation *t)
{
    unsigned min, max;
    size_t q = read_braces(t->s.p - 1, &min, &max);
    if (q == 0) {
        begin_atom(t);
        cube_re_puts(&t->s.out, "\\{");
        end_atom(t);
        return;
    }
    t->s.p += q - 1;
    translate_quantifier(t, min, max);
}

static void translate_group_open(struct translation *t)
{
    if (t->s.p[0] == '?' && t->s.p[1] == ':') {
        t->s.p += 2;
    } else if (t->s.p[0] == '?' && t->s.p[1] == '<' && t->s.p[2] != '=' &&
               t->s.p[2] != '!') {
        const char *end = strchr(t->s.p, '>'); /* named: drop the name */
        if (!end) {
            t->s.failure = "unterminated group name";
            return;
        }
        t->s.p = end + 1;
    } else if (t->s.p[0] == '?') {
        t->s.failure = "lookaround assertions are not supported";
        return;
    }
    open_group(t);
}

/* A literal character taken as is, possibly multi-byte. */
static void translate_literal(struct translation *t)
{
    uint32_t cp;
    size_t n = cube_re_utf8_decode(t->s.p, &cp);
    if (n == 0) {
        t->s.failure = "invalid UTF-8 in pattern";
        return;
    }
    t->s.p += n;
    begin_atom(t);
    cube_re_emit_literal(&t->s.out, cp);
    end_atom(t);
}

static void translate_dot(struct translation *t)
{
    struct char_class dot = {0};
    begin_atom(t);
    cube_re_class_set_dot(&dot);
    cube_re_emit_class(&t->s.out, &dot);
    end_atom(t);
}

static void translate_step(struct translation *t)
{
    char c = *t->s.p++;
    switch (c) {
    case '\\':
        translate_escape(t);
        return;
    case '[':
        begin_atom(t);
        cube_re_translate_class(&t->s);
        end_atom(t);
        return;
    case '.':
        translate_dot(t);
        return;
    case '(':
        translate_group_open(t);
        return;
    case ')':
        close_group(t);
        return;
    case '|':
        alternate(t);
        return;
    case '^': case '$':
        add_assertion(t, c == '^' ? "^" : "$");
        return;
    case '*': case '+': case '?':
        translate_quantifier(t, c == '+', c == '?' ? 1 : UINT_MAX);
        return;
    case '{':
        translate_brace(t);
        return;
    default: /* '}' and ']' too: ECMA reads them as literals */
        t->s.p--;
        translate_literal(t);
        return;
    }
}

/* Returns the ERE text (malloc'd) and its estimated regcomp cost in
 * *weight, or NULL with *failure set. */
char *cube_re_translate(const char *pattern, const char **failure,
                        double *weight)
{
    struct translation t = {.s.p = pattern};
    cube_re_cost_empty(&t.frames[0].seq);
    cube_re_puts(&t.s.out, "");
    if (strnlen(pattern, CUBE_SCHEMA_PATTERN_MAX_BYTES + 1) >
        CUBE_SCHEMA_PATTERN_MAX_BYTES)
        t.s.failure = TOO_COMPLEX "longer than "
                      STR(CUBE_SCHEMA_PATTERN_MAX_BYTES) " bytes";
    while (*t.s.p && !t.s.failure)
        translate_step(&t);
    flush_atom(&t);
    if (!t.s.failure && t.depth > 0)
        t.s.failure = "missing ')'";
    if (!t.s.failure) {
        struct re_cost all = close_alternatives(&t, &t.frames[0]);
        check_cost(&t, &all);
        *weight = all.nodes + all.closures;
    }
    if (!t.s.failure && t.s.out.oom)
        t.s.failure = "out of memory";
    if (t.s.failure) {
        free(t.s.out.s);
        *failure = t.s.failure;
        return NULL;
    }
    return t.s.out.s;
}
