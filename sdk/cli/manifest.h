/* manifest.h — objects from -f FILE: YAML documents or JSON, and where
 * each one lives on the server. */
#ifndef CUBECTL_MANIFEST_H
#define CUBECTL_MANIFEST_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "cli.h"

/* Where one object lives. */
struct target {
    const struct kind *kind;
    const char *project;    /* NULL for cluster kinds */
    const char *name;
};

/* Reads the objects in path ("-": standard input): YAML documents or JSON;
 * a JSON array or a "...List" document with items stands for its items.
 * Each must be a mapping. Returns a cJSON array, or NULL after printing
 * why (file:line:column for YAML errors). */
cJSON *manifest_read(const char *path);
/* Resolves obj's kind, name and project (metadata.project, else the
 * current one; a -p that disagrees with the file is an error). Returns 0,
 * or EXIT_FAIL after printing why. */
int manifest_target(struct cli *cli, const cJSON *obj, struct target *t);
/* Resolves the target the command line names: "KIND NAME" or "KIND/NAME"
 * in cli->pos, in the current project. split holds the copy KIND/NAME is
 * cut in (and must outlive t). Returns 0, or EXIT_FAIL/EXIT_USAGE after
 * printing why. */
int manifest_target_args(struct cli *cli, struct target *t, char *split,
                         size_t splitlen);
/* Appends t's object path (with /sub when sub is not NULL). Returns 0/-1. */
int manifest_path(const struct target *t, const char *sub, struct buf *b);

#endif
