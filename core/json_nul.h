/* json_nul.h — finding "\u0000" in JSON text. cJSON decodes the escape
 * into a NUL byte inside the string, so every C string after it ends
 * early: {"A\u0000B": 1} would act as {"A": 1}. Request bodies holding one
 * are refused naming the field. */
#ifndef CUBE_JSON_NUL_H
#define CUBE_JSON_NUL_H

#include <stddef.h>

/* 1 when the JSON text (NUL-terminated) holds a \u0000 escape; path then
 * gets where, as the schema's error paths write it ("spec.env.A", what
 * precedes the NUL of a key; "" when it cannot be told). 0 when none. */
int cube_json_nul_path(const char *text, char *path, size_t len);

#endif
