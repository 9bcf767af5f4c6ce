/* objects_util.c — small pieces shared by the object operations: errors,
 * timestamps, uids, the audit record, and JSON printing (the bytes of
 * cJSON_PrintUnformatted for less work: every write prints its object). */
#include <float.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ctx/ctx.h"
#include "kinds.h"
#include "base/log.h"
#include "objects.h"
#include "objects_priv.h"
#include "store/store.h"
#include "base/random.h"
#include "base/text.h"
#include "watch.h"

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

/* The seconds part is formatted once a second per thread. */
void cube_obj_now(char *buf, size_t len)
{
    static _Thread_local time_t cached_sec = -1;
    static _Thread_local char cached[32];
    static _Thread_local size_t cached_len;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    if (ts.tv_sec != cached_sec) {
        struct tm tm;
        gmtime_r(&ts.tv_sec, &tm);
        cached_len = strftime(cached, sizeof cached, "%Y-%m-%dT%H:%M:%S", &tm);
        cached_sec = cached_len ? ts.tv_sec : -1;
    }
    if (len < cached_len + 6) {
        if (len)
            buf[0] = '\0';
        return;
    }
    int ms = (int)(ts.tv_nsec / 1000000);
    memcpy(buf, cached, cached_len);
    char *p = buf + cached_len;
    *p++ = '.';
    *p++ = (char)('0' + ms / 100);
    *p++ = (char)('0' + ms / 10 % 10);
    *p++ = (char)('0' + ms % 10);
    *p++ = 'Z';
    *p = '\0';
}

void cube_obj_new_uid(char *buf)
{
    char hex[33];
    cube_id_hex(hex, 16);
    hex[12] = '4'; /* a version-4 (random) UUID */
    hex[16] = "89ab"[hex[16] % 4];
    /* 8-4-4-4-12 */
    for (int i = 0, o = 0; i < 32; i++) {
        if (i == 8 || i == 12 || i == 16 || i == 20)
            buf[o++] = '-';
        buf[o++] = hex[i];
    }
    buf[36] = '\0';
}

size_t cube_obj_join(char *buf, size_t len, const char *const *parts, size_t n)
{
    size_t used = 0;
    for (size_t i = 0; i < n && len > 0; i++) {
        size_t plen = strlen(parts[i]);
        size_t room = len - 1 - used;
        memcpy(buf + used, parts[i], plen < room ? plen : room);
        used += plen < room ? plen : room;
    }
    if (len > 0)
        buf[used] = '\0';
    return used;
}

char *cube_obj_i64(int64_t v, char buf[24])
{
    char *p = buf + 23;
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    *p = '\0';
    do
        *--p = (char)('0' + u % 10);
    while (u /= 10);
    if (v < 0)
        *--p = '-';
    return p;
}

/* A growing JSON text (the audit record is built as text: no tree). */
#define JT_LIT(t, lit) cube_text_put((t), (lit), sizeof(lit) - 1)

/* Appends s as a JSON string, escaped as cJSON prints it: \" \\ \b \f \n
 * \r \t, other bytes below 32 as \u00XX, the rest as they are. */
static void jt_str(struct cube_text *t, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    size_t n = strlen(s);
    if (!cube_text_reserve(t, n * 6 + 2))
        return;
    char *o = t->p + t->len;
    *o++ = '"';
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        if (*c >= 32 && *c != '"' && *c != '\\') {
            *o++ = (char)*c;
            continue;
        }
        *o++ = '\\';
        const char *esc = memchr("\"\\\b\f\n\r\t", *c, 7);
        if (esc) {
            *o++ = "\"\\bfnrt"[esc - "\"\\\b\f\n\r\t"];
        } else {
            memcpy(o, "u00", 3);
            o[3] = hex[*c >> 4];
            o[4] = hex[*c & 15];
            o += 5;
        }
    }
    *o++ = '"';
    *o = '\0';
    t->len = (size_t)(o - t->p);
}

/* Appends ,"key":"value" (no comma when first); nothing when value is NULL. */
static void jt_field(struct cube_text *t, const char *key, const char *value, int first)
{
    if (!value)
        return;
    cube_text_put(t, first ? "\"" : ",\"", first ? 1 : 2);
    cube_text_put(t, key, strlen(key));
    JT_LIT(t, "\":");
    jt_str(t, value);
}

/* cJSON's test that a number printed reads back as the same. */
static int same_double(double a, double b)
{
    double max = fabs(a) > fabs(b) ? fabs(a) : fabs(b);
    return fabs(a - b) <= max * DBL_EPSILON;
}

/* A number as cJSON prints it: "%1.15g" unless that loses precision,
 * then "%1.17g"; integers below 10^15 need neither printf nor scanf. */
static void jt_number(struct cube_text *t, double d)
{
    char buf[32];
    if (isnan(d) || isinf(d)) {
        JT_LIT(t, "null");
        return;
    }
    if (d == floor(d) && fabs(d) < 1e15 && !(d == 0 && signbit(d))) {
        const char *digits = cube_obj_i64((int64_t)d, buf);
        cube_text_put(t, digits, strlen(digits));
        return;
    }
    double test = 0.0;
    int n = snprintf(buf, sizeof buf, "%1.15g", d);
    if (sscanf(buf, "%lg", &test) != 1 || !same_double(test, d))
        n = snprintf(buf, sizeof buf, "%1.17g", d);
    char point = localeconv()->decimal_point[0];
    for (int i = 0; i < n; i++)
        if (buf[i] == point)
            buf[i] = '.';
    cube_text_put(t, buf, (size_t)n);
}

/* Appends item as cJSON_PrintUnformatted would; 0, or -1 where cJSON
 * fails too (an invalid item, a raw one without text). */
static int jt_value(struct cube_text *t, const cJSON *item)
{
    switch (item->type & 0xFF) {
    case cJSON_NULL: JT_LIT(t, "null"); return 0;
    case cJSON_False: JT_LIT(t, "false"); return 0;
    case cJSON_True: JT_LIT(t, "true"); return 0;
    case cJSON_Number: jt_number(t, item->valuedouble); return 0;
    case cJSON_String: jt_str(t, item->valuestring ? item->valuestring : ""); return 0;
    case cJSON_Raw:
        if (!item->valuestring)
            return -1;
        cube_text_put(t, item->valuestring, strlen(item->valuestring));
        return 0;
    case cJSON_Array:
    case cJSON_Object:
        break;
    default:
        return -1;
    }
    int object = (item->type & 0xFF) == cJSON_Object;
    cube_text_put(t, object ? "{" : "[", 1);
    for (const cJSON *c = item->child; c; c = c->next) {
        if (object) {
            jt_str(t, c->string ? c->string : "");
            JT_LIT(t, ":");
        }
        if (jt_value(t, c) < 0)
            return -1;
        if (c->next)
            JT_LIT(t, ",");
    }
    cube_text_put(t, object ? "}" : "]", 1);
    return 0;
}

char *cube_obj_print(const cJSON *item)
{
    struct cube_text t = {0};
    if (!item || jt_value(&t, item) < 0 || t.oom) {
        free(t.p);
        return NULL;
    }
    return t.p;
}

char *cube_obj_event_doc(const struct cube_kind *k, const char *project,
                         const char *name, const char *uid, const char *verb,
                         const char *user, int result, const char *type,
                         const char *reason, const char *message)
{
    char now[40], num[24];
    struct cube_text t = {0};
    cube_obj_now(now, sizeof now);
    /* The key order of the record as it always was. */
    JT_LIT(&t, "{\"metadata\":{");
    jt_field(&t, "created", now, 1);
    jt_field(&t, "project", project, 0);
    JT_LIT(&t, "},\"kind\":\"Event\",\"involvedObject\":{");
    jt_field(&t, "kind", k->kind, 1);
    jt_field(&t, "name", name, 0);
    jt_field(&t, "project", project, 0);
    jt_field(&t, "uid", uid, 0);
    JT_LIT(&t, "}");
    jt_field(&t, "type", type, 0);
    jt_field(&t, "reason", reason, 0);
    jt_field(&t, "message", message ? message : "", 0);
    jt_field(&t, "verb", verb, 0);
    jt_field(&t, "user", user ? user : "", 0);
    if (result) {
        const char *digits = cube_obj_i64(result, num);
        JT_LIT(&t, ",\"result\":");
        cube_text_put(&t, digits, strlen(digits));
    }
    JT_LIT(&t, "}");
    if (t.oom) {
        free(t.p);
        return NULL;
    }
    return t.p;
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
    int64_t id, rv = 0;
    /* Published to watches (kind CUBE_HUB_EVENTS) in rv order like writes,
     * the rv kept as the store's high-water mark; an event without an rv
     * (OOM) is still stored. */
    int have_rv = ctx->hub && cube_hub_begin(ctx->hub, &rv) == 0;
    int rc = have_rv ? cube_store_event_add_rv(ctx->store, project ? project : "", k->kind,
                                               name, text, rv)
                     : cube_store_event_add(ctx->store, project ? project : "", k->kind, name,
                                            text, &id);
    if (have_rv)
        cube_hub_end_event(ctx->hub, rv, rc == CUBE_OK, project ? project : "", k->kind,
                           reason, text);
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
