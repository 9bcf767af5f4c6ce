/* action.h — running a kind's action (POST or GET
 * /api/v1/projects/{p}/{plural}/{name}/{action}, listed under "actions" in
 * GET /api/v1/kinds), the generic path behind stop, run, rerun, ... */
#ifndef CUBECTL_ACTION_H
#define CUBECTL_ACTION_H

#include <cjson/cJSON.h>

#include "cli.h"
#include "manifest.h"

/* How a command prints the answer of its action. */
enum action_show {
    SHOW_MESSAGE,   /* "kind/name <past>" or "kind/name created" */
    SHOW_RAW,       /* the body as it came (export) */
};

struct action_req {
    const char *action;       /* "stop" */
    const cJSON *body;        /* POST body, or NULL for none; GET: query */
    const char *output;       /* -o: json, yaml, or NULL */
    const char *past;         /* "stopped"; NULL: "<action> done" */
    enum action_show show;
    int generic;              /* run as "cubectl ACTION ...": the word may
                                 also be a mistyped command */
};

/* Resolves the target the arguments name: KIND/NAME, KIND NAME, or NAME of
 * default_kind (may be NULL). split backs the parts (and outlives t).
 * Returns 0, or EXIT_FAIL/EXIT_USAGE after printing why. */
int action_target(struct cli *cli, const char *default_kind, struct target *t,
                  char *split, size_t splitlen);
/* Runs the action on t and prints the answer. A kind without that action
 * is refused before any request (EXIT_USAGE, naming the kind's actions).
 * Returns the exit status; *answer, when not NULL, receives the parsed
 * answer (caller frees) for commands that print more. */
int action_run(struct cli *cli, const struct target *t, const struct action_req *a,
               cJSON **answer);

/* Prints doc as output ("json" or "yaml") to stdout. Returns 0 or
 * EXIT_FAIL. */
int action_print(const cJSON *doc, const char *output);

#endif
