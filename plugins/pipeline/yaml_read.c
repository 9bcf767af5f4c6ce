/* yaml_read.c — reads the YAML subset of pl_yaml_write back: block
 * mappings and sequences indented by spaces (a sequence may sit at its
 * key's indentation), "- key: value" items, double- or single-quoted and
 * plain scalars (null, ~, true, false, numbers, strings), flow
 * collections written as JSON, comments and "---". Anchors, tags and
 * multi-line scalars are refused with the line number. A document that
 * starts with '{' or '[' is read as JSON. What a strict reader would see
 * differently is refused too: bytes that are not UTF-8, a key given twice
 * in one mapping (or JSON object), and a "\u0000" escape in a quoted
 * string (the C string would end there). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline.h"

struct line {
    int ind, no;         /* indentation, 1-based line number */
    char *text;          /* after the indentation, comment-free, trimmed */
};

struct rd {
    struct line *l;
    int n, i;
    char *msg;
    size_t mlen;
    int failed;
};

/* Records the first failure; no 0 is the JSON document (no lines). */
static void *fail(struct rd *r, int no, const char *why)
{
    if (!r->failed && no)
        snprintf(r->msg, r->mlen, "line %d: %s", no, why);
    else if (!r->failed)
        snprintf(r->msg, r->mlen, "%s", why);
    r->failed = 1;
    return NULL;
}

/* 1 when s is UTF-8 throughout (RFC 3629: no overlong forms, surrogates
 * or code points past U+10FFFF). */
static int utf8_ok(const unsigned char *s)
{
    while (*s) {
        unsigned char c = *s;
        int n = c < 0x80 ? 1 : c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3
              : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
        if (!n)
            return 0;
        for (int i = 1; i < n; i++)
            if ((s[i] & 0xC0) != 0x80)
                return 0;
        if ((c == 0xE0 && s[1] < 0xA0) || (c == 0xED && s[1] > 0x9F) ||
            (c == 0xF0 && s[1] < 0x90) || (c == 0xF4 && s[1] > 0x8F))
            return 0;
        s += n;
    }
    return 1;
}

/* 1 when JSON text has a "\u0000" escape in one of its strings. */
static int nul_escape(const char *s)
{
    int in = 0;
    for (; *s; s++) {
        if (*s == '"')
            in = !in;
        else if (in && *s == '\\') {
            if (s[1] == 'u' && !strncmp(s + 2, "0000", 4))
                return 1;
            if (s[1])
                s++;
        }
    }
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A name given twice among obj's members, or NULL (sorted: a mapping may
 * have many). *oom is set when the check could not be made. */
static const char *twice_here(const cJSON *obj, int *oom)
{
    size_t n = 0, k = 0;
    for (const cJSON *c = obj->child; c; c = c->next)
        n++;
    if (n < 2)
        return NULL;
    const char **names = malloc(n * sizeof *names), *dup = NULL;
    if (!names)
        return *oom = 1, NULL;
    for (const cJSON *c = obj->child; c; c = c->next)
        names[k++] = c->string;
    qsort(names, n, sizeof *names, by_name);
    for (size_t i = 1; i < n && !dup; i++)
        if (!strcmp(names[i - 1], names[i]))
            dup = names[i];
    free(names);
    return dup;
}

/* A name given twice in one object of v (at any depth), or NULL. */
static const char *twice(const cJSON *v, int *oom)
{
    const char *t = cJSON_IsObject(v) ? twice_here(v, oom) : NULL;
    for (const cJSON *c = v->child; c && !t && !*oom; c = c->next)
        if (cJSON_IsObject(c) || cJSON_IsArray(c))
            t = twice(c, oom);
    return t;
}

static void *fail_twice(struct rd *r, int no, const char *dup)
{
    char why[160];
    snprintf(why, sizeof why, "duplicate key \"%.100s\"", dup);
    return fail(r, no, why);
}

/* cJSON_Parse(s) with the checks above; NULL after fail(). */
static cJSON *json(struct rd *r, const char *s, int no)
{
    int oom = 0;
    cJSON *v = cJSON_Parse(s);
    const char *dup = v ? twice(v, &oom) : NULL;
    if (!v)
        return fail(r, no, no ? "a quoted string or flow collection that is not JSON"
                                : "not valid JSON");
    if (dup || oom || nul_escape(s)) {
        if (dup)
            fail_twice(r, no, dup);
        else
            fail(r, no, oom ? "out of memory" : "a string contains \\u0000 (NUL)");
        cJSON_Delete(v);
        return NULL;
    }
    return v;
}

/* Cuts a " #" comment outside quotes and trailing blanks. */
static void strip(char *s)
{
    char q = 0;
    for (char *c = s; *c; c++) {
        if (q) {
            if (*c == '\\' && q == '"' && c[1])
                c++;
            else if (*c == q)
                q = 0;
        } else if (*c == '"' || *c == '\'') {
            q = *c;
        } else if (*c == '#' && (c == s || c[-1] == ' ')) {
            *c = '\0';
            break;
        }
    }
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\r' || s[n - 1] == '\t'))
        s[--n] = '\0';
}

static int split_lines(struct rd *r, char *text)
{
    int cap = 64, no = 0;
    r->l = malloc((size_t)cap * sizeof *r->l);
    for (char *s = text; r->l && s && *s;) {
        char *nl = strchr(s, '\n');
        if (nl)
            *nl = '\0';
        no++;
        if (!utf8_ok((const unsigned char *)s))
            return fail(r, no, "not valid UTF-8"), -1;
        int ind = 0;
        while (s[ind] == ' ')
            ind++;
        if (s[ind] == '\t')
            return fail(r, no, "tabs may not indent YAML"), -1;
        strip(s + ind);
        if (s[ind] && strcmp(s + ind, "---") != 0) {
            if (r->n == cap) {
                struct line *m = realloc(r->l, (size_t)(cap *= 2) * sizeof *m);
                if (!m)
                    return -1;
                r->l = m;
            }
            r->l[r->n++] = (struct line){ind, no, s + ind};
        }
        s = nl ? nl + 1 : NULL;
    }
    return r->l ? 0 : -1;
}

static cJSON *scalar(struct rd *r, const char *s, int no)
{
    char *end;
    if (*s == '"' || *s == '[' || *s == '{')
        return json(r, s, no);
    if (*s == '\'') {
        size_t n = strlen(s);
        if (n < 2 || s[n - 1] != '\'')
            return fail(r, no, "unterminated single-quoted string");
        char *out = malloc(n), *o = out;
        for (const char *c = s + 1; out && c < s + n - 1; c++) {
            *o++ = *c;
            if (*c == '\'' && c[1] == '\'')
                c++;
        }
        if (!out)
            return NULL;
        *o = '\0';
        cJSON *v = cJSON_CreateString(out);
        free(out);
        return v;
    }
    if (*s == '&' || *s == '*' || *s == '!' || *s == '|' || *s == '>')
        return fail(r, no, "anchors, aliases, tags and block scalars are not supported");
    if (!strcmp(s, "null") || !strcmp(s, "~"))
        return cJSON_CreateNull();
    if (!strcmp(s, "true") || !strcmp(s, "false"))
        return cJSON_CreateBool(s[0] == 't');
    double d = strtod(s, &end);
    if (*s && !*end && (isdigit((unsigned char)*s) || *s == '-' || *s == '+' || *s == '.'))
        return cJSON_CreateNumber(d);
    return cJSON_CreateString(s);
}

/* The ": " of a "key: value" line outside quotes, or NULL. */
static char *colon(char *s)
{
    if (*s == '"') {
        char *e = s + 1;
        while (*e && *e != '"')
            e += *e == '\\' && e[1] ? 2 : 1;
        return *e == '"' && e[1] == ':' && (!e[2] || e[2] == ' ') ? e + 1 : NULL;
    }
    for (char *c = s; *c; c++)
        if (*c == ':' && (!c[1] || c[1] == ' '))
            return c;
    return NULL;
}

static cJSON *block(struct rd *r, int ind);

/* The value after "key:" or "- " with nothing after it on its line. */
static cJSON *nested(struct rd *r, int ind, int seq_ok)
{
    if (r->i < r->n && (r->l[r->i].ind > ind ||
                        (seq_ok && r->l[r->i].ind == ind && r->l[r->i].text[0] == '-' &&
                         (r->l[r->i].text[1] == ' ' || !r->l[r->i].text[1]))))
        return block(r, r->l[r->i].ind);
    return cJSON_CreateNull();
}

static cJSON *mapping(struct rd *r, int ind)
{
    cJSON *o = cJSON_CreateObject();
    int first = r->l[r->i].no, oom = 0;
    while (!r->failed && r->i < r->n && r->l[r->i].ind == ind) {
        struct line *ln = &r->l[r->i];
        char *c = colon(ln->text);
        if (!c || ln->text[0] == '-')
            return cJSON_Delete(o), fail(r, ln->no, "expected \"key: value\"");
        *c = '\0';
        cJSON *k = ln->text[0] == '"' ? json(r, ln->text, ln->no) : NULL;
        char *val = c + 1;
        while (*val == ' ')
            val++;
        r->i++;
        cJSON *v = *val ? scalar(r, val, ln->no) : nested(r, ind, 1);
        const char *key = k ? cJSON_GetStringValue(k) : ln->text;
        if (!v || !key)
            return cJSON_Delete(k), cJSON_Delete(v), cJSON_Delete(o),
                   fail(r, ln->no, "bad key or value");
        cJSON_AddItemToObject(o, key, v);
        cJSON_Delete(k);
    }
    const char *dup = r->failed ? NULL : twice_here(o, &oom);
    if (dup)
        fail_twice(r, first, dup);
    else if (oom)
        fail(r, first, "out of memory");
    if (dup || oom) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

static cJSON *sequence(struct rd *r, int ind)
{
    cJSON *a = cJSON_CreateArray();
    while (!r->failed && r->i < r->n && r->l[r->i].ind == ind && r->l[r->i].text[0] == '-') {
        struct line *ln = &r->l[r->i];
        char *rest = ln->text + 1;
        if (*rest && *rest != ' ')
            break;
        while (*rest == ' ')
            rest++;
        cJSON *v;
        if (!*rest) {
            r->i++;
            v = nested(r, ind, 0);
        } else if (colon(rest) && *rest != '[' && *rest != '{') {
            /* "- key: v": a mapping whose first line starts after "- " */
            ln->ind = (int)(rest - ln->text) + ind;
            ln->text = rest;
            v = mapping(r, ln->ind);
        } else {
            r->i++;
            v = scalar(r, rest, ln->no);
        }
        if (!v)
            return cJSON_Delete(a), NULL;
        cJSON_AddItemToArray(a, v);
    }
    return a;
}

static cJSON *block(struct rd *r, int ind)
{
    const char *t = r->l[r->i].text;
    if (t[0] == '-' && (t[1] == ' ' || !t[1]))
        return sequence(r, ind);
    return mapping(r, ind);
}

cJSON *pl_yaml_read(const char *text, char *msg, size_t mlen)
{
    const char *s = text;
    while (isspace((unsigned char)*s))
        s++;
    struct rd r = {.msg = msg, .mlen = mlen};
    if (*s == '{' || *s == '[') {
        if (!utf8_ok((const unsigned char *)s))
            return fail(&r, 0, "not valid UTF-8");
        return json(&r, s, 0);
    }
    char *copy = strdup(text);
    cJSON *v = NULL;
    if (copy && split_lines(&r, copy) == 0 && r.n > 0) {
        v = block(&r, r.l[0].ind);
        if (v && !r.failed && r.i < r.n)
            fail(&r, r.l[r.i].no, "unexpected indentation");
        if (r.failed) {
            cJSON_Delete(v);
            v = NULL;
        }
    } else if (!r.failed) {
        snprintf(msg, mlen, "an empty document");
    }
    free(r.l);
    free(copy);
    return v;
}
