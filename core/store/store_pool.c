/* store_pool.c — the store's connection pools: connections opened lazily
 * up to the pool's size, lent exclusively (mutex + condvar), a broken one
 * closed on return together with the idle ones (after a server restart they
 * are dead as well), so the next borrow reconnects. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/log.h"
#include "store_priv.h"

/* How many group-commit batches may run at once. Few: while one runs,
 * the writes that arrive wait and go together in the next, one statement
 * for their creates; a lane per 4 CPUs, at most half the pool. */
static unsigned batch_lanes(unsigned size)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    unsigned lanes = cpus > 4 ? (unsigned)(cpus / 4) : 1;
    return lanes < (size + 1) / 2 ? lanes : (size + 1) / 2;
}

int store_pool_init(struct store_pool *p, unsigned size)
{
    p->idle = calloc(size, sizeof *p->idle);
    if (!p->idle)
        return -1;
    p->size = size;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    store_batch_init(&p->batch, batch_lanes(size));
    return 0;
}

void store_pool_fini(struct cube_store *s, struct store_pool *p)
{
    if (!p->idle)
        return;
    for (unsigned i = 0; i < p->n_idle; i++)
        s->drv->disconnect(p->idle[i]);
    free(p->idle);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->cv);
    store_batch_fini(&p->batch);
}

static struct store_pool *pool_of(struct cube_store *s, int writer)
{
    return &s->pools[writer && s->drv->separate_writer ? 0 : 1];
}

/* Logs the first failed connect of an outage and the recovery, once each. */
static void note_connect(struct cube_store *s, int rc, const char *why)
{
    if (rc != CUBE_OK) {
        if (!atomic_exchange(&s->down, 1))
            cube_log(CUBE_LOG_WARN, "store", "%s: cannot connect: %s",
                     s->safe_url, why);
    } else if (atomic_exchange(&s->down, 0)) {
        cube_log(CUBE_LOG_INFO, "store", "%s: connected again", s->safe_url);
    }
}

int store_conn_get(struct cube_store *s, int writer, struct store_conn **out,
                   char *err, size_t errlen)
{
    struct store_pool *p = pool_of(s, writer);
    pthread_mutex_lock(&p->mu);
    while (p->n_idle == 0 && p->n_open == p->size)
        pthread_cond_wait(&p->cv, &p->mu);
    if (p->n_idle > 0) {
        *out = p->idle[--p->n_idle];
        pthread_mutex_unlock(&p->mu);
        return CUBE_OK;
    }
    p->n_open++; /* reserve the slot, connect unlocked */
    pthread_mutex_unlock(&p->mu);
    char why[256] = "";
    int rc = s->drv->connect(s->state, writer, out, why, sizeof why);
    note_connect(s, rc, why);
    if (rc == CUBE_OK)
        return CUBE_OK;
    if (err)
        snprintf(err, errlen, "%s", why);
    pthread_mutex_lock(&p->mu);
    p->n_open--;
    pthread_cond_signal(&p->cv);
    pthread_mutex_unlock(&p->mu);
    return rc;
}

void store_conn_put(struct cube_store *s, int writer, struct store_conn *c)
{
    struct store_pool *p = pool_of(s, writer);
    pthread_mutex_lock(&p->mu);
    if (c->broken) {
        /* The server most likely went away: the idle ones are dead too. */
        s->drv->disconnect(c);
        p->n_open--;
        while (p->n_idle > 0) {
            s->drv->disconnect(p->idle[--p->n_idle]);
            p->n_open--;
        }
        pthread_cond_broadcast(&p->cv);
    } else {
        p->idle[p->n_idle++] = c;
        pthread_cond_signal(&p->cv);
    }
    pthread_mutex_unlock(&p->mu);
}
