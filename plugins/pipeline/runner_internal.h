/* runner_internal.h — the pass the PipelineRun controller's files share:
 * runner.c drives it, runtasks.c decides and starts the tasks, runstatus.c
 * keeps the run's status. Internal to those three. */
#ifndef PL_RUNNER_INTERNAL_H
#define PL_RUNNER_INTERNAL_H

#include "pipeline.h"

/* One pass over a run (runner.c makes it, for the length of the pass). */
struct pl_pass {
    struct pl *p;
    const char *project, *name;
    struct pl_memo *memo;           /* run and status are its */
    const cJSON *run;
    cJSON *status, *tstat;          /* status (as it is now) and status.tasks */
    int unwritten;                  /* status changed; written by a later pass */
    const cJSON **task;             /* task specs by index */
    cJSON **ts;                     /* their status objects */
    int n, running, parallelism, stop;
    int *created, n_created;        /* tasks whose Job this pass created */
    char now[40];
};

/* -- runtasks.c -------------------------------------------------------- */

/* On a pass from the stored run: marks Running the Pending tasks whose Job
 * (of their rerun) exists already. */
void pl_pass_adopt_jobs(struct pl_pass *ps);
/* Follows the Running tasks, then decides each Pending one in dependency
 * order (start, skip, fail upstream, stop), then makes directories ahead.
 * 0, or -1 when out of memory (or the tasks have a cycle). */
int pl_pass_advance(struct pl_pass *ps);

/* -- runstatus.c ------------------------------------------------------- */

/* A task's phase ("" when the status has none). */
const char *pl_task_phase(const cJSON *ts);
/* The run's phase from its tasks ("Running" until every task is done);
 * sets status.progress. */
const char *pl_pass_summarize(struct pl_pass *ps);
/* An "Alert" event when the pipeline asked for one on phase. */
void pl_pass_alert(struct pl_pass *ps, const char *phase, const char *msg);
/* A finished run: the finished=true label, an event, an alert. */
void pl_pass_finish(struct pl_pass *ps, const char *phase);
/* ms until the run's status may be written again (0: now). */
int pl_pass_write_wait(const struct pl_pass *ps);
/* Writes the status when it changed (at once when now, else paced by
 * status_write_ms: ps->unwritten). CUBE_OK, CUBE_ECONFLICT, or an error. */
int pl_pass_write_status(struct pl_pass *ps, int now);

#endif
