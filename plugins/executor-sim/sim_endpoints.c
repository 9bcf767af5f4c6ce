/* sim_endpoints.c — where simulated replicas answer (ABI 1.5): node groups
 * may give their nodes IPv4 addresses (address, advertised with node_set)
 * and their replicas an address apart from the nodes' (endpoint_address,
 * like a Pod network), so tests see MASTER_ADDR and proxy upstreams come
 * from reported endpoints. A start reports the replica's endpoints from
 * inside start (the host keeps a report made before start returns), and
 * its log line records the variables a distributed or port-serving
 * replica would read, never a secret. */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cube/util/json.h>

#include "sim.h"

#define OWN_PORT_BASE 8000   /* own_ports: 8000 + the name's index */

int sim_ipv4_nth(const char *base, int i, char *out, size_t len)
{
    struct in_addr a;
    if (i < 0 || inet_pton(AF_INET, base, &a) != 1)
        return -1;
    uint64_t v = (uint64_t)ntohl(a.s_addr) + (uint64_t)i;
    if (v > 0xffffffffu)
        return -1;
    a.s_addr = htonl((uint32_t)v);
    return inet_ntop(AF_INET, &a, out, (socklen_t)len) ? 0 : -1;
}

void sim_group_address(const struct sim_group *g, int i, int endpoint, char *out, size_t len)
{
    const char *base = endpoint && g->endpoint_address[0] ? g->endpoint_address : g->address;
    out[0] = '\0';
    if (base[0] && sim_ipv4_nth(base, i, out, len) < 0)
        out[0] = '\0';
}

/* The endpoint address of a configured node (its group's, by the index in
 * its name), or "" for nodes without one (added at run time). */
static void node_endpoint_address(const struct sim *s, const char *node, char *out, size_t len)
{
    out[0] = '\0';
    for (int k = 0; k < s->conf.n_groups && !out[0]; k++) {
        const struct sim_group *g = &s->conf.groups[k];
        size_t n = strlen(g->prefix);
        const char *digits = node + n;
        if (strncmp(node, g->prefix, n) || !*digits ||
            digits[strspn(digits, "0123456789")])
            continue;
        int i = atoi(digits);
        if (i < g->count)
            sim_group_address(g, i, 1, out, len);
    }
}

void sim_report_endpoints(struct sim *s, const char *replica_json, const char *engine_id,
                          const char *node)
{
    cJSON *doc = cJSON_Parse(replica_json);
    const cJSON *names = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(doc, "job"), "spec"), "ports"), *p;
    const cJSON *ports = cJSON_GetObjectItemCaseSensitive(doc, "ports");
    char addr[64];
    node_endpoint_address(s, node, addr, sizeof addr);
    if (!addr[0])
        snprintf(addr, sizeof addr, "%s", cu_str_or(doc, "address", "127.0.0.1"));
    cJSON *eps = cJSON_CreateObject();
    int k = 0;
    cJSON_ArrayForEach(p, names) {
        const char *name = cu_str(p, "name");
        double port = s->conf.own_ports ? OWN_PORT_BASE + k : cu_num(ports, name ? name : "", 0);
        char hp[96];
        k++;
        if (!name || port < 1 || port > 65535)
            continue;
        snprintf(hp, sizeof hp, "%s:%d", addr, (int)port);
        cJSON_AddStringToObject(eps, name, hp);
    }
    char *text = eps && eps->child ? cJSON_PrintUnformatted(eps) : NULL;
    int rc = text ? s->host->replica_endpoints(s->self, engine_id, text) : CUBE_OK;
    if (rc != CUBE_OK)
        s->host->log(s->self, CUBE_LOG_WARN, "replica_endpoints(%s): %d", engine_id, rc);
    free(text);
    cJSON_Delete(eps);
    cJSON_Delete(doc);
}

void sim_env_line(const char *replica_json, char *out, size_t len)
{
    static const char *const NAMES[] = {"MASTER_ADDR", "MASTER_PORT", "RANK", "WORLD_SIZE"};
    cJSON *doc = cJSON_Parse(replica_json);
    const cJSON *env = cJSON_GetObjectItemCaseSensitive(doc, "env"), *v;
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < sizeof NAMES / sizeof NAMES[0]; i++)
        if (cu_str(env, NAMES[i]) && used < len)
            used += (size_t)snprintf(out + used, len - used, "%s %s=%s", used ? "" : " env",
                                     NAMES[i], cu_str(env, NAMES[i]));
    cJSON_ArrayForEach(v, env)
        if (cJSON_IsString(v) && !strncmp(v->string, "CUBE_PORT_", 10) && used < len)
            used += (size_t)snprintf(out + used, len - used, "%s %s=%s", used ? "" : " env",
                                     v->string, v->valuestring);
    cJSON_Delete(doc);
}
