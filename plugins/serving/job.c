/* job.c — the Job one replica of a predictor runs as. Built-in runtimes run
 * cube-serving-runtime.py (beside the plugin) with the Model's framework,
 * path and recorded SHA-256; a custom predictor runs its own command. The
 * Job declares spec.ports "http": the host allocates the port
 * ($CUBE_PORT_HTTP) and the executor reports the endpoint. The controller
 * reference makes the host give the Job the service's owner, whom it runs
 * as; the model's files are thus opened only by that user, in the
 * replica's sandbox. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <cube/util/json.h>

#include "serving.h"

void sv_job_name(const char *svc, const char *pred, const char *hash, int idx, char *out,
                 size_t len)
{
    /* 63 bytes at most: the service's name is cut to leave room */
    snprintf(out, len, "%.28s-%s-%.6s-%d", svc, pred, hash, idx);
}

static uint64_t fnv(uint64_t h, const char *s)
{
    for (; s && *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return (h ^ 0xff) * 1099511628211ull;
}

void sv_template_hash(const void *predv, const void *modelv, char *out, size_t len)
{
    const cJSON *pred = predv, *model = modelv;
    cJSON *t = cJSON_Duplicate(pred, 1);
    /* what does not change the replicas' program: not part of the template */
    cJSON_DeleteItemFromObjectCaseSensitive(t, "replicas");
    cJSON_DeleteItemFromObjectCaseSensitive(t, "port");
    char *a = cJSON_PrintUnformatted(t);
    const cJSON *ms = cJSON_GetObjectItemCaseSensitive(model, "status");
    uint64_t h = fnv(1469598103934665603ull, a);
    h = fnv(h, cu_str(ms, "sha256"));
    h = fnv(h, cu_meta(model, "uid"));
    snprintf(out, len, "%012llx", (unsigned long long)(h & 0xffffffffffffull));
    free(a);
    cJSON_Delete(t);
}

static cJSON *job_meta(const cJSON *svc, const char *pred, const char *job_name,
                       const char *hash)
{
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(svc, "metadata");
    cJSON *m = cJSON_CreateObject(), *labels, *ref;
    cJSON_AddStringToObject(m, "name", job_name);
    cJSON_AddStringToObject(m, "project", cu_str(meta, "project"));
    labels = cJSON_AddObjectToObject(m, "labels");
    cJSON_AddStringToObject(labels, "cube.dev/inferenceservice", cu_str(meta, "name"));
    cJSON_AddStringToObject(labels, "cube.dev/predictor", pred);
    cJSON_AddStringToObject(labels, "cube.dev/template", hash);
    cJSON_AddItemToArray(cJSON_AddArrayToObject(m, "ownerReferences"), ref = cJSON_CreateObject());
    cJSON_AddStringToObject(ref, "kind", SV_KIND);
    cJSON_AddStringToObject(ref, "name", cu_str(meta, "name"));
    cJSON_AddStringToObject(ref, "uid", cu_str_or(meta, "uid", ""));
    cJSON_AddBoolToObject(ref, "controller", 1);
    return m;
}

static void add_arg(cJSON *cmd, const char *a)
{
    cJSON_AddItemToArray(cmd, cJSON_CreateString(a));
}

/* The file the runtime loads (project-relative) and its recorded SHA-256:
 * the registry's status.root/entry and that file's digest, else spec.path
 * and status.sha256 (a single file). */
static void model_file(const cJSON *model, char *path, size_t plen, char *digest, size_t dlen)
{
    const cJSON *mspec = cJSON_GetObjectItemCaseSensitive(model, "spec");
    const cJSON *mst = cJSON_GetObjectItemCaseSensitive(model, "status"), *f;
    const char *root = cu_str_or(mst, "root", ""), *entry = cu_str(mst, "entry");
    snprintf(digest, dlen, "%s", cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(mst, "files")) <= 1
                                     ? cu_str_or(mst, "sha256", "") : "");
    if (!entry) {
        snprintf(path, plen, "%s", cu_str_or(mspec, "path", ""));
        return;
    }
    snprintf(path, plen, "%s%s%s", root, *root ? "/" : "", entry);
    cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(mst, "files"))
        if (!strcmp(cu_str_or(f, "path", ""), entry) && cu_str(f, "sha256"))
            snprintf(digest, dlen, "%s", cu_str(f, "sha256"));
}

/* The built-in runtime's command line. */
static void runtime_command(const struct sv *sv, cJSON *spec, const cJSON *svc,
                            const cJSON *pred, const cJSON *model, const char *runtime)
{
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(svc, "metadata");
    const cJSON *mspec = cJSON_GetObjectItemCaseSensitive(model, "spec");
    const cJSON *batch = cJSON_GetObjectItemCaseSensitive(pred, "batching");
    char version[32], service[160], bmax[16], bwait[32];
    snprintf(version, sizeof version, "%.0f", cu_num(mspec, "version", 1));
    if (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(mspec, "version")))
        snprintf(version, sizeof version, "%s", cu_str(mspec, "version"));
    sv_key(cu_str(meta, "project"), cu_str(meta, "name"), service, sizeof service);
    snprintf(bmax, sizeof bmax, "%d", batch ? (int)cu_num(batch, "maxBatchSize", 32) : 1);
    snprintf(bwait, sizeof bwait, "%g", batch ? cu_num(batch, "maxLatencyMs", 2) : 0);
    char path[2200], digest[80];
    model_file(model, path, sizeof path, digest, sizeof digest);
    cJSON *cmd = cJSON_AddArrayToObject(spec, "command");
    const char *argv[] = {sv->conf.python, "-I", sv->runtime, "--name", cu_str(meta, "name"),
                          "--version", version, "--framework", runtime,
                          "--path", path, "--sha256", digest,
                          "--batch-max", bmax, "--batch-wait-ms", bwait,
                          "--service", service};
    for (size_t i = 0; i < sizeof argv / sizeof argv[0]; i++)
        add_arg(cmd, argv[i]);
}

char *sv_job_json(const struct sv *sv, const void *svcv, int pi, const void *modelv,
                  const char *job_name, const char *hash)
{
    const cJSON *svc = svcv, *model = modelv;
    const cJSON *preds = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(svc, "spec"), "predictors");
    const cJSON *pred = cJSON_GetArrayItem(preds, pi);
    const char *pname = cu_str(pred, "name");
    const char *runtime = cu_str(pred, "runtime");
    if (!runtime)
        runtime = cu_str(cJSON_GetObjectItemCaseSensitive(model, "spec"), "framework");
    if (!pname || !runtime || (strcmp(runtime, "custom") && !model))
        return NULL;
    cJSON *job = cJSON_CreateObject(), *spec, *env, *port;
    cJSON_AddStringToObject(job, "kind", "Job");
    cJSON_AddItemToObject(job, "metadata", job_meta(svc, pname, job_name, hash));
    spec = cJSON_AddObjectToObject(job, "spec");
    if (!strcmp(runtime, "custom"))
        cJSON_AddItemToObject(spec, "command",
                              cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(pred, "command"), 1));
    else
        runtime_command(sv, spec, svc, pred, model, runtime);
    port = cJSON_CreateObject();
    cJSON_AddStringToObject(port, "name", SV_PORT);
    cJSON_AddStringToObject(port, "protocol", "http");
    cJSON_AddItemToArray(cJSON_AddArrayToObject(spec, "ports"), port);
    static const char *const COPY[] = {"resources", "accelerator", "image", "pool"};
    for (size_t i = 0; i < sizeof COPY / sizeof COPY[0]; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(pred, COPY[i]);
        if (v)
            cJSON_AddItemToObject(spec, COPY[i], cJSON_Duplicate(v, 1));
    }
    if (!cJSON_GetObjectItemCaseSensitive(spec, "pool"))
        cJSON_AddStringToObject(spec, "pool", sv->conf.pool);
    env = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(pred, "env"), 1);
    if (!env)
        env = cJSON_CreateObject();
    if (!cJSON_GetObjectItemCaseSensitive(env, "OMP_NUM_THREADS"))
        cJSON_AddStringToObject(env, "OMP_NUM_THREADS", "1");
    cJSON_AddStringToObject(env, "CUBE_SERVING_PREDICTOR", pname);
    cJSON_AddItemToObject(spec, "env", env);
    char *text = cJSON_PrintUnformatted(job);
    cJSON_Delete(job);
    return text;
}
