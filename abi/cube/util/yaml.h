/* cube/util/yaml.h — YAML (libyaml) to cJSON, strict, with positions
 * (libcube-util; not part of the ABI).
 *
 * Plain scalars follow the YAML 1.2 core schema (null ~ true false, 0x1f,
 * 0o17, 1e3; "yes" and 2024-05-01 stay strings); quoted scalars and !!str
 * stay strings. Refused, with line and column: duplicate mapping keys,
 * anchors and aliases, tags other than the standard ones of the node's
 * kind, non-scalar keys, NUL characters (\u0000 in a quoted string), bytes
 * that are not UTF-8, nesting deeper than CU_YAML_MAX_DEPTH, more than one
 * document (unless CU_YAML_MULTI) and .inf/.nan (unless CU_YAML_NONFINITE:
 * JSON cannot carry them). Input that is one JSON document is read by cJSON
 * (the fast path) when it has none of those faults; otherwise libyaml reads
 * it and names the fault's place. */
#ifndef CUBE_UTIL_YAML_H
#define CUBE_UTIL_YAML_H

#include <stddef.h>

#include <cjson/cJSON.h>

#define CU_YAML_MAX_DEPTH 64

enum {
    CU_YAML_MULTI = 1,      /* a stream: root is an array of the documents */
    CU_YAML_MARKS = 2,      /* record where each node starts (cu_yaml_mark_of) */
    CU_YAML_NONFINITE = 4,  /* read .inf, -.inf and .nan as numbers */
};

/* Where a node started (1-based). */
struct cu_yaml_mark {
    const cJSON *node;    /* borrowed from the document's tree */
    int line, col;
};

/* A parsed document (or stream). Owns root and marks. */
struct cu_yaml_doc {
    cJSON *root;          /* NULL for an empty document (or, MULTI, never) */
    struct cu_yaml_mark *marks;
    size_t n_marks, cap_marks;
};

/* The first fault found. line 0: it has no place (out of memory). */
struct cu_yaml_error {
    int line, col;
    char msg[256];
};

/* Parses len bytes of text into *doc (zeroed first). With CU_YAML_MULTI
 * root is an array of every non-empty document (empty input: []). Returns
 * 0, or -1 with *err filled and *doc empty. */
int cu_yaml_load(const char *text, size_t len, unsigned flags, struct cu_yaml_doc *doc,
                 struct cu_yaml_error *err);
/* Where node started: 0 with line/col set, or -1 (not recorded). For a
 * mapping member this is its value; cu_yaml_key_mark_of gives its key. */
int cu_yaml_mark_of(const struct cu_yaml_doc *doc, const cJSON *node, int *line, int *col);
/* Where the key of mapping member `member` started: 0, or -1. */
int cu_yaml_key_mark_of(const struct cu_yaml_doc *doc, const cJSON *member, int *line,
                        int *col);
/* Frees what doc owns and zeroes it. */
void cu_yaml_doc_free(struct cu_yaml_doc *doc);

/* One document as a new tree: NULL with "name:line:col: message" (or
 * "name: message") in err, also for an empty document. */
cJSON *cu_yaml_parse(const char *text, size_t len, const char *name, char *err,
                     size_t errlen);
/* A stream of documents as a new array of the non-empty ones (empty input:
 * []): NULL with "name:line:col: message" in err. */
cJSON *cu_yaml_parse_all(const char *text, size_t len, const char *name, char *err,
                         size_t errlen);
/* Writes e as "name:line:col: message" (name NULL: "line L: message"). */
void cu_yaml_error_format(const struct cu_yaml_error *e, const char *name, char *out,
                          size_t len);
/* 1 when plain scalar s reads back as a string, also for readers of YAML
 * 1.1 (yes/no/on/off, 1_000, 1:30, dates): a writer quotes it otherwise. */
int cu_yaml_plain_is_string(const char *s);

#endif
