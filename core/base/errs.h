/* errs.h — a growable list of human-readable error messages.
 * Used by config loading and validation to report every problem at once
 * ("file:line:col: message"), not just the first. */
#ifndef CUBE_ERRS_H
#define CUBE_ERRS_H

#include <stddef.h>

#include <cube/cube_plugin.h>

struct cube_errs {
    char **msgs;  /* owned; msgs[0..n) each malloc'd */
    size_t n;     /* messages stored */
    size_t cap;
    size_t lost;  /* messages dropped for lack of memory */
};

/* Appends a formatted message. On OOM the message is dropped and counted in
 * `lost`, so cube_errs_count still shows that an error happened. */
void cube_errs_add(struct cube_errs *e, const char *fmt, ...) CUBE_PRINTF(2, 3);
/* Number of errors reported, stored or lost. */
size_t cube_errs_count(const struct cube_errs *e);
/* Frees every message and resets the list to empty. */
void cube_errs_clear(struct cube_errs *e);

#endif
