/* router.c — see router.h. */
#include "router.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const METHODS[] = {"GET", "POST", "PUT", "PATCH", "DELETE"};
#define N_METHODS (sizeof METHODS / sizeof METHODS[0])

/* What one template registers for one method at a trie leaf. */
struct leaf {
    void *target;
    char *pattern;
    char *names[CUBE_ROUTE_MAX_PARAMS]; /* param names in path order */
    size_t n_names;
};

struct node {
    char *literal;            /* set on literal children */
    struct node **lits;
    size_t n_lits;
    struct node *param;       /* `{x}` child */
    struct node *rest;        /* `{x*}` child (always a leaf) */
    struct leaf *leaves[N_METHODS];
};

struct cube_router {
    struct node root;
};

struct cube_router *cube_router_new(void)
{
    return calloc(1, sizeof(struct cube_router));
}

static void leaf_free(struct leaf *l)
{
    if (!l)
        return;
    free(l->pattern);
    for (size_t i = 0; i < l->n_names; i++)
        free(l->names[i]);
    free(l);
}

static void node_free_children(struct node *n)
{
    for (size_t i = 0; i < n->n_lits; i++) {
        node_free_children(n->lits[i]);
        free(n->lits[i]);
    }
    free(n->lits);
    if (n->param) {
        node_free_children(n->param);
        free(n->param);
    }
    if (n->rest) {
        node_free_children(n->rest);
        free(n->rest);
    }
    for (size_t m = 0; m < N_METHODS; m++)
        leaf_free(n->leaves[m]);
    free(n->literal);
}

void cube_router_free(struct cube_router *r)
{
    if (!r)
        return;
    node_free_children(&r->root);
    free(r);
}

static int method_index(const char *method)
{
    if (strcmp(method, "HEAD") == 0)
        method = "GET";
    for (size_t i = 0; i < N_METHODS; i++)
        if (strcmp(METHODS[i], method) == 0)
            return (int)i;
    return -1;
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = tolower(c);
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

int cube_percent_decode(char *s)
{
    char *out = s;
    for (char *in = s; *in; in++) {
        if (*in != '%') {
            *out++ = *in;
            continue;
        }
        int hi = hexval((unsigned char)in[1]);
        int lo = hi < 0 ? -1 : hexval((unsigned char)in[2]);
        if (hi < 0 || lo < 0 || (hi == 0 && lo == 0))
            return -1;
        *out++ = (char)(hi * 16 + lo);
        in += 2;
    }
    *out = '\0';
    return 0;
}

/* Kinds of template segment. */
enum seg_kind { SEG_LITERAL, SEG_PARAM, SEG_REST };

static int valid_param_name(const char *s, size_t len)
{
    if (len == 0 || len > 64)
        return 0;
    for (size_t i = 0; i < len; i++)
        if (!(isalnum((unsigned char)s[i]) || s[i] == '_'))
            return 0;
    return 1;
}

/* Classifies segment `seg` (length len); for params, copies the name. */
static int parse_segment(const char *seg, size_t len, enum seg_kind *kind,
                         char **name, char *err, size_t errlen)
{
    *name = NULL;
    if (len == 0) {
        snprintf(err, errlen, "empty path segment");
        return -1;
    }
    if (seg[0] != '{') {
        if (memchr(seg, '{', len) || memchr(seg, '}', len)) {
            snprintf(err, errlen, "'{' or '}' inside a literal segment");
            return -1;
        }
        *kind = SEG_LITERAL;
        return 0;
    }
    if (seg[len - 1] != '}') {
        snprintf(err, errlen, "unclosed '{' in segment");
        return -1;
    }
    size_t inner = len - 2;
    *kind = SEG_PARAM;
    if (inner > 0 && seg[len - 2] == '*') {
        *kind = SEG_REST;
        inner--;
    }
    if (!valid_param_name(seg + 1, inner)) {
        snprintf(err, errlen, "bad parameter name in '%.*s'", (int)len, seg);
        return -1;
    }
    *name = strndup(seg + 1, inner);
    return *name ? 0 : -1;
}

static struct node *literal_child(struct node *n, const char *seg, size_t len,
                                  int create)
{
    for (size_t i = 0; i < n->n_lits; i++)
        if (strlen(n->lits[i]->literal) == len &&
            memcmp(n->lits[i]->literal, seg, len) == 0)
            return n->lits[i];
    if (!create)
        return NULL;
    struct node **grown = realloc(n->lits, (n->n_lits + 1) * sizeof *grown);
    if (!grown)
        return NULL;
    n->lits = grown;
    struct node *child = calloc(1, sizeof *child);
    if (!child || !(child->literal = strndup(seg, len))) {
        free(child);
        return NULL;
    }
    n->lits[n->n_lits++] = child;
    return child;
}

static struct node *child_for(struct node *n, enum seg_kind kind,
                              const char *seg, size_t len)
{
    struct node **slot = kind == SEG_PARAM ? &n->param : &n->rest;
    if (kind == SEG_LITERAL)
        return literal_child(n, seg, len, 1);
    if (!*slot)
        *slot = calloc(1, sizeof **slot);
    return *slot;
}

/* Walks/creates the trie for `pattern`, collecting param names into lf. */
static struct node *insert_path(struct node *root, const char *pattern,
                                struct leaf *lf, char *err, size_t errlen)
{
    struct node *n = root;
    const char *p = pattern + 1;
    size_t depth = 0;
    if (strcmp(pattern, "/") == 0)
        return root;
    while (p) {
        const char *slash = strchr(p, '/');
        size_t len = slash ? (size_t)(slash - p) : strlen(p);
        enum seg_kind kind;
        char *name;
        if (++depth > CUBE_ROUTE_MAX_SEGMENTS) {
            snprintf(err, errlen, "too many segments");
            return NULL;
        }
        if (parse_segment(p, len, &kind, &name, err, errlen) < 0)
            return NULL;
        if (kind != SEG_LITERAL) {
            for (size_t i = 0; i < lf->n_names; i++)
                if (strcmp(lf->names[i], name) == 0) {
                    snprintf(err, errlen, "duplicate parameter '%s'", name);
                    free(name);
                    return NULL;
                }
            if (lf->n_names == CUBE_ROUTE_MAX_PARAMS) {
                snprintf(err, errlen, "too many parameters");
                free(name);
                return NULL;
            }
            lf->names[lf->n_names++] = name;
        }
        if (kind == SEG_REST && slash) {
            snprintf(err, errlen, "'{%s*}' must be the last segment",
                     lf->names[lf->n_names - 1]);
            return NULL;
        }
        n = child_for(n, kind, p, len);
        if (!n) {
            snprintf(err, errlen, "out of memory");
            return NULL;
        }
        p = slash ? slash + 1 : NULL;
    }
    return n;
}

/* Finds the trie node of a template without creating anything. */
static const struct node *find_shape(const struct node *n, const char *pattern)
{
    if (strcmp(pattern, "/") == 0)
        return n;
    const char *p = pattern + 1;
    while (n && p) {
        const char *slash = strchr(p, '/');
        size_t len = slash ? (size_t)(slash - p) : strlen(p);
        if (len >= 2 && p[0] == '{')
            n = p[len - 2] == '*' ? n->rest : n->param;
        else
            n = literal_child((struct node *)n, p, len, 0);
        p = slash ? slash + 1 : NULL;
    }
    return n;
}

int cube_router_conflicts(const struct cube_router *r, const char *method,
                          const char *pattern)
{
    int m = method_index(method);
    const struct node *n = m < 0 ? NULL : find_shape(&r->root, pattern);
    return n && n->leaves[m] ? 1 : 0;
}

int cube_router_add(struct cube_router *r, const char *method,
                    const char *pattern, void *target, char *err,
                    size_t errlen)
{
    int m = method ? method_index(method) : -1;
    if (m < 0 || (method && strcmp(method, "HEAD") == 0)) {
        snprintf(err, errlen, "unknown method '%s'", method ? method : "");
        return -1;
    }
    if (!pattern || pattern[0] != '/') {
        snprintf(err, errlen, "path must start with '/'");
        return -1;
    }
    struct leaf *lf = calloc(1, sizeof *lf);
    if (!lf || !(lf->pattern = strdup(pattern))) {
        snprintf(err, errlen, "out of memory");
        leaf_free(lf);
        return -1;
    }
    lf->target = target;
    struct node *n = insert_path(&r->root, pattern, lf, err, errlen);
    if (!n) {
        leaf_free(lf);
        return -1;
    }
    if (n->leaves[m]) {
        snprintf(err, errlen, "%s %s conflicts with %s", METHODS[m], pattern,
                 n->leaves[m]->pattern);
        leaf_free(lf);
        return -2;
    }
    n->leaves[m] = lf;
    return 0;
}

/* Matching state: decoded segments of the request path. */
struct walk {
    char **segs;
    size_t n;
    const char *values[CUBE_ROUTE_MAX_PARAMS];
    size_t n_values;
    const struct node *bad_method_leafnode; /* first shape match, any method */
    const char *rest_start[CUBE_ROUTE_MAX_SEGMENTS]; /* raw, in the path */
    int last_is_rest; /* the last value is raw and still to be decoded */
};

static int node_has_leaf(const struct node *n)
{
    for (size_t m = 0; m < N_METHODS; m++)
        if (n->leaves[m])
            return 1;
    return 0;
}

/* Depth-first match from segment i; returns the leaf node or NULL. */
static const struct node *walk(const struct node *n, struct walk *w, size_t i,
                               int m)
{
    if (i == w->n) {
        if (n->leaves[m])
            return n;
        if (node_has_leaf(n) && !w->bad_method_leafnode)
            w->bad_method_leafnode = n;
        return NULL;
    }
    const struct node *lit = literal_child((struct node *)n, w->segs[i],
                                           strlen(w->segs[i]), 0);
    const struct node *found;
    if (lit && (found = walk(lit, w, i + 1, m)))
        return found;
    if (n->param && w->n_values < CUBE_ROUTE_MAX_PARAMS) {
        w->values[w->n_values++] = w->segs[i];
        if ((found = walk(n->param, w, i + 1, m)))
            return found;
        w->n_values--;
    }
    if (n->rest && w->n_values < CUBE_ROUTE_MAX_PARAMS) {
        if (n->rest->leaves[m]) {
            w->values[w->n_values++] = w->rest_start[i];
            w->last_is_rest = 1;
            return n->rest;
        }
        if (node_has_leaf(n->rest) && !w->bad_method_leafnode)
            w->bad_method_leafnode = n->rest;
    }
    return NULL;
}

/* Splits `path` (a copy, modified) into decoded segments. */
static int split_path(char *copy, char **segs, const char **rest_start,
                      const char *orig, size_t *n)
{
    *n = 0;
    if (strcmp(copy, "/") == 0)
        return 0;
    char *p = copy + 1;
    while (p) {
        if (*n == CUBE_ROUTE_MAX_SEGMENTS)
            return -1;
        char *slash = strchr(p, '/');
        if (slash)
            *slash = '\0';
        if (*p == '\0')
            return -1; /* empty segment: "//" or a trailing '/' */
        rest_start[*n] = orig + (p - copy);
        segs[(*n)++] = p;
        p = slash ? slash + 1 : NULL;
    }
    for (size_t i = 0; i < *n; i++)
        if (cube_percent_decode(segs[i]) < 0)
            return -1;
    return 0;
}

static void fill_allow(const struct node *n, char *allow, size_t len)
{
    allow[0] = '\0';
    for (size_t m = 0; m < N_METHODS; m++) {
        if (!n->leaves[m])
            continue;
        size_t used = strlen(allow);
        snprintf(allow + used, len - used, "%s%s%s", used ? ", " : "",
                 METHODS[m], m == 0 ? ", HEAD" : "");
    }
}

static int copy_params(const struct leaf *lf, const struct walk *w,
                       struct cube_route_match *m)
{
    for (size_t i = 0; i < lf->n_names && i < w->n_values; i++) {
        m->params[i].name = lf->names[i];
        m->params[i].value = strdup(w->values[i]);
        if (!m->params[i].value)
            return -1;
        m->n_params = i + 1;
        if (w->last_is_rest && i + 1 == w->n_values &&
            cube_percent_decode(m->params[i].value) < 0)
            return -1;
    }
    return 0;
}

enum cube_route_result cube_router_match(const struct cube_router *r,
                                         const char *method, const char *path,
                                         struct cube_route_match *m)
{
    memset(m, 0, sizeof *m);
    int mi = method_index(method);
    if (!path || path[0] != '/')
        return CUBE_ROUTE_NOT_FOUND;
    char *copy = strdup(path);
    char *segs[CUBE_ROUTE_MAX_SEGMENTS];
    struct walk w = {.segs = segs};
    enum cube_route_result res = CUBE_ROUTE_NOT_FOUND;
    /* Rest params are cut from the raw path (keeping its slashes) and
     * decoded as a whole in copy_params. */
    if (!copy || split_path(copy, segs, w.rest_start, path, &w.n) < 0)
        goto done;
    const struct node *n = walk(&r->root, &w, 0, mi < 0 ? 0 : mi);
    if (n && mi >= 0) {
        const struct leaf *lf = n->leaves[mi];
        m->target = lf->target;
        m->pattern = lf->pattern;
        res = copy_params(lf, &w, m) < 0 ? CUBE_ROUTE_NOT_FOUND : CUBE_ROUTE_FOUND;
        if (res != CUBE_ROUTE_FOUND)
            cube_route_match_clear(m);
    } else if (n || w.bad_method_leafnode) {
        fill_allow(n ? n : w.bad_method_leafnode, m->allow, sizeof m->allow);
        res = CUBE_ROUTE_BAD_METHOD;
    }
done:
    free(copy);
    return res;
}

const char *cube_route_match_param(const struct cube_route_match *m,
                                   const char *name)
{
    for (size_t i = 0; i < m->n_params; i++)
        if (strcmp(m->params[i].name, name) == 0)
            return m->params[i].value;
    return NULL;
}

void cube_route_match_clear(struct cube_route_match *m)
{
    for (size_t i = 0; i < m->n_params; i++)
        free(m->params[i].value);
    m->n_params = 0;
}
