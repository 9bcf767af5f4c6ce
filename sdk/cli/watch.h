/* watch.h — get -w: print the objects, then each change as the server
 * streams it (Server-Sent Events), re-listing when the server says the
 * resume point is too old (410 Gone) and resuming when a stream ends. */
#ifndef CUBECTL_WATCH_H
#define CUBECTL_WATCH_H

#include "cli.h"
#include "print.h"

struct watch_opts {
    const struct kind *kind;
    const char *project;     /* ignored for cluster kinds */
    const char *selector;    /* or NULL */
    const char *name;        /* only this object, or NULL */
    long limit;              /* page size of the (re)lists */
};

/* Prints the current objects through p, then every change until the
 * process is interrupted. Returns EXIT_FAIL after printing why it stopped. */
int watch_run(struct cli *cli, const struct watch_opts *o, struct printer *p);

#endif
