/* util.h — small helpers shared by the host: paths, time, randomness. */
#ifndef CUBE_UTIL_H
#define CUBE_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* Monotonic clock in nanoseconds. */
uint64_t cube_now_ns(void);
/* Creates `path` and missing parents with `mode`; 0 or -1 (errno set). */
int cube_mkdir_p(const char *path, unsigned mode);
/* Returns malloc'd "a/b" (no doubled slash); NULL on OOM. */
char *cube_path_join(const char *a, const char *b);
/* Fills buf with 2*nbytes lowercase hex chars of fresh randomness and a NUL;
 * buf must hold 2*nbytes+1. Returns 0, or -1 when no randomness is available. */
int cube_random_hex(char *buf, size_t nbytes);
/* Fills buf with 2*nbytes hex chars and a NUL from a per-thread generator
 * seeded once from the kernel: unique ids (request ids), not secrets. */
void cube_id_hex(char *buf, size_t nbytes);
/* SHA-256 of data into out[32]. Returns 0 or -1. */
int cube_sha256(const void *data, size_t len, uint8_t out[32]);
/* Writes n bytes as 2n lowercase hex digits and a NUL into out. */
void cube_hex(const uint8_t *data, size_t n, char *out);
/* Compares n bytes in time independent of their content; 0 when equal. */
int cube_ct_compare(const void *a, const void *b, size_t n);
/* Reads a whole file (at most max bytes) into a malloc'd NUL-terminated
 * buffer. Returns NULL with errno set (EFBIG when larger than max). */
char *cube_read_file(const char *path, size_t max, size_t *len);

/* Length of the valid UTF-8 sequence at s (lead byte >= 0x80), or 0 when
 * invalid (overlongs, surrogates, past U+10FFFF). s must hold 4 readable
 * bytes or a NUL before the end. */
size_t cube_utf8_seq_len(const unsigned char *s);
/* Writes s (n bytes) into out as a double-quoted string for messages,
 * escaping quotes, backslashes and control bytes, cut with "..." when out
 * is too small. */
void cube_quote_n(char *out, size_t outlen, const char *s, size_t n);

/* A growable NUL-terminated text: zero-initialise, append, free(p). An
 * allocation failure sticks in oom; later appends then do nothing. */
struct cube_text {
    char *p;
    size_t len, cap;
    int oom;
};
/* Room for n more bytes and a NUL; 0 when out of memory. */
int cube_text_reserve(struct cube_text *t, size_t n);
void cube_text_put(struct cube_text *t, const char *s, size_t n);
void cube_text_puts(struct cube_text *t, const char *s);

#endif
