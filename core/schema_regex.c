/* schema_regex.c — ECMA-262 pattern to POSIX ERE; schema_format.h helpers.
 *
 * JSON Schema patterns are ECMA-262 regexes; we translate them to POSIX ERE
 * for regcomp. Supported: literals, `.`, anchors, groups (capturing,
 * `(?:...)`, named), alternation, greedy and lazy quantifiers (laziness
 * cannot change whether a string matches), bracket classes with ranges and
 * negation, the shorthands \d \w \s \D \W \S inside and outside brackets,
 * \b \B, and character escapes (\n \t \xHH \uHHHH \cX, identity escapes).
 * Rejected with a reason: lookaround, backreferences, \p{...}, NUL.
 *
 * Matching is by Unicode code point, independent of the process locale:
 * classes and '.' become alternatives of UTF-8 byte sequences (see
 * schema_regex_class.c), and the regex engine runs in the C locale. \d and
 * \w are ASCII as in ECMA; \s includes the Unicode spaces. */
#include "schema_format.h"
#include "schema_regex_priv.h"

#include <ctype.h>
#include <locale.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- UTF-8 ------------------------------------------------------------ */

/* Decodes one character; returns its byte length, or 0 if malformed. */
static size_t utf8_decode(const char *s, uint32_t *cp)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t n = u[0] < 0x80 ? 1 : u[0] >= 0xF0 ? 4 : u[0] >= 0xE0 ? 3
             : u[0] >= 0xC0 ? 2 : 0;
    if (n == 0 || u[0] >= 0xF8)
        return 0;
    uint32_t v = n == 1 ? u[0] : u[0] & (0x7F >> n);
    for (size_t i = 1; i < n; i++) {
        if ((u[i] & 0xC0) != 0x80)
            return 0;
        v = (v << 6) | (u[i] & 0x3F);
    }
    if (v > 0x10FFFF)
        return 0;
    *cp = v;
    return n;
}

/* Counts the bytes that start a character (so malformed input still ends). */
size_t cube_schema_utf8_length(const char *s)
{
    size_t n = 0;
    for (const unsigned char *u = (const unsigned char *)s; *u; u++)
        n += (*u & 0xC0) != 0x80; /* count every byte that starts a char */
    return n;
}

/* ---- ECMA-262 to ERE translation ---------------------------------------- */

struct translation {
    const char *p;  /* next unread pattern byte */
    struct re_buf out;
    const char *failure;
};

enum escape_kind { ESC_CHAR, ESC_CLASS, ESC_BOUNDARY, ESC_ERROR };

static int hex_value(char c)
{
    return isdigit((unsigned char)c) ? c - '0'
         : isxdigit((unsigned char)c) ? tolower((unsigned char)c) - 'a' + 10
         : -1;
}

/* Reads `n` hex digits at s; -1 when they are not all there. */
static long read_hex(const char *s, int n)
{
    long v = 0;
    for (int i = 0; i < n; i++) {
        int h = hex_value(s[i]);
        if (h < 0)
            return -1;
        v = v * 16 + h;
    }
    return v;
}

/* \uHHHH, joining a surrogate pair written as two escapes. */
static enum escape_kind parse_unicode_escape(struct translation *t,
                                             uint32_t *cp)
{
    long v = read_hex(t->p, 4);
    if (v < 0) {
        *cp = 'u'; /* not an escape after all: identity 'u' */
        return ESC_CHAR;
    }
    t->p += 4;
    if (v >= 0xD800 && v <= 0xDBFF && t->p[0] == '\\' && t->p[1] == 'u') {
        long lo = read_hex(t->p + 2, 4);
        if (lo >= 0xDC00 && lo <= 0xDFFF) {
            t->p += 6;
            v = 0x10000 + ((v - 0xD800) << 10) + (lo - 0xDC00);
        }
    }
    if (v >= 0xD800 && v <= 0xDFFF) {
        t->failure = "lone surrogate escape";
        return ESC_ERROR;
    }
    if (v == 0) {
        t->failure = "\\u0000 (NUL) is not supported";
        return ESC_ERROR;
    }
    *cp = (uint32_t)v;
    return ESC_CHAR;
}

static const char ASCII_LETTERS[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
static const char *const CONTROL_ESCAPES = "n\nr\rt\tf\fv\v";

/* Parses the escape after a backslash (t->p is just past it). */
static enum escape_kind parse_escape(struct translation *t, bool in_class,
                                     uint32_t *cp, struct char_class *cc)
{
    char c = *t->p;
    if (c == '\0') {
        t->failure = "pattern ends with a backslash";
        return ESC_ERROR;
    }
    t->p++;
    const char *ctl = strchr(CONTROL_ESCAPES, c);
    if (ctl && (ctl - CONTROL_ESCAPES) % 2 == 0) {
        *cp = (unsigned char)ctl[1];
        return ESC_CHAR;
    }
    if (strchr("dDwWsS", c)) {
        cube_re_class_add_shorthand(cc, c);
        return ESC_CLASS;
    }
    if (c == 'b' || c == 'B') {
        *cp = c == 'b' ? '\b' : 'B'; /* inside brackets \b is backspace */
        return in_class ? ESC_CHAR : ESC_BOUNDARY;
    }
    if (c >= '0' && c <= '9') {
        t->failure = c == '0' ? "\\0 (NUL) is not supported"
                              : "backreferences are not supported";
        return ESC_ERROR;
    }
    if (c == 'p' || c == 'P' || c == 'k') {
        t->failure = c == 'k' ? "backreferences are not supported"
                              : "unicode property escapes are not supported";
        return ESC_ERROR;
    }
    if (c == 'x' && read_hex(t->p, 2) >= 0) {
        *cp = (uint32_t)read_hex(t->p, 2);
        if (*cp == 0) {
            t->failure = "\\x00 (NUL) is not supported";
            return ESC_ERROR;
        }
        t->p += 2;
        return ESC_CHAR;
    }
    if (c == 'u')
        return parse_unicode_escape(t, cp);
    if (c == 'c' && *t->p && strchr(ASCII_LETTERS, *t->p)) {
        *cp = (unsigned char)*t->p++ % 32;
        return ESC_CHAR;
    }
    size_t n = utf8_decode(t->p - 1, cp); /* identity escape */
    if (n == 0) {
        t->failure = "invalid UTF-8 in pattern";
        return ESC_ERROR;
    }
    t->p += n - 1;
    return ESC_CHAR;
}

/* One bracket member: a code point, or a shorthand merged into cc. */
static enum escape_kind parse_class_atom(struct translation *t, uint32_t *cp,
                                         struct char_class *cc)
{
    if (*t->p == '\\') {
        t->p++;
        return parse_escape(t, true, cp, cc);
    }
    size_t n = utf8_decode(t->p, cp);
    if (n == 0) {
        t->failure = "invalid UTF-8 in pattern";
        return ESC_ERROR;
    }
    t->p += n;
    return ESC_CHAR;
}

/* Parses "[...]" (t->p just past '[') and emits its ERE equivalent. */
static void translate_class(struct translation *t)
{
    struct char_class cc = {0};
    bool negated = *t->p == '^';
    t->p += negated;
    while (*t->p && *t->p != ']' && !t->failure) {
        uint32_t lo, hi;
        enum escape_kind k = parse_class_atom(t, &lo, &cc);
        if (k != ESC_CHAR)
            continue;
        hi = lo;
        if (t->p[0] == '-' && t->p[1] && t->p[1] != ']') {
            t->p++;
            enum escape_kind k2 = parse_class_atom(t, &hi, &cc);
            if (k2 == ESC_CLASS) { /* "a-\d": the dash is literal */
                cube_re_class_add(&cc, '-', '-');
                hi = lo;
            } else if (k2 == ESC_CHAR && hi < lo) {
                t->failure = "character class range out of order";
            }
        }
        cube_re_class_add(&cc, lo, hi);
    }
    if (!t->failure && cc.overflow)
        t->failure = "character class too large";
    if (t->failure)
        return;
    if (*t->p != ']') {
        t->failure = "unterminated character class";
        return;
    }
    t->p++;
    if (negated)
        cube_re_class_negate(&cc);
    cube_re_emit_class(&t->out, &cc);
}

static void translate_escape(struct translation *t)
{
    struct char_class cc = {0};
    uint32_t cp;
    switch (parse_escape(t, false, &cp, &cc)) {
    case ESC_CHAR:
        cube_re_emit_literal(&t->out, cp);
        break;
    case ESC_CLASS:
        cube_re_emit_class(&t->out, &cc);
        break;
    case ESC_BOUNDARY: /* GNU regex operators with the ECMA meaning */
        cube_re_puts(&t->out, cp == '\b' ? "\\b" : "\\B");
        break;
    case ESC_ERROR:
        break;
    }
}

/* Length of a "{n}", "{n,}" or "{n,m}" quantifier at s, else 0 (ECMA then
 * reads the brace as a literal). */
static size_t brace_quantifier_length(const char *s)
{
    size_t i = 1;
    if (!isdigit((unsigned char)s[i]))
        return 0;
    while (isdigit((unsigned char)s[i]))
        i++;
    if (s[i] == ',')
        for (i++; isdigit((unsigned char)s[i]); i++)
            ;
    return s[i] == '}' ? i + 1 : 0;
}

static void translate_group_open(struct translation *t)
{
    if (t->p[0] != '?') {
        cube_re_putc(&t->out, '(');
        return;
    }
    if (t->p[1] == ':') {
        t->p += 2;
    } else if (t->p[1] == '<' && t->p[2] != '=' && t->p[2] != '!') {
        const char *end = strchr(t->p, '>'); /* named group: drop the name */
        if (!end) {
            t->failure = "unterminated group name";
            return;
        }
        t->p = end + 1;
    } else {
        t->failure = "lookaround assertions are not supported";
        return;
    }
    cube_re_putc(&t->out, '(');
}

/* A literal character taken as is, possibly multi-byte. */
static void translate_literal(struct translation *t)
{
    uint32_t cp;
    size_t n = utf8_decode(t->p, &cp);
    if (n == 0) {
        t->failure = "invalid UTF-8 in pattern";
        return;
    }
    t->p += n;
    cube_re_emit_literal(&t->out, cp);
}

static void translate_dot(struct translation *t)
{
    struct char_class cc = {0};
    cube_re_class_set_dot(&cc);
    cube_re_emit_class(&t->out, &cc);
}

static void translate_step(struct translation *t)
{
    char c = *t->p++;
    size_t q;
    switch (c) {
    case '\\':
        translate_escape(t);
        return;
    case '[':
        translate_class(t);
        return;
    case '.':
        translate_dot(t);
        return;
    case '(':
        translate_group_open(t);
        return;
    case '*': case '+': case '?':
        cube_re_putc(&t->out, c);
        t->p += *t->p == '?'; /* lazy: same set of matching strings */
        return;
    case '{':
        q = brace_quantifier_length(t->p - 1);
        if (q == 0) {
            cube_re_puts(&t->out, "\\{");
            return;
        }
        cube_re_putn(&t->out, t->p - 1, q);
        t->p += q - 1;
        t->p += *t->p == '?';
        return;
    case '}': case ']':
        cube_re_putc(&t->out, '\\');
        cube_re_putc(&t->out, c);
        return;
    case ')': case '|': case '^': case '$':
        cube_re_putc(&t->out, c);
        return;
    default:
        t->p--;
        translate_literal(t);
        return;
    }
}

/* Returns the ERE text (malloc'd), or NULL with t.failure set. */
static char *translate_pattern(const char *pattern, const char **failure)
{
    struct translation t = {.p = pattern};
    cube_re_puts(&t.out, "");
    while (*t.p && !t.failure)
        translate_step(&t);
    if (!t.failure && t.out.oom)
        t.failure = "out of memory";
    if (t.failure) {
        free(t.out.s);
        *failure = t.failure;
        return NULL;
    }
    return t.out.s;
}

/* The translation speaks in UTF-8 bytes, so regcomp and regexec must see
 * single-byte characters: run them in the C locale, switched per thread. */
struct c_locale {
    locale_t c, previous;
};

static void c_locale_enter(struct c_locale *l)
{
    l->c = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    l->previous = l->c ? uselocale(l->c) : (locale_t)0;
}

static void c_locale_leave(struct c_locale *l)
{
    if (!l->c)
        return;
    uselocale(l->previous);
    freelocale(l->c);
}

/* Translates, then regcomp()s in the C locale; -1 with a reason in err. */
int cube_schema_regex_compile(regex_t *re, const char *pattern,
                              char *err, size_t errlen)
{
    const char *failure = NULL;
    char *ere = translate_pattern(pattern, &failure);
    if (!ere) {
        if (errlen)
            snprintf(err, errlen, "%s", failure);
        return -1;
    }
    struct c_locale loc;
    c_locale_enter(&loc);
    int rc = regcomp(re, ere, REG_EXTENDED | REG_NOSUB);
    c_locale_leave(&loc);
    free(ere);
    if (rc != 0) {
        if (errlen)
            regerror(rc, re, err, errlen);
        return -1;
    }
    return 0;
}

/* regexec() in the C locale; true on a match anywhere in s. */
bool cube_schema_regex_match(const regex_t *re, const char *s)
{
    struct c_locale loc;
    c_locale_enter(&loc);
    bool matched = regexec(re, s, 0, NULL, 0) == 0;
    c_locale_leave(&loc);
    return matched;
}
