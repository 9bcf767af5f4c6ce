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

/* The message of one plugin callback (the error channel of the ABI 1.5
 * callbacks: a return code plus host->set_error on the calling thread).
 * Between cube_errs_catch_begin and _end, on this thread, the set_error
 * slot also writes its message into buf (len bytes; buf[0] is cleared
 * first), so that callbacks of one plugin running at once on several
 * threads each keep their own. Not nested. */
void cube_errs_catch_begin(char *buf, size_t len);
void cube_errs_catch_end(void);
/* Called by set_error with its formatted message: copies it into the
 * buffer this thread catches into, if any. */
void cube_errs_catch(const char *msg);

#endif
