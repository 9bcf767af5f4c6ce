/* node.c — this machine as a node document (cube_sched.h, node_set):
 * online CPUs and MemTotal less what is reserved, labels, devices. */
#include "executor_local.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

/* MemTotal from /proc/meminfo in bytes; 0 when unknown. */
static uint64_t mem_total(void)
{
    FILE *f = fopen("/proc/meminfo", "re");
    char line[256];
    unsigned long long kb = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "MemTotal: %llu kB", &kb) == 1)
            break;
    if (f)
        fclose(f);
    return (uint64_t)kb * 1024;
}

/* Adds "capacity": cpu and memory less the reserved amounts. */
static int add_capacity(cJSON *node, const struct xl_conf *c, char *msg, size_t len)
{
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    uint64_t mem = mem_total();
    if (ncpu < 1 || mem == 0) {
        snprintf(msg, len, "cannot read this machine's CPUs or memory");
        return -1;
    }
    if (c->reserved_cpus >= ncpu || c->reserved_memory >= mem) {
        snprintf(msg, len, "reserved_cpus/reserved_memory leave nothing of %ld CPUs and "
                 "%" PRIu64 " bytes", ncpu, mem);
        return -1;
    }
    char cpu[32], memory[32];
    snprintf(cpu, sizeof cpu, "%ld", ncpu - (long)c->reserved_cpus);
    uint64_t left = mem - c->reserved_memory;
    if (left % 1024 == 0)
        snprintf(memory, sizeof memory, "%" PRIu64 "Ki", left / 1024);
    else
        snprintf(memory, sizeof memory, "%" PRIu64, left);
    cJSON *cap = cJSON_AddObjectToObject(node, "capacity");
    return cap && cJSON_AddStringToObject(cap, "cpu", cpu) &&
           cJSON_AddStringToObject(cap, "memory", memory) ? 0 : -1;
}

char *xl_node_document(const struct xl_conf *c, const char *devices_json, char *msg,
                       size_t len)
{
    cJSON *node = cJSON_CreateObject();
    cJSON *labels = cJSON_Parse(c->labels_json ? c->labels_json : "{}");
    cJSON *devices = cJSON_Parse(devices_json ? devices_json : "[]");
    char *out = NULL;
    if (!cJSON_IsArray(devices)) {
        cJSON_Delete(devices);
        devices = cJSON_CreateArray();
    }
    if (!node || !labels || !devices || !cJSON_AddStringToObject(node, "name", c->node_name) ||
        !cJSON_AddStringToObject(node, "pool", c->pool)) {
        snprintf(msg, len, "out of memory");
        goto fail;
    }
    cJSON_AddItemToObject(node, "labels", labels);
    labels = NULL;
    if (add_capacity(node, c, msg, len) < 0)
        goto fail;
    cJSON_AddItemToObject(node, "devices", devices);
    devices = NULL;
    if (c->job_port_min > 0) {   /* else the core's default range */
        cJSON *ports = cJSON_AddObjectToObject(node, "jobPorts");
        cJSON_AddNumberToObject(ports, "min", (double)c->job_port_min);
        cJSON_AddNumberToObject(ports, "max", (double)c->job_port_max);
    }
    if (!(out = cJSON_PrintUnformatted(node)))
        snprintf(msg, len, "out of memory");
fail:
    cJSON_Delete(labels);
    cJSON_Delete(devices);
    cJSON_Delete(node);
    return out;
}
