/* table.h — plain-text tables as kubectl prints them: upper-case headers,
 * columns padded to their widest cell, three spaces apart. */
#ifndef CUBECTL_TABLE_H
#define CUBECTL_TABLE_H

#include <stddef.h>

struct buf;

struct table {
    size_t ncols, nrows, cap;
    char **cells;       /* row-major; row 0 holds the headers */
    size_t *widths;     /* display width per column */
};

/* Starts a table with ncols headers (copied). Returns 0 or -1. */
int table_init(struct table *t, size_t ncols, const char *const *headers);
/* Adds a row of ncols cells (copied; NULL prints as ""). Returns 0 or -1. */
int table_add(struct table *t, const char *const *cells);
/* Appends rows from index `from` on to out; row 0 is the header, so 0
 * renders everything and nrows - 1 only the newest row. Returns 0 or -1. */
int table_render(const struct table *t, size_t from, struct buf *out);
/* Frees the table and zeroes it. */
void table_free(struct table *t);
/* Display width of UTF-8 text (code points; good enough for names). */
size_t table_text_width(const char *s);

#endif
