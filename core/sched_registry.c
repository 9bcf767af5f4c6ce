/* sched_registry.c — what plugins register for scheduling: executors,
 * accelerator vendors and the nodes executors advertise, with the ABI 1.3
 * host slots that fill them. Node documents are checked here (names,
 * quantities, devices) so the scheduler only sees well-formed nodes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctx.h"
#include "host_priv.h"
#include "log.h"
#include "names.h"
#include "quantity.h"
#include "jobs.h"
#include "strmap.h"

#define MAX_DEVICES 1024

static struct sched_executor *executor_of_plugin(struct cube_sched *s, cube_plugin *p)
{
    for (size_t i = 0; i < s->n_executors; i++)
        if (s->executors[i]->plugin == p)
            return s->executors[i];
    return NULL;
}

struct sched_executor *sched_executor_of_node(struct cube_sched *s, const char *node)
{
    struct sched_node *n = cube_strmap_get(s->nodes, node);
    return n ? n->executor : NULL;
}

struct sched_accel *sched_accel_for(struct cube_sched *s, const char *resource)
{
    for (size_t i = 0; i < s->n_accels; i++)
        if (strcmp(s->accels[i]->desc.resource, resource) == 0)
            return s->accels[i];
    return NULL;
}

/* Appends p to a growing pointer array; 0 or -1. */
static int push(void ***items, size_t *n, void *p)
{
    void **grown = realloc(*items, (*n + 1) * sizeof *grown);
    if (!grown)
        return -1;
    grown[(*n)++] = p;
    *items = grown;
    return 0;
}

static int register_executor(cube_plugin *self, const struct cube_executor_desc *in)
{
    struct cube_sched *s = self->ctx->sched;
    struct sched_executor *e = NULL;
    char why[128];
    size_t min = offsetof(struct cube_executor_desc, adopt) + sizeof in->adopt;
    const char *bad = !self->in_init ? "only during init"
                      : !in || in->size < min ? "descriptor smaller than ABI 1.3's"
                      : !in->name || cube_name_check(in->name, why, sizeof why) < 0
                          ? "name: must be a DNS label"
                      : !in->start || !in->stop ? "start and stop are required" : NULL;
    pthread_mutex_lock(&s->mu);
    for (size_t i = 0; !bad && i < s->n_executors; i++)
        if (strcmp(s->executors[i]->desc.name, in->name) == 0 || s->executors[i]->plugin == self)
            bad = "an executor of this name (or of this plugin) exists";
    if (!bad && (!(e = calloc(1, sizeof *e)) || push((void ***)&s->executors,
                                                    &s->n_executors, e) < 0))
        bad = "out of memory";
    if (!bad) {
        memcpy(&e->desc, in, in->size < sizeof e->desc ? in->size : sizeof e->desc);
        e->desc.name = strdup(in->name);
        e->plugin = self;
    }
    pthread_mutex_unlock(&s->mu);
    if (bad) {
        free(e);
        cube_log(CUBE_LOG_ERROR, self->log_component, "register_executor: %s", bad);
        return !self->in_init ? CUBE_ESTATE : strstr(bad, "exists") ? CUBE_EEXIST : CUBE_EINVAL;
    }
    return CUBE_OK;
}

static int register_accel(cube_plugin *self, const struct cube_accel_desc *in)
{
    struct cube_sched *s = self->ctx->sched;
    struct sched_accel *a = NULL;
    char why[128];
    size_t min = offsetof(struct cube_accel_desc, usage) + sizeof in->usage;
    const char *bad = !self->in_init ? "only during init"
                      : !in || in->size < min ? "descriptor smaller than ABI 1.3's"
                      : !in->name || cube_name_check(in->name, why, sizeof why) < 0
                          ? "name: must be a DNS label"
                      : !in->resource || !strchr(in->resource, '/') || strlen(in->resource) > 63
                          ? "resource: must look like vendor.com/device"
                      : !in->discover || !in->pin_env ? "discover and pin_env are required" : NULL;
    pthread_mutex_lock(&s->mu);
    if (!bad && sched_accel_for(s, in->resource))
        bad = "this resource already has an accelerator plugin";
    if (!bad && (!(a = calloc(1, sizeof *a)) || push((void ***)&s->accels, &s->n_accels, a) < 0))
        bad = "out of memory";
    if (!bad) {
        memcpy(&a->desc, in, in->size < sizeof a->desc ? in->size : sizeof a->desc);
        a->desc.name = strdup(in->name);
        a->desc.resource = strdup(in->resource);
        a->plugin = self;
    }
    pthread_mutex_unlock(&s->mu);
    if (bad) {
        free(a);
        cube_log(CUBE_LOG_ERROR, self->log_component, "register_accel: %s", bad);
        return !self->in_init ? CUBE_ESTATE : strstr(bad, "already") ? CUBE_EEXIST : CUBE_EINVAL;
    }
    return CUBE_OK;
}

int sched_resource_known(struct cube_sched *s, const char *resource)
{
    if (strcmp(resource, "cpu") == 0 || strcmp(resource, "memory") == 0)
        return 1;
    pthread_mutex_lock(&s->mu);
    int known = sched_accel_for(s, resource) != NULL;
    pthread_mutex_unlock(&s->mu);
    return known || sched_node_resource(s, resource);
}
