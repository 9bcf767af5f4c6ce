/* fuzz_config.c — libFuzzer target: arbitrary bytes through the YAML loader,
 * the cube.yaml key checks, and plugin config validation against a fixed
 * schema. Crashes, leaks, sanitizer reports and broken invariants (a node
 * without a position, a failure without a message) are findings. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "config/config.h"
#include "base/errs.h"
#include "base/yamldoc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char SCHEMA[] =
    "{\"type\": \"object\", \"required\": [\"name\"],"
    " \"properties\": {"
    "  \"name\": {\"type\": \"string\", \"minLength\": 1},"
    "  \"port\": {\"type\": \"integer\", \"minimum\": 1, \"default\": 80},"
    "  \"tags\": {\"type\": \"array\", \"items\": {\"type\": \"string\"}},"
    "  \"db\": {\"type\": \"object\", \"required\": [\"url\"],"
    "          \"properties\": {\"url\": {\"type\": \"string\"},"
    "                         \"pool\": {\"type\": \"integer\", \"default\": 4}}}}}";

static void check_marks(const struct cube_yaml_doc *doc)
{
    for (size_t i = 0; i < doc->n_marks; i++) {
        int line, col;
        if (cube_yaml_mark_of(doc, doc->marks[i].node, &line, &col) ||
            line < 1 || col < 1)
            abort();
    }
}

/* Treats the document as a conf.d file's config: section. */
static void validate_as_plugin(struct cube_yaml_doc *doc,
                               struct cube_errs *errs)
{
    struct cube_plugin_conf pc = {.name = "fuzz", .enabled = 1,
                                  .file = doc->file, .line = 1, .col = 1};
    cJSON *out = NULL;
    pc.doc = *doc;
    pc.config = cJSON_IsObject(doc->root) ? doc->root : NULL;
    size_t before = cube_errs_count(errs);
    int rc = cube_config_validate_plugin(&pc, SCHEMA, &out, errs);
    if ((rc == 0) != (cube_errs_count(errs) == before) || (rc == 0) != !!out)
        abort();
    cJSON_Delete(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    struct cube_yaml_doc doc;
    struct cube_errs errs = {0};
    struct cube_config cfg;
    if (cube_yaml_load_string(text, size, "fuzz.yaml", &doc, &errs)) {
        if (cube_errs_count(&errs) == 0)
            abort();
        cube_errs_clear(&errs);
        return 0;
    }
    check_marks(&doc);
    validate_as_plugin(&doc, &errs);
    cube_yaml_doc_free(&doc);
    if (cube_config_load_yaml_string(text, size, "fuzz.yaml", &cfg, &errs) &&
        cube_errs_count(&errs) == 0)
        abort();
    cube_config_free(&cfg);
    cube_errs_clear(&errs);
    return 0;
}
