/* yamldoc.h — load YAML (libyaml) into a cJSON tree, remembering where each
 * node came from so validation errors can name file:line:column. */
#ifndef CUBE_YAMLDOC_H
#define CUBE_YAMLDOC_H

#include <stddef.h>

#include <cjson/cJSON.h>

struct cube_errs;

struct cube_yaml_mark {
    const cJSON *node;  /* borrowed from the document's tree */
    int line, col;      /* 1-based */
};

/* One parsed YAML document. Owns root, marks and file. */
struct cube_yaml_doc {
    char *file;                  /* name used in messages */
    cJSON *root;                 /* NULL for an empty document */
    struct cube_yaml_mark *marks;
    size_t n_marks, cap_marks;
};

/* Parses one YAML document from a file. Scalars become strings, numbers,
 * booleans (true/false only) or null following the YAML 1.2 core schema;
 * quoted scalars stay strings. Duplicate mapping keys, anchors/aliases,
 * non-scalar keys and multiple documents are errors. On error, appends
 * "file:line:col: message" to errs and returns -1; doc is then empty. */
int cube_yaml_load_file(const char *path, struct cube_yaml_doc *doc,
                        struct cube_errs *errs);
/* As cube_yaml_load_file, from memory; `name` is used in messages. */
int cube_yaml_load_string(const char *text, size_t len, const char *name,
                          struct cube_yaml_doc *doc, struct cube_errs *errs);
/* Finds where `node` started. Returns 0 and sets line/col, or -1. */
int cube_yaml_mark_of(const struct cube_yaml_doc *doc, const cJSON *node,
                      int *line, int *col);
/* Finds where the key of object member `member` started (for errors about
 * the key itself, such as an unknown key). Returns 0 and sets line/col, or -1. */
int cube_yaml_key_mark_of(const struct cube_yaml_doc *doc,
                          const cJSON *member, int *line, int *col);
/* Frees everything the document owns and zeroes it. */
void cube_yaml_doc_free(struct cube_yaml_doc *doc);

#endif
