/* objects_util.c — small pieces shared by the object operations: errors,
 * timestamps, uids, and the audit record. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ctx.h"
#include "kinds.h"
#include "log.h"
#include "objects.h"
#include "objects_priv.h"
#include "store.h"
#include "util.h"

void cube_op_fail(struct cube_op_error *e, int status, const char *code,
                  const char *field, const char *fmt, ...)
{
    va_list ap;
    e->status = status;
    snprintf(e->code, sizeof e->code, "%s", code);
    snprintf(e->field, sizeof e->field, "%s", field ? field : "");
    va_start(ap, fmt);
    vsnprintf(e->message, sizeof e->message, fmt, ap);
    va_end(ap);
}

void cube_op_store_fail(struct cube_op_error *e, int rc, const char *what)
{
    switch (rc) {
    case CUBE_ENOTFOUND:
        cube_op_fail(e, 404, "NotFound", NULL, "%s not found", what);
        break;
    case CUBE_EEXIST:
        cube_op_fail(e, 409, "AlreadyExists", "metadata.name", "%s already exists", what);
        break;
    case CUBE_ECONFLICT:
        cube_op_fail(e, 409, "Conflict", "metadata.resourceVersion",
                     "%s was modified: the resourceVersion is stale; get it and retry", what);
        break;
    case CUBE_EUNAVAIL:
        cube_op_fail(e, 503, "Unavailable", NULL, "the database is unavailable; retry later");
        break;
    default:
        cube_op_fail(e, 500, "InternalError", NULL, "store error %d on %s", rc, what);
    }
}

pthread_mutex_t *cube_obj_stripe(struct cube_ctx *ctx, const char *kind,
                                 const char *project, const char *name)
{
    unsigned h = 2166136261u;
    const char *parts[] = {kind, project ? project : "", name};
    for (size_t i = 0; i < 3; i++) {
        for (const char *p = parts[i]; *p; p++)
            h = (h ^ (unsigned char)*p) * 16777619u;
        h = (h ^ '/') * 16777619u;
    }
    return &ctx->obj_locks[h % (sizeof ctx->obj_locks / sizeof ctx->obj_locks[0])];
}

void cube_obj_now(char *buf, size_t len)
{
    struct timespec ts;
    struct tm tm;
    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    size_t n = strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf + n, len - n, ".%03ldZ", ts.tv_nsec / 1000000);
}

void cube_obj_new_uid(char *buf)
{
    char hex[33];
    cube_id_hex(hex, 16);
    hex[12] = '4'; /* a version-4 (random) UUID */
    hex[16] = "89ab"[hex[16] % 4];
    snprintf(buf, 37, "%.8s-%.4s-%.4s-%.4s-%.12s", hex, hex + 8, hex + 12,
             hex + 16, hex + 20);
}

char *cube_obj_event_doc(const struct cube_kind *k, const char *project,
                         const char *name, const char *uid, const char *verb,
                         const char *user, int result, const char *type,
                         const char *reason, const char *message)
{
    char now[40];
    cube_obj_now(now, sizeof now);
    cJSON *ev = cJSON_CreateObject();
    cJSON *meta = cJSON_AddObjectToObject(ev, "metadata");
    cJSON_AddStringToObject(ev, "kind", "Event");
    cJSON_AddStringToObject(meta, "created", now);
    if (project)
        cJSON_AddStringToObject(meta, "project", project);
    cJSON *inv = cJSON_AddObjectToObject(ev, "involvedObject");
    cJSON_AddStringToObject(inv, "kind", k->kind);
    cJSON_AddStringToObject(inv, "name", name);
    if (project)
        cJSON_AddStringToObject(inv, "project", project);
    if (uid)
        cJSON_AddStringToObject(inv, "uid", uid);
    cJSON_AddStringToObject(ev, "type", type);
    cJSON_AddStringToObject(ev, "reason", reason);
    cJSON_AddStringToObject(ev, "message", message ? message : "");
    if (verb)
        cJSON_AddStringToObject(ev, "verb", verb);
    cJSON_AddStringToObject(ev, "user", user ? user : "");
    if (result)
        cJSON_AddNumberToObject(ev, "result", result);
    char *text = cJSON_PrintUnformatted(ev);
    cJSON_Delete(ev);
    return text;
}

int cube_obj_record_event(struct cube_ctx *ctx, const struct cube_kind *k,
                          const char *project, const char *name,
                          const char *uid, const char *verb, const char *user,
                          int result, const char *type, const char *reason,
                          const char *message)
{
    char *text = cube_obj_event_doc(k, project, name, uid, verb, user, result, type,
                                    reason, message);
    if (!text)
        return CUBE_ENOMEM;
    int64_t id;
    int rc = cube_store_event_add(ctx->store, project ? project : "", k->kind, name,
                                  text, &id);
    free(text);
    if (rc != CUBE_OK)
        cube_log(CUBE_LOG_WARN, "audit", "cannot record event for %s/%s: %d",
                 k->plural, name, rc);
    return rc;
}

int cube_actor_trusted(const struct cube_actor *who)
{
    return who->admin || strncmp(who->user, "plugin:", 7) == 0 ||
           strncmp(who->user, "system:", 7) == 0;
}
