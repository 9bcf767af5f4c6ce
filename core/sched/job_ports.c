/* job_ports.c — the network ports of distributed Jobs. Replicas share their
 * node's network, so two live Jobs must never be handed the same port: a
 * torchrun rendezvous on a shared MASTER_PORT would fail with EADDRINUSE or,
 * worse, let one user's rank join another user's job. Each admission (each
 * retry too) takes fresh ports from the node's range (the node document's
 * "jobPorts": {"min","max"}, else JOB_PORT_MIN..JOB_PORT_MAX) and records
 * them in the Job's status (status.ports.master, status.replicas[i].port);
 * the named ports of spec.ports (ABI 1.5) likewise, one per replica and
 * name on the replica's node (status.replicas[i].ports.<name>), except on
 * nodes whose executor assigns its own (CUBE_EXECUTOR_OWN_PORTS);
 * they return to the pool when the Job is forgotten (ended, deleted) and are
 * taken again from the status of running Jobs after a restart.
 *
 * State: s->ports maps "<node>\t<port>" to the owning Job id (malloc'd);
 * every function takes s->mu itself. A cursor per process makes the next
 * allocation start past the last one, so a port just freed (perhaps still
 * in TIME_WAIT) is reused last; it starts at a random place in the range,
 * so that two cubeds on one machine (a test suite, a second instance)
 * rarely try the same ports. On nodes that are this machine (loopback or
 * no address, or a document that left "devices" out) a port some other
 * process listens on is skipped: it is tried with bind() first. */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "jobs.h"
#include "base/strmap.h"

static unsigned next_cursor;   /* guarded by s->mu */
static int cursor_set;         /* guarded by s->mu */

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

/* Whether node is this machine, whose ports other processes use too
 * (caller holds mu). */
static int node_is_here(struct cube_sched *s, const char *node)
{
    const struct sched_node *n = cube_strmap_get(s->nodes, node);
    if (!n)
        return 0;
    const char *a = n->address;
    return n->local || !a || !*a || !strncmp(a, "127.", 4) || !strcmp(a, "::1") ||
           !strcmp(a, "localhost");
}

/* Whether some process holds port on this machine: a TCP bind to the
 * wildcard address fails against any listener (SO_REUSEADDR lets a port
 * in TIME_WAIT pass). Errors other than EADDRINUSE count as free. */
static int port_busy_here(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return 0;
    int one = 1;
    (void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                             .sin_addr.s_addr = htonl(INADDR_ANY)};
    int busy = bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0 && errno == EADDRINUSE;
    close(fd);
    return busy;
}

/* One free port of node for job_id, or 0 (caller holds mu). */
static int take_one(struct cube_sched *s, const char *job_id, const char *node)
{
    int lo, hi;
    node_range(s, node, &lo, &hi);
    unsigned span = (unsigned)(hi - lo + 1);
    if (!cursor_set) {
        next_cursor = (unsigned)(time(NULL) ^ ((unsigned)getpid() * 2654435761u));
        cursor_set = 1;
    }
    int here = node_is_here(s, node);
    for (unsigned i = 0; i < span; i++) {
        int port = lo + (int)((next_cursor + i) % span);
        char key[200];
        port_key(node, port, key, sizeof key);
        if (cube_strmap_get(s->ports, key) || (here && port_busy_here(port)))
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
        const cJSON *port = cJSON_GetObjectItemCaseSensitive(r, "port"), *named;
        const char *node = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "node"));
        if (cJSON_IsNumber(port) && node)
            mark_taken(s, job_id, node, (int)port->valuedouble);
        cJSON_ArrayForEach(named, (node ? cJSON_GetObjectItemCaseSensitive(r, "ports") : NULL))
            if (cJSON_IsNumber(named))
                mark_taken(s, job_id, node, (int)named->valuedouble);
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

/* 1 when replica r's node takes named ports from the host (its executor
 * has no CUBE_EXECUTOR_OWN_PORTS). */
static int host_names_ports(struct cube_sched *s, const cJSON *r)
{
    const char *node = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "node"));
    return !(sched_node_flags(s, node ? node : "") & CUBE_EXECUTOR_OWN_PORTS);
}

/* Writes the taken ports into status: the distributed mode's `dist`
 * first, then each named port of each replica that takes them. */
static void record(cJSON *status, const cJSON *names, const int *own, int dist, int per_replica,
                   const int *ports)
{
    cJSON *r;
    const cJSON *p;
    int i = 0, k = dist;
    if (dist && !per_replica)
        cJSON_AddNumberToObject(cJSON_AddObjectToObject(status, "ports"), "master", ports[0]);
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(status, "replicas")) {
        if (dist && per_replica)
            cJSON_AddNumberToObject(r, "port", ports[i]);
        cJSON *named = own[i++] || !names || !names->child ? NULL : cJSON_AddObjectToObject(r, "ports");
        cJSON_ArrayForEach(p, (named ? names : NULL))
            cJSON_AddNumberToObject(named, cJSON_GetStringValue(
                cJSON_GetObjectItemCaseSensitive(p, "name")), ports[k++]);
    }
}

int job_ports_assign(struct cube_sched *s, const char *job_id, const cJSON *job,
                     cJSON *status)
{
    int per_replica;
    const cJSON *spec = cJSON_GetObjectItemCaseSensitive(job, "spec");
    const cJSON *names = cJSON_GetObjectItemCaseSensitive(spec, "ports");
    cJSON *reps = cJSON_GetObjectItemCaseSensitive(status, "replicas"), *r;
    int n = cJSON_GetArraySize(reps), n_names = cJSON_GetArraySize(names);
    int dist = ports_needed(spec, &per_replica) ? (per_replica ? n : 1) : 0;
    cJSON_DeleteItemFromObjectCaseSensitive(status, "ports");
    if (n <= 0 || (!dist && !n_names))
        return 0;
    int cap = dist + n * n_names, want = 0, i = 0;
    const char **nodes = calloc((size_t)cap, sizeof *nodes);
    int *ports = calloc((size_t)cap, sizeof *ports), *own = calloc((size_t)n, sizeof *own);
    int rc = nodes && ports && own ? 0 : -1;
    cJSON_ArrayForEach(r, (rc == 0 ? reps : NULL))      /* the mode's first */
        if (want < dist)
            nodes[want++] = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "node"));
    cJSON_ArrayForEach(r, (rc == 0 ? reps : NULL)) {    /* then each replica's names */
        own[i] = !host_names_ports(s, r);
        for (int k = 0; k < n_names && !own[i]; k++)
            nodes[want++] = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "node"));
        i++;
    }
    if (rc == 0)
        rc = job_ports_take(s, job_id, nodes, want, ports);
    if (rc == 0)
        record(status, names, own, dist, per_replica, ports);
    free(nodes);
    free(ports);
    free(own);
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

/* NULL when every replica that takes named ports from the host has one
 * per name of spec.ports, else why not (static). */
static const char *named_missing(struct cube_sched *s, const cJSON *job)
{
    const cJSON *names = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(job, "spec"), "ports"), *r, *p;
    const cJSON *reps = names && names->child ? cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(job, "status"), "replicas") : NULL;
    cJSON_ArrayForEach(r, reps) {
        const cJSON *got = cJSON_GetObjectItemCaseSensitive(r, "ports");
        cJSON_ArrayForEach(p, (host_names_ports(s, r) ? names : NULL))
            if (!cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(got, cJSON_GetStringValue(
                    cJSON_GetObjectItemCaseSensitive(p, "name")))))
                return "no free network port for spec.ports on a replica's node (its range "
                       "is used up by other Jobs)";
    }
    return NULL;
}

const char *job_ports_missing(struct cube_sched *s, const cJSON *job)
{
    int per_replica;
    const cJSON *status = cJSON_GetObjectItemCaseSensitive(job, "status"), *r;
    const char *named = named_missing(s, job);
    if (named || !ports_needed(cJSON_GetObjectItemCaseSensitive(job, "spec"), &per_replica))
        return named;
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
