/* callerr.c — see callerr.h. One list of frames per thread. */
#include "callerr.h"

#include <string.h>

static _Thread_local struct cube_callerr *top;

void cube_callerr_begin(struct cube_callerr *ce, const void *plugin)
{
    memset(ce, 0, sizeof *ce);
    ce->plugin = plugin;
    ce->prev = top;
    top = ce;
}

void cube_callerr_end(struct cube_callerr *ce)
{
    /* Frames end in the reverse order of their beginning. */
    if (top == ce)
        top = ce->prev;
}

struct cube_callerr *cube_callerr_current(const void *plugin)
{
    for (struct cube_callerr *ce = top; ce; ce = ce->prev)
        if (ce->plugin == plugin)
            return ce;
    return NULL;
}
