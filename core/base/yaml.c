/* yaml.c — see yaml.h. libyaml's event stream builds a cJSON tree; the start
 * of every node (and of every mapping key) is recorded in doc->marks. */
#include "yamldoc.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "errs.h"
#include "utf8.h"

#define MAX_DEPTH 64                  /* nesting deeper than this: error */
#define MAX_FILE_BYTES (16u << 20)    /* config files are small */

struct frame {
    cJSON *node;        /* the open mapping or sequence */
    char *key;          /* mapping: key read, value not yet; else NULL */
    int key_line, key_col;
};

struct builder {
    struct cube_yaml_doc *doc;
    struct cube_errs *errs;
    const char *text;
    size_t len;
    struct frame stack[MAX_DEPTH];
    int depth;
    int n_docs;
    int done;
};


static void fail_at(struct builder *b, const yaml_mark_t *m,
                    const char *fmt, ...) CUBE_PRINTF(3, 4);
static void fail_at(struct builder *b, const yaml_mark_t *m,
                    const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    cube_errs_add(b->errs, "%s:%d:%d: %s", b->doc->file, (int)m->line + 1,
                  (int)m->column + 1, msg);
}

/* Line and column (1-based) of byte `off` of the input. */
static void offset_to_mark(const struct builder *b, size_t off, yaml_mark_t *m)
{
    m->line = m->column = 0;
    for (size_t i = 0; i < off && i < b->len; i++) {
        if (b->text[i] == '\n') {
            m->line++;
            m->column = 0;
        } else if (((unsigned char)b->text[i] & 0xc0) != 0x80) {
            m->column++;
        }
    }
}

static void parser_error(struct builder *b, const yaml_parser_t *p)
{
    yaml_mark_t m = p->problem_mark;
    const char *problem = p->problem ? p->problem : "invalid YAML";
    if (p->error == YAML_MEMORY_ERROR) {
        cube_errs_add(b->errs, "%s: out of memory", b->doc->file);
        return;
    }
    if (p->error == YAML_READER_ERROR)
        offset_to_mark(b, p->problem_offset, &m);
    if (m.index < b->len && b->text[m.index] == '\t' &&
        !strstr(problem, "tab")) {
        fail_at(b, &m, "%s (tab characters cannot indent YAML; use spaces)",
                problem);
    } else if (p->context) {
        fail_at(b, &m, "%s (%s)", problem, p->context);
    } else {
        fail_at(b, &m, "%s", problem);
    }
}

static int push_mark(struct builder *b, const cJSON *node, int line, int col)
{
    struct cube_yaml_doc *d = b->doc;
    if (d->n_marks == d->cap_marks) {
        size_t cap = d->cap_marks ? d->cap_marks * 2 : 32;
        struct cube_yaml_mark *m = realloc(d->marks, cap * sizeof *m);
        if (!m)
            return -1;
        d->marks = m;
        d->cap_marks = cap;
    }
    d->marks[d->n_marks++] = (struct cube_yaml_mark){node, line, col};
    return 0;
}

/* ---- YAML 1.2 core schema for plain scalars ---- */

static int is_one_of(const char *s, const char *const *words)
{
    for (; *words; words++)
        if (!strcmp(s, *words))
            return 1;
    return 0;
}

static int all_digits(const char *s, const char *set)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (!strchr(set, *s))
            return 0;
    return 1;
}

/* [-+]? ( \. [0-9]+ | [0-9]+ ( \. [0-9]* )? ) ( [eE] [-+]? [0-9]+ )? */
static int is_core_float(const char *s)
{
    size_t n;
    if (*s == '-' || *s == '+')
        s++;
    n = strspn(s, "0123456789");
    s += n;
    if (*s == '.') {
        size_t frac = strspn(s + 1, "0123456789");
        if (!n && !frac)
            return 0;
        s += 1 + frac;
    } else if (!n) {
        return 0;
    }
    if (*s == 'e' || *s == 'E') {
        s++;
        if (*s == '-' || *s == '+')
            s++;
        if (!*s || strspn(s, "0123456789") != strlen(s))
            return 0;
        return 1;
    }
    return *s == '\0';
}

static double radix_value(const char *digits, int base)
{
    double v = 0;
    for (; *digits; digits++) {
        int d = *digits <= '9' ? *digits - '0' : (*digits | 0x20) - 'a' + 10;
        v = v * base + d;
    }
    return v;
}

static cJSON *nan_node(void)
{
    cJSON *n = cJSON_CreateNumber(0);
    if (n)
        n->valuedouble = NAN;
    return n;
}

/* Resolves a plain scalar per the YAML 1.2 core schema. */
static cJSON *resolve_plain(const char *s)
{
    static const char *const nulls[] = {"", "~", "null", "Null", "NULL", 0};
    static const char *const trues[] = {"true", "True", "TRUE", 0};
    static const char *const falses[] = {"false", "False", "FALSE", 0};
    static const char *const infs[] = {".inf", ".Inf", ".INF", 0};
    static const char *const nans[] = {".nan", ".NaN", ".NAN", 0};
    const char *u = (*s == '-' || *s == '+') ? s + 1 : s;
    if (is_one_of(s, nulls))
        return cJSON_CreateNull();
    if (is_one_of(s, trues) || is_one_of(s, falses))
        return cJSON_CreateBool(is_one_of(s, trues));
    if (!strncmp(s, "0x", 2) && all_digits(s + 2, "0123456789abcdefABCDEF"))
        return cJSON_CreateNumber(radix_value(s + 2, 16));
    if (!strncmp(s, "0o", 2) && all_digits(s + 2, "01234567"))
        return cJSON_CreateNumber(radix_value(s + 2, 8));
    if (is_one_of(u, infs))
        return cJSON_CreateNumber(*s == '-' ? -INFINITY : INFINITY);
    if (is_one_of(s, nans))
        return nan_node();
    if (is_core_float(s))
        return cJSON_CreateNumber(strtod(s, NULL));
    return cJSON_CreateString(s);
}

/* ---- building the tree ---- */

static int check_props(struct builder *b, const yaml_event_t *ev,
                       const yaml_char_t *anchor, const yaml_char_t *tag,
                       const char *ok_tag)
{
    if (anchor) {
        fail_at(b, &ev->start_mark, "anchors and aliases are not supported "
                "(&%s); write the value out", (const char *)anchor);
        return -1;
    }
    if (tag && strcmp((const char *)tag, "!") &&
        strcmp((const char *)tag, ok_tag)) {
        char q[96];
        cube_quote_n(q, sizeof q, (const char *)tag, strlen((const char *)tag));
        fail_at(b, &ev->start_mark, "unsupported tag %s", q);
        return -1;
    }
    return 0;
}

static cJSON *make_scalar(struct builder *b, const yaml_event_t *ev)
{
    const char *v = (const char *)ev->data.scalar.value;
    if (check_props(b, ev, ev->data.scalar.anchor, ev->data.scalar.tag,
                    YAML_STR_TAG))
        return NULL;
    if (strlen(v) != ev->data.scalar.length) {
        fail_at(b, &ev->start_mark, "NUL characters are not supported");
        return NULL;
    }
    cJSON *n = (ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
                !ev->data.scalar.tag)
                   ? resolve_plain(v)
                   : cJSON_CreateString(v);
    if (!n)
        fail_at(b, &ev->start_mark, "out of memory");
    return n;
}

/* A scalar that is a mapping key: remembered until its value arrives. */
static int take_key(struct builder *b, struct frame *f, const yaml_event_t *ev)
{
    if (ev->type != YAML_SCALAR_EVENT) {
        fail_at(b, &ev->start_mark, "mapping keys must be scalars");
        return -1;
    }
    const char *k = (const char *)ev->data.scalar.value;
    if (check_props(b, ev, ev->data.scalar.anchor, ev->data.scalar.tag,
                    YAML_STR_TAG))
        return -1;
    if (strlen(k) != ev->data.scalar.length) {
        fail_at(b, &ev->start_mark, "NUL characters are not supported");
        return -1;
    }
    if (cJSON_GetObjectItemCaseSensitive(f->node, k)) {
        char q[96];
        cube_quote_n(q, sizeof q, k, strlen(k));
        fail_at(b, &ev->start_mark, "duplicate key %s", q);
        return -1;
    }
    f->key = strdup(k);
    if (!f->key) {
        fail_at(b, &ev->start_mark, "out of memory");
        return -1;
    }
    f->key_line = (int)ev->start_mark.line + 1;
    f->key_col = (int)ev->start_mark.column + 1;
    return 0;
}

/* Places a new node under the open container (or as the root) and records
 * its mark. Takes ownership of node, even on failure. */
static int attach(struct builder *b, cJSON *node, const yaml_event_t *ev)
{
    int line = (int)ev->start_mark.line + 1;
    int col = (int)ev->start_mark.column + 1;
    struct frame *f = b->depth ? &b->stack[b->depth - 1] : NULL;
    if (!f) {
        b->doc->root = node;
    } else if (cJSON_IsArray(f->node)) {
        cJSON_AddItemToArray(f->node, node);
    } else {
        if (!cJSON_AddItemToObject(f->node, f->key, node)) {
            cJSON_Delete(node);
            goto fail;
        }
        free(f->key);
        f->key = NULL;
        if (push_mark(b, node, f->key_line, f->key_col))
            goto fail;
    }
    if (push_mark(b, node, line, col))
        goto fail;
    return 0;
fail:
    fail_at(b, &ev->start_mark, "out of memory");
    return -1;
}

static int open_container(struct builder *b, const yaml_event_t *ev)
{
    int is_map = ev->type == YAML_MAPPING_START_EVENT;
    const yaml_char_t *anchor = is_map ? ev->data.mapping_start.anchor
                                       : ev->data.sequence_start.anchor;
    const yaml_char_t *tag = is_map ? ev->data.mapping_start.tag
                                    : ev->data.sequence_start.tag;
    if (check_props(b, ev, anchor, tag, is_map ? YAML_MAP_TAG : YAML_SEQ_TAG))
        return -1;
    if (b->depth == MAX_DEPTH) {
        fail_at(b, &ev->start_mark, "nesting is too deep (more than %d levels)",
                MAX_DEPTH);
        return -1;
    }
    cJSON *node = is_map ? cJSON_CreateObject() : cJSON_CreateArray();
    if (!node) {
        fail_at(b, &ev->start_mark, "out of memory");
        return -1;
    }
    if (attach(b, node, ev))
        return -1;
    b->stack[b->depth++] = (struct frame){node, NULL, 0, 0};
    return 0;
}

static int on_scalar(struct builder *b, const yaml_event_t *ev)
{
    struct frame *f = b->depth ? &b->stack[b->depth - 1] : NULL;
    if (f && cJSON_IsObject(f->node) && !f->key)
        return take_key(b, f, ev);
    cJSON *node = make_scalar(b, ev);
    return node ? attach(b, node, ev) : -1;
}

static int on_event(struct builder *b, const yaml_event_t *ev)
{
    struct frame *f = b->depth ? &b->stack[b->depth - 1] : NULL;
    switch (ev->type) {
    case YAML_DOCUMENT_START_EVENT:
        if (b->n_docs++) {
            fail_at(b, &ev->start_mark,
                    "multiple documents are not supported");
            return -1;
        }
        return 0;
    case YAML_SCALAR_EVENT:
        return on_scalar(b, ev);
    case YAML_SEQUENCE_START_EVENT:
    case YAML_MAPPING_START_EVENT:
        if (f && cJSON_IsObject(f->node) && !f->key)
            return take_key(b, f, ev);
        return open_container(b, ev);
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT:
        b->depth--;
        return 0;
    case YAML_ALIAS_EVENT:
        fail_at(b, &ev->start_mark, "anchors and aliases are not supported "
                "(*%s); write the value out",
                (const char *)ev->data.alias.anchor);
        return -1;
    case YAML_STREAM_END_EVENT:
        b->done = 1;
        return 0;
    default:
        return 0;
    }
}

/* ---- marks lookup ---- */

static int mark_cmp(const void *pa, const void *pb)
{
    const struct cube_yaml_mark *a = pa, *b = pb;
    if (a->node != b->node)
        return (uintptr_t)a->node < (uintptr_t)b->node ? -1 : 1;
    if (a->line != b->line)
        return a->line < b->line ? -1 : 1;
    return (a->col > b->col) - (a->col < b->col);
}

/* Index of the first mark of `node`, or -1. Marks are sorted by node, then
 * position; a mapping member has two, its key's first. */
static long first_mark(const struct cube_yaml_doc *doc, const cJSON *node)
{
    size_t lo = 0, hi = doc->n_marks;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if ((uintptr_t)doc->marks[mid].node < (uintptr_t)node)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < doc->n_marks && doc->marks[lo].node == node ? (long)lo : -1;
}

int cube_yaml_mark_of(const struct cube_yaml_doc *doc, const cJSON *node,
                      int *line, int *col)
{
    long i = node ? first_mark(doc, node) : -1;
    if (i < 0)
        return -1;
    if ((size_t)i + 1 < doc->n_marks && doc->marks[i + 1].node == node)
        i++;
    *line = doc->marks[i].line;
    *col = doc->marks[i].col;
    return 0;
}

int cube_yaml_key_mark_of(const struct cube_yaml_doc *doc,
                          const cJSON *member, int *line, int *col)
{
    long i = member ? first_mark(doc, member) : -1;
    if (i < 0)
        return -1;
    *line = doc->marks[i].line;
    *col = doc->marks[i].col;
    return 0;
}

/* ---- loading ---- */

static int run_parser(struct builder *b)
{
    yaml_parser_t p;
    yaml_event_t ev;
    int rc = 0;
    if (!yaml_parser_initialize(&p)) {
        cube_errs_add(b->errs, "%s: out of memory", b->doc->file);
        return -1;
    }
    yaml_parser_set_input_string(&p, (const unsigned char *)b->text, b->len);
    while (!b->done && rc == 0) {
        if (!yaml_parser_parse(&p, &ev)) {
            parser_error(b, &p);
            rc = -1;
            break;
        }
        rc = on_event(b, &ev);
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&p);
    for (int i = 0; i < b->depth; i++)
        free(b->stack[i].key);
    return rc;
}

int cube_yaml_load_string(const char *text, size_t len, const char *name,
                          struct cube_yaml_doc *doc, struct cube_errs *errs)
{
    struct builder b = {.doc = doc, .errs = errs, .text = text, .len = len};
    memset(doc, 0, sizeof *doc);
    doc->file = strdup(name ? name : "<string>");
    if (!doc->file) {
        cube_errs_add(errs, "%s: out of memory", name ? name : "<string>");
        return -1;
    }
    if (run_parser(&b))
        goto fail;
    if (cJSON_IsNull(doc->root)) {   /* empty document */
        cJSON_Delete(doc->root);
        doc->root = NULL;
        doc->n_marks = 0;
    }
    if (doc->n_marks)
        qsort(doc->marks, doc->n_marks, sizeof *doc->marks, mark_cmp);
    return 0;
fail:
    cube_yaml_doc_free(doc);
    return -1;
}

/* Reads a whole file into a new buffer. Returns 0, or -1 with errno set. */
static int slurp(const char *path, char **out, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t n = 0, cap = 0;
    int saved;
    if (!f)
        return -1;
    for (;;) {
        if (n == cap) {
            size_t want = cap ? cap * 2 : 4096;
            char *grown = cap >= MAX_FILE_BYTES ? NULL : realloc(buf, want);
            if (!grown) {
                errno = cap >= MAX_FILE_BYTES ? EFBIG : ENOMEM;
                goto fail;
            }
            buf = grown;
            cap = want;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    if (ferror(f))
        goto fail;   /* errno from the failed read */
    fclose(f);
    *out = buf;
    *len = n;
    return 0;
fail:
    saved = errno;
    free(buf);
    fclose(f);
    errno = saved ? saved : EIO;
    return -1;
}

int cube_yaml_load_file(const char *path, struct cube_yaml_doc *doc,
                        struct cube_errs *errs)
{
    char *text = NULL;
    size_t len = 0;
    memset(doc, 0, sizeof *doc);
    if (slurp(path, &text, &len)) {
        cube_errs_add(errs, "%s: cannot read: %s", path, strerror(errno));
        return -1;
    }
    int rc = cube_yaml_load_string(text, len, path, doc, errs);
    free(text);
    return rc;
}

void cube_yaml_doc_free(struct cube_yaml_doc *doc)
{
    cJSON_Delete(doc->root);
    free(doc->marks);
    free(doc->file);
    memset(doc, 0, sizeof *doc);
}
