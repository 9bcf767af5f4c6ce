/* job_env.c — the replica document an executor gets (cube_sched.h): the
 * command, limits, log stream and the environment: the project's and the
 * Job's variables, then Cube's own (CUBE_API, CUBE_PROJECT, CUBE_JOB,
 * CUBE_REPLICA, a short-lived CUBE_TOKEN of the Job's owner), what
 * distributed frameworks read (torchrun's MASTER_ADDR/PORT, RANK,
 * WORLD_SIZE ...; TF_CONFIG; an MPI hostfile), and since ABI 1.5 each
 * named port of spec.ports as CUBE_PORT_<NAME>. Ports are the Job's own,
 * taken at admission (job_ports.c); MASTER_ADDR is replica 0's reported
 * endpoint when there is one (job_endpoints.c), else its node's address.
 * The device pinning of accelerator plugins is added to this document by
 * job_pin.c. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth/auth_priv.h"
#include "ctx/ctx.h"
#include "http/http_req.h"
#include "jobs.h"
#include "job_sdk.h"
#include "objects/kinds.h"
#include "base/log.h"
#include "files/files.h"
#include "objects/objects.h"
#include "base/quantity.h"
#include "base/strmap.h"

#define TOKEN_MAX_S (7 * 86400)

static const char *str(const cJSON *o, const char *key)
{
    return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, key));
}

static const cJSON *replica_status(const cJSON *job, int i)
{
    return cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(job, "status"), "replicas"), i);
}

/* The address of the node replica i runs on. */
static const char *node_address(struct cube_sched *s, const cJSON *job, int i, char *buf,
                                size_t len)
{
    const char *node = str(replica_status(job, i), "node");
    pthread_mutex_lock(&s->mu);
    struct sched_node *n = node ? cube_strmap_get(s->nodes, node) : NULL;
    snprintf(buf, len, "%s", n ? n->address : "127.0.0.1");
    pthread_mutex_unlock(&s->mu);
    return buf;
}

/* The user the replica runs for: the Job's owner, which the host stamped
 * from the authenticated principal that caused it (host_owner.c); NULL
 * when that is no user (a plugin's own object), and the Job never starts.
 * Nothing a user writes (annotations, spec) decides it. */
const char *job_run_as(const cJSON *job)
{
    const char *owner = str(cJSON_GetObjectItemCaseSensitive(job, "metadata"), "owner");
    return cube_owner_is_user(owner) ? owner : NULL;
}

/* Copies string members of from (a JSON object) into env. */
static void merge(cJSON *env, const cJSON *from)
{
    const cJSON *v;
    cJSON_ArrayForEach(v, from)
        if (cJSON_IsString(v)) {
            cJSON_DeleteItemFromObjectCaseSensitive(env, v->string);
            cJSON_AddStringToObject(env, v->string, v->valuestring);
        }
}

static void put(cJSON *env, const char *key, const char *value)
{
    cJSON_DeleteItemFromObjectCaseSensitive(env, key);
    cJSON_AddStringToObject(env, key, value);
}

static void put_int(cJSON *env, const char *key, long v)
{
    char buf[24];
    snprintf(buf, sizeof buf, "%ld", v);
    put(env, key, buf);
}

/* The project's default env (Project spec.env). */
static void project_env(struct cube_sched *s, const char *project, cJSON *env)
{
    struct cube_kind *pk = s->ctx->auth ? s->ctx->auth->project_kind : NULL;
    cJSON *p = NULL;
    struct cube_op_error e;
    if (pk && cube_obj_get(s->ctx, pk, NULL, project, &p, &e) == 0)
        merge(env, cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(p, "spec"),
                                                    "env"));
    cJSON_Delete(p);
}

/* CUBE_API, CUBE_PROJECT, CUBE_JOB, CUBE_REPLICA(S), CUBE_TOKEN (the
 * owner's, bound to this Job: it may write this Job's metrics and no
 * other's). */
static void cube_env(struct cube_sched *s, const cJSON *job, int i, cJSON *env)
{
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(job, "metadata");
    const cJSON *spec = cJSON_GetObjectItemCaseSensitive(job, "spec");
    const cJSON *timeout = cJSON_GetObjectItemCaseSensitive(spec, "timeoutSeconds");
    char api[128], secret[80];
    const char *host = s->ctx->cfg->listen_host;
    snprintf(api, sizeof api, "http://%s:%d", !host || !*host || !strcmp(host, "0.0.0.0")
             ? "127.0.0.1" : host, s->ctx->http ? s->ctx->http->port : s->ctx->cfg->listen_port);
    put(env, "CUBE_API", api);
    put(env, "CUBE_PROJECT", str(meta, "project"));
    put(env, "CUBE_JOB", str(meta, "name"));
    put_int(env, "CUBE_REPLICA", i);
    put_int(env, "CUBE_REPLICAS", (long)cJSON_GetNumberValue(
        cJSON_GetObjectItemCaseSensitive(spec, "replicas")));
    int64_t ttl = cJSON_IsNumber(timeout) && timeout->valuedouble > 0
                      ? (int64_t)timeout->valuedouble + 3600 : 86400;
    cJSON *tok = NULL;
    int admin, disabled;
    const char *user = job_run_as(job);
    if (user && s->ctx->auth && auth_index_get_user(s->ctx->auth, user, &admin, &disabled) == 0 &&
        !disabled &&
        auth_job_token_new(s->ctx->auth, user, str(meta, "uid") ? str(meta, "uid") : "",
                           str(meta, "project"), str(meta, "name"),
                           ttl < TOKEN_MAX_S ? ttl : TOKEN_MAX_S, &tok, secret,
                           sizeof secret) == CUBE_OK)
        put(env, "CUBE_TOKEN", secret);
    cJSON_Delete(tok);
}

/* CUBE_PORT_<NAME> for each named port the host allocated the replica
 * (status.replicas[i].ports): the name upper-cased, '-' as '_'. */
static void port_env(const cJSON *rep, cJSON *env)
{
    const cJSON *p;
    cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(rep, "ports")) {
        char key[80];
        int n = snprintf(key, sizeof key, "CUBE_PORT_%s", p->string);
        for (int k = 10; k < n && (size_t)k < sizeof key; k++)
            key[k] = key[k] == '-' ? '_' : (char)toupper((unsigned char)key[k]);
        if (cJSON_IsNumber(p))
            put_int(env, key, (long)p->valuedouble);
    }
}

/* MASTER_ADDR: the host of replica 0's reported endpoint, else the
 * address of replica 0's node. */
static const char *master_addr(struct cube_sched *s, const cJSON *job, char *buf, size_t len)
{
    const char *host = job_endpoint_host(job, 0, buf, len);
    return host ? host : node_address(s, job, 0, buf, len);
}

/* torchrun/deepspeed, TF_CONFIG or an MPI hostfile. */
static void distributed_env(struct cube_sched *s, const cJSON *job, int i, cJSON *env)
{
    const cJSON *spec = cJSON_GetObjectItemCaseSensitive(job, "spec");
    const char *mode = str(spec, "distributed");
    int n = (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(spec, "replicas"));
    char addr[128];
    if (!mode || !strcmp(mode, "none"))
        return;
    if (!strcmp(mode, "pytorch") || !strcmp(mode, "deepspeed")) {
        put(env, "MASTER_ADDR", master_addr(s, job, addr, sizeof addr));
        put_int(env, "MASTER_PORT", (long)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(job, "status"),
                                             "ports"), "master")));
        put_int(env, "WORLD_SIZE", n);
        put_int(env, "RANK", i);
        put_int(env, "NODE_RANK", i);
        put_int(env, "LOCAL_RANK", 0);
        put_int(env, "LOCAL_WORLD_SIZE", 1);
        put_int(env, "NPROC_PER_NODE", 1);
        return;
    }
    if (!strcmp(mode, "tensorflow")) {
        cJSON *tf = cJSON_CreateObject(), *workers = cJSON_CreateArray();
        for (int r = 0; r < n; r++) {
            char hp[160];
            snprintf(hp, sizeof hp, "%s:%d", node_address(s, job, r, addr, sizeof addr),
                     (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(
                         replica_status(job, r), "port")));
            cJSON_AddItemToArray(workers, cJSON_CreateString(hp));
        }
        cJSON_AddItemToObject(cJSON_AddObjectToObject(tf, "cluster"), "worker", workers);
        cJSON *task = cJSON_AddObjectToObject(tf, "task");
        cJSON_AddStringToObject(task, "type", "worker");
        cJSON_AddNumberToObject(task, "index", i);
        char *text = cJSON_PrintUnformatted(tf);
        put(env, "TF_CONFIG", text ? text : "{}");
        free(text);
        cJSON_Delete(tf);
        return;
    }
    /* mpi: one line per replica, in the project's files */
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(job, "metadata");
    char path[200], *full;
    size_t cap = (size_t)n * 140 + 1, used = 0;
    char *hosts = malloc(cap);
    for (int r = 0; hosts && r < n; r++)
        used += (size_t)snprintf(hosts + used, cap - used, "%s slots=1\n",
                                 node_address(s, job, r, addr, sizeof addr));
    snprintf(path, sizeof path, "cube-jobs/%s/hostfile", str(meta, "name"));
    if (hosts && cube_files_write(s->ctx->files, str(meta, "project"), path, hosts, used) == 0 &&
        (full = cube_files_path(s->ctx->files, str(meta, "project"), path))) {
        put(env, "CUBE_HOSTFILE", full);
        put(env, "OMPI_MCA_orte_default_hostfile", full);
        free(full);
    }
    free(hosts);
    put_int(env, "OMPI_COMM_WORLD_RANK", i);
    put_int(env, "OMPI_COMM_WORLD_SIZE", n);
}

/* cpuMillis / memoryBytes of one replica. */
static cJSON *limits(const cJSON *spec)
{
    const cJSON *res = cJSON_GetObjectItemCaseSensitive(spec, "resources");
    const char *why;
    int64_t cpu = 0, mem = 0;
    cJSON *o = cJSON_CreateObject();
    if (cJSON_HasObjectItem(res, "cpu"))
        cube_qty_milli(cJSON_GetObjectItemCaseSensitive(res, "cpu"), &cpu, &why);
    if (cJSON_HasObjectItem(res, "memory"))
        cube_qty_bytes(cJSON_GetObjectItemCaseSensitive(res, "memory"), &mem, &why);
    cJSON_AddNumberToObject(o, "cpuMillis", (double)cpu);
    cJSON_AddNumberToObject(o, "memoryBytes", (double)mem);
    return o;
}

char *job_replica_doc(struct cube_sched *s, const cJSON *job, int i)
{
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(job, "metadata");
    if (!job_run_as(job))
        return NULL;
    const cJSON *spec = cJSON_GetObjectItemCaseSensitive(job, "spec"), *a;
    const cJSON *rep = replica_status(job, i);
    cJSON *doc = cJSON_CreateObject(), *env = cJSON_CreateObject(), *argv, *devs;
    char stream[32];
    cJSON_AddItemToObject(doc, "job", cJSON_Duplicate(job, 1));
    cJSON_AddNumberToObject(doc, "replica", i);
    cJSON_AddNumberToObject(doc, "replicas", cJSON_GetNumberValue(
        cJSON_GetObjectItemCaseSensitive(spec, "replicas")));
    cJSON_AddStringToObject(doc, "node", str(rep, "node") ? str(rep, "node") : "");
    devs = cJSON_AddArrayToObject(doc, "devices");
    cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(rep, "devices"))
        cJSON_AddItemToArray(devs, cJSON_CreateString(str(a, "id") ? str(a, "id") : ""));
    cJSON_AddStringToObject(doc, "user", job_run_as(job));
    cJSON_AddStringToObject(doc, "project", str(meta, "project"));
    argv = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(spec, "command"), 1);
    cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(spec, "args"))
        cJSON_AddItemToArray(argv, cJSON_Duplicate(a, 0));
    cJSON_AddItemToObject(doc, "command", argv);
    cJSON_AddStringToObject(doc, "workdir", str(spec, "workdir") ? str(spec, "workdir") : "");
    cJSON_AddStringToObject(doc, "image", str(spec, "image") ? str(spec, "image") : "");
    cJSON_AddNumberToObject(doc, "timeoutSeconds", cJSON_GetNumberValue(
        cJSON_GetObjectItemCaseSensitive(spec, "timeoutSeconds")));
    cJSON_AddItemToObject(doc, "limits", limits(spec));
    project_env(s, str(meta, "project"), env);
    merge(env, cJSON_GetObjectItemCaseSensitive(spec, "env"));
    job_sdk_env(s->ctx->cfg, env);   /* the Python SDK, last on PYTHONPATH */
    cube_env(s, job, i, env);
    distributed_env(s, job, i, env);
    port_env(rep, env);
    cJSON_AddItemToObject(doc, "env", env);
    char addr[128];   /* since 1.5: where the node is, and the replica's ports */
    cJSON_AddStringToObject(doc, "address", node_address(s, job, i, addr, sizeof addr));
    if (cJSON_GetObjectItemCaseSensitive(rep, "ports"))
        cJSON_AddItemToObject(doc, "ports", cJSON_Duplicate(
            cJSON_GetObjectItemCaseSensitive(rep, "ports"), 1));
    cJSON *log = cJSON_AddObjectToObject(doc, "log");
    snprintf(stream, sizeof stream, "replica-%d", i);
    cJSON_AddStringToObject(log, "kind", "Job");
    cJSON_AddStringToObject(log, "project", str(meta, "project"));
    cJSON_AddStringToObject(log, "name", str(meta, "name"));
    cJSON_AddStringToObject(log, "stream", stream);
    char *text = cJSON_PrintUnformatted(doc);
    cJSON_Delete(doc);
    return text;
}
