/* host_net.c — the ABI 1.5 slots fetch and fetch_cancel (contracts in
 * abi/cube/cube_host.h and cube_fetch.h). */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "ctx/ctx.h"
#include "net.h"
#include "net_priv.h"

/* A new fetch record holding the loop's and the strand's references. */
static struct net_fetch *fetch_new(struct cube_net *net, cube_plugin *self)
{
    struct net_fetch *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    f->net = net;
    f->owner = self;
    f->refs = 2;
    pthread_mutex_init(&f->mu, NULL);
    pthread_cond_init(&f->cv, NULL);
    return f;
}

/* Gives f its id and enters it in the table. Returns 0, or -1 when the
 * engine is stopping. */
static int enter(struct cube_net *net, struct net_fetch *f)
{
    pthread_mutex_lock(&net->mu);
    int ok = !net->stopping;
    if (ok) {
        f->id = ++net->next_id;
        struct net_fetch **b = &net->buckets[f->id % NET_BUCKETS];
        f->bucket_next = *b;
        *b = f;
    }
    pthread_mutex_unlock(&net->mu);
    return ok ? 0 : -1;
}

uint64_t cube_slot_fetch(cube_plugin *self, const struct cube_fetch_desc *desc, int *rc)
{
    int ignored;
    rc = rc ? rc : &ignored;
    struct cube_net *net = self->ctx->net;
    if (!net || atomic_load(&self->tasks_closed)) {
        *rc = CUBE_ESTATE;
        return 0;
    }
    if (!desc || desc->size < offsetof(struct cube_fetch_desc, arg) + sizeof desc->arg) {
        cube_log(CUBE_LOG_WARN, self->log_component, "fetch: desc is NULL or its size too small");
        *rc = CUBE_EINVAL;
        return 0;
    }
    struct cube_fetch_desc d = {0};
    memcpy(&d, desc, desc->size < sizeof d ? desc->size : sizeof d);
    struct net_fetch *f = fetch_new(net, self);
    if (!f) {
        *rc = CUBE_ENOMEM;
        return 0;
    }
    *rc = cube_net_fetch_prepare(f, &d);
    if (*rc == CUBE_OK && enter(net, f))
        *rc = CUBE_ESTATE;
    if (*rc != CUBE_OK) {
        f->refs = 1;
        cube_net_unref(f);
        return 0;
    }
    uint64_t id = f->id;
    if (cube_net_post(net, NET_OP_ADD, f)) {
        /* stopping between enter and post: the shutdown cancels it */
        *rc = CUBE_ESTATE;
        return 0;
    }
    return id;
}

int cube_slot_fetch_cancel(cube_plugin *self, uint64_t id)
{
    struct cube_net *net = self->ctx->net;
    struct net_fetch *f = id && net ? cube_net_find(net, self, id) : NULL;
    if (!f)
        return CUBE_ENOTFOUND;
    int rc = cube_net_cancel(f);
    cube_net_unref(f);
    return rc;
}
