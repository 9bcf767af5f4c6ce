/* errs.c — see errs.h. */
#include "errs.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static _Thread_local char *catch_buf;
static _Thread_local size_t catch_len;

void cube_errs_catch_begin(char *buf, size_t len)
{
    catch_buf = len ? buf : NULL;
    catch_len = len;
    if (catch_buf)
        catch_buf[0] = '\0';
}

void cube_errs_catch_end(void)
{
    catch_buf = NULL;
    catch_len = 0;
}

void cube_errs_catch(const char *msg)
{
    if (catch_buf)
        snprintf(catch_buf, catch_len, "%s", msg ? msg : "");
}
