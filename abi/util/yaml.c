/* yaml.c — YAML to cJSON through libyaml's event stream, strict, with the
 * start of every node (and of every mapping key) recorded on request; see
 * cube/util/yaml.h. */
#include <cube/util/yaml.h>

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include <cube/util/json.h>
#include <cube/util/str.h>

#include "yaml_internal.h"

struct frame {
    cJSON *node;          /* the open mapping or sequence */
    char *key;            /* mapping: key read, value not yet; else NULL */
    int key_line, key_col;
};

struct builder {
    struct cu_yaml_doc *doc;
    struct cu_yaml_error *err;
    unsigned flags;
    const char *text;
    size_t len;
    struct frame stack[CU_YAML_MAX_DEPTH];
    int depth;
    cJSON *root;          /* the current document's root, until it ends */
    int n_docs, done, failed;
};

static void fail_at(struct builder *b, const yaml_mark_t *m, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void fail_at(struct builder *b, const yaml_mark_t *m, const char *fmt, ...)
{
    if (b->failed++)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b->err->msg, sizeof b->err->msg, fmt, ap);
    va_end(ap);
    b->err->line = m ? (int)m->line + 1 : 0;
    b->err->col = m ? (int)m->column + 1 : 0;
}

/* s in double quotes, cut to fit q (for names in messages). */
/* s in double quotes for a message: '"', '\\' and control bytes escaped,
 * cut with "..." to fit cap (at least 8). */
static const char *quote(char *q, size_t cap, const char *s)
{
    size_t n = 0;
    q[n++] = '"';
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        char esc[8];
        int w = c == '"' || c == '\\' ? snprintf(esc, sizeof esc, "\\%c", c)
                : c < 0x20 || c == 0x7f ? snprintf(esc, sizeof esc, "\\x%02x", c)
                : snprintf(esc, sizeof esc, "%c", c);
        if (n + (size_t)w + 5 > cap) {
            memcpy(q + n, "...", 3);
            n += 3;
            break;
        }
        memcpy(q + n, esc, (size_t)w);
        n += (size_t)w;
    }
    q[n++] = '"';
    q[n] = '\0';
    return q;
}

/* Line and column of byte off of the input (reader errors carry offsets). */
static void offset_to_mark(const struct builder *b, size_t off, yaml_mark_t *m)
{
    m->line = m->column = 0;
    m->index = off;
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
        fail_at(b, NULL, "out of memory");
    } else if (p->error == YAML_READER_ERROR) {
        offset_to_mark(b, p->problem_offset, &m);
        if (strstr(problem, "UTF") || strstr(problem, "Unicode"))
            fail_at(b, &m, "not valid UTF-8 (%s)", problem);
        else
            fail_at(b, &m, "%s", problem);
    } else if (m.index < b->len && b->text[m.index] == '\t' && !strstr(problem, "tab")) {
        fail_at(b, &m, "%s (tab characters cannot indent YAML; use spaces)", problem);
    } else if (p->context) {
        fail_at(b, &m, "%s (%s)", problem, p->context);
    } else {
        fail_at(b, &m, "%s", problem);
    }
}

static int push_mark(struct builder *b, const cJSON *node, int line, int col)
{
    struct cu_yaml_doc *d = b->doc;
    if (!(b->flags & CU_YAML_MARKS))
        return 0;
    if (d->n_marks == d->cap_marks) {
        size_t cap = d->cap_marks ? d->cap_marks * 2 : 32;
        struct cu_yaml_mark *m = realloc(d->marks, cap * sizeof *m);
        if (!m)
            return -1;
        d->marks = m;
        d->cap_marks = cap;
    }
    d->marks[d->n_marks++] = (struct cu_yaml_mark){node, line, col};
    return 0;
}

/* Anchors are refused where they are written; a tag only when it is not
 * "!" or the standard one of the node's kind. */
static int check_props(struct builder *b, const yaml_event_t *ev, const yaml_char_t *anchor,
                       const yaml_char_t *tag, const char *ok_tag)
{
    char q[96];
    if (anchor) {
        fail_at(b, &ev->start_mark, "anchors and aliases are not supported (&%s); "
                "write the value out", (const char *)anchor);
        return -1;
    }
    if (tag && strcmp((const char *)tag, "!") && strcmp((const char *)tag, ok_tag)) {
        fail_at(b, &ev->start_mark, "unsupported tag %s", quote(q, sizeof q, (const char *)tag));
        return -1;
    }
    return 0;
}

/* A scalar's text, refused when it holds a NUL (a C string would end there). */
static const char *scalar_text(struct builder *b, const yaml_event_t *ev)
{
    const char *v = (const char *)ev->data.scalar.value;
    if (check_props(b, ev, ev->data.scalar.anchor, ev->data.scalar.tag, YAML_STR_TAG))
        return NULL;
    if (strlen(v) != ev->data.scalar.length) {
        fail_at(b, &ev->start_mark, "a string contains \\u0000 (NUL), which is not supported");
        return NULL;
    }
    return v;
}

static cJSON *make_scalar(struct builder *b, const yaml_event_t *ev)
{
    const char *v = scalar_text(b, ev);
    int refused = 0;
    if (!v)
        return NULL;
    cJSON *n = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE && !ev->data.scalar.tag
                   ? cu_yaml_resolve_plain(v, (b->flags & CU_YAML_NONFINITE) != 0, &refused)
                   : cJSON_CreateString(v);
    if (refused)
        fail_at(b, &ev->start_mark, "%s cannot be represented in JSON", v);
    else if (!n)
        fail_at(b, &ev->start_mark, "out of memory");
    return n;
}

/* A mapping key: remembered until its value arrives; a repeat is refused. */
static int take_key(struct builder *b, struct frame *f, const yaml_event_t *ev)
{
    char q[96];
    if (ev->type != YAML_SCALAR_EVENT) {
        fail_at(b, &ev->start_mark, "mapping keys must be scalars");
        return -1;
    }
    const char *k = scalar_text(b, ev);
    if (!k)
        return -1;
    if (cJSON_GetObjectItemCaseSensitive(f->node, k)) {
        fail_at(b, &ev->start_mark, "duplicate key %s", quote(q, sizeof q, k));
        return -1;
    }
    if (!(f->key = strdup(k))) {
        fail_at(b, &ev->start_mark, "out of memory");
        return -1;
    }
    f->key_line = (int)ev->start_mark.line + 1;
    f->key_col = (int)ev->start_mark.column + 1;
    return 0;
}

/* Places a new node under the open container (or as the document's root)
 * and records its mark. Takes node, even on failure. */
static int attach(struct builder *b, cJSON *node, const yaml_event_t *ev)
{
    struct frame *f = b->depth ? &b->stack[b->depth - 1] : NULL;
    if (!f) {
        b->root = node;
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
    if (push_mark(b, node, (int)ev->start_mark.line + 1, (int)ev->start_mark.column + 1))
        goto fail;
    return 0;
fail:
    fail_at(b, &ev->start_mark, "out of memory");
    return -1;
}

static int open_container(struct builder *b, const yaml_event_t *ev)
{
    int map = ev->type == YAML_MAPPING_START_EVENT;
    if (check_props(b, ev, map ? ev->data.mapping_start.anchor : ev->data.sequence_start.anchor,
                    map ? ev->data.mapping_start.tag : ev->data.sequence_start.tag,
                    map ? YAML_MAP_TAG : YAML_SEQ_TAG))
        return -1;
    if (b->depth == CU_YAML_MAX_DEPTH) {
        fail_at(b, &ev->start_mark, "nesting is too deep (more than %d levels)",
                CU_YAML_MAX_DEPTH);
        return -1;
    }
    cJSON *node = map ? cJSON_CreateObject() : cJSON_CreateArray();
    if (!node) {
        fail_at(b, &ev->start_mark, "out of memory");
        return -1;
    }
    if (attach(b, node, ev))
        return -1;
    b->stack[b->depth++] = (struct frame){node, NULL, 0, 0};
    return 0;
}

/* A document ended: its root becomes the result, or (MULTI) joins it. */
static int end_document(struct builder *b)
{
    cJSON *root = b->root;
    b->root = NULL;
    if (!(b->flags & CU_YAML_MULTI)) {
        b->doc->root = root;
        return 0;
    }
    if (!root || cJSON_IsNull(root)) {
        cJSON_Delete(root);   /* an empty document (or "--- null"): skipped */
        return 0;
    }
    cJSON_AddItemToArray(b->doc->root, root);
    return 0;
}

static int on_event(struct builder *b, const yaml_event_t *ev)
{
    struct frame *f = b->depth ? &b->stack[b->depth - 1] : NULL;
    int key_next = f && cJSON_IsObject(f->node) && !f->key;
    switch (ev->type) {
    case YAML_DOCUMENT_START_EVENT:
        if (b->n_docs++ && !(b->flags & CU_YAML_MULTI)) {
            fail_at(b, &ev->start_mark, "multiple documents are not supported");
            return -1;
        }
        return 0;
    case YAML_DOCUMENT_END_EVENT:
        return end_document(b);
    case YAML_SCALAR_EVENT:
        if (key_next)
            return take_key(b, f, ev);
        cJSON *node = make_scalar(b, ev);
        return node ? attach(b, node, ev) : -1;
    case YAML_SEQUENCE_START_EVENT:
    case YAML_MAPPING_START_EVENT:
        return key_next ? take_key(b, f, ev) : open_container(b, ev);
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT:
        b->depth--;
        return 0;
    case YAML_ALIAS_EVENT:
        fail_at(b, &ev->start_mark, "anchors and aliases are not supported (*%s); "
                "write the value out", (const char *)ev->data.alias.anchor);
        return -1;
    case YAML_STREAM_END_EVENT:
        b->done = 1;
        return 0;
    default:
        return 0;
    }
}

static int run_parser(struct builder *b)
{
    yaml_parser_t p;
    yaml_event_t ev;
    int rc = 0;
    if (!yaml_parser_initialize(&p)) {
        fail_at(b, NULL, "out of memory");
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
    cJSON_Delete(b->root);   /* a document cut short: its open containers too */
    b->root = NULL;
    return rc;
}

/* The fast path: text that is exactly one JSON document without any fault
 * the YAML path refuses (cJSON accepts duplicate keys, \u0000 and bad
 * UTF-8). NULL: read it as YAML, which then names the fault's place. */
static cJSON *plain_json(const char *text, size_t len)
{
    size_t i = strspn(text, " \t\r\n");
    if (i >= len || (text[i] != '{' && text[i] != '[') || !cu_utf8_valid(text, len) ||
        memmem(text, len, "\\u0000", 6))
        return NULL;
    const char *end = NULL;
    cJSON *v = cJSON_ParseWithLengthOpts(text, len, &end, 0);
    size_t rest = v ? (size_t)(end - text) : len;
    while (rest < len && strchr(" \t\r\n", text[rest]) && text[rest])
        rest++;
    int oom;
    if (v && (rest < len || cu_json_dup_key(v, &oom) || oom)) {
        cJSON_Delete(v);   /* e.g. a flow mapping followed by more YAML */
        v = NULL;
    }
    return v;
}

/* -- where nodes started ---------------------------------------------------- */

static int mark_cmp(const void *pa, const void *pb)
{
    const struct cu_yaml_mark *a = pa, *b = pb;
    if (a->node != b->node)
        return (uintptr_t)a->node < (uintptr_t)b->node ? -1 : 1;
    if (a->line != b->line)
        return a->line < b->line ? -1 : 1;
    return (a->col > b->col) - (a->col < b->col);
}

/* Index of the first mark of node, or -1. Marks are sorted by node, then
 * position; a mapping member has two, its key's first. */
static long first_mark(const struct cu_yaml_doc *doc, const cJSON *node)
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

int cu_yaml_mark_of(const struct cu_yaml_doc *doc, const cJSON *node, int *line, int *col)
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

int cu_yaml_key_mark_of(const struct cu_yaml_doc *doc, const cJSON *member, int *line,
                        int *col)
{
    long i = member ? first_mark(doc, member) : -1;
    if (i < 0)
        return -1;
    *line = doc->marks[i].line;
    *col = doc->marks[i].col;
    return 0;
}

void cu_yaml_doc_free(struct cu_yaml_doc *doc)
{
    cJSON_Delete(doc->root);
    free(doc->marks);
    memset(doc, 0, sizeof *doc);
}

void cu_yaml_error_format(const struct cu_yaml_error *e, const char *name, char *out,
                          size_t len)
{
    if (name && e->line)
        snprintf(out, len, "%s:%d:%d: %s", name, e->line, e->col, e->msg);
    else if (name)
        snprintf(out, len, "%s: %s", name, e->msg);
    else if (e->line)
        snprintf(out, len, "line %d: %s", e->line, e->msg);
    else
        snprintf(out, len, "%s", e->msg);
}

cJSON *cu_yaml_parse(const char *text, size_t len, const char *name, char *err,
                     size_t errlen)
{
    struct cu_yaml_doc doc;
    struct cu_yaml_error e;
    if (cu_yaml_load(text, len, 0, &doc, &e)) {
        cu_yaml_error_format(&e, name, err, errlen);
        return NULL;
    }
    if (!doc.root) {
        snprintf(e.msg, sizeof e.msg, "an empty document");
        e.line = 0;
        cu_yaml_error_format(&e, name, err, errlen);
    }
    return doc.root;   /* no marks were recorded: nothing else to free */
}

int cu_yaml_load(const char *text, size_t len, unsigned flags, struct cu_yaml_doc *doc,
                 struct cu_yaml_error *err)
{
    struct builder b = {.doc = doc, .err = err, .flags = flags, .text = text, .len = len};
    memset(doc, 0, sizeof *doc);
    memset(err, 0, sizeof *err);
    if ((flags & CU_YAML_MULTI) && !(doc->root = cJSON_CreateArray())) {
        fail_at(&b, NULL, "out of memory");
        return -1;
    }
    cJSON *json = flags & CU_YAML_MARKS ? NULL : plain_json(text, len);
    if (json && (flags & CU_YAML_MULTI))
        cJSON_AddItemToArray(doc->root, json);
    else if (json)
        doc->root = json;
    else if (run_parser(&b))
        goto fail;
    if (cJSON_IsNull(doc->root)) {   /* an empty document */
        cJSON_Delete(doc->root);
        doc->root = NULL;
        doc->n_marks = 0;
    }
    if (doc->n_marks)
        qsort(doc->marks, doc->n_marks, sizeof *doc->marks, mark_cmp);
    return 0;
fail:
    cu_yaml_doc_free(doc);
    return -1;
}

cJSON *cu_yaml_parse_all(const char *text, size_t len, const char *name, char *err,
                         size_t errlen)
{
    struct cu_yaml_doc doc;
    struct cu_yaml_error e;
    if (cu_yaml_load(text, len, CU_YAML_MULTI, &doc, &e)) {
        cu_yaml_error_format(&e, name, err, errlen);
        return NULL;
    }
    return doc.root;   /* no marks were recorded: nothing else to free */
}
