/* table.c — see table.h. Widths are grown as rows arrive, so a watch can
 * keep printing rows aligned with the header it printed first. */
#include "table.h"

#include <stdlib.h>
#include <string.h>

#include "buf.h"

#define GAP 3   /* spaces between columns, as kubectl */

size_t table_text_width(const char *s)
{
    size_t w = 0;
    for (; *s; s++)
        if (((unsigned char)*s & 0xc0) != 0x80)
            w++;
    return w;
}

static int add_row(struct table *t, const char *const *cells)
{
    if (t->nrows == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 16;
        char **p = realloc(t->cells, cap * t->ncols * sizeof *p);
        if (!p)
            return -1;
        t->cells = p;
        t->cap = cap;
    }
    char **row = t->cells + t->nrows * t->ncols;
    for (size_t c = 0; c < t->ncols; c++) {
        row[c] = strdup(cells[c] ? cells[c] : "");
        if (!row[c]) {
            while (c--)
                free(row[c]);
            return -1;
        }
    }
    for (size_t c = 0; c < t->ncols; c++) {
        size_t w = table_text_width(row[c]);
        if (w > t->widths[c])
            t->widths[c] = w;
    }
    t->nrows++;
    return 0;
}

int table_init(struct table *t, size_t ncols, const char *const *headers)
{
    memset(t, 0, sizeof *t);
    t->ncols = ncols;
    t->widths = calloc(ncols ? ncols : 1, sizeof *t->widths);
    if (!t->widths || add_row(t, headers)) {
        table_free(t);
        return -1;
    }
    return 0;
}

int table_add(struct table *t, const char *const *cells)
{
    return add_row(t, cells);
}

static int render_row(const struct table *t, size_t r, struct buf *out)
{
    char *const *row = t->cells + r * t->ncols;
    for (size_t c = 0; c < t->ncols; c++) {
        if (buf_puts(out, row[c]))
            return -1;
        if (c + 1 == t->ncols)
            break;   /* no trailing blanks after the last column */
        size_t pad = t->widths[c] - table_text_width(row[c]) + GAP;
        if (buf_printf(out, "%*s", (int)pad, ""))
            return -1;
    }
    return buf_puts(out, "\n");
}

int table_render(const struct table *t, size_t from, struct buf *out)
{
    for (size_t r = from; r < t->nrows; r++)
        if (render_row(t, r, out))
            return -1;
    return 0;
}

void table_free(struct table *t)
{
    for (size_t i = 0; t->cells && i < t->nrows * t->ncols; i++)
        free(t->cells[i]);
    free(t->cells);
    free(t->widths);
    memset(t, 0, sizeof *t);
}
