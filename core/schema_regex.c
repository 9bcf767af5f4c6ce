/* schema_regex.c — pattern and UTF-8 helpers of schema_format.h.
 *
 * JSON Schema patterns are ECMA-262 regexes; we translate them to POSIX ERE
 * for regcomp. Supported: literals, `.`, anchors, groups (capturing,
 * `(?:...)`, named), alternation, greedy and lazy quantifiers (laziness
 * cannot change whether a string matches), bracket classes with ranges and
 * negation, the shorthands \d \w \s \D \W \S inside and outside brackets,
 * \b \B, and character escapes (\n \t \xHH \uHHHH \cX, identity escapes).
 * Rejected with a reason: lookaround, backreferences, \p{...}, NUL.
 * Non-ASCII text is matched as the C library's locale sees it. */
#include "schema_format.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- output buffer ---------------------------------------------------- */

struct buf {
    char *s;
    size_t len, cap;
    bool oom;
};

static void buf_putn(struct buf *b, const char *s, size_t n)
{
    if (b->oom)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 64;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *grown = realloc(b->s, cap);
        if (!grown) {
            b->oom = true;
            return;
        }
        b->s = grown;
        b->cap = cap;
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

static void buf_puts(struct buf *b, const char *s)
{
    buf_putn(b, s, strlen(s));
}

static void buf_putc(struct buf *b, char c)
{
    buf_putn(b, &c, 1);
}

/* ---- UTF-8 ------------------------------------------------------------ */

static size_t utf8_encode(uint32_t cp, char out[4])
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

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
    *cp = v;
    return n;
}

size_t cube_schema_utf8_length(const char *s)
{
    size_t n = 0;
    for (const unsigned char *u = (const unsigned char *)s; *u; u++)
        n += (*u & 0xC0) != 0x80; /* count every byte that starts a char */
    return n;
}

/* ---- character classes -------------------------------------------------- */

/* A bracket class being built. ASCII members live in a bitmap. Non-ASCII
 * members are kept symbolically: with `all_high` false, `high` lists the
 * included items; with it true, every non-ASCII character is included
 * except the items listed. That is enough to express \D, \W, \S and
 * negation without enumerating Unicode. */
struct char_class {
    unsigned char ascii[16];
    bool all_high;
    char high[256]; /* bracket-ready UTF-8 items: "é", "à-ÿ" */
    size_t high_len;
};

static void class_add_ascii(struct char_class *cc, unsigned c)
{
    if (c > 0 && c < 128)
        cc->ascii[c / 8] |= (unsigned char)(1u << (c % 8));
}

static bool class_has_ascii(const struct char_class *cc, unsigned c)
{
    return cc->ascii[c / 8] & (1u << (c % 8));
}

static const char SPACE_CHARS[] = " \t\n\v\f\r";

/* Unions the shorthand \d \w \s (lower case) or its complement (upper). */
static void class_add_shorthand(struct char_class *cc, char letter)
{
    struct char_class base = {0};
    char kind = (char)tolower((unsigned char)letter);
    for (unsigned c = 1; c < 128; c++) {
        bool in = kind == 'd' ? (c >= '0' && c <= '9')
                : kind == 'w' ? (isalnum((int)c) || c == '_')
                : strchr(SPACE_CHARS, (int)c) != NULL;
        if (in != (letter != kind))
            class_add_ascii(&base, c);
    }
    for (size_t i = 0; i < 16; i++)
        cc->ascii[i] |= base.ascii[i];
    if (letter != kind) { /* complements include all of non-ASCII */
        cc->all_high = true;
        cc->high_len = 0;
    }
}

/* Adds the range lo..hi (a single char when equal). */
static bool class_add_range(struct char_class *cc, uint32_t lo, uint32_t hi)
{
    for (uint32_t c = lo; c <= hi && c < 128; c++)
        class_add_ascii(cc, c);
    if (hi < 128 || cc->all_high)
        return true;
    uint32_t start = lo < 128 ? 128 : lo;
    char enc[9];
    size_t n = utf8_encode(start, enc);
    if (hi > start) {
        enc[n++] = '-';
        n += utf8_encode(hi, enc + n);
    }
    if (cc->high_len + n >= sizeof cc->high)
        return false;
    memcpy(cc->high + cc->high_len, enc, n);
    cc->high_len += n;
    return true;
}

static void class_negate(struct char_class *cc)
{
    for (size_t i = 0; i < 16; i++)
        cc->ascii[i] = (unsigned char)~cc->ascii[i];
    cc->ascii[0] &= (unsigned char)~1u; /* NUL never occurs in a C string */
    cc->all_high = !cc->all_high;       /* `high` flips include <-> exclude */
}

/* Writes the members in an order POSIX brackets accept: ']' first, '-'
 * last, '^' never first, '[' where it cannot start "[:" "[." or "[=". */
static void emit_bracket_body(struct buf *b, const bool in[128],
                              const struct char_class *cc)
{
    static const char SPECIAL[] = "]^-[";
    if (in[']'])
        buf_putc(b, ']');
    for (unsigned c = 1; c < 128; c++) {
        if (!in[c] || strchr(SPECIAL, (int)c))
            continue;
        unsigned end = c;
        while (end + 1 < 128 && in[end + 1] && !strchr(SPECIAL, (int)end + 1))
            end++;
        buf_putc(b, (char)c);
        if (end >= c + 2) {
            buf_putc(b, '-');
            buf_putc(b, (char)end);
        } else if (end == c + 1) {
            buf_putc(b, (char)end);
        }
        c = end;
    }
    buf_putn(b, cc->high, cc->high_len);
    if (in['['])
        buf_putc(b, '[');
    if (in['^'])
        buf_putc(b, '^');
    if (in['-'])
        buf_putc(b, '-');
}

static void emit_class(struct buf *b, const struct char_class *cc)
{
    bool in[128] = {false};
    size_t n = 0;
    for (unsigned c = 1; c < 128; c++) {
        /* a negated bracket lists what is excluded */
        in[c] = class_has_ascii(cc, c) != cc->all_high;
        n += in[c];
    }
    if (cc->all_high && n == 0 && cc->high_len == 0) {
        buf_putc(b, '.'); /* everything: '.' matches newlines in POSIX */
        return;
    }
    if (!cc->all_high && n == 0 && cc->high_len == 0) {
        buf_puts(b, "(a^)"); /* empty class: a pattern that never matches */
        return;
    }
    if (!cc->all_high && cc->high_len == 0 && in['^']
        && n == 1u + in['-']) { /* "[^]" or "[^-]" would read as negation */
        buf_puts(b, in['-'] ? "[-^]" : "\\^");
        return;
    }
    buf_puts(b, cc->all_high ? "[^" : "[");
    emit_bracket_body(b, in, cc);
    buf_putc(b, ']');
}

/* ---- ECMA-262 to ERE translation ---------------------------------------- */

struct translation {
    const char *p;  /* next unread pattern byte */
    struct buf out;
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
        class_add_shorthand(cc, c);
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
    if (c == 'c' && isalpha((unsigned char)*t->p)) {
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
                class_add_range(&cc, '-', '-');
                hi = lo;
            } else if (k2 == ESC_CHAR && hi < lo) {
                t->failure = "character class range out of order";
            }
        }
        if (!t->failure && !class_add_range(&cc, lo, hi))
            t->failure = "character class too large";
    }
    if (t->failure)
        return;
    if (*t->p != ']') {
        t->failure = "unterminated character class";
        return;
    }
    t->p++;
    if (negated)
        class_negate(&cc);
    emit_class(&t->out, &cc);
}

static void emit_literal(struct buf *b, uint32_t cp)
{
    if (cp != 0 && cp < 0x80 && strchr(".[]()*+?{}|^$\\", (int)cp))
        buf_putc(b, '\\');
    char enc[4];
    buf_putn(b, enc, utf8_encode(cp, enc));
}

static void translate_escape(struct translation *t)
{
    struct char_class cc = {0};
    uint32_t cp;
    switch (parse_escape(t, false, &cp, &cc)) {
    case ESC_CHAR:
        emit_literal(&t->out, cp);
        break;
    case ESC_CLASS:
        emit_class(&t->out, &cc);
        break;
    case ESC_BOUNDARY: /* GNU regex operators with the ECMA meaning */
        buf_puts(&t->out, cp == '\b' ? "\\b" : "\\B");
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
        buf_putc(&t->out, '(');
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
    buf_putc(&t->out, '(');
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
    case '.': /* ECMA '.' stops at line terminators */
        buf_puts(&t->out, "[^\n\r]");
        return;
    case '(':
        translate_group_open(t);
        return;
    case '*': case '+': case '?':
        buf_putc(&t->out, c);
        t->p += *t->p == '?'; /* lazy: same set of matching strings */
        return;
    case '{':
        q = brace_quantifier_length(t->p - 1);
        if (q == 0) {
            buf_puts(&t->out, "\\{");
            return;
        }
        buf_putn(&t->out, t->p - 1, q);
        t->p += q - 1;
        t->p += *t->p == '?';
        return;
    case '}': case ']':
        buf_putc(&t->out, '\\');
        buf_putc(&t->out, c);
        return;
    default: /* ) | ^ $ and literals, multi-byte UTF-8 byte by byte */
        buf_putc(&t->out, c);
        return;
    }
}

/* Returns the ERE text (malloc'd), or NULL with t.failure set. */
static char *translate_pattern(const char *pattern, const char **failure)
{
    struct translation t = {.p = pattern};
    buf_puts(&t.out, "");
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
    int rc = regcomp(re, ere, REG_EXTENDED | REG_NOSUB);
    free(ere);
    if (rc != 0) {
        if (errlen)
            regerror(rc, re, err, errlen);
        return -1;
    }
    return 0;
}
