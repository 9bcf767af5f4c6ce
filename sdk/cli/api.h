/* api.h — calls to the resource API: JSON in and out, the server's error
 * messages, the kinds, and lists that follow `continue` to the end. */
#ifndef CUBECTL_API_H
#define CUBECTL_API_H

#include <cjson/cJSON.h>

#include "buf.h"
#include "cli.h"

struct api_result {
    long status;
    cJSON *json;        /* the body when it parsed as JSON, else NULL */
    struct buf text;    /* the body as received */
};

/* Sends a request (body: JSON text or NULL) and parses the answer.
 * Returns 0 once any answer came, or EXIT_FAIL after printing why not. */
int api_call(struct cli *cli, const char *method, const char *path,
             const char *ctype, const char *body, struct api_result *r);
/* 1 for a 2xx status. */
int api_ok(const struct api_result *r);
/* Prints the server's error ("Error from server (Code): field: message")
 * to stderr. Returns EXIT_FAIL. */
int api_fail(const struct api_result *r);
/* api_fail for a streamed answer's non-2xx status and body (taken from
 * resp). Returns EXIT_FAIL. */
int api_fail_resp(struct http_resp *resp);
/* Frees r and zeroes it. */
void api_result_free(struct api_result *r);
/* Fetches the server's kinds into cli->kinds once. Returns 0, or EXIT_FAIL
 * after printing why (no resource API, unreachable). */
int api_kinds(struct cli *cli);
/* Resolves a kind name the user typed, fetching the kinds once. Returns it,
 * or NULL after printing why (unknown kind, no resource API, unreachable). */
const struct kind *api_kind(struct cli *cli, const char *name);
/* Resolves a manifest's `kind:` (a Kind name) the same way. */
const struct kind *api_kind_of(struct cli *cli, const cJSON *obj);
/* Lists kind k in project (ignored for cluster kinds) page by page
 * (limit: page size, 0 = server's), appending the items to `items` and
 * setting *rv (malloc'd, may be NULL) to the last page's resourceVersion.
 * Returns 0, or EXIT_FAIL after printing why. */
int api_list(struct cli *cli, const struct kind *k, const char *project,
             const char *selector, long limit, cJSON *items, char **rv);
/* Appends every project object (all pages) to items. Returns 0, or
 * EXIT_FAIL after printing why (also when the server has no projects API). */
int api_projects(struct cli *cli, cJSON *items);
/* Appends the names of all projects to `names`. Returns 0, or EXIT_FAIL
 * after printing why (also when the server has no projects API). */
int api_project_names(struct cli *cli, cJSON *names);
/* Asks the server (GET /api/v1/auth/me) which project the caller should
 * act in when none is set: its default project when the caller may use
 * it, else the caller's first project. Sets *out (malloc'd; NULL when the
 * server names none). Returns 0, or EXIT_FAIL when the server would not
 * say (nothing printed, but for an unreachable server). */
int api_default_project(struct cli *cli, char **out);
/* The string at obj.metadata.<key>, or NULL. */
const char *api_meta(const cJSON *obj, const char *key);

#endif
