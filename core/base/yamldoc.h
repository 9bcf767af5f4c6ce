/* yamldoc.h — load YAML into a cJSON tree, remembering where each node came
 * from so validation errors can name file:line:column. A thin layer over
 * libcube-util's reader (<cube/util/yaml.h>), the one plugins and cubectl
 * use too: the same YAML means the same thing to all three. */
#ifndef CUBE_YAMLDOC_H
#define CUBE_YAMLDOC_H

#include <stddef.h>

#include <cjson/cJSON.h>
#include <cube/util/yaml.h>

struct cube_errs;

/* One parsed YAML document. Owns file and everything in `y`; root, marks
 * and n_marks are y's, borrowed (read them, never free them). */
struct cube_yaml_doc {
    char *file;                  /* name used in messages */
    cJSON *root;                 /* NULL for an empty document */
    const struct cu_yaml_mark *marks;
    size_t n_marks;
    struct cu_yaml_doc y;
};

/* Parses one YAML document from a file. Scalars become strings, numbers,
 * booleans (true/false only) or null following the YAML 1.2 core schema
 * (.inf and .nan too); quoted scalars stay strings. Duplicate mapping keys,
 * anchors/aliases, odd tags, NULs, bad UTF-8, nesting past 64 levels and
 * multiple documents are errors. On error, appends "file:line:col: message"
 * to errs and returns -1; doc is then empty. */
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
