/* jsonpath_tmpl.c — see jsonpath_tmpl.h. The template is read as it runs:
 * a range body is read once per element (and once, printing nothing, to
 * find its {end} when there is none). */
#include "jsonpath_tmpl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"

#define MAX_KEY 256
#define MAX_DEPTH 16   /* nested ranges */

struct nodes {
    const cJSON **v;
    size_t n, cap;
};

struct run {
    const cJSON *root;
    struct buf *out;
    char *err;
    size_t errlen;
};

enum tok { T_EOF, T_TEXT, T_PATH, T_LIT, T_RANGE, T_END };

struct token {
    enum tok type;
    const char *s;    /* text, literal or path (not NUL-terminated) */
    size_t len;
};

static int fail(struct run *r, const char *msg, const char *at)
{
    snprintf(r->err, r->errlen, "jsonpath: %s%s%.40s", msg, at ? " at " : "", at ? at : "");
    return -1;
}

static int push(struct nodes *ns, const cJSON *v)
{
    if (ns->n == ns->cap) {
        size_t cap = ns->cap ? ns->cap * 2 : 16;
        const cJSON **p = realloc(ns->v, cap * sizeof *p);
        if (!p)
            return -1;
        ns->v = p;
        ns->cap = cap;
    }
    ns->v[ns->n++] = v;
    return 0;
}

/* Reads the next piece of template at p; returns where it ends. */
static const char *next_token(struct run *r, const char *p, struct token *t)
{
    if (!*p)
        return t->type = T_EOF, p;
    if (*p != '{') {
        t->type = T_TEXT;
        t->s = p;
        t->len = strcspn(p, "{");
        return p + t->len;
    }
    const char *q = p + 1;
    char quote = 0;
    for (; *q && (quote || *q != '}'); q++) {
        if (quote && *q == '\\' && q[1])
            q++;
        else if (*q == '"' || *q == '\'')
            quote = quote == *q ? 0 : quote ? quote : *q;
    }
    if (*q != '}')
        return fail(r, "unclosed {", p), NULL;
    const char *s = p + 1;
    size_t len = (size_t)(q - s);
    while (len && (*s == ' ' || *s == '\t'))
        s++, len--;
    while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
        len--;
    t->type = T_PATH;
    if (len && (*s == '"' || *s == '\''))
        t->type = T_LIT;
    else if (len >= 6 && !strncmp(s, "range ", 6))
        t->type = T_RANGE, s += 6, len -= 6;
    else if (len == 3 && !strncmp(s, "end", 3))
        t->type = T_END;
    t->s = s;
    t->len = len;
    return q + 1;
}

/* Appends a string literal's text ("\n", '\t' ...) to out. */
static int literal(struct run *r, const struct token *t, int skip)
{
    const char *s = t->s + 1, *end = t->s + t->len - 1;
    if (t->len < 2 || *end != *t->s)
        return fail(r, "unterminated string", t->s);
    for (; s < end && !skip; s++) {
        char c = *s;
        if (c == '\\' && s + 1 < end) {
            c = *++s;
            c = c == 'n' ? '\n' : c == 't' ? '\t' : c == 'r' ? '\r' : c;
        }
        if (buf_add(r->out, &c, 1))
            return fail(r, "out of memory", NULL);
    }
    return 0;
}

/* Reads a .key or ['key'] segment's key into key. Returns the position
 * after it, or NULL. */
static const char *read_key(const char *p, const char *end, char *key)
{
    size_t n = 0;
    if (*p == '[') {
        char q = p[1];
        const char *e = memchr(p + 2, q, (size_t)(end - p - 2 > 0 ? end - p - 2 : 0));
        if ((q != '\'' && q != '"') || !e || e + 1 >= end || e[1] != ']' ||
            (size_t)(e - p - 2) >= MAX_KEY)
            return NULL;
        memcpy(key, p + 2, (size_t)(e - p - 2));
        key[e - p - 2] = '\0';
        return e + 2;
    }
    while (p < end && *p != '.' && *p != '[') {
        if (*p == '\\' && p + 1 < end)
            p++;
        if (n + 1 >= MAX_KEY)
            return NULL;
        key[n++] = *p++;
    }
    key[n] = '\0';
    return n ? p : NULL;
}

/* One step of a path from every node of in into out. kind: 'k' a key,
 * '*' every child, 'i' index idx. */
static int apply(const struct nodes *in, int kind, const char *key, long idx, struct nodes *out)
{
    for (size_t i = 0; i < in->n; i++) {
        const cJSON *v = in->v[i], *c;
        const cJSON *children = cJSON_IsArray(v) || cJSON_IsObject(v) ? v : NULL;
        if (kind == '*') {
            cJSON_ArrayForEach(c, children)
                if (push(out, c))
                    return -1;
        } else if (kind == 'i' && cJSON_IsArray(v)) {
            long n = cJSON_GetArraySize(v), at = idx < 0 ? n + idx : idx;
            if (at >= 0 && at < n && push(out, cJSON_GetArrayItem(v, (int)at)))
                return -1;
        } else if (kind == 'k' && cJSON_IsObject(v) &&
                   (c = cJSON_GetObjectItemCaseSensitive(v, key)) && push(out, c)) {
            return -1;
        }
    }
    return 0;
}

/* Parses the step at *p (before end) and applies it. */
static int step(struct run *r, const char **p, const char *end, struct nodes *in,
                struct nodes *out)
{
    char key[MAX_KEY];
    const char *s = *p, *next;
    if (s[0] == '.' && s + 1 < end && s[1] == '.')
        return fail(r, "recursive descent (..) is not supported", s);
    if ((s[0] == '.' && s + 1 < end && s[1] == '*') ||
        (s[0] == '[' && s + 2 < end && s[1] == '*' && s[2] == ']')) {
        *p = s + (s[0] == '.' ? 2 : 3);
        return apply(in, '*', NULL, 0, out) ? fail(r, "out of memory", NULL) : 0;
    }
    if (s[0] == '[' && s + 1 < end && (s[1] == '-' || (s[1] >= '0' && s[1] <= '9'))) {
        char *e;
        long idx = strtol(s + 1, &e, 10);
        if (e >= end || *e != ']')
            return fail(r, "expected [N], [*] or ['key']", s);
        *p = e + 1;
        return apply(in, 'i', NULL, idx, out) ? fail(r, "out of memory", NULL) : 0;
    }
    if (s[0] == '[' && s + 1 < end && s[1] == '?')
        return fail(r, "filters ([?(...)]) are not supported", s);
    next = read_key(s[0] == '.' ? s + 1 : s, end, key);
    if (!next || (s[0] != '.' && s[0] != '['))
        return fail(r, "bad path (a path starts with ., $ or @)", s);
    *p = next;
    return apply(in, 'k', key, 0, out) ? fail(r, "out of memory", NULL) : 0;
}

/* Evaluates the path t from cur into *res (caller frees res->v). */
static int eval(struct run *r, const struct token *t, const cJSON *cur, struct nodes *res)
{
    const char *p = t->s, *end = t->s + t->len;
    struct nodes in = {0}, out = {0};
    int rc = 0;
    if (p < end && (*p == '$' || *p == '@'))
        cur = *p++ == '$' ? r->root : cur;
    if (p == end && t->len == 0)
        return fail(r, "empty expression {}", t->s);
    if (end - p == 1 && *p == '.')   /* {.}: the current node */
        p++;
    if (cur && push(&in, cur))
        return fail(r, "out of memory", NULL);
    while (!rc && p < end) {
        out.n = 0;
        if (!(rc = step(r, &p, end, &in, &out))) {
            struct nodes tmp = in;
            in = out;
            out = tmp;
        }
    }
    free(out.v);
    if (rc)
        free(in.v);
    else
        *res = in;
    return rc;
}

static int print_nodes(struct run *r, const struct nodes *ns)
{
    for (size_t i = 0; i < ns->n; i++) {
        const cJSON *v = ns->v[i];
        char *text = cJSON_IsString(v) ? NULL : cJSON_PrintUnformatted(v);
        if ((i && buf_puts(r->out, " ")) ||
            buf_puts(r->out, text ? text : cJSON_IsString(v) ? v->valuestring : ""))
            return cJSON_free(text), fail(r, "out of memory", NULL);
        cJSON_free(text);
    }
    return 0;
}

/* Runs the template from *p with cur as @ until the end or a {end} (then
 * in_range must be set); skip prints nothing. Leaves *p after it. */
static int block(struct run *r, const char **p, const cJSON *cur, int depth, int skip);

static int range(struct run *r, const char **p, const struct token *t, const cJSON *cur,
                 int depth, int skip)
{
    struct nodes ns = {0};
    const char *body = *p;
    if (depth >= MAX_DEPTH)
        return fail(r, "ranges nested too deep", t->s);
    if (eval(r, t, cur, &ns))
        return -1;
    int rc = 0;
    for (size_t i = 0; !rc && i < ns.n && !skip; i++) {
        *p = body;
        rc = block(r, p, ns.v[i], depth + 1, 0);
    }
    if (!rc && (skip || ns.n == 0)) {   /* only to find the {end} */
        *p = body;
        rc = block(r, p, NULL, depth + 1, 1);
    }
    free(ns.v);
    return rc;
}

static int block(struct run *r, const char **p, const cJSON *cur, int depth, int skip)
{
    for (;;) {
        struct token t;
        const char *at = *p;
        if (!(*p = next_token(r, *p, &t)))
            return -1;
        if (t.type == T_EOF)
            return depth ? fail(r, "{range} without {end}", NULL) : 0;
        if (t.type == T_END)
            return depth ? 0 : fail(r, "{end} without {range}", at);
        int rc = 0;
        if (t.type == T_TEXT && !skip)
            rc = buf_add(r->out, t.s, t.len) ? fail(r, "out of memory", NULL) : 0;
        else if (t.type == T_LIT)
            rc = literal(r, &t, skip);
        else if (t.type == T_RANGE)
            rc = range(r, p, &t, cur, depth, skip);
        else if (t.type == T_PATH) {
            struct nodes ns = {0};
            rc = eval(r, &t, cur, &ns);
            if (!rc && !skip)
                rc = print_nodes(r, &ns);
            free(ns.v);
        }
        if (rc)
            return rc;
    }
}

int jsonpath_tmpl_run(const char *tmpl, const cJSON *doc, struct buf *out, char *err,
                      size_t errlen)
{
    struct run r = {doc, out, err, errlen};
    const char *p = tmpl;
    return block(&r, &p, doc, 0, 0);
}

int jsonpath_tmpl_check(const char *tmpl, char *err, size_t errlen)
{
    struct buf b = {0};
    cJSON *empty = cJSON_CreateObject();
    int rc = empty ? jsonpath_tmpl_run(tmpl, empty, &b, err, errlen) : -1;
    if (!empty)
        snprintf(err, errlen, "out of memory");
    cJSON_Delete(empty);
    buf_free(&b);
    return rc;
}
