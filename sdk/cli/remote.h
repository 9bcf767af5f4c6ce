/* remote.h — a project's files on the server (GET/PUT/HEAD
 * /api/v1/projects/{project}/files/{path}): what a path is, a directory's
 * listing, and one file up or down. Paths are relative to the project's
 * directory, "" being the directory itself. Functions returning int give
 * 0, or EXIT_FAIL after printing why (the server's message, or the local
 * error). */
#ifndef CUBECTL_REMOTE_H
#define CUBECTL_REMOTE_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "cli.h"

enum remote_kind { REMOTE_MISSING, REMOTE_FILE, REMOTE_DIR };

/* Appends the API path of path in project. Returns 0 or -1 (OOM). */
int remote_url(struct buf *b, const char *project, const char *path);
/* What path is (one HEAD). A 404 is REMOTE_MISSING when missing_ok, else
 * a failure with the server's message. */
int remote_stat(struct cli *cli, const char *project, const char *path,
                int missing_ok, enum remote_kind *kind);
/* The entries of the directory path ({"name","size","dir","modified"}):
 * *items, a new array. A listing the server cut short is a failure. */
int remote_list(struct cli *cli, const char *project, const char *path, cJSON **items);
/* Writes size bytes from f (< 0: until its end) to the file path. */
int remote_put(struct cli *cli, const char *project, const char *path, FILE *f,
               long long size);
/* Copies the file path to the local file dest ("-": standard output),
 * through a temp file beside dest that is renamed over it at the end. */
int remote_get(struct cli *cli, const char *project, const char *path, const char *dest);
/* 1 when a listed name can be a local file's name: not empty, not
 * starting with '.', without '/' (a server's listing is not trusted). */
int remote_name_ok(const char *name);

#endif
