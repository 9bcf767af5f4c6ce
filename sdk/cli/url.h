/* url.h — building resource API paths and query strings. Paths are
 * relative to the server URL ("/api/v1/..."); every user-supplied part is
 * percent-encoded. */
#ifndef CUBECTL_URL_H
#define CUBECTL_URL_H

#include <stddef.h>

struct buf;

/* Which objects a list or watch asks for. */
struct url_list_opts {
    const char *selector;      /* label selector as typed, or NULL */
    long limit;                /* page size; 0 = the server's default */
    const char *cont;          /* continue token, or NULL */
    const char *watch_rv;      /* non-NULL: watch, from this resourceVersion
                                  unless "" (then from now) */
};

/* Returns s percent-encoded (malloc'd): unreserved characters and those in
 * `keep` stay as they are. NULL when out of memory. */
char *url_escape(const char *s, const char *keep);
/* Appends the collection path: /api/v1/projects/{project}/{plural}, or
 * /api/v1/{plural} when cluster is set. Returns 0 or -1. */
int url_collection(struct buf *b, const char *plural, int cluster,
                   const char *project);
/* Appends an object path: the collection path, /{name}, and /{sub} when sub
 * is given (e.g. "events", "logs"). Returns 0 or -1. */
int url_object(struct buf *b, const char *plural, int cluster,
               const char *project, const char *name, const char *sub);
/* Appends "/" and seg, percent-encoded. Returns 0 or -1. */
int url_add_segment(struct buf *b, const char *seg);
/* Appends "?key=value" or "&key=value" (value encoded) depending on
 * whether b already holds a '?'. Returns 0 or -1. */
int url_add_query(struct buf *b, const char *key, const char *value);
/* Appends a list's (or watch's) query string from o. Returns 0 or -1. */
int url_list_query(struct buf *b, const struct url_list_opts *o);

#endif
