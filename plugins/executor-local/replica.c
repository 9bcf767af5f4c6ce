/* replica.c — the replica document (cube_sched.h): command, env, user,
 * project, workdir, limits, timeout and log target; the environment and
 * the executable paths a replica is started with. */
#include "executor_local.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#define MAX_ARGS 4096
#define MAX_ENV 4096
#define XL_MIN_MEMORY (4 * 1024 * 1024)
#define XL_MIN_CPU_MILLIS 10

void xl_strv_free(char **v)
{
    for (size_t i = 0; v && v[i]; i++)
        free(v[i]);
    free(v);
}

const char *xl_env_get(char *const *env, const char *name)
{
    size_t n = strlen(name);
    for (size_t i = 0; env && env[i]; i++)
        if (strncmp(env[i], name, n) == 0 && env[i][n] == '=')
            return env[i] + n + 1;
    return NULL;
}

/* A copy of a string member of o; def when absent; NULL + *bad on a
 * non-string. */
static char *dup_member(const cJSON *o, const char *key, const char *def, int *bad)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);
    if (it && !cJSON_IsNull(it) && !cJSON_IsString(it)) {
        *bad = 1;
        return NULL;
    }
    const char *v = cJSON_IsString(it) ? it->valuestring : def;
    return v ? strdup(v) : NULL;
}

void xl_log_free(struct xl_log *l)
{
    free(l->kind);
    free(l->project);
    free(l->name);
    free(l->stream);
    memset(l, 0, sizeof *l);
}

int xl_log_parse(struct xl_log *l, const void *obj)
{
    const cJSON *o = obj;
    int bad = 0;
    memset(l, 0, sizeof *l);
    if (!cJSON_IsObject(o))
        return -1;
    l->kind = dup_member(o, "kind", NULL, &bad);
    l->project = dup_member(o, "project", "", &bad);
    l->name = dup_member(o, "name", NULL, &bad);
    l->stream = dup_member(o, "stream", "replica-0", &bad);
    if (bad || !l->kind || !l->name || !l->project || !l->stream || !*l->kind || !*l->name) {
        xl_log_free(l);
        return -1;
    }
    return 0;
}

int xl_log_copy(struct xl_log *dst, const struct xl_log *src)
{
    dst->kind = src->kind ? strdup(src->kind) : NULL;
    dst->project = src->project ? strdup(src->project) : NULL;
    dst->name = src->name ? strdup(src->name) : NULL;
    dst->stream = src->stream ? strdup(src->stream) : NULL;
    if ((src->kind && !dst->kind) || (src->project && !dst->project) ||
        (src->name && !dst->name) || (src->stream && !dst->stream)) {
        xl_log_free(dst);
        return -1;
    }
    return 0;
}

/* "command": a non-empty array of strings. */
static int parse_command(struct xl_replica *r, const cJSON *doc, char *msg, size_t len)
{
    const cJSON *cmd = cJSON_GetObjectItemCaseSensitive(doc, "command"), *a;
    int n = cJSON_GetArraySize(cmd);
    if (!cJSON_IsArray(cmd) || n < 1 || n > MAX_ARGS) {
        snprintf(msg, len, "command: must be a non-empty array of strings");
        return CUBE_EINVAL;
    }
    if (!(r->argv = calloc((size_t)n + 1, sizeof *r->argv)))
        return snprintf(msg, len, "out of memory"), CUBE_ENOMEM;
    cJSON_ArrayForEach(a, cmd) {
        if (!cJSON_IsString(a) || (r->argc == 0 && !*a->valuestring)) {
            snprintf(msg, len, "command[%zu]: must be a%s string", r->argc,
                     r->argc ? "" : " non-empty");
            return CUBE_EINVAL;
        }
        if (!(r->argv[r->argc++] = strdup(a->valuestring)))
            return snprintf(msg, len, "out of memory"), CUBE_ENOMEM;
    }
    return CUBE_OK;
}

/* "env": an object of strings; names without '=' and not empty. */
static int parse_env(struct xl_replica *r, const cJSON *doc, char *msg, size_t len)
{
    const cJSON *env = cJSON_GetObjectItemCaseSensitive(doc, "env"), *e;
    if (env && !cJSON_IsNull(env) && !cJSON_IsObject(env))
        return snprintf(msg, len, "env: must be an object of strings"), CUBE_EINVAL;
    int n = cJSON_GetArraySize(env);
    if (n > MAX_ENV)
        return snprintf(msg, len, "env: more than %d variables", MAX_ENV), CUBE_EINVAL;
    if (!(r->env = calloc((size_t)n + 1, sizeof *r->env)))
        return snprintf(msg, len, "out of memory"), CUBE_ENOMEM;
    cJSON_ArrayForEach(e, env) {
        if (!*e->string || strchr(e->string, '=') || !cJSON_IsString(e)) {
            snprintf(msg, len, "env.%s: must be a string named without '='", e->string);
            return CUBE_EINVAL;
        }
        size_t sz = strlen(e->string) + strlen(e->valuestring) + 2;
        if (!(r->env[r->envc] = malloc(sz)))
            return snprintf(msg, len, "out of memory"), CUBE_ENOMEM;
        snprintf(r->env[r->envc++], sz, "%s=%s", e->string, e->valuestring);
    }
    return CUBE_OK;
}

/* A non-negative whole number member (0 when absent). */
static int get_count(const cJSON *o, const char *key, int64_t *out)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);
    *out = 0;
    if (!it || cJSON_IsNull(it))
        return 0;
    if (!cJSON_IsNumber(it) || it->valuedouble < 0 || it->valuedouble > 9.0e15 ||
        it->valuedouble != (double)(int64_t)it->valuedouble)
        return -1;
    *out = (int64_t)it->valuedouble;
    return 0;
}

/* A DNS label: what Cube allows for user and project names. */
static int dns_label(const char *s)
{
    size_t n = s ? strlen(s) : 0;
    if (n < 1 || n > 63 || s[0] == '-' || s[n - 1] == '-')
        return 0;
    return strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789-") == n;
}

/* user, project, workdir, image, node, replica index. */
static int parse_who(struct xl_replica *r, const cJSON *doc, char *msg, size_t len)
{
    int bad = 0;
    r->user = dup_member(doc, "user", NULL, &bad);
    r->project = dup_member(doc, "project", NULL, &bad);
    r->workdir = dup_member(doc, "workdir", "", &bad);
    r->image = dup_member(doc, "image", "", &bad);
    r->node = dup_member(doc, "node", "", &bad);
    if (bad || !r->workdir || !r->image || !r->node)
        return snprintf(msg, len, "user, project, workdir, image, node: must be strings"),
               CUBE_EINVAL;
    if (!dns_label(r->user))
        return snprintf(msg, len, "user: must be a Cube user name"), CUBE_EINVAL;
    if (!dns_label(r->project))
        return snprintf(msg, len, "project: must be a project name"), CUBE_EINVAL;
    if (*r->workdir && (r->workdir[0] != '/' || strstr(r->workdir, "/../") ||
                        strlen(r->workdir) >= PATH_MAX - 64))
        return snprintf(msg, len, "workdir: must be an absolute path"), CUBE_EINVAL;
    const cJSON *idx = cJSON_GetObjectItemCaseSensitive(doc, "replica");
    r->index = cJSON_IsNumber(idx) ? idx->valueint : 0;
    return CUBE_OK;
}

/* timeoutSeconds, limits.cpuMillis, limits.memoryBytes, log. */
static int parse_limits(struct xl_replica *r, const cJSON *doc, char *msg, size_t len)
{
    const cJSON *lim = cJSON_GetObjectItemCaseSensitive(doc, "limits");
    if (get_count(doc, "timeoutSeconds", &r->timeout_s) < 0 || r->timeout_s > UINT32_MAX)
        return snprintf(msg, len, "timeoutSeconds: must be a whole number"), CUBE_EINVAL;
    if (lim && !cJSON_IsNull(lim) && !cJSON_IsObject(lim))
        return snprintf(msg, len, "limits: must be an object"), CUBE_EINVAL;
    if (get_count(lim, "cpuMillis", &r->cpu_millis) < 0)
        return snprintf(msg, len, "limits.cpuMillis: must be a whole number"), CUBE_EINVAL;
    if (get_count(lim, "memoryBytes", &r->memory_bytes) < 0)
        return snprintf(msg, len, "limits.memoryBytes: must be a whole number"), CUBE_EINVAL;
    /* Below what any process needs, or the kernel's smallest CFS quota
     * (1 ms per 100 ms): raised to the floor rather than refused. */
    if (r->memory_bytes && r->memory_bytes < XL_MIN_MEMORY)
        r->memory_bytes = XL_MIN_MEMORY;
    if (r->cpu_millis && r->cpu_millis < XL_MIN_CPU_MILLIS)
        r->cpu_millis = XL_MIN_CPU_MILLIS;
    if (xl_log_parse(&r->log, cJSON_GetObjectItemCaseSensitive(doc, "log")) < 0)
        return snprintf(msg, len, "log: must be an object with kind, name and stream"),
               CUBE_EINVAL;
    return CUBE_OK;
}

int xl_replica_parse(struct xl_replica *r, const char *json, char *msg, size_t len)
{
    memset(r, 0, sizeof *r);
    cJSON *doc = json ? cJSON_Parse(json) : NULL;
    int rc;
    if (!cJSON_IsObject(doc))
        rc = (snprintf(msg, len, "the replica document is not a JSON object"), CUBE_EINVAL);
    else if ((rc = parse_command(r, doc, msg, len)) == CUBE_OK &&
             (rc = parse_env(r, doc, msg, len)) == CUBE_OK &&
             (rc = parse_who(r, doc, msg, len)) == CUBE_OK &&
             (rc = parse_limits(r, doc, msg, len)) == CUBE_OK)
        rc = xl_pins_parse(&r->pins, doc, msg, len);
    cJSON_Delete(doc);
    if (rc != CUBE_OK)
        xl_replica_free(r);
    return rc;
}

void xl_replica_free(struct xl_replica *r)
{
    xl_strv_free(r->argv);
    xl_strv_free(r->env);
    free(r->user);
    free(r->project);
    free(r->workdir);
    free(r->image);
    free(r->node);
    xl_log_free(&r->log);
    xl_pins_free(&r->pins);
    memset(r, 0, sizeof *r);
}

/* Appends "K=V" to v (at *n) unless the replica sets K. */
static int env_default(char **v, size_t *n, char *const *own, const char *k, const char *val)
{
    if (xl_env_get(own, k))
        return 0;
    size_t sz = strlen(k) + strlen(val) + 2;
    if (!(v[*n] = malloc(sz)))
        return -1;
    snprintf(v[(*n)++], sz, "%s=%s", k, val);
    return 0;
}

char **xl_env_build(const struct xl_replica *r, const char *home, const char *user,
                    const char *project_dir, const char *default_path)
{
    char **v = calloc(r->envc + 8, sizeof *v);
    size_t n = 0;
    if (!v)
        return NULL;
    const char *defs[][2] = {
        {"PATH", default_path}, {"HOME", home}, {"USER", user}, {"LOGNAME", user},
        {"SHELL", "/bin/sh"}, {"LANG", "C.UTF-8"}, {"CUBE_PROJECT_DIR", project_dir},
    };
    for (size_t i = 0; i < sizeof defs / sizeof defs[0]; i++)
        if (env_default(v, &n, r->env, defs[i][0], defs[i][1]) < 0)
            goto fail;
    for (size_t i = 0; i < r->envc; i++)
        if (!(v[n++] = strdup(r->env[i])))
            goto fail;
    return v;
fail:
    xl_strv_free(v);
    return NULL;
}

/* Nonzero when path is a regular file someone may execute. */
static int executable(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0111);
}

char **xl_exec_paths(const char *argv0, char *const *env, const char *default_path,
                     char *msg, size_t len)
{
    const char *path = xl_env_get(env, "PATH");
    if (!path || !*path)
        path = default_path;
    size_t cap = 2, n = 0;
    for (const char *p = path; *p; p++)
        cap += *p == ':';
    char **v = calloc(cap + 1, sizeof *v);
    if (!v)
        return snprintf(msg, len, "out of memory"), NULL;
    if (strchr(argv0, '/')) {
        if (!(v[n++] = strdup(argv0)))
            goto fail;
    } else {
        for (const char *p = path; ; ) {
            size_t seg = strcspn(p, ":");
            char cand[PATH_MAX];
            int w = snprintf(cand, sizeof cand, "%.*s/%s", (int)(seg ? seg : 1),
                             seg ? p : ".", argv0);
            if (w > 0 && (size_t)w < sizeof cand && cand[0] == '/' && executable(cand) &&
                !(v[n++] = strdup(cand)))
                goto fail;
            if (!p[seg])
                break;
            p += seg + 1;
        }
    }
    /* A relative "./run.sh" is found from the workdir, by execve itself. */
    if (n == 0 || (argv0[0] == '/' && !executable(argv0))) {
        snprintf(msg, len, "command: %s: %s", argv0,
                 strchr(argv0, '/') ? "not an executable file" : "not found in PATH");
        xl_strv_free(v);
        return NULL;
    }
    return v;
fail:
    snprintf(msg, len, "out of memory");
    xl_strv_free(v);
    return NULL;
}
