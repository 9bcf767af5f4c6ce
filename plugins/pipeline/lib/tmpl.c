/* tmpl.c — rendering of "{{ expr }}" templates (see tmpl.h).
 *
 * Syntax inside "{{ }}" (spaces optional anywhere between tokens):
 *   expr    := primary ( "|" filter )*
 *   primary := path | 'string' | "string" | number
 *   path    := name ( "." name )*      name: [A-Za-z_][A-Za-z0-9_-]*
 *   filter  := name [ "(" [ literal ( "," literal )* ] ")" ]
 * A backslash in a string literal takes the next character as is. To write
 * a literal "{{", render a string: {{ '{{' }}. A stray "}}" outside an
 * expression is copied as is. Rendered values are never scanned again, so
 * a variable holding "{{ x }}" comes out verbatim: no recursion, no code.
 *
 * Values: strings as they are; numbers as JSON writes them; true/false;
 * null as ""; arrays as compact JSON. Objects are an error (name a field).
 * An unknown variable is an error unless a default() filter follows.
 * Output is capped at PL_TMPL_MAX_OUTPUT bytes. A literal, variable path or
 * filter name longer than PL_TMPL_MAX_LITERAL - 1 bytes is an error, never
 * cut short.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tmpl.h"
#include "tmpl_internal.h"

#define PL_TMPL_MAX_OUTPUT (1024 * 1024)
#define MAX_PATH 256

struct buf {
    char *p;
    size_t len, cap;
};

static bool append(struct buf *b, const char *s, size_t n)
{
    if (b->len + n >= PL_TMPL_MAX_OUTPUT)
        return false;
    if (b->len + n + 1 > b->cap) {
        size_t cap = (b->len + n + 1) * 2;
        char *p = realloc(b->p, cap);
        if (!p)
            return false;
        b->p = p, b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
    return true;
}

enum tok { T_END, T_PIPE, T_LPAREN, T_RPAREN, T_COMMA, T_STRING, T_NUMBER, T_NAME, T_EOF, T_BAD };

struct lexer {
    const char *p;
    char text[PL_TMPL_MAX_LITERAL];  /* the token's text (unescaped for strings) */
    bool too_long;
};

static bool name_start(char c) { return isalpha((unsigned char)c) || c == '_'; }
static bool name_char(char c) { return isalnum((unsigned char)c) || c == '_' || c == '-'; }

/* Copies the span [from, to) into the token text. */
static void set_text(struct lexer *lx, const char *from, size_t n)
{
    lx->too_long = n >= sizeof lx->text;
    if (lx->too_long)
        n = sizeof lx->text - 1;
    memcpy(lx->text, from, n);
    lx->text[n] = '\0';
}

static enum tok lex_string(struct lexer *lx)
{
    char quote = *lx->p++;
    size_t n = 0;
    lx->too_long = false;
    for (; *lx->p && *lx->p != quote; lx->p++) {
        if (*lx->p == '\\' && lx->p[1])
            lx->p++;
        if (n + 1 < sizeof lx->text)
            lx->text[n++] = *lx->p;
        else
            lx->too_long = true;
    }
    lx->text[n] = '\0';
    if (!*lx->p)
        return T_EOF;
    lx->p++;
    return T_STRING;
}

static enum tok next_token(struct lexer *lx)
{
    while (*lx->p == ' ' || *lx->p == '\t' || *lx->p == '\n' || *lx->p == '\r')
        lx->p++;
    const char *s = lx->p;
    set_text(lx, s, 1);
    switch (*s) {
    case '\0': return T_EOF;
    case '|': lx->p++; return T_PIPE;
    case '(': lx->p++; return T_LPAREN;
    case ')': lx->p++; return T_RPAREN;
    case ',': lx->p++; return T_COMMA;
    case '\'': case '"': return lex_string(lx);
    case '}':
        if (s[1] != '}')
            return T_BAD;
        lx->p += 2;
        return T_END;
    }
    if (isdigit((unsigned char)*s) || (*s == '-' && isdigit((unsigned char)s[1]))) {
        const char *e = s + 1;
        while (isdigit((unsigned char)*e) || *e == '.')
            e++;
        set_text(lx, s, (size_t)(e - s));
        lx->p = e;
        return T_NUMBER;
    }
    if (name_start(*s)) {
        const char *e = s;
        while (name_char(*e) || (*e == '.' && name_start(e[1])))
            e++;
        set_text(lx, s, (size_t)(e - s));
        lx->p = e;
        return T_NAME;
    }
    return T_BAD;
}

static char *number_text(double v)
{
    char buf[64];
    if (v == floor(v) && fabs(v) < 1e15)
        snprintf(buf, sizeof buf, "%.0f", v);
    else
        snprintf(buf, sizeof buf, "%.17g", v);
    return strdup(buf);
}

/* The value of a dotted path: a new string, NULL with *undefined set when
 * no such variable, NULL with err set on other errors. */
static char *lookup(const cJSON *vars, const char *path, bool *undefined, char *err,
                    size_t errlen)
{
    char seg[MAX_PATH];
    const cJSON *v = vars;
    *undefined = false;
    for (const char *p = path; *p;) {
        size_t n = strcspn(p, ".");
        if (n >= sizeof seg || !cJSON_IsObject(v)) {
            *undefined = true;
            return NULL;
        }
        memcpy(seg, p, n);
        seg[n] = '\0';
        if (!(v = cJSON_GetObjectItemCaseSensitive(v, seg))) {
            *undefined = true;
            return NULL;
        }
        p += n + (p[n] == '.');
    }
    if (cJSON_IsString(v))
        return strdup(v->valuestring);
    if (cJSON_IsNumber(v))
        return number_text(v->valuedouble);
    if (cJSON_IsBool(v))
        return strdup(cJSON_IsTrue(v) ? "true" : "false");
    if (cJSON_IsNull(v))
        return strdup("");
    if (cJSON_IsArray(v))
        return cJSON_PrintUnformatted(v);
    snprintf(err, errlen, "variable \"%.100s\" is an object; name one of its fields", path);
    return NULL;
}

/* Parses "name[(args)]" after a "|" and applies it to *value. */
static bool apply_filter(struct lexer *lx, char **value, const char *var, char *err,
                         size_t errlen)
{
    enum tok t = next_token(lx);
    if (t == T_NAME && lx->too_long) {
        snprintf(err, errlen, "a filter name is longer than %d bytes", PL_TMPL_MAX_LITERAL - 1);
        return false;
    }
    if (t != T_NAME || strchr(lx->text, '.')) {
        snprintf(err, errlen, "expected a filter name after '|', got \"%.64s\"", lx->text);
        return false;
    }
    char name[PL_TMPL_MAX_LITERAL];
    struct pl_tmpl_arg args[PL_TMPL_MAX_ARGS];
    int nargs = 0;
    memcpy(name, lx->text, sizeof name);
    const char *save = lx->p;
    if (next_token(lx) == T_LPAREN) {
        t = next_token(lx);
        while (t != T_RPAREN) {
            if ((t != T_STRING && t != T_NUMBER) || lx->too_long || nargs == PL_TMPL_MAX_ARGS) {
                snprintf(err, errlen, "filter %.64s: arguments must be quoted strings or numbers "
                         "(at most %d, %d bytes each)", name, PL_TMPL_MAX_ARGS,
                         PL_TMPL_MAX_LITERAL - 1);
                return false;
            }
            args[nargs].is_number = t == T_NUMBER;
            memcpy(args[nargs++].text, lx->text, sizeof lx->text);
            if ((t = next_token(lx)) == T_COMMA)
                t = next_token(lx);
            else if (t != T_RPAREN) {
                snprintf(err, errlen, "filter %.64s: expected ',' or ')'", name);
                return false;
            }
        }
    } else {
        lx->p = save;
    }
    if (!*value && strcmp(name, "default") != 0) {
        snprintf(err, errlen, "unknown variable \"%.100s\"", var);
        return false;
    }
    err[0] = '\0';
    char *out = pl_tmpl_filter(name, args, nargs, *value, err, errlen);
    if (!out)
        return false;
    free(*value);
    *value = out;
    return true;
}

/* Renders one expression; lx->p is just past "{{". */
static char *expression(struct lexer *lx, const cJSON *vars, char *err, size_t errlen)
{
    char var[PL_TMPL_MAX_LITERAL] = "";
    char *value = NULL;
    enum tok t = next_token(lx);
    bool undefined = false;
    if ((t == T_STRING || t == T_NUMBER || t == T_NAME) && lx->too_long) {
        /* never render a cut literal, nor look up a cut path */
        snprintf(err, errlen, "%s is longer than %d bytes", t == T_STRING ? "a string literal"
                 : t == T_NUMBER ? "a number" : "a variable path", PL_TMPL_MAX_LITERAL - 1);
        return NULL;
    }
    if (t == T_STRING || t == T_NUMBER) {
        value = strdup(lx->text);
    } else if (t == T_NAME) {
        memcpy(var, lx->text, sizeof var);
        value = lookup(vars, var, &undefined, err, errlen);
        if (!value && !undefined)
            return NULL;
    } else {
        snprintf(err, errlen, t == T_EOF ? "unclosed \"{{\"" : t == T_END ? "empty \"{{ }}\""
                 : "expected a variable or a literal after \"{{\", got \"%.64s\"", lx->text);
        return NULL;
    }
    while ((t = next_token(lx)) == T_PIPE)
        if (!apply_filter(lx, &value, var, err, errlen)) {
            free(value);
            return NULL;
        }
    if (t != T_END || !value) {
        if (t == T_EOF)
            snprintf(err, errlen, "unclosed \"{{\"");
        else if (t != T_END)
            snprintf(err, errlen, "expected '|' or \"}}\", got \"%.64s\"", lx->text);
        else
            snprintf(err, errlen, "unknown variable \"%.100s\"", var);
        free(value);
        return NULL;
    }
    return value;
}

char *pl_tmpl_render(const char *src, const cJSON *vars, char *err, size_t errlen)
{
    struct buf out = {0};
    char msg[512];
    if (!src || !append(&out, "", 0)) {
        snprintf(err, errlen, src ? "out of memory" : "no template");
        return NULL;
    }
    for (const char *p = src;;) {
        const char *open = strstr(p, "{{");
        if (!open) {
            if (append(&out, p, strlen(p)))
                return out.p;
            snprintf(err, errlen, "template output exceeds %d bytes", PL_TMPL_MAX_OUTPUT);
            break;
        }
        struct lexer lx = {.p = open + 2};
        char *value = expression(&lx, vars, msg, sizeof msg);
        if (!value) {
            snprintf(err, errlen, "%s (at offset %zu)", msg, (size_t)(open - src));
            break;
        }
        bool ok = append(&out, p, (size_t)(open - p)) && append(&out, value, strlen(value));
        free(value);
        if (!ok) {
            snprintf(err, errlen, "template output exceeds %d bytes", PL_TMPL_MAX_OUTPUT);
            break;
        }
        p = lx.p;
    }
    free(out.p);
    return NULL;
}
