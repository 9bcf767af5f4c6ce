/* kinds.h — the server's kinds (GET /api/v1/kinds): how a name the user
 * typed (widget, widgets, Widget) maps to a plural, a scope and columns. */
#ifndef CUBECTL_KINDS_H
#define CUBECTL_KINDS_H

#include <stddef.h>

#include <cjson/cJSON.h>

struct kind {
    const char *kind;      /* "Widget" */
    const char *plural;    /* "widgets" */
    char label[64];        /* "widget": singular, as in "widget/a created" */
    const char *group;     /* may be "" */
    int cluster;           /* scope "cluster" */
    const cJSON *columns;  /* printerColumns, or NULL */
    const cJSON *actions;  /* [{"name","method","summary"}], or NULL */
};

struct kind_list {
    cJSON *doc;            /* the KindList; kinds point into it */
    struct kind *items;
    size_t n;
};

/* Reads a KindList (taking doc, even on failure) into out. Items without
 * kind or plural are skipped. Returns 0, or -1 when out of memory. */
int kinds_load(cJSON *doc, struct kind_list *out);
/* Finds the kind whose plural, singular or kind name equals name, ignoring
 * case. Returns it or NULL. */
const struct kind *kinds_find(const struct kind_list *l, const char *name);
/* The action of k named name ({"name","method","summary"}), or NULL. */
const cJSON *kinds_action(const struct kind *k, const char *name);
/* Frees the list and zeroes it. */
void kinds_free(struct kind_list *l);

#endif
