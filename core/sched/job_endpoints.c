/* job_endpoints.c — a Job's named ports and where its replicas answer on
 * them (ABI 1.5, G1; the contract is "Ports and endpoints" in
 * abi/cube/cube_sched.h). spec.ports is checked beyond its schema here
 * (the ports are taken in job_ports.c and passed in job_env.c). The
 * replica_endpoints slot checks a report and hands it to the path every
 * replica report takes (job_report_submit, job_replica_status.c), so one
 * made before the replica's start returned is kept exactly as a
 * replica_status report is. job_endpoint_host reads replica 0's endpoint
 * for MASTER_ADDR. The syntax of "host:port" is libcube-util's
 * (cube/util/endpoint.h), shared with the fake host and plugins. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cube/util/endpoint.h>

#include "ctx/ctx.h"
#include "jobs.h"
#include "objects/objects.h"

static const cJSON *spec_ports(const cJSON *job)
{
    return cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(job, "spec"),
                                            "ports");
}

static const char *port_name(const cJSON *port)
{
    return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(port, "name"));
}

int job_spec_ports_check(const cJSON *spec, struct cube_op_error *e)
{
    const cJSON *ports = cJSON_GetObjectItemCaseSensitive(spec, "ports"), *p;
    int i = 0;
    cJSON_ArrayForEach(p, ports) {
        int j = 0;
        for (const cJSON *q = ports->child; q != p; q = q->next, j++)
            if (port_name(p) && port_name(q) && !strcmp(port_name(p), port_name(q))) {
                char field[48];
                snprintf(field, sizeof field, "spec.ports[%d].name", i);
                cube_op_fail(e, 422, "Invalid", field, "%s: \"%s\" is spec.ports[%d].name "
                             "too (names are unique within a Job)", field, port_name(p), j);
                return -1;
            }
        i++;
    }
    return 0;
}

/* A report's text checked (see the slot's contract) into *out, a new
 * object: CUBE_OK or CUBE_EINVAL. */
static int parse_report(const char *json, cJSON **out)
{
    cJSON *o = json ? cJSON_Parse(json) : NULL;
    if (!cu_endpoints_ok(o, CUBE_JOB_PORTS_MAX)) {
        cJSON_Delete(o);
        return CUBE_EINVAL;
    }
    *out = o;
    return CUBE_OK;
}

int job_endpoints_set(cJSON *r, const cJSON *job, const cJSON *endpoints)
{
    cJSON *keep = cJSON_CreateObject();
    const cJSON *p;
    if (!keep)
        return 0;
    cJSON_ArrayForEach(p, spec_ports(job)) {
        const cJSON *v = port_name(p) ? cJSON_GetObjectItemCaseSensitive(endpoints, port_name(p))
                                      : NULL;
        if (cJSON_IsString(v))
            cJSON_AddStringToObject(keep, port_name(p), v->valuestring);
    }
    const cJSON *had = cJSON_GetObjectItemCaseSensitive(r, "endpoints");
    int empty = keep->child == NULL;
    if (had ? cJSON_Compare(had, keep, 1) : empty) {
        cJSON_Delete(keep);
        return 0;
    }
    cJSON_DeleteItemFromObjectCaseSensitive(r, "endpoints");
    if (empty)
        cJSON_Delete(keep);
    else
        cJSON_AddItemToObject(r, "endpoints", keep);
    return 1;
}

const char *job_endpoint_host(const cJSON *job, int i, char *buf, size_t len)
{
    const cJSON *eps = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(job, "status"),
                                         "replicas"), i), "endpoints");
    const cJSON *p;
    cJSON_ArrayForEach(p, (eps ? spec_ports(job) : NULL)) {
        const char *hp = port_name(p) ? cJSON_GetStringValue(
                                            cJSON_GetObjectItemCaseSensitive(eps, port_name(p)))
                                      : NULL;
        unsigned port;
        if (hp && cu_hostport_split(hp, buf, len, &port, NULL) == 0)
            return buf;
    }
    return NULL;
}

void job_endpoints_peek(struct cube_sched *s, const char *engine, const cJSON *job, cJSON *r)
{
    cJSON *eps = job_report_early_endpoints(s, engine);
    if (eps)
        job_endpoints_set(r, job, eps);
    cJSON_Delete(eps);
}

int cube_slot_replica_endpoints(cube_plugin *self, const char *engine_id,
                                const char *endpoints_json)
{
    struct cube_sched *s = self->ctx->sched;
    struct job_report rep;
    memset(&rep, 0, sizeof rep);
    if (!engine_id || !*engine_id || parse_report(endpoints_json, &rep.endpoints) != CUBE_OK)
        return CUBE_EINVAL;
    int allowed = 0;
    pthread_mutex_lock(&s->mu);
    for (size_t i = 0; i < s->n_executors; i++)
        allowed |= s->executors[i]->plugin == self;
    pthread_mutex_unlock(&s->mu);
    if (!allowed) {
        cJSON_Delete(rep.endpoints);
        return CUBE_ESTATE;
    }
    return job_report_submit(s, engine_id, &rep);
}
