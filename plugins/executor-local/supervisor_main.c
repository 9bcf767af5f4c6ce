/* supervisor_main.c — main() of cube-xl-supervisor, the program that
 * supervises each replica (spawn.c). It reads the plan from its command
 * line (plan_codec.c) and supervises the replica (supervisor.c). Run with
 * the single argument XL_LAUNCHER_ARG it is the launcher instead
 * (launcher.c), whose forked children do the same from a request.
 *
 * Being a program of its own, it shares nothing with cubed: no copy of
 * cubed's address space, no copy-on-write faults in cubed while replicas
 * run. A supervisor is the child of cubed or of the launcher (which reaps
 * it after its end; after they died, init does) but in a session of its
 * own. It is not meant to be run by hand: it needs the output file on fd 3
 * and the run directory on fd 4 (the launcher: its socket on fd 3). */
#include "executor_local.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

void xl_supervisor_run(int argc, char **argv, char **envp)
{
    struct xl_plan plan;
    struct xl_view view;
    const char *bad = NULL;
    if (xl_plan_decode(argc, argv, envp, &plan, &view, &bad) < 0) {
        dprintf(XL_SUP_FD_OUT, "executor-local: the supervisor cannot start: bad plan: %s\n",
                bad);
        xl_supervise_refuse(&plan, XL_STEP_PLAN, EINVAL);
    }
    xl_supervise(&plan);
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], XL_LAUNCHER_ARG) == 0)
        xl_launcher_main(XL_SUP_FD_OUT, argv[1]);
    xl_supervisor_run(argc, argv, environ);
}
