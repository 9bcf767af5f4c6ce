/* selector.c — see selector.h. The parser copies the text once; keys and
 * values are spans into that copy, and each requirement owns a run of the
 * shared value array. */
#include "selector.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/names_priv.h"

enum sel_op { OP_EQ, OP_NE, OP_IN, OP_NOTIN, OP_EXISTS, OP_NOT_EXISTS };

struct span {
    size_t off, len;
};

struct requirement {
    enum sel_op op;
    struct span key;
    size_t first_value, n_values;
};

struct cube_selector {
    char *text;
    struct requirement *reqs;
    size_t n_reqs, cap_reqs;
    struct span *values;
    size_t n_values, cap_values;
};

struct parser {
    struct cube_selector *sel;
    const char *s;
    size_t pos;
    char *err;
    size_t errlen;
};

/* ---- parsing ------------------------------------------------------------- */

static int fail(struct parser *p, const char *what)
{
    if (!p->err || !p->errlen)
        return -1;
    unsigned char c = (unsigned char)p->s[p->pos];
    if (c == '\0')
        snprintf(p->err, p->errlen, "column %zu: %s, found end of text",
                 p->pos + 1, what);
    else if (c >= 0x20 && c < 0x7f)
        snprintf(p->err, p->errlen, "column %zu: %s, found '%c'",
                 p->pos + 1, what, c);
    else
        snprintf(p->err, p->errlen, "column %zu: %s, found byte 0x%02x",
                 p->pos + 1, what, c);
    return -1;
}

static int fail_oom(struct parser *p)
{
    if (p->err && p->errlen)
        snprintf(p->err, p->errlen, "out of memory");
    return -1;
}

static void skip_ws(struct parser *p)
{
    while (p->s[p->pos] == ' ' || p->s[p->pos] == '\t' ||
           p->s[p->pos] == '\n' || p->s[p->pos] == '\r')
        p->pos++;
}

static bool is_word_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-' ||
           c == '/';
}

/* Scans a run of key/value characters (possibly empty). */
static struct span scan_word(struct parser *p)
{
    struct span w = {p->pos, 0};
    while (is_word_char(p->s[p->pos]))
        p->pos++;
    w.len = p->pos - w.off;
    return w;
}

/* Reports a key or value that failed its syntax check, at its start. */
static int fail_word(struct parser *p, struct span w, const char *what,
                     const char *why)
{
    if (p->err && p->errlen)
        snprintf(p->err, p->errlen, "column %zu: %s '%.*s': %s", w.off + 1,
                 what, (int)(w.len > 80 ? 80 : w.len), p->s + w.off, why);
    return -1;
}

static int parse_key(struct parser *p, struct span *key)
{
    char why[160];
    skip_ws(p);
    *key = scan_word(p);
    if (key->len == 0)
        return fail(p, "expected a label key");
    if (cube_label_key_valid(p->s + key->off, key->len, why, sizeof why))
        return fail_word(p, *key, "invalid key", why);
    return 0;
}

static int add_value(struct parser *p, struct span v)
{
    struct cube_selector *sel = p->sel;
    char why[160];
    if (cube_label_value_valid(p->s + v.off, v.len, why, sizeof why))
        return fail_word(p, v, "invalid value", why);
    if (sel->n_values == sel->cap_values) {
        size_t cap = sel->cap_values ? 2 * sel->cap_values : 8;
        struct span *nv = realloc(sel->values, cap * sizeof *nv);
        if (!nv)
            return fail_oom(p);
        sel->values = nv;
        sel->cap_values = cap;
    }
    sel->values[sel->n_values++] = v;
    return 0;
}

static int parse_value(struct parser *p)
{
    skip_ws(p);
    struct span v = scan_word(p);
    skip_ws(p);
    return add_value(p, v);
}

/* "(" value ("," value)* ")"; a value may be empty, so "()" is {""}. */
static int parse_value_list(struct parser *p)
{
    skip_ws(p);
    if (p->s[p->pos] != '(')
        return fail(p, "expected '('");
    p->pos++;
    for (;;) {
        if (parse_value(p))
            return -1;
        if (p->s[p->pos] == ')') {
            p->pos++;
            return 0;
        }
        if (p->s[p->pos] != ',')
            return fail(p, "expected ',' or ')'");
        p->pos++;
    }
}

/* After the key: "=", "==", "!=", "in", "notin", or nothing (exists). */
static int parse_operator(struct parser *p, struct requirement *r)
{
    skip_ws(p);
    const char *s = p->s + p->pos;
    if (*s == '\0' || *s == ',') {
        r->op = OP_EXISTS;
        return 0;
    }
    if (s[0] == '=' || (s[0] == '!' && s[1] == '=')) {
        r->op = s[0] == '=' ? OP_EQ : OP_NE;
        p->pos += (s[0] == '!' || s[1] == '=') ? 2 : 1;
        return parse_value(p);
    }
    struct span w = scan_word(p);
    if (w.len == 2 && memcmp(s, "in", 2) == 0)
        r->op = OP_IN;
    else if (w.len == 5 && memcmp(s, "notin", 5) == 0)
        r->op = OP_NOTIN;
    else {
        p->pos = w.off;
        return fail(p, "expected '=', '==', '!=', 'in', 'notin', ',' or "
                       "end of text");
    }
    return parse_value_list(p);
}

static int push_requirement(struct parser *p, const struct requirement *r)
{
    struct cube_selector *sel = p->sel;
    if (sel->n_reqs == sel->cap_reqs) {
        size_t cap = sel->cap_reqs ? 2 * sel->cap_reqs : 4;
        struct requirement *nr = realloc(sel->reqs, cap * sizeof *nr);
        if (!nr)
            return fail_oom(p);
        sel->reqs = nr;
        sel->cap_reqs = cap;
    }
    sel->reqs[sel->n_reqs++] = *r;
    return 0;
}

static int parse_requirement(struct parser *p)
{
    struct requirement r = {.first_value = p->sel->n_values};
    skip_ws(p);
    bool negated = p->s[p->pos] == '!';
    if (negated)
        p->pos++;
    if (parse_key(p, &r.key))
        return -1;
    if (negated) {
        r.op = OP_NOT_EXISTS;
        skip_ws(p);
    } else if (parse_operator(p, &r)) {
        return -1;
    }
    skip_ws(p);
    r.n_values = p->sel->n_values - r.first_value;
    return push_requirement(p, &r);
}

static int parse_all(struct parser *p)
{
    skip_ws(p);
    if (p->s[p->pos] == '\0')
        return 0;
    for (;;) {
        if (parse_requirement(p))
            return -1;
        if (p->s[p->pos] == '\0')
            return 0;
        if (p->s[p->pos] != ',')
            return fail(p, "expected ',' or end of text");
        p->pos++;
    }
}

/* A new selector, or NULL with "column N: problem" in err. */
struct cube_selector *cube_selector_parse(const char *text, char *err,
                                          size_t errlen)
{
    struct cube_selector *sel = calloc(1, sizeof *sel);
    struct parser p = {.sel = sel, .err = err, .errlen = errlen};
    if (sel)
        sel->text = strdup(text ? text : "");
    if (!sel || !sel->text) {
        fail_oom(&p);
        cube_selector_free(sel);
        return NULL;
    }
    p.s = sel->text;
    if (parse_all(&p)) {
        cube_selector_free(sel);
        return NULL;
    }
    return sel;
}

/* ---- matching ------------------------------------------------------------ */

static bool span_is(const struct cube_selector *sel, struct span sp,
                    const char *s)
{
    return strlen(s) == sp.len && memcmp(sel->text + sp.off, s, sp.len) == 0;
}

/* The first member named by the span, or NULL. */
static const cJSON *find_label(const struct cube_selector *sel,
                               const cJSON *labels, struct span key)
{
    if (!cJSON_IsObject(labels))
        return NULL;
    for (const cJSON *m = labels->child; m; m = m->next)
        if (m->string && span_is(sel, key, m->string))
            return m;
    return NULL;
}

/* Whether the label's value is one of the requirement's values. */
static bool value_in(const struct cube_selector *sel,
                     const struct requirement *r, const cJSON *label)
{
    if (!cJSON_IsString(label) || !label->valuestring)
        return false;
    for (size_t i = 0; i < r->n_values; i++)
        if (span_is(sel, sel->values[r->first_value + i], label->valuestring))
            return true;
    return false;
}

static bool requirement_holds(const struct cube_selector *sel,
                              const struct requirement *r,
                              const cJSON *labels)
{
    const cJSON *label = find_label(sel, labels, r->key);
    switch (r->op) {
    case OP_EXISTS:
        return label != NULL;
    case OP_NOT_EXISTS:
        return label == NULL;
    case OP_EQ:
    case OP_IN:
        return label && value_in(sel, r, label);
    case OP_NE:
    case OP_NOTIN:
        return !label || !value_in(sel, r, label);
    }
    return false;
}

/* 1 when labels meet every requirement; 0 otherwise or for a NULL sel. */
int cube_selector_match(const struct cube_selector *sel, const cJSON *labels)
{
    if (!sel)
        return 0;
    for (size_t i = 0; i < sel->n_reqs; i++)
        if (!requirement_holds(sel, &sel->reqs[i], labels))
            return 0;
    return 1;
}

/* 1 when sel has no requirements (0 for NULL). */
int cube_selector_empty(const struct cube_selector *sel)
{
    return sel && sel->n_reqs == 0;
}

/* Frees sel (NULL is fine). */
void cube_selector_free(struct cube_selector *sel)
{
    if (!sel)
        return;
    free(sel->text);
    free(sel->reqs);
    free(sel->values);
    free(sel);
}
