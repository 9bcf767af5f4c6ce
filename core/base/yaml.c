/* yaml.c — cubed's YAML documents (cube.yaml, conf.d) over libcube-util's
 * reader; see yamldoc.h. What this file adds is the file name in messages,
 * the error list (errs.h) and a size cap on the files read. */
#include "yamldoc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <cube/util/str.h>

#include "errs.h"

#define MAX_FILE_BYTES (16u << 20)    /* config files are small */

int cube_yaml_load_string(const char *text, size_t len, const char *name,
                          struct cube_yaml_doc *doc, struct cube_errs *errs)
{
    struct cu_yaml_error e;
    char msg[512];
    memset(doc, 0, sizeof *doc);
    doc->file = strdup(name ? name : "<string>");
    if (!doc->file) {
        cube_errs_add(errs, "%s: out of memory", name ? name : "<string>");
        return -1;
    }
    if (cu_yaml_load(text, len, CU_YAML_MARKS | CU_YAML_NONFINITE, &doc->y, &e) != 0) {
        cu_yaml_error_format(&e, doc->file, msg, sizeof msg);
        cube_errs_add(errs, "%s", msg);
        cube_yaml_doc_free(doc);
        return -1;
    }
    doc->root = doc->y.root;
    doc->marks = doc->y.marks;
    doc->n_marks = doc->y.n_marks;
    return 0;
}

int cube_yaml_load_file(const char *path, struct cube_yaml_doc *doc,
                        struct cube_errs *errs)
{
    size_t len = 0;
    memset(doc, 0, sizeof *doc);
    char *text = cu_file_read(path, MAX_FILE_BYTES, &len);
    if (!text) {
        cube_errs_add(errs, "%s: cannot read: %s", path,
                      errno == EFBIG ? "larger than 16 MiB" : strerror(errno));
        return -1;
    }
    int rc = cube_yaml_load_string(text, len, path, doc, errs);
    free(text);
    return rc;
}

int cube_yaml_mark_of(const struct cube_yaml_doc *doc, const cJSON *node,
                      int *line, int *col)
{
    return cu_yaml_mark_of(&doc->y, node, line, col);
}

int cube_yaml_key_mark_of(const struct cube_yaml_doc *doc,
                          const cJSON *member, int *line, int *col)
{
    return cu_yaml_key_mark_of(&doc->y, member, line, col);
}

void cube_yaml_doc_free(struct cube_yaml_doc *doc)
{
    cu_yaml_doc_free(&doc->y);
    free(doc->file);
    memset(doc, 0, sizeof *doc);
}
