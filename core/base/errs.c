/* errs.c — see errs.h. */
#include "errs.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void cube_errs_add(struct cube_errs *e, const char *fmt, ...)
{
    char *msg = NULL;
    va_list ap;
    va_start(ap, fmt);
    int rc = vasprintf(&msg, fmt, ap);
    va_end(ap);
    if (rc < 0) {
        e->lost++;
        return;
    }
    if (e->n == e->cap) {
        size_t cap = e->cap ? e->cap * 2 : 8;
        char **grown = realloc(e->msgs, cap * sizeof *grown);
        if (!grown) {
            free(msg);
            e->lost++;
            return;
        }
        e->msgs = grown;
        e->cap = cap;
    }
    e->msgs[e->n++] = msg;
}

size_t cube_errs_count(const struct cube_errs *e)
{
    return e->n + e->lost;
}

void cube_errs_clear(struct cube_errs *e)
{
    for (size_t i = 0; i < e->n; i++)
        free(e->msgs[i]);
    free(e->msgs);
    e->msgs = NULL;
    e->n = e->cap = e->lost = 0;
}
