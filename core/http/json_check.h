/* json_check.h — what a JSON request body must be before any handler
 * reads it. cJSON accepts, and the store would keep, documents that
 * strict readers see differently: duplicate member names (cJSON reads
 * the first, most clients the last), "\u0000" escapes (the C string ends
 * there: "tg5\u0000evil" reads as "tg5") and bytes that are not UTF-8
 * (served raw, they make whole lists unparseable). */
#ifndef CUBE_JSON_CHECK_H
#define CUBE_JSON_CHECK_H

#include <stddef.h>

#include <cjson/cJSON.h>

/* Where and what: field is a path such as "metadata.labels" or
 * "spec.tasks[2].name" ("" for the document itself). */
#define CUBE_JSON_FIELD_MAX 256

struct cube_json_fault {
    char field[CUBE_JSON_FIELD_MAX];
    char message[320];
};

/* Checks text[0, len) when it holds a JSON object or array as cJSON reads
 * one (leading bytes up to space skipped, anything after the document
 * ignored, as cJSON_Parse does): no NUL byte or "\u0000" escape in it, all
 * strings (member names included) valid UTF-8 (no overlong forms, no
 * surrogates, nothing past U+10FFFF), and no object with two members of
 * the same name, at any depth. Returns 1 with *f filled on the first fault
 * found, else 0 (also when text is not a JSON object or array at all: the
 * handler refuses that in its own words). Reads text only; len may cover
 * bytes past a NUL. */
int cube_json_body_check(const char *text, size_t len, struct cube_json_fault *f);

/* The duplicate-name part alone, over a parsed tree (first duplicate
 * found, depth first). Returns 1 with *f filled, else 0. */
int cube_json_tree_check(const cJSON *root, struct cube_json_fault *f);

#endif
