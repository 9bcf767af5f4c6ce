/* hash.h — SHA-256, hex and comparing secrets in constant time. */
#ifndef CUBE_HASH_H
#define CUBE_HASH_H

#include <stddef.h>
#include <stdint.h>

/* SHA-256 of data into out[32]. Returns 0 or -1. */
int cube_sha256(const void *data, size_t len, uint8_t out[32]);
/* Writes n bytes as 2n lowercase hex digits and a NUL into out. */
void cube_hex(const uint8_t *data, size_t n, char *out);
/* Compares n bytes in time independent of their content; 0 when equal. */
int cube_ct_compare(const void *a, const void *b, size_t n);

#endif
