/* job_start.c — starting an admitted Job's replicas on threads of their
 * own. An executor's start may wait for its process (tens of ms); on the
 * controller's few pool workers that wait held up every other Job's
 * reconcile. A Job comes here as soon as its admission is written (by the
 * scheduling loop, or by the cycle a Job's queueing runs: no reconcile in
 * between); the controller sends it too when it finds a Job Admitted
 * (after a restart, or a start cut short).
 *
 * A Job is queued once: asking again while it waits or starts does
 * nothing. The thread reads the Job afresh and starts it only while it is
 * still Admitted, known to the engine and not asked to stop, so a stale
 * copy (the status already says Running) never starts it twice. Jobs left
 * queued at shutdown stay Admitted and are started after the restart. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "objects/controller.h"
#include "ctx/ctx.h"
#include "job_status.h"
#include "jobs.h"
#include "base/log.h"
#include "objects/objects.h"
#include "base/strmap.h"

#define STARTERS 4

struct start_item {
    char project[64], name[64];
    struct start_item *next;
};

struct job_starter {
    pthread_mutex_t mu;
    pthread_cond_t wake;
    struct cube_strmap *wanted;        /* Job id -> (void *)1: queued or starting */
    struct start_item *head, *tail;
    pthread_t threads[STARTERS];
    int n_threads, stopping;
};

/* 1 when the Job (read now) should have its replicas started. */
static int still_admitted(struct cube_sched *s, const cJSON *job, const char *id)
{
    struct cube_sp_job_info info;
    if (cJSON_HasObjectItem(cJSON_GetObjectItemCaseSensitive(job, "metadata"),
                            "deletionTimestamp") ||
        strcmp(job_status_str(job, "phase"), "Admitted") != 0 || job_stop_asked(job))
        return 0;
    pthread_mutex_lock(&s->mu);
    int known = cube_sp_job_info(s->policy, id, &info, NULL, 0) == CUBE_OK;
    pthread_mutex_unlock(&s->mu);
    return known;
}

static void start_item(struct cube_sched *s, const struct start_item *it)
{
    char id[140];
    cJSON *job = NULL;
    struct cube_op_error e;
    job_id(it->project, it->name, id, sizeof id);
    if (cube_obj_get(s->ctx, s->job_kind, it->project, it->name, &job, &e) == 0 &&
        still_admitted(s, job, id) &&
        job_start_replicas(s, job, it->project, it->name) != CUBE_OK)
        /* the status could not be written: the controller tries again */
        cube_ctrl_enqueue(s->ctx, s->job_kind, it->project, it->name);
    cJSON_Delete(job);
}

static void *starter(void *arg)
{
    struct cube_sched *s = arg;
    struct job_starter *st = s->starter;
    pthread_mutex_lock(&st->mu);
    for (;;) {
        while (!st->head && !st->stopping)
            pthread_cond_wait(&st->wake, &st->mu);
        if (st->stopping)
            break;
        struct start_item *it = st->head;
        st->head = it->next;
        if (!st->head)
            st->tail = NULL;
        pthread_mutex_unlock(&st->mu);
        start_item(s, it);
        char id[140];
        job_id(it->project, it->name, id, sizeof id);
        pthread_mutex_lock(&st->mu);
        cube_strmap_del(st->wanted, id);   /* after its status is written */
        free(it);
    }
    pthread_mutex_unlock(&st->mu);
    return NULL;
}

void job_start_soon(struct cube_sched *s, const char *project, const char *name)
{
    struct job_starter *st = s->starter;
    char id[140];
    if (!st)
        return;
    job_id(project, name, id, sizeof id);
    struct start_item *it = calloc(1, sizeof *it);
    if (!it)
        return;
    snprintf(it->project, sizeof it->project, "%s", project);
    snprintf(it->name, sizeof it->name, "%s", name);
    pthread_mutex_lock(&st->mu);
    if (st->stopping || cube_strmap_get(st->wanted, id) ||
        cube_strmap_put(st->wanted, id, (void *)1, NULL) < 0) {
        pthread_mutex_unlock(&st->mu);
        free(it);
        return;
    }
    if (st->tail)
        st->tail->next = it;
    else
        st->head = it;
    st->tail = it;
    pthread_cond_signal(&st->wake);
    pthread_mutex_unlock(&st->mu);
}

int job_starter_init(struct cube_sched *s)
{
    struct job_starter *st = calloc(1, sizeof *st);
    if (!st || !(st->wanted = cube_strmap_new())) {
        free(st);
        return -1;
    }
    pthread_mutex_init(&st->mu, NULL);
    pthread_cond_init(&st->wake, NULL);
    s->starter = st;
    for (; st->n_threads < STARTERS; st->n_threads++)
        if (pthread_create(&st->threads[st->n_threads], NULL, starter, s) != 0)
            break;
    if (st->n_threads == 0) {
        cube_log(CUBE_LOG_ERROR, "jobs", "cannot start the threads that start replicas");
        return -1;
    }
    return 0;
}

void job_starter_stop(struct cube_sched *s)
{
    struct job_starter *st = s->starter;
    if (!st)
        return;
    pthread_mutex_lock(&st->mu);
    st->stopping = 1;
    pthread_cond_broadcast(&st->wake);
    pthread_mutex_unlock(&st->mu);
    for (int i = 0; i < st->n_threads; i++)
        pthread_join(st->threads[i], NULL);
    st->n_threads = 0;
}

void job_starter_free(struct cube_sched *s)
{
    struct job_starter *st = s->starter;
    if (!st)
        return;
    job_starter_stop(s);
    while (st->head) {
        struct start_item *it = st->head;
        st->head = it->next;
        free(it);
    }
    cube_strmap_free(st->wanted, NULL);
    pthread_mutex_destroy(&st->mu);
    pthread_cond_destroy(&st->wake);
    free(st);
    s->starter = NULL;
}
