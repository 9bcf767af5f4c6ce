/* text.c — a growable NUL-terminated text (see text.h). */
#include "text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cube_text_reserve(struct cube_text *t, size_t n)
{
    if (t->oom)
        return 0;
    if (t->len + n + 1 <= t->cap)
        return 1;
    size_t cap = t->cap ? t->cap * 2 : 512;
    while (cap < t->len + n + 1)
        cap *= 2;
    char *grown = realloc(t->p, cap);
    if (!grown) {
        t->oom = 1;
        return 0;
    }
    t->p = grown;
    t->cap = cap;
    return 1;
}

void cube_text_put(struct cube_text *t, const char *s, size_t n)
{
    if (!cube_text_reserve(t, n))
        return;
    memcpy(t->p + t->len, s, n);
    t->len += n;
    t->p[t->len] = '\0';
}

void cube_text_puts(struct cube_text *t, const char *s)
{
    cube_text_put(t, s, strlen(s));
}

void cube_status_text(char buf[12], int code)
{
    if (code < 100 || code > 999) {
        snprintf(buf, 12, "%d", code);
        return;
    }
    buf[0] = (char)('0' + code / 100);
    buf[1] = (char)('0' + code / 10 % 10);
    buf[2] = (char)('0' + code % 10);
    buf[3] = '\0';
}
