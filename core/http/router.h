/* router.h — HTTP path templates: "/api/v1/projects/{project}/jobs/{name}".
 *
 * A trie of path segments. A segment is a literal, a `{param}` (one whole
 * segment) or, last, a `{param*}` (the rest of the path, one or more
 * segments). Literals win over params, params over rest-params; matching
 * backtracks, so "/a/{x}/c" and "/a/b/{y}" both work. Not thread-safe for
 * adds; matching is read-only and safe once all routes are added. */
#ifndef CUBE_ROUTER_H
#define CUBE_ROUTER_H

#include <stddef.h>

#define CUBE_ROUTE_MAX_PARAMS 16
#define CUBE_ROUTE_MAX_SEGMENTS 64

struct cube_router;

enum cube_route_result {
    CUBE_ROUTE_FOUND = 0,
    CUBE_ROUTE_NOT_FOUND = 1,    /* no template matches the path */
    CUBE_ROUTE_BAD_METHOD = 2,   /* a template matches, not for this method */
};

struct cube_route_param {
    const char *name;  /* borrowed from the router */
    char *value;       /* owned by the match; percent-decoded */
};

struct cube_route_match {
    void *target;                 /* what cube_router_add was given */
    const char *pattern;          /* the template; borrowed from the router */
    size_t n_params;
    struct cube_route_param params[CUBE_ROUTE_MAX_PARAMS];
    char allow[64];               /* for BAD_METHOD: "GET, POST" */
};

/* Creates an empty router. NULL on OOM. */
struct cube_router *cube_router_new(void);
/* Frees the router (targets are not freed: they belong to the caller). */
void cube_router_free(struct cube_router *r);
/* Adds method + template -> target. Returns 0; -1 with err for a malformed
 * template (empty segment, bad param name, `{x*}` not last, duplicate param
 * name, too many segments) or an unknown method; -2 when the same method and
 * an equivalent template (same shape) already exist. */
int cube_router_add(struct cube_router *r, const char *method,
                    const char *pattern, void *target, char *err,
                    size_t errlen);
/* 1 when a route with the same method and template shape exists (the
 * template must already be known valid, e.g. added to another router). */
int cube_router_conflicts(const struct cube_router *r, const char *method,
                          const char *pattern);
/* Matches a raw (still percent-encoded) path without query string. Each
 * segment is decoded after splitting, so "%2F" stays inside a param.
 * HEAD matches GET routes. A malformed escape or a NUL byte gives NOT_FOUND.
 * On FOUND the caller must cube_route_match_clear(m). */
enum cube_route_result cube_router_match(const struct cube_router *r,
                                         const char *method, const char *path,
                                         struct cube_route_match *m);
/* Looks up a param by name in a match; NULL when absent. */
const char *cube_route_match_param(const struct cube_route_match *m,
                                   const char *name);
/* Frees the param values of a match. Safe on a zeroed or cleared match. */
void cube_route_match_clear(struct cube_route_match *m);
/* Decodes %XX escapes in place; returns -1 on a malformed escape or %00. */
int cube_percent_decode(char *s);

#endif
