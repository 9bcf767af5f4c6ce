/* yaml_parse.c — YAML (libyaml events) to cJSON; see yaml_conv.h. */
#include "yaml_conv.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#define MAX_DEPTH 64   /* deeper nesting is refused, not recursed into */

struct frame {
    cJSON *node;   /* the open mapping or sequence */
    char *key;     /* mapping: key read, value not yet; else NULL */
};

struct state {
    const char *name;
    char *err;
    size_t errlen;
    struct frame stack[MAX_DEPTH];
    int depth;
    cJSON *root;   /* the current document's root, until it ends */
    cJSON *docs;
};

static void fail(struct state *s, const yaml_mark_t *m, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void fail(struct state *s, const yaml_mark_t *m, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(s->err, s->errlen, "%s:%d:%d: %s", s->name, (int)m->line + 1,
             (int)m->column + 1, msg);
}

static int is_one_of(const char *s, const char *const *words)
{
    for (; *words; words++)
        if (!strcmp(s, *words))
            return 1;
    return 0;
}

static int all_of(const char *s, const char *set)
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
    if (*s == '-' || *s == '+')
        s++;
    size_t n = strspn(s, "0123456789");
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
        return all_of(s, "0123456789");
    }
    return *s == '\0';
}

static const char *const nulls[] = {"", "~", "null", "Null", "NULL", 0};
static const char *const trues[] = {"true", "True", "TRUE", 0};
static const char *const falses[] = {"false", "False", "FALSE", 0};
static const char *const specials[] = {".inf", ".Inf", ".INF", "-.inf",
    "-.Inf", "-.INF", "+.inf", ".nan", ".NaN", ".NAN", 0};

/* Resolves a plain scalar; NULL with *unrepresentable set for .inf/.nan,
 * which JSON cannot carry. */
static cJSON *resolve_plain(const char *s, int *unrepresentable)
{
    *unrepresentable = 0;
    if (is_one_of(s, nulls))
        return cJSON_CreateNull();
    if (is_one_of(s, trues))
        return cJSON_CreateTrue();
    if (is_one_of(s, falses))
        return cJSON_CreateFalse();
    if (!strncmp(s, "0o", 2) && all_of(s + 2, "01234567"))
        return cJSON_CreateNumber((double)strtoull(s + 2, NULL, 8));
    if (!strncmp(s, "0x", 2) && all_of(s + 2, "0123456789abcdefABCDEF"))
        return cJSON_CreateNumber((double)strtoull(s + 2, NULL, 16));
    if (is_core_float(s))
        return cJSON_CreateNumber(strtod(s, NULL));
    if (is_one_of(s, specials)) {
        *unrepresentable = 1;
        return NULL;
    }
    return cJSON_CreateString(s);
}

/* YAML 1.1 also reads 1_000, 0b101, 1:30 (base 60) and dates as
 * non-strings; anything close to those is quoted on output. */
static int old_number_or_date(const char *s)
{
    const char *d = (*s == '-' || *s == '+') ? s + 1 : s;
    if (strspn(s, "0123456789") == 4 && s[4] == '-')
        return 1;
    if (!((*d >= '0' && *d <= '9') || (*d == '.' && d[1] >= '0' && d[1] <= '9')))
        return 0;
    return strspn(d, "0123456789_:.eE+-xXoObBabcdefABCDEF") == strlen(d);
}

int yaml_plain_is_string(const char *s)
{
    /* YAML 1.1 readers (still common) take these as booleans. */
    static const char *const old_bools[] = {"y", "Y", "yes", "Yes", "YES",
        "n", "N", "no", "No", "NO", "on", "On", "ON", "off", "Off", "OFF", 0};
    int special;
    if (is_one_of(s, old_bools) || is_one_of(s, specials) || old_number_or_date(s))
        return 0;
    cJSON *v = resolve_plain(s, &special);
    int str = v && cJSON_IsString(v);
    cJSON_Delete(v);
    return str;
}

static cJSON *scalar_node(struct state *s, const yaml_event_t *ev)
{
    const char *text = (const char *)ev->data.scalar.value;
    const char *tag = (const char *)ev->data.scalar.tag;
    int special;
    if (ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE ||
        (tag && (!strcmp(tag, "!") || !strcmp(tag, YAML_STR_TAG))))
        return cJSON_CreateString(text);
    cJSON *v = resolve_plain(text, &special);
    if (!v && special)
        fail(s, &ev->start_mark, "%s cannot be represented in JSON", text);
    return v;
}

/* Places a finished or opened node where it belongs: document root, next
 * sequence item, or the value of the pending mapping key. Takes node. */
static int attach(struct state *s, cJSON *node, const yaml_mark_t *m)
{
    if (s->depth == 0) {
        s->root = node;
        return 0;
    }
    struct frame *f = &s->stack[s->depth - 1];
    if (cJSON_IsArray(f->node)) {
        cJSON_AddItemToArray(f->node, node);
        return 0;
    }
    int ok = cJSON_AddItemToObject(f->node, f->key, node);
    free(f->key);
    f->key = NULL;
    if (!ok) {
        cJSON_Delete(node);
        fail(s, m, "out of memory");
        return -1;
    }
    return 0;
}

/* A scalar in key position of a mapping: remember it, refusing repeats. */
static int take_key(struct state *s, const yaml_event_t *ev)
{
    struct frame *f = &s->stack[s->depth - 1];
    const char *key = (const char *)ev->data.scalar.value;
    if (cJSON_GetObjectItemCaseSensitive(f->node, key)) {
        fail(s, &ev->start_mark, "duplicate key \"%s\"", key);
        return -1;
    }
    f->key = strdup(key);
    if (!f->key) {
        fail(s, &ev->start_mark, "out of memory");
        return -1;
    }
    return 0;
}

static int in_key_position(const struct state *s)
{
    const struct frame *f = s->depth ? &s->stack[s->depth - 1] : NULL;
    return f && cJSON_IsObject(f->node) && !f->key;
}

static int open_collection(struct state *s, const yaml_event_t *ev, int map)
{
    if (in_key_position(s)) {
        fail(s, &ev->start_mark, "mapping keys must be scalars");
        return -1;
    }
    if (s->depth == MAX_DEPTH) {
        fail(s, &ev->start_mark, "nesting deeper than %d levels", MAX_DEPTH);
        return -1;
    }
    cJSON *node = map ? cJSON_CreateObject() : cJSON_CreateArray();
    if (!node || attach(s, node, &ev->start_mark)) {
        if (!node)
            fail(s, &ev->start_mark, "out of memory");
        return -1;
    }
    s->stack[s->depth++] = (struct frame){node, NULL};
    return 0;
}

static int end_document(struct state *s)
{
    if (s->root && !cJSON_IsNull(s->root))
        cJSON_AddItemToArray(s->docs, s->root);
    else
        cJSON_Delete(s->root);
    s->root = NULL;
    return 0;
}

static int on_event(struct state *s, const yaml_event_t *ev)
{
    switch (ev->type) {
    case YAML_SCALAR_EVENT: {
        if (in_key_position(s))
            return take_key(s, ev);
        cJSON *v = scalar_node(s, ev);
        if (!v && !*s->err)
            fail(s, &ev->start_mark, "out of memory");
        return v ? attach(s, v, &ev->start_mark) : -1;
    }
    case YAML_SEQUENCE_START_EVENT:
        return open_collection(s, ev, 0);
    case YAML_MAPPING_START_EVENT:
        return open_collection(s, ev, 1);
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT:
        s->depth--;
        return 0;
    case YAML_ALIAS_EVENT:
        fail(s, &ev->start_mark, "anchors and aliases are not supported");
        return -1;
    case YAML_DOCUMENT_END_EVENT:
        return end_document(s);
    default:
        return 0;
    }
}

static void parser_error(struct state *s, const yaml_parser_t *p)
{
    const char *problem = p->problem ? p->problem : "invalid YAML";
    yaml_mark_t m = p->problem_mark;
    if (p->error == YAML_MEMORY_ERROR)
        snprintf(s->err, s->errlen, "%s: out of memory", s->name);
    else if (p->context)
        fail(s, &m, "%s (%s)", problem, p->context);
    else
        fail(s, &m, "%s", problem);
}

/* JSON first: its error-free fast path, and YAML readers differ on some
 * JSON corners (tabs, "a":1 without a space). NULL when text is not JSON. */
static cJSON *try_json(const char *text, size_t len)
{
    size_t i = strspn(text, " \t\r\n");
    if (i >= len || (text[i] != '{' && text[i] != '['))
        return NULL;
    const char *end = NULL;
    cJSON *v = cJSON_ParseWithLengthOpts(text, len, &end, 0);
    if (!v)
        return NULL;
    size_t rest = (size_t)(end - text);
    if (rest < len && strspn(end, " \t\r\n") < len - rest) {
        cJSON_Delete(v);   /* e.g. a YAML flow mapping followed by more */
        return NULL;
    }
    return v;
}

static void unwind(struct state *s)
{
    for (int i = 0; i < s->depth; i++)
        free(s->stack[i].key);
    cJSON_Delete(s->root);
    s->root = NULL;
}

cJSON *yaml_parse_docs(const char *text, size_t len, const char *name,
                       char *err, size_t errlen)
{
    struct state s = {.name = name, .err = err, .errlen = errlen};
    err[0] = '\0';
    s.docs = cJSON_CreateArray();
    cJSON *json = s.docs ? try_json(text, len) : NULL;
    if (json) {
        cJSON_AddItemToArray(s.docs, json);
        return s.docs;
    }
    yaml_parser_t p;
    if (!s.docs || !yaml_parser_initialize(&p)) {
        snprintf(err, errlen, "%s: out of memory", name);
        cJSON_Delete(s.docs);
        return NULL;
    }
    yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
    for (int done = 0, rc = 0; !done && !rc;) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&p, &ev)) {
            parser_error(&s, &p);
            break;
        }
        rc = on_event(&s, &ev);
        done = ev.type == YAML_STREAM_END_EVENT;
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&p);
    if (*err) {
        unwind(&s);
        cJSON_Delete(s.docs);
        return NULL;
    }
    return s.docs;
}
