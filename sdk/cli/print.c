/* print.c — see print.h. */
#include "print.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "age.h"
#include "buf.h"
#include "json_pretty.h"
#include "jsonpath.h"
#include "jsonpath_tmpl.h"
#include "yaml_conv.h"

#define MAX_COLS 32

int print_format(const char *s, enum out_fmt *fmt, const char **tmpl)
{
    static const char *const names[] = {"table", "json", "yaml", "name"};
    for (int i = 0; i < 4; i++)
        if (!strcmp(s, names[i])) {
            *fmt = (enum out_fmt)i;
            return 0;
        }
    if (!strncmp(s, "jsonpath=", 9)) {
        *fmt = OUT_JSONPATH;
        *tmpl = s + 9;
        return 0;
    }
    return strcmp(s, "wide") ? -1 : -2;
}

/* The headers: [PROJECT] NAME <printer columns> AGE, upper-cased. */
static size_t headers(const struct kind *k, int with_project, char names[][64])
{
    size_t n = 0;
    if (with_project)
        snprintf(names[n++], 64, "PROJECT");
    snprintf(names[n++], 64, "NAME");
    const cJSON *col;
    cJSON_ArrayForEach(col, k->columns) {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(col, "name");
        if (n + 1 >= MAX_COLS || !cJSON_IsString(name))
            continue;
        snprintf(names[n], 64, "%s", name->valuestring);
        for (char *c = names[n]; *c; c++)
            if (*c >= 'a' && *c <= 'z')
                *c = (char)(*c - 'a' + 'A');
        n++;
    }
    snprintf(names[n++], 64, "AGE");
    return n;
}

int print_init(struct printer *p, enum out_fmt fmt, const struct kind *k,
               int with_project, FILE *out)
{
    char names[MAX_COLS][64];
    const char *ptrs[MAX_COLS];
    memset(p, 0, sizeof *p);
    p->fmt = fmt;
    p->kind = k;
    p->with_project = with_project;
    p->out = out;
    size_t n = headers(k, with_project, names);
    for (size_t i = 0; i < n; i++)
        ptrs[i] = names[i];
    return table_init(&p->table, n, ptrs);
}

/* A printer column's cell; "date" columns show as an age like AGE. */
static char *column_cell(const cJSON *col, const cJSON *obj, time_t now)
{
    const cJSON *path = cJSON_GetObjectItemCaseSensitive(col, "jsonPath");
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(col, "type");
    const cJSON *v = cJSON_IsString(path) ? jsonpath_get(obj, path->valuestring) : NULL;
    if (v && cJSON_IsString(type) && !strcmp(type->valuestring, "date")) {
        char age[32];
        age_of(v, now, age, sizeof age);
        return strdup(age);
    }
    return jsonpath_cell(v);
}

int print_row(struct printer *p, const cJSON *obj, time_t now)
{
    char *cells[MAX_COLS] = {0};
    char age[32];
    size_t n = 0;
    struct table *t = &p->table;
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(m, "name");
    if (p->with_project)
        cells[n++] = jsonpath_cell(cJSON_GetObjectItemCaseSensitive(m, "project"));
    if (p->kind_prefix && cJSON_IsString(name)) {
        if (asprintf(&cells[n++], "%s/%s", p->kind->label, name->valuestring) < 0)
            cells[n - 1] = NULL;
    } else {
        cells[n++] = jsonpath_cell(name);
    }
    const cJSON *col;
    cJSON_ArrayForEach(col, p->kind->columns) {
        const cJSON *cname = cJSON_GetObjectItemCaseSensitive(col, "name");
        if (n + 1 < t->ncols && cJSON_IsString(cname))
            cells[n++] = column_cell(col, obj, now);
    }
    age_of(cJSON_GetObjectItemCaseSensitive(m, "created"), now, age, sizeof age);
    cells[n++] = strdup(age);
    int rc = 0;
    for (size_t i = 0; i < n; i++)
        rc |= !cells[i];
    rc = rc || n != t->ncols ? -1 : table_add(t, (const char *const *)cells);
    for (size_t i = 0; i < n; i++)
        free(cells[i]);
    return rc;
}

/* Writes b to the output and empties it; flushes so watches show at once. */
static int flush_buf(struct printer *p, struct buf *b)
{
    int rc = fwrite(buf_str(b), 1, b->len, p->out) == b->len ? 0 : -1;
    buf_free(b);
    fflush(p->out);
    return rc;
}

static int print_json(struct printer *p, const cJSON *v, int pretty)
{
    struct buf b = {0};
    char *line = pretty ? NULL : cJSON_PrintUnformatted(v);
    int rc = pretty ? json_pretty(v, &b) : !line || buf_printf(&b, "%s\n", line);
    free(line);
    if (rc) {
        buf_free(&b);
        return -1;
    }
    return flush_buf(p, &b);
}

static int print_yaml(struct printer *p, const cJSON *v, int explicit_start)
{
    struct buf b = {0};
    if (yaml_emit(v, explicit_start, &b)) {
        buf_free(&b);
        return -1;
    }
    return flush_buf(p, &b);
}

static int print_name(struct printer *p, const cJSON *obj)
{
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(m, "name");
    fprintf(p->out, "%s/%s\n", p->kind->label,
            cJSON_IsString(name) ? name->valuestring : "");
    fflush(p->out);
    return 0;
}

static int print_jsonpath(struct printer *p, const cJSON *doc)
{
    struct buf b = {0};
    char err[256];
    if (jsonpath_tmpl_run(p->tmpl, doc, &b, err, sizeof err)) {
        fprintf(stderr, "error: %s\n", err);
        buf_free(&b);
        return -1;
    }
    return flush_buf(p, &b);
}

int print_doc(struct printer *p, const cJSON *doc)
{
    if (p->fmt == OUT_JSONPATH)
        return print_jsonpath(p, doc);
    return p->fmt == OUT_JSON ? print_json(p, doc, 1) : print_yaml(p, doc, 0);
}

/* Prints the table rows from index `from` on (0: the header first). */
static int print_rows_from(struct printer *p, size_t from)
{
    struct buf b = {0};
    if (table_render(&p->table, from, &b)) {
        buf_free(&b);
        return -1;
    }
    p->started = 1;
    return flush_buf(p, &b);
}

int print_list(struct printer *p, const cJSON *items, const char *rv)
{
    const cJSON *item;
    time_t now = time(NULL);
    if (p->fmt == OUT_TABLE) {
        cJSON_ArrayForEach(item, items)
            if (print_row(p, item, now))
                return -1;
        return print_rows_from(p, 0);
    }
    if (p->fmt == OUT_NAME) {
        cJSON_ArrayForEach(item, items)
            print_name(p, item);
        return 0;
    }
    /* JSON and YAML: one list document, as the server would answer */
    char kind[128];
    snprintf(kind, sizeof kind, "%sList", p->kind->kind);
    cJSON *list = cJSON_CreateObject();
    cJSON *meta = cJSON_CreateObject();
    cJSON_AddStringToObject(list, "kind", kind);
    cJSON_AddItemReferenceToObject(list, "items", (cJSON *)items);
    cJSON_AddItemToObject(list, "metadata", meta);
    if (rv)
        cJSON_AddStringToObject(meta, "resourceVersion", rv);
    int rc = print_doc(p, list);
    cJSON_Delete(list);   /* the reference leaves items alone */
    return rc;
}

int print_object(struct printer *p, const cJSON *obj)
{
    switch (p->fmt) {
    case OUT_TABLE:
        if (print_row(p, obj, time(NULL)))
            return -1;
        return print_rows_from(p, 0);
    case OUT_NAME:
        return print_name(p, obj);
    default:
        return print_doc(p, obj);
    }
}

int print_event(struct printer *p, const char *type, const cJSON *obj)
{
    if (p->fmt == OUT_TABLE) {
        if (print_row(p, obj, time(NULL)))
            return -1;
        return print_rows_from(p, p->started ? p->table.nrows - 1 : 0);
    }
    if (p->fmt == OUT_NAME)
        return print_name(p, obj);
    if (p->fmt == OUT_JSONPATH)   /* each object, as kubectl does */
        return print_jsonpath(p, obj);
    cJSON *ev = cJSON_CreateObject();
    cJSON_AddStringToObject(ev, "type", type);
    cJSON_AddItemReferenceToObject(ev, "object", (cJSON *)obj);
    int rc = p->fmt == OUT_JSON ? print_json(p, ev, 0) : print_yaml(p, ev, 1);
    cJSON_Delete(ev);
    return rc;
}

void print_free(struct printer *p)
{
    table_free(&p->table);
}
