/* submitq.c — the submitters: conf.submit_threads threads that run sbatch
 * for complete groups. The host starts replicas on a few threads of its
 * own and an executor's start must not wait for long; sbatch waits for
 * slurmctld (tens of ms when idle, seconds when it is busy), so start only
 * queues the group here and returns, and several sbatch calls are in
 * flight at once, as when people submit by hand.
 *
 * Ownership and threads: a group queued here is SL_G_QUEUED; it is the
 * queue's, then the one submitter's that took it off, until that submitter
 * sets it SUBMITTED or DONE (under mu, in sl_submit_group). The poll thread
 * neither reads the Slurm state of nor frees a QUEUED group; sl_stop only
 * marks it stopped (under mu). The queue (s->subq_head/tail, linked by
 * g->qnext) and s->sub_busy are guarded by s->mu; s->sub_cv wakes the
 * submitters. Groups still queued when the plugin stops stay QUEUED and are
 * freed with the rest at fini (a restart finds no kv record: Lost). */
#include <stdlib.h>

#include "slurm.h"

void sl_subq_push(struct sl *s, struct sl_group *g)
{
    g->state = SL_G_QUEUED;
    g->qnext = NULL;
    if (s->subq_tail)
        s->subq_tail->qnext = g;
    else
        s->subq_head = g;
    s->subq_tail = g;
    pthread_cond_signal(&s->sub_cv);
}

/* The next queued group, waiting for one (caller holds mu); NULL at quit. */
static struct sl_group *subq_take(struct sl *s)
{
    while (!s->quit && !s->subq_head)
        pthread_cond_wait(&s->sub_cv, &s->mu);
    if (s->quit)
        return NULL;
    struct sl_group *g = s->subq_head;
    s->subq_head = g->qnext;
    if (!s->subq_head)
        s->subq_tail = NULL;
    g->qnext = NULL;
    return g;
}

static void *submitter(void *arg)
{
    struct sl *s = arg;
    pthread_mutex_lock(&s->mu);
    for (;;) {
        struct sl_group *g = subq_take(s);
        if (!g)
            break;
        s->sub_busy++;
        pthread_mutex_unlock(&s->mu);
        sl_submit_group(s, g);   /* g is SUBMITTED or DONE after: the poll thread's */
        sl_poll_kick(s);
        pthread_mutex_lock(&s->mu);
        s->sub_busy--;
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

int sl_submitters_start(struct sl *s)
{
    unsigned n = s->conf.submit_threads ? s->conf.submit_threads : 1;
    if (!(s->submitters = calloc(n, sizeof *s->submitters)))
        return CUBE_ENOMEM;
    for (s->n_submitters = 0; (unsigned)s->n_submitters < n; s->n_submitters++)
        if (pthread_create(&s->submitters[s->n_submitters], NULL, submitter, s) != 0)
            break;
    if (s->n_submitters == 0)
        return CUBE_ENOMEM;
    if ((unsigned)s->n_submitters < n)
        s->host->log(s->self, CUBE_LOG_WARN, "%d of %u submitter threads started",
                     s->n_submitters, n);
    return CUBE_OK;
}

void sl_submitters_stop(struct sl *s)
{
    pthread_mutex_lock(&s->mu);
    pthread_cond_broadcast(&s->sub_cv);
    pthread_mutex_unlock(&s->mu);
    for (int i = 0; i < s->n_submitters; i++)
        pthread_join(s->submitters[i], NULL);
    free(s->submitters);
    s->submitters = NULL;
    s->n_submitters = 0;
}
