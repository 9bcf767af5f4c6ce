/* print.h — showing objects: a table (NAME, the kind's printer columns,
 * AGE), JSON, YAML, or kind/name lines; whole lists or one watch event at
 * a time. */
#ifndef CUBECTL_PRINT_H
#define CUBECTL_PRINT_H

#include <stdio.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "kinds.h"
#include "table.h"

enum out_fmt { OUT_TABLE, OUT_JSON, OUT_YAML, OUT_NAME, OUT_JSONPATH };

struct printer {
    enum out_fmt fmt;
    const char *tmpl;     /* OUT_JSONPATH: the template */
    const struct kind *kind;
    int with_project;     /* a PROJECT column first (-A) */
    int kind_prefix;      /* NAME cells as kind/name (several kinds shown) */
    struct table table;   /* rows so far; widths carry over between events */
    int started;          /* the header (or first document) is out */
    FILE *out;
};

/* Parses an -o value: table, json, yaml, name or jsonpath=TEMPLATE (*tmpl
 * then points into s). Returns 0, -1 for an unknown format, -2 for "wide"
 * (kinds have no extra columns to show). */
int print_format(const char *s, enum out_fmt *fmt, const char **tmpl);
/* Prepares p. Returns 0, or -1 when out of memory. */
int print_init(struct printer *p, enum out_fmt fmt, const struct kind *k,
               int with_project, FILE *out);
/* Prints a whole list (items of k) in p's format; JSON and YAML as one
 * "<Kind>List" document carrying resourceVersion rv (may be NULL).
 * Returns 0 or -1. */
int print_list(struct printer *p, const cJSON *items, const char *rv);
/* Prints doc (an object or a list document) as JSON, YAML or through
 * the jsonpath template. Returns 0 or -1. */
int print_doc(struct printer *p, const cJSON *doc);
/* Prints one object as get NAME shows it. Returns 0 or -1. */
int print_object(struct printer *p, const cJSON *obj);
/* Prints one watch update: a table row (header first), a JSON line
 * {"type":..,"object":..}, a YAML document of the same, or kind/name.
 * Returns 0 or -1. */
int print_event(struct printer *p, const char *type, const cJSON *obj);
/* Frees p. */
void print_free(struct printer *p);
/* Appends a table row for obj to p's table. Returns 0 or -1. */
int print_row(struct printer *p, const cJSON *obj, time_t now);

#endif
