/* sim_replica.c — reads a replica document into a simulation plan: which
 * node and devices, how long it runs and how it ends. Job annotations win
 * over the replica's env; "<annotation>.<replica>" wins over both for one
 * replica (e.g. sim.cube.dev/exit-code.1: "3" fails only replica 1). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim.h"

static const cJSON *path2(const cJSON *o, const char *a, const char *b)
{
    return cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(o, a), b);
}

/* The value of annotation key for this replica (key.<replica>, then key),
 * else of env variable env, else NULL. *from names where it came from. */
static const char *setting(const cJSON *root, int replica, const char *key,
                           const char *env, const char **from)
{
    const cJSON *ann = path2(cJSON_GetObjectItemCaseSensitive(root, "job"), "metadata",
                             "annotations");
    char k[96];
    snprintf(k, sizeof k, "%s.%d", key, replica);
    const char *v = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ann, k));
    *from = key;
    if (!v)
        v = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ann, key));
    if (!v && env) {
        v = cJSON_GetStringValue(path2(root, "env", env));
        *from = env;
    }
    return v;
}

/* Parses a whole decimal number; 0 or -1. */
static int number(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

int64_t sim_parse_time(const char *s)
{
    double secs;
    if (number(s, &secs) == 0)
        return secs >= 0 ? (int64_t)(secs * 1000) : -1;
    struct tm tm = {0};
    const char *p = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
    if (!p)
        return -1;
    int64_t ms = (int64_t)timegm(&tm) * 1000;
    if (*p == '.') {
        int scale = 100;
        for (p++; isdigit((unsigned char)*p); p++, scale /= 10)
            ms += (*p - '0') * scale;
    }
    if (*p == 'Z' && p[1] == '\0')
        return ms;
    int hh, mm, n = 0;
    if ((*p != '+' && *p != '-') || sscanf(p + 1, "%2d:%2d%n", &hh, &mm, &n) != 2 || p[1 + n])
        return -1;
    int64_t off = ((int64_t)hh * 60 + mm) * 60000;
    return *p == '+' ? ms - off : ms + off;
}

/* node, devices and log of the document. */
static int read_placement(const cJSON *root, struct sim_plan *p, char *msg, size_t len)
{
    const char *node = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(root, "node"));
    const cJSON *devs = cJSON_GetObjectItemCaseSensitive(root, "devices"), *d;
    if (!node || !node[0] || strlen(node) >= sizeof p->node) {
        snprintf(msg, len, "replica: \"node\" must name a node");
        return CUBE_EINVAL;
    }
    snprintf(p->node, sizeof p->node, "%s", node);
    size_t o = 0;
    if (!cJSON_IsArray(devs))
        devs = NULL;
    cJSON_ArrayForEach(d, devs) {
        const char *id = cJSON_GetStringValue(d);
        int n = id ? snprintf(p->devices + o, sizeof p->devices - o, "%s%s", o ? "," : "", id) : -1;
        if (n < 0 || (size_t)n >= sizeof p->devices - o) {
            snprintf(msg, len, "replica: \"devices\" must be a short array of ids");
            return CUBE_EINVAL;
        }
        o += (size_t)n;
    }
    const cJSON *log = cJSON_GetObjectItemCaseSensitive(root, "log");
    const char *f[4] = {cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(log, "kind")),
                        cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(log, "project")),
                        cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(log, "name")),
                        cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(log, "stream"))};
    p->has_log = f[0] && f[2] && f[3];
    if (p->has_log) {
        snprintf(p->log_kind, sizeof p->log_kind, "%s", f[0]);
        snprintf(p->log_project, sizeof p->log_project, "%s", f[1] ? f[1] : "");
        snprintf(p->log_name, sizeof p->log_name, "%s", f[2]);
        snprintf(p->log_stream, sizeof p->log_stream, "%s", f[3]);
    }
    return CUBE_OK;
}

/* How it ends: exit code and reason. */
static int read_ending(const cJSON *root, struct sim_plan *p, char *msg, size_t len)
{
    static const char *const REASONS[] = {CUBE_EXIT_COMPLETED, CUBE_EXIT_OOM, CUBE_EXIT_TIMEOUT,
                                          CUBE_EXIT_LOST, CUBE_EXIT_FAILED, NULL};
    const char *from, *v = setting(root, p->replica, SIM_ANN_EXIT_REASON, SIM_ENV_EXIT_REASON, &from);
    snprintf(p->reason, sizeof p->reason, "%s", CUBE_EXIT_COMPLETED);
    if (v) {
        int ok = 0;
        for (int i = 0; REASONS[i] && !ok; i++)
            ok = strcmp(v, REASONS[i]) == 0;
        if (!ok) {
            snprintf(msg, len, "%s: must be Completed, OOMKilled, Timeout, Lost or StartError", from);
            return CUBE_EINVAL;
        }
        snprintf(p->reason, sizeof p->reason, "%s", v);
    }
    p->exit_code = strcmp(p->reason, CUBE_EXIT_COMPLETED) == 0 ? 0 : -1;
    double code;
    if ((v = setting(root, p->replica, SIM_ANN_EXIT_CODE, SIM_ENV_EXIT_CODE, &from))) {
        if (number(v, &code) < 0 || code != floor(code) || code < -1 || code > 255) {
            snprintf(msg, len, "%s: must be an exit code from -1 to 255", from);
            return CUBE_EINVAL;
        }
        p->exit_code = (int)code;
    }
    if (strcmp(p->reason, CUBE_EXIT_COMPLETED) == 0)
        snprintf(p->message, sizeof p->message, "simulated run ended with exit code %d",
                 p->exit_code);
    else
        snprintf(p->message, sizeof p->message, "simulated %s", p->reason);
    return CUBE_OK;
}

/* How long it runs (capped by timeoutSeconds) and any recorded times. */
static int read_timing(const cJSON *root, double def, struct sim_plan *p, char *msg, size_t len)
{
    const char *from, *v = setting(root, p->replica, SIM_ANN_RUN_SECONDS, SIM_ENV_RUN_SECONDS, &from);
    p->run_s = def;
    if (v && (number(v, &p->run_s) < 0 || p->run_s < 0 || p->run_s > 1e9)) {
        snprintf(msg, len, "%s: must be a number of seconds", from);
        return CUBE_EINVAL;
    }
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(root, "timeoutSeconds");
    double timeout = cJSON_IsNumber(t) ? t->valuedouble : 0;
    if (timeout > 0 && p->run_s > timeout) {
        p->run_s = timeout;
        p->exit_code = -1;
        snprintf(p->reason, sizeof p->reason, "%s", CUBE_EXIT_TIMEOUT);
        snprintf(p->message, sizeof p->message, "ran past timeoutSeconds (%g)", timeout);
    }
    const char *from2, *end = setting(root, p->replica, SIM_ANN_END_TIME, NULL, &from2);
    if (!end)
        end = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(root, "endTime"));
    const char *start = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(root, "startedAt"));
    p->end_ms = end ? sim_parse_time(end) : -1;
    p->started_ms = start ? sim_parse_time(start) : -1;
    return CUBE_OK;
}

int sim_plan_parse(const char *json, double run_seconds, struct sim_plan *p,
                   char *msg, size_t len)
{
    memset(p, 0, sizeof *p);
    cJSON *root = cJSON_Parse(json ? json : "");
    int rc = CUBE_EINVAL;
    if (!cJSON_IsObject(root))
        snprintf(msg, len, "replica: not a JSON object");
    else {
        const cJSON *r = cJSON_GetObjectItemCaseSensitive(root, "replica");
        if (cJSON_IsNumber(r) && r->valuedouble >= 0 && r->valuedouble <= 1e6)
            p->replica = (int)r->valuedouble;
        rc = read_placement(root, p, msg, len);
        if (rc == CUBE_OK)
            rc = read_ending(root, p, msg, len);
        if (rc == CUBE_OK)
            rc = read_timing(root, run_seconds, p, msg, len);
    }
    cJSON_Delete(root);
    return rc;
}
