/* schema_fixture.h — what the JSON Schema validator's unit tests share:
 * schemas and instances given as JSON text, checked for their exact errors.
 * A helper that finds something wrong fails the running cmocka case.
 * Test-only. */
#ifndef CUBE_SCHEMA_FIXTURE_H
#define CUBE_SCHEMA_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

/* An object schema with a required name matching ^[a-z]+$ and tasks, an
 * array of objects whose retries is an integer >= 0. */
extern const char TASKS_SCHEMA[];

/* The parsed text (the caller deletes it); fails the case when it does not parse. */
cJSON *parse(const char *text);
/* Number of errors for `inst` against `schema` (both JSON text). */
int count_errors(const char *schema, const char *inst, unsigned flags);
/* schema accepts inst / rejects it with at least one error. */
void assert_valid(const char *schema, const char *inst);
void assert_invalid(const char *schema, const char *inst);
/* Expects exactly one error, with this path and message. */
void assert_error_with(const char *schema, const char *inst, unsigned flags,
                       const char *prefix, const char *path, const char *message);
/* assert_error_with without flags or prefix. */
void assert_error(const char *schema, const char *inst, const char *path,
                  const char *message);
/* True when the string `s` matches the ECMA pattern. */
bool pattern_accepts(const char *pattern, const char *s);
/* cube_schema_check's verdict; on failure the message lands in why. */
int check(const char *schema, char *why, size_t len);
/* cube_schema_check refuses schema with a message containing `message`. */
void assert_check_fails(const char *schema, const char *message);

#endif
