/* json_check.c — see json_check.h. Two passes over a body cJSON accepts:
 * the text (NUL, "\u0000", UTF-8: what the tree no longer shows, as cJSON
 * ends its strings at the NUL it decodes) and the tree (duplicate names,
 * compared as cJSON decoded them). The text walk follows cJSON's grammar
 * (whitespace is any byte up to space, numbers are runs of
 * "0123456789+-eE."), which is safe because cJSON has accepted the text
 * first: it only needs to find the strings and name their place. */
#include "json_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Objects with more members than this are checked by sorting. */
#define PAIRWISE_MAX 16

struct path {
    char text[CUBE_JSON_FIELD_MAX];
    size_t len;
};

static void path_put(struct path *p, const char *s, size_t n)
{
    if (p->len + n >= sizeof p->text)
        n = sizeof p->text - 1 - p->len;
    memcpy(p->text + p->len, s, n);
    p->len += n;
    p->text[p->len] = '\0';
}

/* Appends ".name" ("name" at the top); returns the length to restore. */
static size_t path_key(struct path *p, const char *name, size_t n)
{
    size_t saved = p->len;
    if (saved)
        path_put(p, ".", 1);
    path_put(p, name, n);
    return saved;
}

static size_t path_index(struct path *p, int i)
{
    char digits[16];
    size_t saved = p->len;
    int n = snprintf(digits, sizeof digits, "[%d]", i);
    path_put(p, digits, (size_t)n);
    return saved;
}

static void path_pop(struct path *p, size_t saved)
{
    p->len = saved;
    p->text[saved] = '\0';
}

static int fault(struct cube_json_fault *f, const struct path *p, const char *what,
                 const char *where)
{
    snprintf(f->field, sizeof f->field, "%s", p->text);
    if (p->len)
        snprintf(f->message, sizeof f->message, "%.120s: %s%s", p->text, where, what);
    else
        snprintf(f->message, sizeof f->message, "%s%s", where, what);
    return 1;
}

/* -- the text ---------------------------------------------------------- */

struct walk {
    const unsigned char *p, *end;  /* end: where cJSON's document ended */
    struct path path;
    struct cube_json_fault *f;
};

/* The length of the UTF-8 sequence at s (avail bytes readable), 0 when
 * it is not one (RFC 3629: no overlong forms, no surrogates, at most
 * U+10FFFF). */
static size_t utf8_len(const unsigned char *s, size_t avail)
{
    unsigned char c = s[0];
    size_t n = c < 0x80 ? 1 : c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3
             : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
    if (n == 0 || n > avail)
        return 0;
    for (size_t i = 1; i < n; i++)
        if ((s[i] & 0xC0) != 0x80)
            return 0;
    if ((c == 0xE0 && s[1] < 0xA0) || (c == 0xED && s[1] > 0x9F) ||
        (c == 0xF0 && s[1] < 0x90) || (c == 0xF4 && s[1] > 0x8F))
        return 0;
    return n;
}

static void skip_space(struct walk *w)
{
    while (w->p < w->end && *w->p <= ' ')
        w->p++;
}

/* w->p at an opening quote; leaves it past the closing one. A member
 * name's fault is the enclosing object's ("a member name ..."). */
static int walk_string(struct walk *w, int is_name)
{
    const char *where = is_name ? "a member name " : "the string ";
    for (w->p++; w->p < w->end && *w->p != '"';) {
        if (*w->p == '\\') {
            if (w->end - w->p >= 6 && w->p[1] == 'u' && !memcmp(w->p + 2, "0000", 4))
                return fault(w->f, &w->path, "contains a NUL character (\\u0000)", where);
            w->p += w->end - w->p >= 2 ? 2 : 1;
            continue;
        }
        size_t n = utf8_len(w->p, (size_t)(w->end - w->p));
        if (n == 0)
            return fault(w->f, &w->path, "is not valid UTF-8", where);
        w->p += n;
    }
    if (w->p >= w->end)
        return fault(w->f, &w->path, "is not JSON this server reads", "");
    w->p++;
    return 0;
}

static int walk_value(struct walk *w);

/* Skips blanks; when the next byte is c, steps over it and returns 1. */
static int eat(struct walk *w, unsigned char c)
{
    skip_space(w);
    if (w->p < w->end && *w->p == c) {
        w->p++;
        return 1;
    }
    return 0;
}

static int walk_object(struct walk *w)
{
    w->p++;
    if (eat(w, '}'))
        return 0;
    while (w->p < w->end) {
        skip_space(w);
        if (w->p >= w->end || *w->p != '"')
            break;
        const unsigned char *name = w->p + 1;
        if (walk_string(w, 1))
            return 1;
        size_t saved = path_key(&w->path, (const char *)name, (size_t)(w->p - 1 - name));
        if (!eat(w, ':'))
            break;
        if (walk_value(w))
            return 1;
        path_pop(&w->path, saved);
        if (eat(w, ','))
            continue;
        if (eat(w, '}'))
            return 0;
        break;
    }
    return fault(w->f, &w->path, "is not JSON this server reads", "");
}

static int walk_array(struct walk *w)
{
    w->p++;
    if (eat(w, ']'))
        return 0;
    for (int i = 0; w->p < w->end; i++) {
        size_t saved = path_index(&w->path, i);
        if (walk_value(w))
            return 1;
        path_pop(&w->path, saved);
        if (eat(w, ','))
            continue;
        if (eat(w, ']'))
            return 0;
        break;
    }
    return fault(w->f, &w->path, "is not JSON this server reads", "");
}

static int walk_value(struct walk *w)
{
    skip_space(w);
    if (w->p >= w->end)
        return fault(w->f, &w->path, "is not JSON this server reads", "");
    switch (*w->p) {
    case '"': return walk_string(w, 0);
    case '{': return walk_object(w);
    case '[': return walk_array(w);
    case 'n': case 't': w->p += 4; break;
    case 'f': w->p += 5; break;
    default:
        while (w->p < w->end && *w->p && strchr("0123456789+-eE.", *w->p))
            w->p++;
    }
    if (w->p > w->end)
        return fault(w->f, &w->path, "is not JSON this server reads", "");
    return 0;
}

/* -- the tree ---------------------------------------------------------- */

static int by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A name that occurs twice among obj's members, or NULL (also on OOM, when
 * the pairwise check is used instead). */
static const char *twice(const cJSON *obj)
{
    size_t n = 0;
    for (const cJSON *c = obj->child; c; c = c->next)
        n++;
    const char **names = n > PAIRWISE_MAX ? malloc(n * sizeof *names) : NULL;
    if (!names) {
        for (const cJSON *a = obj->child; a; a = a->next)
            for (const cJSON *b = a->next; b; b = b->next)
                if (a->string && b->string && !strcmp(a->string, b->string))
                    return a->string;
        return NULL;
    }
    size_t k = 0;
    for (const cJSON *c = obj->child; c; c = c->next)
        names[k++] = c->string ? c->string : "";
    qsort(names, n, sizeof *names, by_name);
    const char *dup = NULL;
    for (size_t i = 1; i < n && !dup; i++)
        if (!strcmp(names[i - 1], names[i]))
            dup = names[i];
    free(names);
    return dup;
}

static int tree(const cJSON *n, struct path *p, struct cube_json_fault *f)
{
    if (cJSON_IsObject(n)) {
        const char *dup = twice(n);
        if (dup) {
            path_key(p, dup, strlen(dup));
            return fault(f, p, "duplicate key: a member of this name appears more than once "
                         "in its object", "");
        }
        for (const cJSON *c = n->child; c; c = c->next) {
            size_t saved = path_key(p, c->string ? c->string : "", c->string ? strlen(c->string) : 0);
            if (tree(c, p, f))
                return 1;
            path_pop(p, saved);
        }
    } else if (cJSON_IsArray(n)) {
        int i = 0;
        for (const cJSON *c = n->child; c; c = c->next, i++) {
            size_t saved = path_index(p, i);
            if (tree(c, p, f))
                return 1;
            path_pop(p, saved);
        }
    }
    return 0;
}

int cube_json_tree_check(const cJSON *root, struct cube_json_fault *f)
{
    struct path p = {.len = 0};
    p.text[0] = '\0';
    return root ? tree(root, &p, f) : 0;
}

/* -- the body ---------------------------------------------------------- */

int cube_json_body_check(const char *text, size_t len, struct cube_json_fault *f)
{
    size_t i = len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3) ? 3 : 0;  /* as cJSON */
    while (i < len && (unsigned char)text[i] <= ' ')
        i++;
    if (i >= len || (text[i] != '{' && text[i] != '['))
        return 0;
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(text, len, &end, 0);
    if (!root)
        return 0;
    if (!end || end < text + i || end > text + len)
        end = text + len;
    struct walk w = {(const unsigned char *)text + i, (const unsigned char *)end,
                     {.len = 0}, f};
    w.path.text[0] = '\0';
    int bad;
    if (memchr(text, '\0', (size_t)(end - text)))
        bad = fault(f, &w.path, "the body contains a NUL byte", "");
    else
        bad = walk_value(&w) || cube_json_tree_check(root, f);
    cJSON_Delete(root);
    return bad;
}
