/* supervisor_main.c — main() of cube-xl-supervisor, the program cubed
 * exec()s for each replica (spawn.c). It reads the plan from its command
 * line (plan_codec.c), leaves cubed's process tree (forks; the parent ends
 * at once and cubed reaps it, so init adopts the supervisor as it would
 * after cubed died) and supervises the replica (supervisor.c).
 *
 * Being a program of its own, it shares nothing with cubed: no copy of
 * cubed's address space, no copy-on-write faults in cubed while replicas
 * run. It is not meant to be run by hand; without the fds cubed sets up it
 * reports nothing and ends. */
#include "executor_local.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

/* Tells cubed (fd 5) and the replica's log (fd 3) why nothing started. */
static void refuse(int step, int err, const char *what)
{
    dprintf(XL_SUP_FD_OUT, "executor-local: the supervisor cannot start: %s %s\n",
            step == XL_STEP_PLAN ? "bad plan:" : "cannot", what);
    dprintf(XL_SUP_FD_REPORT, "err %d %d\n", step, err);
}

int main(int argc, char **argv)
{
    struct xl_plan plan;
    struct xl_view view;
    const char *bad = NULL;
    if (xl_plan_decode(argc, argv, environ, &plan, &view, &bad) < 0) {
        refuse(XL_STEP_PLAN, EINVAL, bad);
        return 2;
    }
    pid_t pid = fork();
    if (pid < 0) {
        refuse(XL_STEP_SUPFORK, errno, "fork");
        return 1;
    }
    if (pid > 0)
        _exit(0);
    xl_supervise(&plan, XL_SUP_FD_REPORT);
}
