/* text.h — a growable NUL-terminated text. */
#ifndef CUBE_TEXT_H
#define CUBE_TEXT_H

#include <stddef.h>

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

/* An HTTP status code as text ("404"), without printf: it labels a metric
 * on every request. Codes outside 100..999 are written in full. */
void cube_status_text(char buf[12], int code);

#endif
