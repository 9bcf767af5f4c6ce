/* job_pin.c — pinning a replica to its devices (ABI 1.5, G10). For each
 * device resource of a replica, the accelerator serving it says what the
 * replica needs: pin (a Pin document: env, device nodes, mounts; checked
 * here, since a bad one must fail the start, not reach an executor) or,
 * for 1.3/1.4 plugins, pin_env (env only). The answers are joined into the
 * replica document job_env.c builds: "env" gains the variables (they
 * replace the Job's and Project's of the same name), "deviceNodes" and
 * "mounts" the rest; "deviceNodes" is left out when some resource was
 * pinned by pin_env or has no accelerator (its nodes are unknown, so the
 * executor keeps the machine's /dev). See "Pin" in cube_sched.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/callerr.h"
#include "ctx/ctx.h"
#include "jobs.h"
#include "objects/objects.h"

#define PIN_NODES_MAX 64
#define PIN_MOUNTS_MAX 32

static const char *str(const cJSON *o, const char *key)
{
    return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, key));
}

/* 1 when path lies at or below dir ("/dev" covers "/dev/x", not "/devx"). */
static int below(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    return strncmp(path, dir, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

/* A path member: absolute, clean, under 4096 bytes; NULL (and msg) when
 * bad; def when absent. */
static const char *path_member(const cJSON *o, const char *key, const char *def,
                               const char *at, char *msg, size_t len)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v)
        return def ? def : (snprintf(msg, len, "%s.%s: required", at, key), NULL);
    if (!cJSON_IsString(v) || strlen(v->valuestring) >= 4096 || !job_path_clean(v->valuestring))
        return snprintf(msg, len, "%s.%s: must be an absolute path without \".\" or \"..\" "
                        "segments", at, key), NULL;
    return v->valuestring;
}

/* Adds node (path, host) to out unless it is there; -1 with msg when the
 * same path names another host node. */
static int join_node(cJSON *out, const char *path, const char *host, const char *at,
                     char *msg, size_t len)
{
    const cJSON *n;
    cJSON_ArrayForEach(n, out)
        if (!strcmp(str(n, "path"), path)) {
            if (strcmp(str(n, "hostPath"), host) == 0)
                return 0;
            return snprintf(msg, len, "%s: %s is bound from %s already", at, path,
                            str(n, "hostPath")), -1;
        }
    if (cJSON_GetArraySize(out) >= PIN_NODES_MAX)
        return snprintf(msg, len, "deviceNodes: more than %d for one replica",
                        PIN_NODES_MAX), -1;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "path", path);
    cJSON_AddStringToObject(o, "hostPath", host);
    cJSON_AddItemToArray(out, o);
    return 0;
}

static int check_nodes(const cJSON *nodes, cJSON *out, char *msg, size_t len)
{
    const cJSON *n;
    int i = 0;
    if (nodes && (!cJSON_IsArray(nodes) || cJSON_GetArraySize(nodes) > PIN_NODES_MAX))
        return snprintf(msg, len, "deviceNodes: must be an array of at most %d",
                        PIN_NODES_MAX), -1;
    cJSON_ArrayForEach(n, nodes) {
        char at[32];
        snprintf(at, sizeof at, "deviceNodes[%d]", i++);
        const char *path = cJSON_IsObject(n) ? path_member(n, "path", NULL, at, msg, len)
                         : (snprintf(msg, len, "%s: must be an object", at), NULL);
        if (!path)
            return -1;
        if (!below(path, "/dev") || !strcmp(path, "/dev"))
            return snprintf(msg, len, "%s.path: must lie under /dev/", at), -1;
        const char *host = path_member(n, "hostPath", path, at, msg, len);
        if (!host || join_node(out, path, host, at, msg, len) < 0)
            return -1;
    }
    return 0;
}

static int check_mounts(const cJSON *mounts, cJSON *out, char *msg, size_t len)
{
    const cJSON *m, *o;
    int i = 0;
    if (mounts && (!cJSON_IsArray(mounts) || cJSON_GetArraySize(mounts) > PIN_MOUNTS_MAX))
        return snprintf(msg, len, "mounts: must be an array of at most %d", PIN_MOUNTS_MAX),
               -1;
    cJSON_ArrayForEach(m, mounts) {
        char at[32];
        snprintf(at, sizeof at, "mounts[%d]", i++);
        const cJSON *ro = cJSON_GetObjectItemCaseSensitive(m, "readOnly");
        const char *host = cJSON_IsObject(m) ? path_member(m, "hostPath", NULL, at, msg, len)
                         : (snprintf(msg, len, "%s: must be an object", at), NULL);
        const char *dest = host ? path_member(m, "containerPath", NULL, at, msg, len) : NULL;
        if (!dest)
            return -1;
        if (!strcmp(dest, "/") || below(dest, "/dev") || below(dest, "/proc"))
            return snprintf(msg, len, "%s.containerPath: may not be /, nor under /dev or "
                            "/proc", at), -1;
        if (ro && !cJSON_IsBool(ro))
            return snprintf(msg, len, "%s.readOnly: must be true or false", at), -1;
        int readonly = !cJSON_IsFalse(ro);
        int dup = 0;
        cJSON_ArrayForEach(o, out)
            if (!strcmp(str(o, "containerPath"), dest)) {
                if (strcmp(str(o, "hostPath"), host) ||
                    cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "readOnly")) != readonly)
                    return snprintf(msg, len, "%s: %s is mounted otherwise already", at,
                                    dest), -1;
                dup = 1;
            }
        if (dup)
            continue;
        if (cJSON_GetArraySize(out) >= PIN_MOUNTS_MAX)
            return snprintf(msg, len, "mounts: more than %d for one replica",
                            PIN_MOUNTS_MAX), -1;
        cJSON *c = cJSON_CreateObject();
        cJSON_AddStringToObject(c, "hostPath", host);
        cJSON_AddStringToObject(c, "containerPath", dest);
        cJSON_AddBoolToObject(c, "readOnly", readonly);
        cJSON_AddItemToArray(out, c);
    }
    return 0;
}

/* Merges env into the replica's; -1 with msg. A pin's is checked
 * (strict: portable names, none of Cube's own); pin_env's is taken as 1.3
 * took it, but a variable Cube sets itself is skipped (it would have been
 * overridden then). */
static int merge_env(cJSON *env, const cJSON *add, int strict, char *msg, size_t len)
{
    struct cube_op_error e;
    const cJSON *v;
    if (!add)
        return 0;
    if (!cJSON_IsObject(add))
        return snprintf(msg, len, "env: must be an object of strings"), -1;
    if (strict && job_env_check(add, "env", &e) < 0)
        return snprintf(msg, len, "%.250s", e.message), -1;
    cJSON_ArrayForEach(v, add) {
        if (strict && !cJSON_IsString(v))
            return snprintf(msg, len, "env.%s: must be a string", v->string), -1;
        if (!cJSON_IsString(v) || job_env_reserved(v->string))
            continue;
        cJSON_DeleteItemFromObjectCaseSensitive(env, v->string);
        cJSON_AddStringToObject(env, v->string, v->valuestring);
    }
    return 0;
}

/* What one resource's accelerator pins; *exact cleared when it cannot
 * say its device nodes (no accelerator, or pin_env only). */
static int pin_resource(struct cube_sched *s, const char *res, const char *ids, double share,
                        cJSON *doc, int *exact, char *msg, size_t len)
{
    pthread_mutex_lock(&s->mu);
    struct sched_accel *a = sched_accel_for(s, res);
    struct cube_accel_desc d = a ? a->desc : (struct cube_accel_desc){0};
    void *state = a ? a->plugin->state : NULL;
    const void *who = a ? a->plugin : NULL;   /* its set_error frame */
    char name[64];
    snprintf(name, sizeof name, "%s", a ? a->desc.name : "");
    pthread_mutex_unlock(&s->mu);
    char *out = NULL, why[256] = "";
    if (!a) {
        *exact = 0;
        return 0;
    }
    struct cube_callerr ce;
    cube_callerr_begin(&ce, who);
    int rc = d.pin ? d.pin(state, ids, share, &out) : d.pin_env(state, ids, share, &out);
    cube_callerr_end(&ce);
    snprintf(why, sizeof why, "%.*s", (int)sizeof why - 1, ce.msg);
    cJSON *pin = rc == CUBE_OK ? cJSON_Parse(out ? out : "{}") : NULL;
    free(out);
    const char *fn = d.pin ? "pin" : "pin_env";
    if (rc != CUBE_OK) {
        if (why[0])
            snprintf(msg, len, "%s (accelerator %s) failed: %s", fn, name, why);
        else
            snprintf(msg, len, "%s (accelerator %s) failed (%d)", fn, name, rc);
        return -1;
    }
    char bad[256] = "";
    if (!cJSON_IsObject(pin))
        snprintf(bad, sizeof bad, "not a JSON object");
    else if (!d.pin)   /* pin_env answers the env alone */
        merge_env(cJSON_GetObjectItemCaseSensitive(doc, "env"), pin, 0, bad, sizeof bad);
    else if (merge_env(cJSON_GetObjectItemCaseSensitive(doc, "env"),
                       cJSON_GetObjectItemCaseSensitive(pin, "env"), 1, bad, sizeof bad) == 0 &&
             check_nodes(cJSON_GetObjectItemCaseSensitive(pin, "deviceNodes"),
                         cJSON_GetObjectItemCaseSensitive(doc, "deviceNodes"), bad,
                         sizeof bad) == 0)
        check_mounts(cJSON_GetObjectItemCaseSensitive(pin, "mounts"),
                     cJSON_GetObjectItemCaseSensitive(doc, "mounts"), bad, sizeof bad);
    *exact &= d.pin != NULL;
    cJSON_Delete(pin);
    if (bad[0])
        snprintf(msg, len, "%s (accelerator %s): %s", fn, name, bad);
    return bad[0] ? -1 : 0;
}

/* The ids of resource res in the replica's status devices, as JSON text;
 * share gets the first one's. */
static char *resource_ids(const cJSON *devs, const char *res, const cJSON *prepared,
                          double *share)
{
    const cJSON *d, *own = cJSON_GetObjectItemCaseSensitive(prepared, res);
    cJSON *ids = cJSON_CreateArray();
    *share = 0;
    cJSON_ArrayForEach(d, devs)
        if (str(d, "resource") && !strcmp(str(d, "resource"), res)) {
            if (*share <= 0)
                *share = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(d, "share"));
            if (!own)
                cJSON_AddItemToArray(ids, cJSON_CreateString(str(d, "id") ? str(d, "id") : ""));
        }
    if (own) {
        cJSON_Delete(ids);
        ids = cJSON_Duplicate(own, 1);
    }
    char *text = cJSON_PrintUnformatted(ids);
    cJSON_Delete(ids);
    if (!(*share > 0 && *share <= 1))
        *share = 1.0;
    return text;
}

int job_pin_doc(struct cube_sched *s, cJSON *doc, const cJSON *rep, const cJSON *ids,
                char *msg, size_t len)
{
    const cJSON *d, *devs = cJSON_GetObjectItemCaseSensitive(rep, "devices");
    int exact = 1;
    cJSON_AddArrayToObject(doc, "deviceNodes");
    if (!cJSON_GetObjectItemCaseSensitive(doc, "env"))
        cJSON_AddObjectToObject(doc, "env");
    cJSON_AddArrayToObject(doc, "mounts");
    cJSON_ArrayForEach(d, devs) {
        const char *res = str(d, "resource");
        int first = res != NULL;   /* one call per resource: at its first device */
        for (const cJSON *p = devs->child; first && p != d; p = p->next)
            first = !(str(p, "resource") && !strcmp(res, str(p, "resource")));
        if (!first)
            continue;
        double share;
        char *text = resource_ids(devs, res, ids, &share);
        int rc = text ? pin_resource(s, res, text, share, doc, &exact, msg, len)
                      : (snprintf(msg, len, "out of memory"), -1);
        free(text);
        if (rc < 0)
            return -1;
    }
    if (!exact)
        cJSON_DeleteItemFromObjectCaseSensitive(doc, "deviceNodes");
    return 0;
}

char *job_pinned_doc(struct cube_sched *s, const cJSON *job, int i, const cJSON *ids,
                     char *msg, size_t len)
{
    char *text = job_replica_doc(s, job, i);
    cJSON *doc = text ? cJSON_Parse(text) : NULL;
    msg[0] = '\0';
    free(text);
    if (!doc) {
        snprintf(msg, len, "out of memory");
        return NULL;
    }
    const cJSON *rep = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(job, "status"), "replicas"), i);
    char *out = job_pin_doc(s, doc, rep, ids, msg, len) == 0 ? cJSON_PrintUnformatted(doc) : NULL;
    if (!out && !msg[0])
        snprintf(msg, len, "out of memory");
    cJSON_Delete(doc);
    return out;
}
