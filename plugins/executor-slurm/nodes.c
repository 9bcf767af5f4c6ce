/* nodes.c — Slurm's nodes as Cube nodes. `scontrol -o show node` (one line
 * per node) gives CPUs, memory, GRES, features, address, state and the
 * partitions; each node of a configured partition becomes a node document
 * of that partition's pool (cube_sched.h), with, since ABI 1.5,
 * "schedulable": false and a "message" when Slurm will not run work there
 * (drain, down, not responding, or Slurm itself unreachable). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slurm.h"

/* State flags that keep new work off a node. */
static const char *const UNSCHED[] = {"DRAIN", "DOWN", "FAIL", "NOT_RESPONDING",
                                      "FUTURE", "POWERED_DOWN", "POWERING_DOWN",
                                      "MAINT", "REBOOT", "UNKNOWN", "INVAL", NULL};

int sl_node_name(const struct sl_conf *c, const char *slurm, char *out, size_t len)
{
    if ((size_t)snprintf(out, len, "%s%s", c->node_prefix, slurm) >= len)
        return -1;
    for (char *p = out; *p; p++)
        if (*p >= 'A' && *p <= 'Z')
            *p = (char)(*p - 'A' + 'a');
    return sl_dns_label(out) ? 0 : -1;
}

/* "gpu:h200:8(S:0-1),gpu:a100:2" -> devices of mapped GRES. */
static void add_gres(const struct sl_conf *c, cJSON *devs, const char *gres)
{
    char buf[512];
    int next = 0;
    snprintf(buf, sizeof buf, "%s", gres);
    char *save = NULL;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        char *paren = strchr(t, '(');
        if (paren)
            *paren = '\0';
        char *f[3] = {t, NULL, NULL};
        int nf = 1;
        for (char *p = t; *p && nf < 3; p++)
            if (*p == ':')
                *p = '\0', f[nf++] = p + 1;
        const char *res = sl_conf_resource_of(c, f[0]);
        const char *count = nf == 3 ? f[2] : nf == 2 ? f[1] : "1";
        const char *model = nf == 3 ? f[1] : "";
        long n = strtol(count, NULL, 10);
        if (!res || n <= 0 || n > 64 || strcmp(t, "(null)") == 0)
            continue;
        for (long i = 0; i < n && next < 64; i++, next++) {
            cJSON *d = cJSON_CreateObject();
            char id[16], up[64];
            snprintf(id, sizeof id, "%d", next);
            size_t k = 0;
            for (; model[k] && k + 1 < sizeof up; k++)
                up[k] = (model[k] >= 'a' && model[k] <= 'z') ? (char)(model[k] - 32) : model[k];
            up[k] = '\0';
            cJSON_AddStringToObject(d, "id", id);
            cJSON_AddStringToObject(d, "resource", res);
            if (*up)
                cJSON_AddStringToObject(d, "model", up);
            cJSON_AddItemToArray(devs, d);
        }
    }
}

static void add_features(cJSON *labels, const char *feats)
{
    char buf[512], key[128];
    snprintf(buf, sizeof buf, "%s", feats);
    char *save = NULL;
    if (strcmp(buf, "(null)") == 0)
        return;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        snprintf(key, sizeof key, "slurm.cube.dev/%s", t);
        cJSON_AddStringToObject(labels, key, "true");
    }
}

/* Why Slurm keeps work off the node ("" when it does not). */
static void unsched_why(const char *state, const char *reason, char *out, size_t len)
{
    out[0] = '\0';
    for (int i = 0; UNSCHED[i]; i++)
        if (strstr(state, UNSCHED[i]) || strchr(state, '*')) {
            char r[200];
            snprintf(r, sizeof r, "%s", reason);
            char *stamp = strstr(r, " [");   /* "disk check [root@2026-...]" */
            if (stamp)
                *stamp = '\0';
            snprintf(out, len, "Slurm node state %s%s%s", state, *r ? ": " : "", r);
            return;
        }
}

cJSON *sl_node_doc(const struct sl_conf *c, const char *line, const char *pool,
                   struct sl_node *n)
{
    char name[64], v[512], state[128], reason[256];
    sl_kv_field(line, "NodeName", name, sizeof name);
    memset(n, 0, sizeof *n);
    if (!*name || sl_node_name(c, name, n->name, sizeof n->name) < 0)
        return NULL;
    snprintf(n->slurm, sizeof n->slurm, "%s", name);
    snprintf(n->pool, sizeof n->pool, "%s", pool);
    cJSON *doc = cJSON_CreateObject(), *cap, *labels, *devs, *ports;
    cJSON_AddStringToObject(doc, "name", n->name);
    cJSON_AddStringToObject(doc, "pool", pool);
    sl_kv_field(line, "NodeAddr", n->addr, sizeof n->addr);
    if (n->addr[0])
        cJSON_AddStringToObject(doc, "address", n->addr);
    labels = cJSON_AddObjectToObject(doc, "labels");
    cJSON_AddStringToObject(labels, "slurm.cube.dev/node", name);
    sl_kv_field(line, "ActiveFeatures", v, sizeof v);
    add_features(labels, v);
    cap = cJSON_AddObjectToObject(doc, "capacity");
    sl_kv_field(line, "CPUEfctv", v, sizeof v);
    if (!*v)
        sl_kv_field(line, "CPUTot", v, sizeof v);
    double k = c->mode == SL_MODE_SLURM ? c->overcommit : 1 + c->backlog;
    long cpus = strtol(v, NULL, 10);
    sl_kv_field(line, "RealMemory", v, sizeof v);
    long mem = strtol(v, NULL, 10);
    char q[32];
    snprintf(q, sizeof q, "%ld", (long)((double)cpus * k));
    cJSON_AddStringToObject(cap, "cpu", q);
    snprintf(q, sizeof q, "%ldMi", (long)((double)mem * k));
    cJSON_AddStringToObject(cap, "memory", q);
    ports = cJSON_AddObjectToObject(doc, "jobPorts");
    cJSON_AddNumberToObject(ports, "min", (double)c->job_port_min);
    cJSON_AddNumberToObject(ports, "max", (double)c->job_port_max);
    devs = cJSON_AddArrayToObject(doc, "devices");   /* never this machine's */
    sl_kv_field(line, "Gres", v, sizeof v);
    add_gres(c, devs, v);
    sl_kv_field(line, "State", state, sizeof state);
    sl_kv_field(line, "Reason", reason, sizeof reason);
    unsched_why(state, reason, n->message, sizeof n->message);
    n->schedulable = !n->message[0];
    cJSON_AddBoolToObject(doc, "schedulable", n->schedulable);
    if (!n->schedulable)
        cJSON_AddStringToObject(doc, "message", n->message);
    return doc;
}

const char *sl_node_slurm(struct sl *s, const char *cube_name)
{
    for (size_t i = 0; i < s->n_nodes; i++)
        if (strcmp(s->nodes[i].name, cube_name) == 0)
            return s->nodes[i].slurm;
    return NULL;
}

const char *sl_node_cube(struct sl *s, const char *slurm)
{
    for (size_t i = 0; i < s->n_nodes; i++)
        if (strcmp(s->nodes[i].slurm, slurm) == 0)
            return s->nodes[i].name;
    return NULL;
}

/* The pool of the first configured partition in "cube,gpu" (NULL). */
static const char *pool_of(const struct sl_conf *c, const char *parts, int *found)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", parts);
    char *save = NULL;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save))
        for (int i = 0; i < c->n_parts; i++)
            if (strcmp(c->parts[i].name, t) == 0) {
                found[i] = 1;
                return c->parts[i].pool;
            }
    return NULL;
}

/* Slurm unreachable: every known node, unschedulable with the reason.
 * The last document is sent again with only that changed: a smaller
 * capacity would make the host count the replicas placed there as lost,
 * and they are not (Slurm runs them on while its controller is away). */
static void all_down(struct sl *s, const char *why)
{
    pthread_mutex_lock(&s->mu);
    int was_up = s->slurm_up;
    s->slurm_up = 0;
    snprintf(s->slurm_msg, sizeof s->slurm_msg, "Slurm unreachable: %s", why);
    char **docs = s->n_nodes ? calloc(s->n_nodes, sizeof *docs) : NULL;
    size_t n = docs ? s->n_nodes : 0;
    for (size_t i = 0; i < n; i++) {
        cJSON *d = cJSON_Parse(s->nodes[i].doc ? s->nodes[i].doc : "");
        if (!d)
            continue;
        cJSON_ReplaceItemInObject(d, "schedulable", cJSON_CreateFalse());
        cJSON_DeleteItemFromObject(d, "message");
        cJSON_AddStringToObject(d, "message", s->slurm_msg);
        docs[i] = cJSON_PrintUnformatted(d);
        cJSON_Delete(d);
    }
    pthread_mutex_unlock(&s->mu);
    if (was_up)
        s->host->log(s->self, CUBE_LOG_WARN, "Slurm unreachable (pools NotReady): %s", why);
    for (size_t i = 0; i < n; i++) {
        if (docs[i])
            s->host->node_set(s->self, docs[i]);
        free(docs[i]);
    }
    free(docs);
}

/* Checks that each configured partition exists (a typo in the config is
 * said once, naming the setting, and kept for the status route). */
static void check_parts(struct sl *s, const int *found)
{
    for (int i = 0; i < s->conf.n_parts; i++) {
        if (found[i]) {
            pthread_mutex_lock(&s->mu);
            s->part_msg[i][0] = '\0';
            pthread_mutex_unlock(&s->mu);
            continue;
        }
        char *argv[] = {"scontrol", "-o", "show", "partition", s->conf.parts[i].name, NULL};
        struct sl_cmd_out o;
        char why[256] = "";
        if (sl_cmd(&s->conf, argv, (uid_t)-1, 0, NULL, &o) == CUBE_OK && o.status != 0)
            snprintf(why, sizeof why, "partitions[%d].name: Slurm has no partition \"%s\" (%s)",
                     i, s->conf.parts[i].name, "scontrol show partition found none");
        else if (o.status == 0)
            snprintf(why, sizeof why, "partitions[%d].name: partition \"%s\" has no nodes",
                     i, s->conf.parts[i].name);
        sl_cmd_free(&o);
        pthread_mutex_lock(&s->mu);
        int again = strcmp(s->part_msg[i], why) == 0;
        snprintf(s->part_msg[i], sizeof s->part_msg[i], "%s", why);
        pthread_mutex_unlock(&s->mu);
        if (!again && *why)
            s->host->log(s->self, CUBE_LOG_ERROR, "%s: pool %s has no nodes", why,
                         s->conf.parts[i].pool);
    }
}

/* Records the refreshed set (caller holds mu): nodes no longer listed
 * are returned in gone (names to node_remove). */
static size_t adopt_set(struct sl *s, struct sl_node *fresh, size_t n, char gone[][96],
                        size_t max_gone)
{
    size_t g = 0;
    for (size_t i = 0; i < s->n_nodes; i++) {
        int kept = 0;
        for (size_t j = 0; j < n && !kept; j++)
            kept = strcmp(s->nodes[i].name, fresh[j].name) == 0;
        if (!kept && g < max_gone)
            snprintf(gone[g++], 96, "%s", s->nodes[i].name);
        free(s->nodes[i].doc);
    }
    free(s->nodes);
    s->nodes = fresh;
    s->n_nodes = n;
    return g;
}

/* Parses scontrol's lines into fresh nodes (docs in texts). */
static size_t parse_lines(struct sl *s, char *out, struct sl_node *fresh, int *found)
{
    size_t n = 0;
    char *save = NULL;
    for (char *line = strtok_r(out, "\n", &save); line && n < SL_MAX_NODES;
         line = strtok_r(NULL, "\n", &save)) {
        char parts[512];
        sl_kv_field(line, "Partitions", parts, sizeof parts);
        const char *pool = pool_of(&s->conf, parts, found);
        if (!pool)
            continue;
        cJSON *doc = sl_node_doc(&s->conf, line, pool, &fresh[n]);
        if (!doc) {
            char name[64];
            sl_kv_field(line, "NodeName", name, sizeof name);
            s->host->log(s->self, CUBE_LOG_WARN, "Slurm node \"%s\" skipped: its name "
                         "(with node_prefix) is no DNS label", name);
            continue;
        }
        fresh[n].doc = cJSON_PrintUnformatted(doc);
        cJSON_Delete(doc);
        if (fresh[n].doc)
            n++;
    }
    return n;
}

void sl_nodes_refresh(struct sl *s)
{
    char *argv[] = {"scontrol", "-o", "show", "node", NULL};
    struct sl_cmd_out o;
    char why[256];
    if (sl_cmd(&s->conf, argv, (uid_t)-1, 0, NULL, &o) != CUBE_OK || o.status != 0) {
        sl_cmd_why(&o, why, sizeof why);
        sl_cmd_free(&o);
        all_down(s, why);
        return;
    }
    struct sl_node *fresh = calloc(SL_MAX_NODES, sizeof *fresh);
    int found[SL_MAX_PARTITIONS] = {0};
    char (*gone)[96] = calloc(64, sizeof *gone);
    if (!fresh || !gone) {
        free(fresh);
        free(gone);
        sl_cmd_free(&o);
        return;
    }
    size_t n = parse_lines(s, o.out, fresh, found);
    sl_cmd_free(&o);
    for (size_t i = 0; i < n; i++)
        if (s->host->node_set(s->self, fresh[i].doc) != CUBE_OK)
            s->host->log(s->self, CUBE_LOG_WARN, "node %s: node_set refused its document "
                         "(see above)", fresh[i].name);
    pthread_mutex_lock(&s->mu);
    int was_up = s->slurm_up;
    s->slurm_up = 1;
    s->slurm_msg[0] = '\0';
    size_t g = adopt_set(s, fresh, n, gone, 64);
    s->last_refresh_ms = sl_mono_ms();
    pthread_mutex_unlock(&s->mu);
    if (!was_up)
        s->host->log(s->self, CUBE_LOG_INFO, "Slurm reachable: %zu nodes", n);
    for (size_t i = 0; i < g; i++)
        s->host->node_remove(s->self, gone[i]);
    free(gone);
    check_parts(s, found);
}
