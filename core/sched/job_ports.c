/* job_ports.c — the network ports of distributed Jobs. Replicas share their
 * node's network, so two live Jobs must never be handed the same port: a
 * torchrun rendezvous on a shared MASTER_PORT would fail with EADDRINUSE or,
 * worse, let one user's rank join another user's job. Each admission (each
 * retry too) takes fresh ports from the node's range (the node document's
 * "jobPorts": {"min","max"}, else JOB_PORT_MIN..JOB_PORT_MAX) and records
 * them in the Job's status (status.ports.master, status.replicas[i].port);
 * they return to the pool when the Job is forgotten (ended, deleted) and are
 * taken again from the status of running Jobs after a restart.
 *
 * State: s->ports maps "<node>\t<port>" to the owning Job id (malloc'd);
 * every function takes s->mu itself. A cursor per process makes the next
 * allocation start past the last one, so a port just freed (perhaps still
 * in TIME_WAIT) is reused last. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobs.h"
#include "base/strmap.h"

static unsigned next_cursor;   /* guarded by s->mu */

static void port_key(const char *node, int port, char *buf, size_t len)
{
    snprintf(buf, len, "%s\t%d", node, port);
}

/* The node's range (caller holds mu). */
static void node_range(struct cube_sched *s, const char *node, int *lo, int *hi)
{
    const struct sched_node *n = cube_strmap_get(s->nodes, node);
    *lo = n && n->port_min > 0 ? n->port_min : JOB_PORT_MIN;
    *hi = n && n->port_max >= *lo ? n->port_max : JOB_PORT_MAX;
}

struct release { const char *id; struct cube_strmap *drop; };

static int collect(void *cls, const char *key, void *value)
{
    struct release *r = cls;
    if (strcmp(value, r->id) == 0)
        cube_strmap_put(r->drop, key, (void *)1, NULL);
    return 0;
}

static int drop_key(void *cls, const char *key, void *value)
{
    (void)value;
    free(cube_strmap_del(cls, key));
    return 0;
}

/* Caller holds mu. */
static void release_locked(struct cube_sched *s, const char *job_id)
{
    struct release r = {job_id, cube_strmap_new()};
    if (!r.drop)
        return;
    cube_strmap_each(s->ports, collect, &r);
    cube_strmap_each(r.drop, drop_key, s->ports);
    cube_strmap_free(r.drop, NULL);
}

void job_ports_release(struct cube_sched *s, const char *job_id)
{
    pthread_mutex_lock(&s->mu);
    release_locked(s, job_id);
    pthread_mutex_unlock(&s->mu);
}

/* Records node's port as job_id's (caller holds mu): 0, or -1 (memory). */
static int mark_taken(struct cube_sched *s, const char *job_id, const char *node, int port)
{
    char key[200], *owner = strdup(job_id);
    port_key(node, port, key, sizeof key);
    if (!owner || cube_strmap_put(s->ports, key, owner, NULL) < 0) {
        free(owner);
        return -1;
    }
    return 0;
}

/* One free port of node for job_id, or 0 (caller holds mu). */
static int take_one(struct cube_sched *s, const char *job_id, const char *node)
{
    int lo, hi;
    node_range(s, node, &lo, &hi);
    unsigned span = (unsigned)(hi - lo + 1);
    for (unsigned i = 0; i < span; i++) {
        int port = lo + (int)((next_cursor + i) % span);
        char key[200];
        port_key(node, port, key, sizeof key);
        if (cube_strmap_get(s->ports, key))
            continue;
        if (mark_taken(s, job_id, node, port) < 0)
            return 0;
        next_cursor = (next_cursor + i + 1) % span;
        return port;
    }
    return 0;
}

int job_ports_take(struct cube_sched *s, const char *job_id, const char *const *nodes,
                   int n, int *ports)
{
    int ok = 1;
    pthread_mutex_lock(&s->mu);
    release_locked(s, job_id);   /* a retry's admission: its old ports go back */
    for (int i = 0; i < n && ok; i++)
        ok = (ports[i] = take_one(s, job_id, nodes[i] ? nodes[i] : "")) > 0;
    if (!ok)
        release_locked(s, job_id);
    pthread_mutex_unlock(&s->mu);
    return ok ? 0 : -1;
}

void job_ports_restore(struct cube_sched *s, const char *job_id, const cJSON *job)
{
    const cJSON *status = cJSON_GetObjectItemCaseSensitive(job, "status"), *r;
    const cJSON *reps = cJSON_GetObjectItemCaseSensitive(status, "replicas");
    const cJSON *master = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(status, "ports"), "master");
    const char *node0 = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetArrayItem(reps, 0), "node"));
    pthread_mutex_lock(&s->mu);
    if (cJSON_IsNumber(master) && node0)
        mark_taken(s, job_id, node0, (int)master->valuedouble);
    cJSON_ArrayForEach(r, reps) {
        const cJSON *port = cJSON_GetObjectItemCaseSensitive(r, "port");
        const char *node = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "node"));
        if (cJSON_IsNumber(port) && node)
            mark_taken(s, job_id, node, (int)port->valuedouble);
    }
    pthread_mutex_unlock(&s->mu);
}

/* What a distributed mode needs: 1 master port, a port per replica, or 0. */
static int ports_needed(const cJSON *spec, int *per_replica)
{
    const char *mode = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(spec,
                                                                             "distributed"));
    *per_replica = mode && !strcmp(mode, "tensorflow");
    return mode && (!strcmp(mode, "pytorch") || !strcmp(mode, "deepspeed") || *per_replica);
}

int job_ports_assign(struct cube_sched *s, const char *job_id, const cJSON *job,
                     cJSON *status)
{
    int per_replica;
    cJSON *reps = cJSON_GetObjectItemCaseSensitive(status, "replicas"), *r;
    int n = cJSON_GetArraySize(reps);
    if (!ports_needed(cJSON_GetObjectItemCaseSensitive(job, "spec"), &per_replica) || n <= 0)
        return 0;
    int want = per_replica ? n : 1, i = 0;
    const char **nodes = calloc((size_t)want, sizeof *nodes);
    int *ports = calloc((size_t)want, sizeof *ports);
    int rc = nodes && ports ? 0 : -1;
    cJSON_ArrayForEach(r, reps)
        if (rc == 0 && i < want)
            nodes[i++] = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "node"));
    if (rc == 0)
        rc = job_ports_take(s, job_id, nodes, want, ports);
    cJSON_DeleteItemFromObjectCaseSensitive(status, "ports");
    if (rc == 0 && !per_replica)
        cJSON_AddNumberToObject(cJSON_AddObjectToObject(status, "ports"), "master", ports[0]);
    i = 0;
    cJSON_ArrayForEach(r, reps)
        if (rc == 0 && per_replica)
            cJSON_AddNumberToObject(r, "port", ports[i++]);
    free(nodes);
    free(ports);
    return rc;
}

int job_ports_range_ok(const cJSON *ports)
{
    const cJSON *lo = cJSON_GetObjectItemCaseSensitive(ports, "min");
    const cJSON *hi = cJSON_GetObjectItemCaseSensitive(ports, "max");
    return cJSON_IsNumber(lo) && cJSON_IsNumber(hi) && lo->valuedouble == (int)lo->valuedouble &&
           hi->valuedouble == (int)hi->valuedouble && lo->valuedouble >= 1024 &&
           hi->valuedouble <= 65535 && lo->valuedouble <= hi->valuedouble;
}

const char *job_ports_missing(const cJSON *job)
{
    int per_replica;
    const cJSON *status = cJSON_GetObjectItemCaseSensitive(job, "status"), *r;
    if (!ports_needed(cJSON_GetObjectItemCaseSensitive(job, "spec"), &per_replica))
        return NULL;
    if (!per_replica)
        return cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(
                   cJSON_GetObjectItemCaseSensitive(status, "ports"), "master"))
                   ? NULL : "no free network port for MASTER_PORT on replica 0's node "
                            "(its range is used up by other distributed Jobs)";
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(status, "replicas"))
        if (!cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(r, "port")))
            return "no free network port for a TF_CONFIG worker on its node "
                   "(its range is used up by other distributed Jobs)";
    return NULL;
}
