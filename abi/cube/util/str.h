/* cube/util/str.h — string checks and copies plugins share (libcube-util;
 * not part of the ABI). All are reentrant; NULL is refused where a check
 * takes a string. */
#ifndef CUBE_UTIL_STR_H
#define CUBE_UTIL_STR_H

#include <stddef.h>

#include <cube/cube.h>

/* Copies src into dst (cap bytes, always NUL-terminated when cap > 0).
 * Returns 0, or -1 when src was cut to fit. */
int cu_copy(char *dst, size_t cap, const char *src);
/* A malloc()ed string formatted as printf does, or NULL. */
char *cu_strdupf(const char *fmt, ...) CUBE_PRINTF(1, 2);
/* 1 when s starts with prefix. */
int cu_starts_with(const char *s, const char *prefix);

/* 1 when the n bytes at s are UTF-8 (RFC 3629: no overlong forms,
 * surrogates or code points past U+10FFFF); NUL bytes count as invalid. */
int cu_utf8_valid(const char *s, size_t n);
/* 1 for a DNS label: [a-z0-9-], 1 to 63 bytes, no '-' at either end. */
int cu_dns_label(const char *s);
/* 1 for an environment variable name: [A-Za-z_][A-Za-z0-9_]*. */
int cu_env_name(const char *s);
/* 1 for a byte quantity: digits, an optional fraction, then an optional
 * exponent (1e9) or unit (Ki Mi Gi Ti Pi Ei, k M G T P E). */
int cu_qty_bytes(const char *s);
/* 1 for a cpu quantity: digits, an optional fraction, an optional "m". */
int cu_qty_cpu(const char *s);

/* Reads the whole file at path into a malloc()ed, NUL-terminated buffer
 * (*len: its length). Returns NULL with errno set (EFBIG past max bytes). */
char *cu_file_read(const char *path, size_t max, size_t *len);

#endif
