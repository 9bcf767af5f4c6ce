/* net_deliver.c — a fetch's callbacks on host workers, one at a time and
 * in order (a strand: a queue of events drained by at most one worker
 * task), its cancellation (no callback runs after cancel returns) and its
 * references. */
#include <stdlib.h>
#include <string.h>

#include "base/tasks.h"
#include "ctx/ctx.h"
#include "net.h"
#include "net_priv.h"

void cube_net_ref(struct net_fetch *f)
{
    pthread_mutex_lock(&f->net->mu);
    f->refs++;
    pthread_mutex_unlock(&f->net->mu);
}

/* Unlinks f from the id table; under net->mu. */
static void unlink_fetch(struct net_fetch *f)
{
    struct net_fetch **pp = &f->net->buckets[f->id % NET_BUCKETS];
    while (*pp && *pp != f)
        pp = &(*pp)->bucket_next;
    if (*pp)
        *pp = f->bucket_next;
}

void cube_net_unref(struct net_fetch *f)
{
    struct cube_net *net = f->net;
    pthread_mutex_lock(&net->mu);
    int last = --f->refs == 0;
    if (last)
        unlink_fetch(f);
    pthread_mutex_unlock(&net->mu);
    if (!last)
        return;
    cube_net_fetch_release_transfer(f);
    while (f->head) {
        struct net_event *e = f->head;
        f->head = e->next;
        free(e);
    }
    free(f->resp_headers.p);
    free(f->resp_body.p);
    free(f->url);
    free(f->result_message);
    pthread_mutex_destroy(&f->mu);
    pthread_cond_destroy(&f->cv);
    free(f);
}

struct net_fetch *cube_net_find(struct cube_net *net, cube_plugin *owner, uint64_t id)
{
    pthread_mutex_lock(&net->mu);
    struct net_fetch *f = net->buckets[id % NET_BUCKETS];
    while (f && (f->id != id || f->owner != owner))
        f = f->bucket_next;
    if (f)
        f->refs++;
    pthread_mutex_unlock(&net->mu);
    return f;
}

/* Worker: runs f's queued callbacks in order until none is left or it is
 * cancelled. */
static void run_strand(void *a, void *b)
{
    struct net_fetch *f = a;
    (void)b;
    pthread_mutex_lock(&f->mu);
    f->runner = pthread_self();
    while (f->head && !f->cancelled) {
        struct net_event *e = f->head;
        f->head = e->next;
        if (!f->head)
            f->tail = NULL;
        f->queued_bytes -= e->len;
        int resume = f->paused && f->queued_bytes < NET_RESUME_BYTES;
        if (resume)
            f->paused = 0;
        if (e->is_done)
            f->done_started = 1;
        int stopped = !e->is_done && atomic_load(&f->stop_code);
        f->in_cb = 1;
        pthread_mutex_unlock(&f->mu);
        if (resume)
            cube_net_post(f->net, NET_OP_RESUME, f);
        void *state = f->owner->state;
        if (e->is_done) {
            f->done(state, f->arg, &f->result);
        } else if (!stopped) {
            int rc = f->chunk(state, f->arg, e->data, e->len);
            if (rc != CUBE_OK) {
                atomic_store(&f->stop_code, rc);
                cube_net_post(f->net, NET_OP_ABORT, f);
            }
        }
        int was_done = e->is_done;
        free(e);
        pthread_mutex_lock(&f->mu);
        f->in_cb = 0;
        pthread_cond_broadcast(&f->cv);
        if (was_done)
            break;
    }
    f->scheduled = 0;
    int release = (f->done_started || f->cancelled) && !f->strand_closed;
    if (release)
        f->strand_closed = 1;
    pthread_mutex_unlock(&f->mu);
    if (release)
        cube_net_unref(f);
}

int cube_net_deliver(struct net_fetch *f, const void *data, size_t len)
{
    pthread_mutex_lock(&f->mu);
    if (f->cancelled || f->strand_closed) {
        pthread_mutex_unlock(&f->mu);
        return 0;
    }
    if (data && f->paused) {
        pthread_mutex_unlock(&f->mu);
        return 1;
    }
    struct net_event *e = malloc(sizeof *e + (data ? len : 0));
    if (!e) {
        pthread_mutex_unlock(&f->mu);
        atomic_store(&f->stop_code, CUBE_ENOMEM);
        return 0;
    }
    *e = (struct net_event){.is_done = !data, .len = data ? len : 0};
    if (data)
        memcpy(e->data, data, len);
    if (f->tail)
        f->tail->next = e;
    else
        f->head = e;
    f->tail = e;
    f->queued_bytes += e->len;
    if (f->queued_bytes > NET_PAUSE_BYTES)
        f->paused = 1;
    if (!f->scheduled) {
        f->scheduled = 1;
        if (cube_tasks_submit(f->net->tasks, run_strand, f, NULL) < 0)
            f->scheduled = 0;   /* shutting down: cancel frees what waits */
    }
    pthread_mutex_unlock(&f->mu);
    return 0;
}

int cube_net_cancel(struct net_fetch *f)
{
    pthread_mutex_lock(&f->mu);
    int own = f->in_cb && pthread_equal(f->runner, pthread_self());
    f->cancelled = 1;
    while (!own && f->in_cb)
        pthread_cond_wait(&f->cv, &f->mu);
    int rc = f->done_started ? CUBE_ENOTFOUND : CUBE_OK;
    int release = !f->scheduled && !f->strand_closed;
    if (release)
        f->strand_closed = 1;
    pthread_mutex_unlock(&f->mu);
    cube_net_post(f->net, NET_OP_CANCEL, f);
    if (release)
        cube_net_unref(f);
    return rc;
}

void cube_net_cancel_owner(struct cube_net *net, cube_plugin *owner)
{
    if (!net)
        return;
    for (;;) {
        struct net_fetch *hit = NULL;
        pthread_mutex_lock(&net->mu);
        for (size_t b = 0; b < NET_BUCKETS && !hit; b++)
            for (struct net_fetch *f = net->buckets[b]; f && !hit; f = f->bucket_next)
                if ((!owner || f->owner == owner) && !f->cancel_seen) {
                    f->cancel_seen = 1;
                    f->refs++;
                    hit = f;
                }
        pthread_mutex_unlock(&net->mu);
        if (!hit)
            return;
        cube_net_cancel(hit);
        cube_net_unref(hit);
    }
}
