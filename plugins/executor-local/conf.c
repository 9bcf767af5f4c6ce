/* conf.c — the executor-local configuration: read from the config JSON the
 * host hands over, already validated against config.schema.json with its
 * defaults applied (cubed and the fake host both do that), so every key is
 * present and of its schema's type and range. Checked here only what the
 * schema cannot say, each error naming its setting. */
#include "executor_local.h"

#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>


/* Writes "<key>: <reason>" into err; returns CUBE_EINVAL. */
CUBE_PRINTF(4, 5)
static int bad(char *err, size_t len, const char *key, const char *fmt, ...)
{
    int n = snprintf(err, len, "%s: ", key);
    if (n < 0 || (size_t)n >= len)
        return CUBE_EINVAL;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err + n, len - (size_t)n, fmt, ap);
    va_end(ap);
    return CUBE_EINVAL;
}

int64_t xl_parse_bytes(const char *s)
{
    static const struct { const char *suffix; int64_t mult; } U[] = {
        {"", 1}, {"K", 1000}, {"M", 1000000}, {"G", 1000000000},
        {"T", 1000000000000}, {"Ki", 1024}, {"Mi", 1048576},
        {"Gi", 1073741824}, {"Ti", 1099511627776},
    };
    if (!s || !isdigit((unsigned char)*s))
        return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno)
        return -1;
    for (size_t i = 0; i < sizeof U / sizeof U[0]; i++)
        if (strcmp(end, U[i].suffix) == 0)
            return v > (unsigned long long)(INT64_MAX / U[i].mult) ? -1
                                                                    : (int64_t)v * U[i].mult;
    return -1;
}

/* The host applied the schema's defaults: a setting is never absent. */
static const cJSON *setting(const cJSON *o, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(o, key);
}

/* A string setting (a copy). */
static int get_str(const cJSON *o, const char *key, char **out, char *err, size_t len)
{
    const char *v = cJSON_GetStringValue(setting(o, key));
    if (!v)
        return bad(err, len, key, "must be a string (is the config validated?)");
    if (!(*out = strdup(v)))
        return bad(err, len, key, "out of memory");
    return CUBE_OK;
}

/* An integer setting (its range is the schema's). */
static int get_int(const cJSON *o, const char *key, int64_t *out, char *err, size_t len)
{
    const cJSON *it = setting(o, key);
    double d = cJSON_GetNumberValue(it);
    if (!cJSON_IsNumber(it) || d != (double)(int64_t)d)
        return bad(err, len, key, "must be a whole number (is the config validated?)");
    *out = (int64_t)d;
    return CUBE_OK;
}

/* A boolean setting. */
static int get_bool(const cJSON *o, const char *key, int *out, char *err, size_t len)
{
    const cJSON *it = setting(o, key);
    if (!cJSON_IsBool(it))
        return bad(err, len, key, "must be true or false (is the config validated?)");
    *out = cJSON_IsTrue(it);
    return CUBE_OK;
}

/* One of the words in `words` (the schema's enum): its index into *out. */
static int get_enum(const cJSON *o, const char *key, const char *const *words, int *out,
                    char *err, size_t len)
{
    const char *v = cJSON_GetStringValue(setting(o, key));
    for (int i = 0; v && words[i]; i++)
        if (strcmp(v, words[i]) == 0)
            return *out = i, CUBE_OK;
    return bad(err, len, key, "\"%s\" is not one of the schema's words", v ? v : "");
}

/* A DNS subdomain-ish name: [a-z0-9] at both ends, [a-z0-9.-] inside. */
static int name_ok(const char *s, size_t max)
{
    size_t n = strlen(s);
    if (n == 0 || n > max || !isalnum((unsigned char)s[0]) || !isalnum((unsigned char)s[n - 1]))
        return 0;
    for (; *s; s++)
        if (!(islower((unsigned char)*s) || isdigit((unsigned char)*s) || *s == '-' || *s == '.'))
            return 0;
    return 1;
}

/* node_name (default: short hostname, lowercased), pool, labels. */
static int load_node(const cJSON *o, struct xl_conf *c, char *err, size_t len)
{
    char host[256] = "";
    if (gethostname(host, sizeof host - 1) < 0 || !*host)
        snprintf(host, sizeof host, "localhost");
    host[strcspn(host, ".")] = '\0';
    for (char *p = host; *p; p++)
        *p = (char)tolower((unsigned char)*p);
    int rc = get_str(o, "node_name", &c->node_name, err, len);
    if (rc == CUBE_OK && !*c->node_name) {
        free(c->node_name);
        c->node_name = strdup(host);
    }
    if (rc == CUBE_OK && (!c->node_name || !name_ok(c->node_name, 253)))
        return bad(err, len, "node_name", "\"%s\" is not a node name ([a-z0-9.-])",
                   c->node_name ? c->node_name : "");
    if (rc == CUBE_OK && (rc = get_str(o, "pool", &c->pool, err, len)) == CUBE_OK &&
        (strchr(c->pool, '.') || !name_ok(c->pool, 63)))
        return bad(err, len, "pool", "\"%s\" is not a DNS label", c->pool);
    if (rc != CUBE_OK)
        return rc;
    const cJSON *labels = setting(o, "labels"), *l;   /* optional: no default */
    cJSON_ArrayForEach(l, labels)
        if (!*l->string)
            return bad(err, len, "labels", "a label needs a name");
    c->labels_json = cJSON_IsObject(labels) ? cJSON_PrintUnformatted(labels) : strdup("{}");
    return c->labels_json ? CUBE_OK : bad(err, len, "labels", "out of memory");
}

/* reserved_cpus, reserved_memory. */
static int load_reserved(const cJSON *o, struct xl_conf *c, char *err, size_t len)
{
    char *mem = NULL;
    int rc = get_int(o, "reserved_cpus", &c->reserved_cpus, err, len);
    if (rc == CUBE_OK)
        rc = get_str(o, "reserved_memory", &mem, err, len);
    if (rc != CUBE_OK)
        return rc;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    if (c->reserved_cpus >= ncpu)
        return bad(err, len, "reserved_cpus", "%lld leaves none of this machine's %ld CPUs",
                   (long long)c->reserved_cpus, ncpu);
    int64_t b = xl_parse_bytes(mem);
    free(mem);
    if (b < 0)
        return bad(err, len, "reserved_memory", "must be a size such as 512Mi or 2Gi");
    c->reserved_memory = (uint64_t)b;
    return CUBE_OK;
}

/* uid_min/uid_max, user_prefix, group_prefix. */
static int load_accounts(const cJSON *o, struct xl_conf *c, char *err, size_t len)
{
    int64_t lo, hi;
    int rc = get_int(o, "uid_min", &lo, err, len);
    if (rc == CUBE_OK)
        rc = get_int(o, "uid_max", &hi, err, len);
    if (rc != CUBE_OK)
        return rc;
    if (hi <= lo)
        return bad(err, len, "uid_max", "must be greater than uid_min (%lld)", (long long)lo);
    c->uid_min = (unsigned)lo;
    c->uid_max = (unsigned)hi;
    /* their form is the schema's pattern */
    rc = get_str(o, "user_prefix", &c->user_prefix, err, len);
    return rc == CUBE_OK ? get_str(o, "group_prefix", &c->group_prefix, err, len) : rc;
}

/* A directory setting: absolute, without "..", default under `base`. */
static int load_dir(const cJSON *o, const char *key, const char *base, const char *leaf,
                    char **out, char *err, size_t len)
{
    int rc = get_str(o, key, out, err, len);
    if (rc != CUBE_OK)
        return rc;
    if (!**out) {
        free(*out);
        size_t n = strlen(base) + strlen(leaf) + 2;
        if (!(*out = malloc(n)))
            return bad(err, len, key, "out of memory");
        snprintf(*out, n, "%s/%s", base, leaf);
    }
    size_t n = strlen(*out);
    while (n > 1 && (*out)[n - 1] == '/')
        (*out)[--n] = '\0';
    if ((*out)[0] != '/' || strstr(*out, "/../") || strstr(*out, "/./") ||
        (n >= 3 && strcmp(*out + n - 3, "/..") == 0) || n >= PATH_MAX - 128)
        return bad(err, len, key, "\"%s\" must be an absolute path without . or ..", *out);
    return CUBE_OK;
}

/* home_root, projects_root, run_dir. The data dir is <data>/plugins/<name>:
 * project dirs default to <data>/projects, where the core keeps them. */
static int load_dirs(const cJSON *o, struct xl_conf *c, const char *data_dir,
                     char *err, size_t len)
{
    char data[PATH_MAX];
    snprintf(data, sizeof data, "%s", data_dir);
    const char *tail = "/plugins/" XL_NAME;
    size_t n = strlen(data), t = strlen(tail);
    if (n > t && strcmp(data + n - t, tail) == 0)
        data[n - t] = '\0';
    int rc = load_dir(o, "home_root", data_dir, "home", &c->home_root, err, len);
    if (rc == CUBE_OK)
        rc = load_dir(o, "projects_root", data, "projects", &c->projects_root, err, len);
    const cJSON *run = cJSON_GetObjectItemCaseSensitive(o, "run_dir");
    c->run_default = !cJSON_IsString(run) || !*run->valuestring;
    if (rc == CUBE_OK)
        rc = load_dir(o, "run_dir", data_dir, "run", &c->run_root, err, len);
    return rc;
}

/* sandbox (bubblewrap must be installed), cgroup, cgroup_parent. */
static int load_isolation(const cJSON *o, struct xl_conf *c, char *err, size_t len)
{
    static const char *const SB[] = {"none", "bubblewrap", NULL};
    static const char *const CG[] = {"auto", "v1", "v2", "off", NULL};
    int rc = get_enum(o, "sandbox", SB, &c->sandbox, err, len);
    if (rc == CUBE_OK)
        rc = get_enum(o, "cgroup", CG, &c->cgroup_mode, err, len);
    if (rc == CUBE_OK)
        rc = get_str(o, "cgroup_parent", &c->cgroup_parent, err, len);
    if (rc != CUBE_OK)
        return rc;
    if (*c->cgroup_parent && (c->cgroup_parent[0] != '/' || strstr(c->cgroup_parent, "..")))
        return bad(err, len, "cgroup_parent", "\"%s\" must be an absolute cgroup path "
                   "without ..", c->cgroup_parent);
    if (c->sandbox == XL_SANDBOX_BWRAP) {
        static const char *const where[] = {"/usr/bin/bwrap", "/usr/local/bin/bwrap", NULL};
        for (int i = 0; where[i] && !c->bwrap; i++)
            if (access(where[i], X_OK) == 0)
                c->bwrap = strdup(where[i]);
        if (!c->bwrap)
            return bad(err, len, "sandbox", "bubblewrap is not installed (apt-get install "
                       "bubblewrap)");
    }
    return CUBE_OK;
}

/* pids_max, pids_max_total, job_port_min/max, timeout_grace_seconds,
 * poll_ms, path. */
static int load_limits(const cJSON *o, struct xl_conf *c, char *err, size_t len)
{
    int64_t grace, poll;
    int rc = get_int(o, "pids_max", &c->pids_max, err, len);
    if (rc == CUBE_OK)
        rc = get_int(o, "pids_max_total", &c->pids_max_total, err, len);
    if (rc == CUBE_OK)
        rc = get_int(o, "job_port_min", &c->job_port_min, err, len);
    if (rc == CUBE_OK)
        rc = get_int(o, "job_port_max", &c->job_port_max, err, len);
    if (rc == CUBE_OK && c->job_port_max < c->job_port_min)
        return bad(err, len, "job_port_max", "%lld is below job_port_min (%lld)",
                   (long long)c->job_port_max, (long long)c->job_port_min);
    if (rc == CUBE_OK)
        rc = get_int(o, "timeout_grace_seconds", &grace, err, len);
    if (rc == CUBE_OK)
        rc = get_int(o, "poll_ms", &poll, err, len);
    if (rc == CUBE_OK)
        rc = get_str(o, "path", &c->default_path, err, len);
    if (rc != CUBE_OK)
        return rc;
    c->timeout_grace = (unsigned)grace;
    c->poll_ms = (unsigned)poll;
    return CUBE_OK;
}

/* The directory this code was loaded from (the plugin's .so, or the
 * program a test links it into) into out; "" when unknown. */
static void own_dir(char *out, size_t len)
{
    Dl_info info;
    out[0] = '\0';
    char file[PATH_MAX];
    if (dladdr((void *)own_dir, &info) && info.dli_fname &&
        realpath(info.dli_fname, file)) {
        *strrchr(file, '/') = '\0';
        snprintf(out, len, "%s", file);
    }
}

/* launcher; supervisor: set, or the program beside the plugin; it must be
 * executable. */
static int load_supervisor(const cJSON *o, struct xl_conf *c, char *err, size_t len)
{
    int rc = get_bool(o, "launcher", &c->launcher, err, len);
    if (rc == CUBE_OK)
        rc = get_str(o, "supervisor", &c->supervisor, err, len);
    if (rc != CUBE_OK)
        return rc;
    if (!*c->supervisor) {
        char dir[PATH_MAX], path[PATH_MAX + 32];
        own_dir(dir, sizeof dir);
        snprintf(path, sizeof path, "%s/%s", *dir ? dir : ".", XL_SUPERVISOR_PROGRAM);
        free(c->supervisor);
        if (!(c->supervisor = strdup(path)))
            return bad(err, len, "supervisor", "out of memory");
    }
    if (c->supervisor[0] != '/')
        return bad(err, len, "supervisor", "\"%s\" must be an absolute path", c->supervisor);
    if (access(c->supervisor, X_OK) < 0)
        return bad(err, len, "supervisor", "cannot execute %s: %s", c->supervisor,
                   strerror(errno));
    return CUBE_OK;
}

int xl_conf_load(struct xl_conf *c, const char *config_json, const char *data_dir,
                 char *err, size_t len)
{
    memset(c, 0, sizeof *c);
    cJSON *o = cJSON_Parse(config_json ? config_json : "{}");
    int rc;
    if (!cJSON_IsObject(o))
        rc = bad(err, len, "config", "must be an object");
    else if ((rc = load_node(o, c, err, len)) == CUBE_OK &&
             (rc = load_reserved(o, c, err, len)) == CUBE_OK &&
             (rc = load_accounts(o, c, err, len)) == CUBE_OK &&
             (rc = load_dirs(o, c, data_dir, err, len)) == CUBE_OK &&
             (rc = load_isolation(o, c, err, len)) == CUBE_OK &&
             (rc = load_limits(o, c, err, len)) == CUBE_OK)
        rc = load_supervisor(o, c, err, len);
    cJSON_Delete(o);
    if (rc != CUBE_OK)
        xl_conf_free(c);
    return rc;
}

void xl_conf_free(struct xl_conf *c)
{
    char *all[] = {c->node_name, c->pool, c->labels_json, c->user_prefix, c->group_prefix,
                   c->home_root, c->projects_root, c->run_root, c->bwrap, c->cgroup_parent,
                   c->default_path, c->run_legacy, c->supervisor};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        free(all[i]);
    memset(c, 0, sizeof *c);
}
