/* buf.h — a growable byte buffer, always NUL-terminated, used wherever
 * cubectl collects text (HTTP bodies, rendered tables, emitted YAML). */
#ifndef CUBECTL_BUF_H
#define CUBECTL_BUF_H

#include <stddef.h>

struct buf {
    char *data;    /* NULL until something is appended */
    size_t len, cap;
};

/* Appends n bytes. Returns 0, or -1 when out of memory (buffer unchanged). */
int buf_add(struct buf *b, const void *p, size_t n);
/* Appends a NUL-terminated string. Returns 0 or -1. */
int buf_puts(struct buf *b, const char *s);
/* Appends printf-style text. Returns 0 or -1. */
int buf_printf(struct buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Appends the whole of file path ("-": standard input). Returns 0, or -1
 * with errno set. */
int buf_read_file(struct buf *b, const char *path);
/* Returns the text ("" when empty); valid until the next append. */
const char *buf_str(const struct buf *b);
/* Hands the text to the caller (malloc'd; "" when empty) and empties b. */
char *buf_take(struct buf *b);
/* Frees the storage and empties b. */
void buf_free(struct buf *b);

#endif
