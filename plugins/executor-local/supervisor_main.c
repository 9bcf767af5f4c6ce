/* supervisor_main.c — main() of cube-xl-supervisor, the program cubed
 * exec()s for each replica (spawn.c). It reads the plan from its command
 * line (plan_codec.c) and supervises the replica (supervisor.c).
 *
 * Being a program of its own, it shares nothing with cubed: no copy of
 * cubed's address space, no copy-on-write faults in cubed while replicas
 * run. It stays cubed's child (cubed reaps it after its end; after cubed
 * died, init does) but in a session of its own. It is not meant to be run
 * by hand: it needs the output file on fd 3 and the run directory on fd 4. */
#include "executor_local.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

int main(int argc, char **argv)
{
    struct xl_plan plan;
    struct xl_view view;
    const char *bad = NULL;
    if (xl_plan_decode(argc, argv, environ, &plan, &view, &bad) < 0) {
        dprintf(XL_SUP_FD_OUT, "executor-local: the supervisor cannot start: bad plan: %s\n",
                bad);
        xl_supervise_refuse(&plan, XL_STEP_PLAN, EINVAL);
    }
    xl_supervise(&plan);
}
