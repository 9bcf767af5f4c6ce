/* get.h — what cubectl get shares between its one-kind path (cmd_get.c)
 * and its several-targets path (get_many.c). */
#ifndef CUBECTL_GET_H
#define CUBECTL_GET_H

#include "api.h"
#include "print.h"

struct get_opts {
    const char *selector, *output, *limit_s, *sort_by;
    int all, watch;
    long limit;
    enum out_fmt fmt;
    const char *tmpl;        /* -o jsonpath= */
};

/* One thing the command line asks for: an object, or a kind's list. */
struct get_target {
    const struct kind *kind;
    const char *name;        /* NULL: the list */
};

/* GETs one object of k (in the current project) into *obj. Returns 0, or
 * EXIT_FAIL after printing the server's error. */
int get_fetch(struct cli *cli, const struct kind *k, const char *name, cJSON **obj);
/* Lists k into items: from every project with -A, else from the current
 * one (cluster kinds ignore projects); *rv gets the resourceVersion.
 * Returns 0, or EXIT_FAIL after printing why. */
int get_list_into(struct cli *cli, const struct kind *k, const struct get_opts *o,
                  cJSON *items, char **rv);
/* Prints several targets: one table per kind (NAME as kind/name when
 * there are several kinds), or one "List" document. A missing object is
 * reported and the others still print. Returns the exit status. */
int get_many(struct cli *cli, const struct get_target *t, size_t n,
             const struct get_opts *o);

#endif
