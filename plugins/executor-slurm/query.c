/* query.c — the query thread: the Slurm commands that ask about state,
 * off the poll thread. Every squeue_ms one `squeue` of the submitted
 * groups' job ids; every node_refresh_ms (or when asked, or when squeue
 * failed) the nodes (sl_nodes_refresh). Under load a Slurm command takes
 * as long as slurmctld needs to answer (seconds when it is busy
 * scheduling); the poll thread, which reads the exit files and reports
 * ends, never waits for one.
 *
 * Hand-over (all under s->mu): building the id list, the thread numbers
 * the squeue (s->sq_gen) and marks each group asked for the first time
 * with it (g->sq_gen); the answer goes to s->sq_out with s->sq_done_gen
 * and s->sq_ok, replacing one the poll thread did not take, and the poll
 * thread is kicked. The poll thread applies an answer to the groups whose
 * g->sq_gen is set and not newer than the answer's: every squeue after a
 * group's first lists its id for as long as it is submitted, so a group
 * is counted missing only by a squeue that asked for it. This thread
 * reads groups (under mu) but never frees or changes one but for sq_gen. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "slurm.h"

/* The submitted groups' job ids, "1,2,3" (malloc()ed; NULL when none or
 * out of memory), numbered as squeue gen (caller holds mu). */
static char *ids_to_ask(struct sl *s, unsigned gen)
{
    size_t cap = 64, n = 0;
    char *ids = malloc(cap);
    if (!ids)
        return NULL;
    ids[0] = '\0';
    for (struct sl_group *g = s->groups; g; g = g->next) {
        if (g->state != SL_G_SUBMITTED || g->slurm_id <= 0)
            continue;
        if (n + 24 > cap) {
            char *p = realloc(ids, cap * 2);
            if (!p)
                break;
            ids = p, cap *= 2;
        }
        n += (size_t)snprintf(ids + n, cap - n, "%s%ld", n ? "," : "", g->slurm_id);
        if (!g->sq_gen)
            g->sq_gen = gen;
    }
    if (n == 0) {
        free(ids);
        return NULL;
    }
    return ids;
}

/* One squeue for our jobs only (-j id,id,...), so that neither slurmctld
 * nor cubed goes through every job the cluster still remembers
 * (MinJobAge); its answer handed to the poll thread. Call without mu. */
static void query_jobs(struct sl *s)
{
    struct sl_cmd_out o = {0};
    pthread_mutex_lock(&s->mu);
    unsigned gen = ++s->sq_gen ? s->sq_gen : ++s->sq_gen;   /* never 0 */
    char *ids = ids_to_ask(s, gen);
    s->ask_since_ms = ids ? sl_mono_ms() : 0;
    pthread_mutex_unlock(&s->mu);
    if (!ids)
        return;
    char *argv[] = {"squeue", "-h", "-t", "all", "-j", ids, "-o", "%i|%T|%N|%r", NULL};
    int ok = 0;
    if (sl_cmd(&s->conf, argv, (uid_t)-1, 0, NULL, &o) == CUBE_OK) {
        ok = o.status == 0;
        if (!ok && o.err && strstr(o.err, "Invalid job id specified")) {
            o.out[0] = '\0';   /* none of them is known: each goes missing */
            ok = 1;
        }
    }
    free(ids);
    char why[256] = "";
    if (!ok)
        sl_cmd_why(&o, why, sizeof why);
    pthread_mutex_lock(&s->mu);
    free(s->sq_out);
    s->sq_out = o.out;   /* the poll thread's to take */
    o.out = NULL;
    s->sq_ok = ok;
    s->sq_done_gen = gen;
    s->ask_since_ms = 0;
    s->refresh_now |= 2 | (ok ? 0 : 1);   /* failed: nodes go NotReady with the reason */
    int up = s->slurm_up;
    pthread_cond_signal(&s->cv);
    pthread_mutex_unlock(&s->mu);
    if (!ok && up)
        s->host->log(s->self, CUBE_LOG_WARN, "squeue failed (jobs keep their state until "
                     "Slurm answers): %s", why);
    sl_cmd_free(&o);
}

/* Waits on q_cv until ms from now at most (caller holds mu). */
static void wait_ms(struct sl *s, int64_t ms)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    ts.tv_nsec += (long)(ms % 1000) * 1000000L;
    ts.tv_sec += (time_t)(ms / 1000) + ts.tv_nsec / 1000000000L;
    ts.tv_nsec %= 1000000000L;
    pthread_cond_timedwait(&s->q_cv, &s->mu, &ts);
}

/* When the nodes are due next (mono ms): node_refresh_ms after the last
 * refresh that reached Slurm, and not sooner than poll_ms after the last
 * try (while Slurm is unreachable, every try fails). */
static int64_t nodes_due(const struct sl *s, int64_t tried)
{
    int64_t due = s->last_refresh_ms + (int64_t)s->conf.node_refresh_ms;
    int64_t retry = tried + (int64_t)s->conf.poll_ms;
    return due > retry ? due : retry;
}

void *sl_query_main(void *arg)
{
    struct sl *s = arg;
    int64_t tried = 0;
    pthread_mutex_lock(&s->mu);
    while (!s->quit) {
        int64_t now = sl_mono_ms();
        int nodes = (s->refresh_now & 1) || now >= nodes_due(s, tried);
        int jobs = now - s->last_squeue_ms >= (int64_t)s->conf.squeue_ms;
        s->refresh_now &= ~1;
        if (jobs)
            s->last_squeue_ms = now;
        if (nodes)
            tried = now;
        s->ask_since_ms = nodes ? now : 0;
        pthread_mutex_unlock(&s->mu);
        if (nodes)
            sl_nodes_refresh(s);
        if (jobs)
            query_jobs(s);
        pthread_mutex_lock(&s->mu);
        s->ask_since_ms = 0;
        if (s->quit || (s->refresh_now & 1))
            continue;
        now = sl_mono_ms();
        int64_t next_q = s->last_squeue_ms + (int64_t)s->conf.squeue_ms;
        int64_t next_n = nodes_due(s, tried);
        int64_t ms = (next_q < next_n ? next_q : next_n) - now;
        if (ms > 0)
            wait_ms(s, ms);
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}
