/* conf.c — executor-slurm's configuration: read from the host's JSON
 * (already checked against config.schema.json, defaults applied), with
 * the checks the schema cannot make, each error naming its setting. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slurm.h"

static const char *jstr(const cJSON *o, const char *k, const char *def)
{
    const char *v = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, k));
    return v ? v : def;
}

static double jnum(const cJSON *o, const char *k, double def)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsNumber(v) ? v->valuedouble : def;
}

static int copy(char *dst, size_t cap, const char *src)
{
    size_t n = strlen(src);
    if (n >= cap)
        return -1;
    memcpy(dst, src, n + 1);
    return 0;
}

/* "256Mi" -> MiB (rounded up); -1 when malformed. */
static int64_t parse_mb(const char *s)
{
    char *end;
    long long v = strtoll(s, &end, 10);
    static const struct { const char *u; double f; } units[] = {
        {"", 1.0 / 1048576}, {"Ki", 1.0 / 1024}, {"K", 1000.0 / 1048576}, {"Mi", 1},
        {"M", 1e6 / 1048576}, {"Gi", 1024}, {"G", 1e9 / 1048576}, {"Ti", 1048576},
        {"T", 1e12 / 1048576}};
    if (end == s || v < 0)
        return -1;
    for (size_t i = 0; i < sizeof units / sizeof *units; i++)
        if (strcmp(end, units[i].u) == 0) {
            double mb = (double)v * units[i].f;
            return (int64_t)(mb + 0.999999);
        }
    return -1;
}

static int parse_parts(struct sl_conf *c, const cJSON *arr, char *err, size_t len)
{
    const cJSON *p;
    cJSON_ArrayForEach(p, arr) {
        struct sl_partition *d = &c->parts[c->n_parts];
        const char *name = jstr(p, "name", ""), *pool = jstr(p, "pool", "");
        if (c->n_parts == SL_MAX_PARTITIONS)
            return snprintf(err, len, "partitions: at most %d", SL_MAX_PARTITIONS), -1;
        if (!*pool)
            pool = name;
        if (copy(d->name, sizeof d->name, name) < 0 || !*name || strpbrk(name, " ,=\t\n"))
            return snprintf(err, len, "partitions[%d].name: not a Slurm partition name",
                            c->n_parts), -1;
        if (!sl_dns_label(pool) || copy(d->pool, sizeof d->pool, pool) < 0)
            return snprintf(err, len, "partitions[%d].pool: must be a DNS label (got \"%s\")",
                            c->n_parts, pool), -1;
        for (int i = 0; i < c->n_parts; i++)
            if (strcmp(c->parts[i].pool, pool) == 0 || strcmp(c->parts[i].name, name) == 0)
                return snprintf(err, len, "partitions[%d]: partition %s or pool %s twice",
                                c->n_parts, name, pool), -1;
        c->n_parts++;
    }
    return 0;
}

static int parse_maps(struct sl_conf *c, const cJSON *root, char *err, size_t len)
{
    const cJSON *accts = cJSON_GetObjectItemCaseSensitive(root, "accounts"), *e;
    const cJSON *projs = cJSON_GetObjectItemCaseSensitive(root, "projects");
    const cJSON *gres = cJSON_GetObjectItemCaseSensitive(root, "gres");
    c->users = calloc((size_t)cJSON_GetArraySize(accts) + 1, sizeof *c->users);
    c->projects = calloc((size_t)cJSON_GetArraySize(projs) + 1, sizeof *c->projects);
    c->gres = calloc((size_t)cJSON_GetArraySize(gres) + 2, sizeof *c->gres);
    if (!c->users || !c->projects || !c->gres)
        return snprintf(err, len, "out of memory"), -1;
    cJSON_ArrayForEach(e, accts) {
        struct sl_user_map *u = &c->users[c->n_users];
        if (copy(u->user, sizeof u->user, e->string) < 0 ||
            copy(u->account, sizeof u->account, e->valuestring) < 0 ||
            strcmp(e->valuestring, "root") == 0)
            return snprintf(err, len, "accounts.%s: not an account jobs may run as", e->string), -1;
        c->n_users++;
    }
    cJSON_ArrayForEach(e, projs) {
        struct sl_project_acct *p = &c->projects[c->n_projects];
        if (copy(p->project, sizeof p->project, e->string) < 0 ||
            copy(p->account, sizeof p->account, jstr(e, "account", "")) < 0 ||
            copy(p->qos, sizeof p->qos, jstr(e, "qos", "")) < 0 ||
            strpbrk(p->account, " ,\t\n") || strpbrk(p->qos, " ,\t\n"))
            return snprintf(err, len, "projects.%s: bad account or qos", e->string), -1;
        c->n_projects++;
    }
    cJSON_ArrayForEach(e, gres) {
        struct sl_gres_map *g = &c->gres[c->n_gres];
        if (copy(g->gres, sizeof g->gres, e->string) < 0 || !strchr(e->valuestring, '/') ||
            copy(g->resource, sizeof g->resource, e->valuestring) < 0)
            return snprintf(err, len, "gres.%s: needs a resource like nvidia.com/gpu", e->string), -1;
        c->n_gres++;
    }
    if (!gres) {
        strcpy(c->gres[0].gres, "gpu");
        strcpy(c->gres[0].resource, "nvidia.com/gpu");
        c->n_gres = 1;
    }
    return 0;
}

int sl_conf_load(struct sl_conf *c, const char *json, const char *data_dir, char *err,
                 size_t len)
{
    memset(c, 0, sizeof *c);
    cJSON *root = cJSON_Parse(json ? json : "{}");
    int rc = -1;
    if (!cJSON_IsObject(root)) {
        snprintf(err, len, "config: not a JSON object");
        goto done;
    }
    if (parse_parts(c, cJSON_GetObjectItemCaseSensitive(root, "partitions"), err, len) < 0)
        goto done;
    if (c->n_parts == 0) {
        snprintf(err, len, "partitions: name at least one Slurm partition");
        goto done;
    }
    c->mode = strcmp(jstr(root, "mode", "cube"), "slurm") == 0 ? SL_MODE_SLURM : SL_MODE_CUBE;
    const char *spool = jstr(root, "spool_dir", "");
    char def[512];
    snprintf(def, sizeof def, "%s/spool", data_dir ? data_dir : ".");
    if (copy(c->spool_dir, sizeof c->spool_dir, *spool ? spool : def) < 0 ||
        c->spool_dir[0] != '/') {
        snprintf(err, len, "spool_dir: must be an absolute path (got \"%s\")", c->spool_dir);
        goto done;
    }
    if (copy(c->slurm_conf, sizeof c->slurm_conf, jstr(root, "slurm_conf", "")) < 0 ||
        copy(c->bin_dir, sizeof c->bin_dir, jstr(root, "bin_dir", "")) < 0 ||
        copy(c->node_prefix, sizeof c->node_prefix, jstr(root, "node_prefix", "")) < 0 ||
        copy(c->account_prefix, sizeof c->account_prefix, jstr(root, "account_prefix", "")) < 0) {
        snprintf(err, len, "slurm_conf, bin_dir, node_prefix or account_prefix: too long");
        goto done;
    }
    c->poll_ms = (unsigned)jnum(root, "poll_ms", 250);
    c->squeue_ms = (unsigned)jnum(root, "squeue_ms", 1000);
    if (c->squeue_ms < c->poll_ms)   /* squeue runs on a poll round */
        c->squeue_ms = c->poll_ms;
    c->submit_threads = (unsigned)jnum(root, "submit_threads", 8);
    c->node_refresh_ms = (unsigned)jnum(root, "node_refresh_ms", 5000);
    c->cmd_timeout_ms = (unsigned)jnum(root, "command_timeout_ms", 15000);
    c->stop_grace = (unsigned)jnum(root, "stop_grace_seconds", 10);
    c->overcommit = jnum(root, "overcommit", 4);
    c->backlog = jnum(root, "backlog", 0.25);
    const cJSON *ports = cJSON_GetObjectItemCaseSensitive(root, "job_ports");
    c->job_port_min = (int64_t)jnum(ports, "min", 29500);
    c->job_port_max = (int64_t)jnum(ports, "max", 30999);
    if (c->job_port_min > c->job_port_max) {
        snprintf(err, len, "job_ports: min must not exceed max");
        goto done;
    }
    if ((c->default_memory_mb = parse_mb(jstr(root, "default_memory", "256Mi"))) <= 0) {
        snprintf(err, len, "default_memory: needs a quantity such as 256Mi");
        goto done;
    }
    rc = parse_maps(c, root, err, len);
done:
    cJSON_Delete(root);
    if (rc < 0)
        sl_conf_free(c);
    return rc < 0 ? CUBE_EINVAL : CUBE_OK;
}

void sl_conf_free(struct sl_conf *c)
{
    free(c->users);
    free(c->projects);
    free(c->gres);
    c->users = NULL, c->projects = NULL, c->gres = NULL;
    c->n_users = c->n_projects = c->n_gres = 0;
}

const struct sl_partition *sl_conf_part_of_pool(const struct sl_conf *c, const char *pool)
{
    for (int i = 0; i < c->n_parts; i++)
        if (pool && strcmp(c->parts[i].pool, pool) == 0)
            return &c->parts[i];
    return NULL;
}

int sl_conf_account(const struct sl_conf *c, const char *user, char *out, size_t len)
{
    for (size_t i = 0; i < c->n_users; i++)
        if (strcmp(c->users[i].user, user) == 0)
            return snprintf(out, len, "%s", c->users[i].account) < (int)len ? 0 : -1;
    if (!c->account_prefix[0] || strchr(user, ':'))   /* "plugin:x" is no user */
        return -1;
    for (const char *p = user; *p; p++)   /* an OS account name of a Cube user name */
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-' || *p == '_' ||
              *p == '.'))
            return -1;
    return snprintf(out, len, "%s%s", c->account_prefix, user) < (int)len && strlen(out) <= 32
               ? 0 : -1;
}

const struct sl_project_acct *sl_conf_project(const struct sl_conf *c, const char *project)
{
    for (size_t i = 0; i < c->n_projects; i++)
        if (project && strcmp(c->projects[i].project, project) == 0)
            return &c->projects[i];
    return NULL;
}

const char *sl_conf_gres_of(const struct sl_conf *c, const char *resource)
{
    for (size_t i = 0; i < c->n_gres; i++)
        if (strcmp(c->gres[i].resource, resource) == 0)
            return c->gres[i].gres;
    return NULL;
}

const char *sl_conf_resource_of(const struct sl_conf *c, const char *gres)
{
    for (size_t i = 0; i < c->n_gres; i++)
        if (strcmp(c->gres[i].gres, gres) == 0)
            return c->gres[i].resource;
    return NULL;
}
