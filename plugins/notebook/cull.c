/* cull.c — every cull_interval_seconds: ask each running server for its
 * last activity (Jupyter's /api/status, code-server's heartbeat), record
 * it in status.lastActivity, stop servers idle past spec.idleTimeoutSeconds,
 * warn expiry_warning_seconds before status.expires and stop them then. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>
#include <cube/util/json.h>

#include "notebook.h"

/* Expiry: a warning once, then the stop. Returns 1 when it stopped it. */
static int check_expiry(struct nb *nb, const char *p, const char *n, const cJSON *st, time_t now)
{
    time_t expires = nb_parse_time(cu_str(st, "expires"));
    char msg[160];
    if (expires <= 0)
        return 0;
    if (now >= expires) {
        snprintf(msg, sizeof msg, "expired at %s (renew extends a running notebook)",
                 cu_str(st, "expires"));
        nb_stop(nb, p, n, "Expired", msg);
        return 1;
    }
    if (now >= expires - nb->conf.expiry_warning &&
        !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(st, "expiryWarned"))) {
        snprintf(msg, sizeof msg, "expires at %s: renew it to keep it running",
                 cu_str(st, "expires"));
        nb->host->obj_event(nb->self, NB_KIND, p, n, "Warning", "ExpiresSoon", msg);
        nb_status_merge(nb, p, n, "{\"expiryWarned\":true}");
    }
    return 0;
}

/* Idle: last activity (or now, while browsers are connected and those are
 * spared) older than the timeout. Records the activity otherwise. */
static void check_idle(struct nb *nb, const struct nb_entry *e, const char *p, const char *n,
                       const cJSON *obj, time_t now)
{
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(obj, "status");
    double timeout = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(obj, "spec"), "idleTimeoutSeconds"));
    time_t last;
    int conns;
    if (!nb_probe(e, p, n, &last, &conns))
        return;                       /* not answering: the Job's end will say why */
    if (conns > 0 && !nb->conf.cull_connected)
        last = now;
    time_t started = nb_parse_time(cu_str(st, "started"));
    if (last < started)
        last = started;
    nb_table_touch(&nb->table, e->key, 1, last);
    if (timeout > 0 && last > 0 && now - last >= (time_t)timeout) {
        char msg[160];
        snprintf(msg, sizeof msg, "stopped after %lld s without activity (idleTimeoutSeconds %.0f)",
                 (long long)(now - last), timeout);
        nb_stop(nb, p, n, "Idle", msg);
        return;
    }
    char when[32], patch[96];
    nb_format_time(last, when, sizeof when);
    if (last > 0 && (!cu_str(st, "lastActivity") || strcmp(cu_str(st, "lastActivity"), when))) {
        snprintf(patch, sizeof patch, "{\"lastActivity\":\"%s\"}", when);
        nb_status_merge(nb, p, n, patch);
    }
}

static void cull_one(struct nb *nb, const struct nb_entry *e, time_t now)
{
    char p[NB_KEY_LEN], *n;
    int rc;
    snprintf(p, sizeof p, "%s", e->key);
    if (!(n = strchr(p, '/')))
        return;
    *n++ = '\0';
    char *text = nb->host->obj_get(nb->self, NB_KIND, p, n, &rc);
    cJSON *obj = cu_json_take(nb->host, text);
    if (!text && rc == CUBE_ENOTFOUND) {   /* deleted while cubed was down */
        nb_table_drop(&nb->table, e->key);
        return;
    }
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(obj, "status");
    const char *phase = cu_str(st, "phase");
    if (e->ready && phase && !strcmp(phase, "Running") && !check_expiry(nb, p, n, st, now))
        check_idle(nb, e, p, n, obj, now);
    cJSON_Delete(obj);
}

void nb_cull(void *state, void *arg)
{
    (void)arg;
    struct nb *nb = state;
    size_t count;
    struct nb_entry *v = nb_table_snapshot(&nb->table, &count);
    time_t now = time(NULL);
    for (size_t i = 0; v && i < count; i++)
        cull_one(nb, &v[i], now);
    if (v)
        explicit_bzero(v, count * sizeof *v);
    free(v);
}
