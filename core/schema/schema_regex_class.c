/* schema_regex_class.c — code-point classes and their UTF-8 byte-level ERE,
 * and reading escapes and "[...]" brackets into them. The cost model the
 * translator checks patterns against is in schema_regex_cost.c. */
#include "schema_regex_priv.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* ---- output buffer ---------------------------------------------------- */

/* Appends n bytes; on OOM sets b->oom and drops this and later writes. */
void cube_re_putn(struct re_buf *b, const char *s, size_t n)
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

/* Appends a NUL-terminated string. */
void cube_re_puts(struct re_buf *b, const char *s)
{
    cube_re_putn(b, s, strlen(s));
}

/* Appends one byte. */
void cube_re_putc(struct re_buf *b, char c)
{
    cube_re_putn(b, &c, 1);
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

/* ---- character classes -------------------------------------------------- */

#define MAX_CP 0x10FFFFu

static int range_cmp(const void *a, const void *b)
{
    const struct cp_range *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Sorts and merges overlapping or adjacent ranges. */
static void class_normalize(struct char_class *cc)
{
    if (cc->n == 0)
        return;
    qsort(cc->r, cc->n, sizeof cc->r[0], range_cmp);
    size_t out = 0;
    for (size_t i = 1; i < cc->n; i++) {
        if (cc->r[i].lo <= cc->r[out].hi + 1) {
            if (cc->r[i].hi > cc->r[out].hi)
                cc->r[out].hi = cc->r[i].hi;
        } else {
            cc->r[++out] = cc->r[i];
        }
    }
    cc->n = out + 1;
}

/* Adds lo..hi (NUL left out); sets overflow when the ranges run out. */
void cube_re_class_add(struct char_class *cc, uint32_t lo, uint32_t hi)
{
    if (lo == 0)
        lo = 1; /* NUL never occurs in a C string */
    if (lo > hi)
        return;
    if (cc->n == CLASS_RANGES)
        class_normalize(cc);
    if (cc->n == CLASS_RANGES) {
        cc->overflow = true;
        return;
    }
    cc->r[cc->n++] = (struct cp_range){lo, hi};
}

/* Replaces the set by its complement within U+0001..U+10FFFF. */
void cube_re_class_negate(struct char_class *cc)
{
    class_normalize(cc);
    struct char_class out = {.overflow = cc->overflow};
    uint32_t next = 1;
    for (size_t i = 0; i < cc->n; i++) {
        if (cc->r[i].lo > next)
            cube_re_class_add(&out, next, cc->r[i].lo - 1);
        next = cc->r[i].hi + 1;
    }
    if (next <= MAX_CP)
        cube_re_class_add(&out, next, MAX_CP);
    *cc = out;
}

/* \d \w \s as ECMA defines them: \d and \w are ASCII, \s is Unicode. */
static const struct cp_range DIGIT[] = {{'0', '9'}};
static const struct cp_range WORD[] = {{'0', '9'}, {'A', 'Z'}, {'_', '_'},
                                       {'a', 'z'}};
static const struct cp_range SPACE[] = {{'\t', '\r'}, {' ', ' '},
    {0xA0, 0xA0}, {0x1680, 0x1680}, {0x2000, 0x200A}, {0x2028, 0x2029},
    {0x202F, 0x202F}, {0x205F, 0x205F}, {0x3000, 0x3000}, {0xFEFF, 0xFEFF}};

/* Unions \d \w \s (lower case letter) or their complements (upper case). */
void cube_re_class_add_shorthand(struct char_class *cc, char letter)
{
    char kind = (char)tolower((unsigned char)letter);
    const struct cp_range *set = kind == 'd' ? DIGIT : kind == 'w' ? WORD
                                                                    : SPACE;
    size_t n = kind == 'd' ? 1 : kind == 'w' ? 4
             : sizeof SPACE / sizeof SPACE[0];
    struct char_class part = {0};
    for (size_t i = 0; i < n; i++)
        cube_re_class_add(&part, set[i].lo, set[i].hi);
    if (letter != kind)
        cube_re_class_negate(&part);
    for (size_t i = 0; i < part.n; i++)
        cube_re_class_add(cc, part.r[i].lo, part.r[i].hi);
}

/* ECMA '.': any character but the line terminators. */
void cube_re_class_set_dot(struct char_class *cc)
{
    cube_re_class_add(cc, '\n', '\n');
    cube_re_class_add(cc, '\r', '\r');
    cube_re_class_add(cc, 0x2028, 0x2029);
    cube_re_class_negate(cc);
}

/* Writes the ASCII members as one bracket, ordered the way POSIX wants:
 * ']' first, '-' last, '^' never first, '[' never before ':' '.' '='. */
static void emit_ascii_bracket(struct re_buf *b, const bool in[128])
{
    static const char SPECIAL[] = "]^-[";
    size_t count = 0;
    for (unsigned c = 1; c < 128; c++)
        count += in[c];
    if (count == 2 && in['^'] && in['-']) {
        cube_re_puts(b, "[-^]"); /* "[^-]" would be a negation */
        return;
    }
    cube_re_putc(b, '[');
    if (in[']'])
        cube_re_putc(b, ']');
    for (unsigned c = 1; c < 128; c++) {
        if (!in[c] || strchr(SPECIAL, (int)c))
            continue;
        unsigned end = c;
        while (end + 1 < 128 && in[end + 1] && !strchr(SPECIAL, (int)end + 1))
            end++;
        cube_re_putc(b, (char)c);
        if (end >= c + 2)
            cube_re_putc(b, '-');
        if (end > c)
            cube_re_putc(b, (char)end);
        c = end;
    }
    if (in['['])
        cube_re_putc(b, '[');
    if (in['^'])
        cube_re_putc(b, '^');
    if (in['-'])
        cube_re_putc(b, '-');
    cube_re_putc(b, ']');
}

static void emit_byte_range(struct re_buf *b, unsigned char lo,
                            unsigned char hi)
{
    if (lo == hi) {
        cube_re_putc(b, (char)lo);
        return;
    }
    cube_re_putc(b, '[');
    cube_re_putc(b, (char)lo);
    cube_re_putc(b, '-');
    cube_re_putc(b, (char)hi);
    cube_re_putc(b, ']');
}

/* Emits lo..hi (all non-ASCII) as '|'-separated byte sequences: the range
 * is split until, byte by byte, lo's and hi's encodings bound a range. */
static void emit_utf8_range(struct re_buf *b, uint32_t lo, uint32_t hi,
                            bool *first)
{
    static const uint32_t LENGTH_LIMITS[] = {0x7FF, 0xFFFF};
    for (size_t i = 0; i < 2; i++) {
        uint32_t max = LENGTH_LIMITS[i];
        if (lo <= max && hi > max) {
            emit_utf8_range(b, lo, max, first);
            emit_utf8_range(b, max + 1, hi, first);
            return;
        }
    }
    char a[4], z[4];
    size_t n = utf8_encode(lo, a);
    for (size_t i = 1; i < n; i++) {
        uint32_t m = (1u << (6 * i)) - 1; /* the last i bytes' payload */
        if ((lo & ~m) == (hi & ~m))
            continue;
        if ((lo & m) != 0) {
            emit_utf8_range(b, lo, lo | m, first);
            emit_utf8_range(b, (lo | m) + 1, hi, first);
            return;
        }
        if ((hi & m) != m) {
            emit_utf8_range(b, lo, (hi & ~m) - 1, first);
            emit_utf8_range(b, hi & ~m, hi, first);
            return;
        }
    }
    utf8_encode(hi, z);
    if (!*first)
        cube_re_putc(b, '|');
    *first = false;
    for (size_t i = 0; i < n; i++)
        emit_byte_range(b, (unsigned char)a[i], (unsigned char)z[i]);
}

/* One character; a multi-byte one is grouped so that a quantifier after
 * it repeats the whole character, not its last byte. */
void cube_re_emit_literal(struct re_buf *b, uint32_t cp)
{
    char enc[4];
    if (cp >= 0x80) {
        cube_re_putc(b, '(');
        cube_re_putn(b, enc, utf8_encode(cp, enc));
        cube_re_putc(b, ')');
        return;
    }
    if (cp != 0 && strchr(".[]()*+?{}|^$\\", (int)cp))
        cube_re_putc(b, '\\');
    cube_re_putc(b, (char)cp);
}

/* Writes the set as an ERE that consumes one member character. */
void cube_re_emit_class(struct re_buf *b, struct char_class *cc)
{
    class_normalize(cc);
    bool in[128] = {false};
    size_t n_ascii = 0;
    uint32_t only = 0;
    for (size_t i = 0; i < cc->n; i++)
        for (uint32_t c = cc->r[i].lo; c <= cc->r[i].hi && c < 128; c++) {
            in[c] = true;
            n_ascii++;
            only = c;
        }
    bool has_high = cc->n > 0 && cc->r[cc->n - 1].hi >= 128;
    if (n_ascii == 0 && !has_high) {
        /* empty class: a pattern that never matches */
        cube_re_puts(b, "(a^)");
        return;
    }
    if (!has_high) {
        if (n_ascii == 1)
            cube_re_emit_literal(b, only); /* also dodges "[^]" */
        else
            emit_ascii_bracket(b, in);
        return;
    }
    cube_re_putc(b, '(');
    if (n_ascii == 1)
        cube_re_emit_literal(b, only);
    else if (n_ascii > 1)
        emit_ascii_bracket(b, in);
    bool first = n_ascii == 0;
    for (size_t i = 0; i < cc->n; i++)
        if (cc->r[i].hi >= 128)
            emit_utf8_range(b, cc->r[i].lo < 128 ? 128 : cc->r[i].lo,
                            cc->r[i].hi, &first);
    cube_re_putc(b, ')');
}

/* ---- reading the pattern ------------------------------------------------ */

/* Decodes one character; returns its byte length, or 0 if malformed. */
size_t cube_re_utf8_decode(const char *s, uint32_t *cp)
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
static enum re_escape parse_unicode_escape(struct re_scan *t,
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
enum re_escape cube_re_parse_escape(struct re_scan *t, bool in_class,
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
    size_t n = cube_re_utf8_decode(t->p - 1, cp); /* identity escape */
    if (n == 0) {
        t->failure = "invalid UTF-8 in pattern";
        return ESC_ERROR;
    }
    t->p += n - 1;
    return ESC_CHAR;
}

/* One bracket member: a code point, or a shorthand merged into cc. */
static enum re_escape parse_class_atom(struct re_scan *t, uint32_t *cp,
                                         struct char_class *cc)
{
    if (*t->p == '\\') {
        t->p++;
        return cube_re_parse_escape(t, true, cp, cc);
    }
    size_t n = cube_re_utf8_decode(t->p, cp);
    if (n == 0) {
        t->failure = "invalid UTF-8 in pattern";
        return ESC_ERROR;
    }
    t->p += n;
    return ESC_CHAR;
}

/* Parses "[...]" (t->p just past '[') and emits its ERE equivalent. */
void cube_re_translate_class(struct re_scan *t)
{
    struct char_class cc = {0};
    bool negated = *t->p == '^';
    t->p += negated;
    while (*t->p && *t->p != ']' && !t->failure) {
        uint32_t lo, hi;
        enum re_escape k = parse_class_atom(t, &lo, &cc);
        if (k != ESC_CHAR)
            continue;
        hi = lo;
        if (t->p[0] == '-' && t->p[1] && t->p[1] != ']') {
            t->p++;
            enum re_escape k2 = parse_class_atom(t, &hi, &cc);
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
