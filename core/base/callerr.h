/* callerr.h — the error channel of a plugin callback (ABI 1.5).
 *
 * While the host runs a plugin callback it opens a call frame on its own
 * thread (cube_callerr_begin); the plugin's set_error, set_error_field and
 * retry_after slots write into the innermost frame of that plugin on the
 * calling thread, and the host reads the frame when the callback returns
 * (cube_callerr_end). Frames nest (a callback that calls a slot that runs
 * another plugin's callback), so each one saves the one it hides. A frame
 * lives on the caller's stack; it is the caller's to begin and end on the
 * same thread. */
#ifndef CUBE_BASE_CALLERR_H
#define CUBE_BASE_CALLERR_H

struct cube_callerr {
    const void *plugin;       /* whose callback runs (borrowed) */
    char field[256];          /* "spec.size"; "" when none */
    char msg[512];            /* "" when none */
    int has_retry;            /* retry_after was called */
    unsigned retry_ms;
    struct cube_callerr *prev;
};

/* Opens a frame for plugin's callback on this thread (zeroes *ce). */
void cube_callerr_begin(struct cube_callerr *ce, const void *plugin);
/* Closes it: the frame it hid is current again. */
void cube_callerr_end(struct cube_callerr *ce);
/* The innermost open frame of plugin on this thread, or NULL. */
struct cube_callerr *cube_callerr_current(const void *plugin);

#endif
