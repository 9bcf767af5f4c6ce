/* accel_sim.c — the accel-sim plugin: an accelerator vendor ("sim") whose
 * devices are declared in its config, for tests and demos without
 * hardware. discover lists them, pin_env names them in a configurable
 * variable (SIM_VISIBLE_DEVICES=0,1) plus a share variable for fractions
 * (SIM_DEVICE_SHARE=0.25), usage answers the configured utilisation.
 * Since ABI 1.5 pin adds each device's node and the configured mounts,
 * "partitioned" devices are cut per replica (prepare/release), and an
 * admin route pushes device health (sim_pin.c). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <cube/cube.h>
#include <cube/util/conf.h>
#include <cube/util/str.h>

#include "config_schema.h"   /* ACCEL_SIM_CONFIG_SCHEMA: config.schema.json, embedded */
#include "sim.h"

#define MAX_DEVICES 256

/* A reader of the config object o whose errors say "<key>: ..." into the
 * caller's err and len. */
#define AT(o) (&(struct cu_conf){.obj = (o), .err = err, .len = len})

/* Nonzero when s is a device id ([A-Za-z0-9._:-]+; no commas). */
static int id_ok(const char *s)
{
    if (!*s || strlen(s) > 63)
        return 0;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && !strchr("._:-", *s))
            return 0;
    return 1;
}

/* Adds member key to d when absent (its default). */
static void fill(cJSON *d, const char *key, cJSON *def)
{
    if (!cJSON_HasObjectItem(d, key))
        cJSON_AddItemToObject(d, key, def);
    else
        cJSON_Delete(def);
}

/* 1 when s is an absolute path without "." or ".." segments. */
static int clean_path(const char *s)
{
    if (!s || s[0] != '/' || strstr(s, "//") || strstr(s, "/./") || strstr(s, "/../"))
        return 0;
    size_t n = strlen(s);
    return !(n >= 2 && s[n - 1] == '.' && (s[n - 2] == '/' || (s[n - 2] == '.' && n >= 3 &&
                                                              s[n - 3] == '/'))) &&
           s[n - 1] != '/';
}

/* device_node (where the replica sees it, under /dev/), host_path (the
 * node on this machine; default: device_node), partitioned, prepare_error. */
static int check_node(cJSON *d, const struct cu_conf *dev)
{
    const cJSON *node = cJSON_GetObjectItem(d, "device_node");
    const cJSON *host = cJSON_GetObjectItem(d, "host_path");
    if (node && (!cJSON_IsString(node) || !clean_path(node->valuestring) ||
                 strncmp(node->valuestring, "/dev/", 5) != 0))
        return cu_conf_bad(dev, "device_node", "must be a clean path under /dev/");
    if (host && (!node || !cJSON_IsString(host) || !clean_path(host->valuestring)))
        return cu_conf_bad(dev, "host_path", "must be an absolute path, with device_node");
    fill(d, "partitioned", cJSON_CreateFalse());
    if (!cJSON_IsBool(cJSON_GetObjectItem(d, "partitioned")))
        return cu_conf_bad(dev, "partitioned", "must be true or false");
    const cJSON *err = cJSON_GetObjectItem(d, "prepare_error");
    if (err && !cJSON_IsString(err))
        return cu_conf_bad(dev, "prepare_error", "must be a string");
    return CUBE_OK;
}

/* mounts: [{host_path, path, read_only}] every pin gets. */
static int check_mounts(struct accel_sim *a, cJSON *mounts, char *err, size_t len)
{
    cJSON *m;
    int i = 0;
    if (mounts && (!cJSON_IsArray(mounts) || cJSON_GetArraySize(mounts) > 32))
        return cu_conf_bad(AT(NULL), "mounts", "must be an array of at most 32");
    cJSON_ArrayForEach(m, mounts) {
        char at[32];
        snprintf(at, sizeof at, "mounts[%d]", i++);
        const struct cu_conf *c = &(struct cu_conf){.obj = m, .path = at, .err = err, .len = len};
        if (!clean_path(cJSON_GetStringValue(cJSON_GetObjectItem(m, "host_path"))) ||
            !clean_path(cJSON_GetStringValue(cJSON_GetObjectItem(m, "path"))))
            return cu_conf_bad(c, NULL, "host_path and path must be absolute paths");
        fill(m, "read_only", cJSON_CreateTrue());
    }
    a->mounts = mounts ? mounts : cJSON_CreateArray();
    return CUBE_OK;
}

/* Checks device i (defaults filled in); ids must be unique. */
static int check_device(cJSON *d, int i, const cJSON *all, char *err, size_t len)
{
    char at[32];
    snprintf(at, sizeof at, "devices[%d]", i);
    const struct cu_conf *dev = &(struct cu_conf){.obj = d, .path = at, .err = err, .len = len};
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(d, "id");
    if (!cJSON_IsObject(d) || !cJSON_IsString(id) || !id_ok(id->valuestring))
        return cu_conf_bad(dev, "id", "must be letters, digits, '.', '_', ':' or '-'");
    for (int j = 0; j < i; j++)
        if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetArrayItem(all, j), "id")),
                   id->valuestring) == 0)
            return cu_conf_bad(dev, "id", "\"%s\" is also devices[%d]'s",
                       id->valuestring, j);
    fill(d, "model", cJSON_CreateString("sim"));
    fill(d, "memory", cJSON_CreateString("16Gi"));
    fill(d, "numa", cJSON_CreateNumber(0));
    fill(d, "healthy", cJSON_CreateTrue());
    fill(d, "utilization", cJSON_CreateNumber(0));
    fill(d, "memory_used", cJSON_CreateString("0"));
    const cJSON *u = cJSON_GetObjectItem(d, "utilization");
    const cJSON *numa = cJSON_GetObjectItem(d, "numa");
    const cJSON *dom = cJSON_GetObjectItem(d, "domain");
    if (!cJSON_IsString(cJSON_GetObjectItem(d, "model")) ||
        !cJSON_IsString(cJSON_GetObjectItem(d, "memory")) ||
        !cJSON_IsString(cJSON_GetObjectItem(d, "memory_used")))
        return cu_conf_bad(dev, NULL, "model, memory and memory_used must be strings");
    if (!cu_qty_bytes(cJSON_GetStringValue(cJSON_GetObjectItem(d, "memory"))))
        return cu_conf_bad(dev, "memory", "must be a byte quantity such as 80Gi");
    if (!cu_qty_bytes(cJSON_GetStringValue(cJSON_GetObjectItem(d, "memory_used"))))
        return cu_conf_bad(dev, "memory_used", "must be a byte quantity");
    if (!cJSON_IsNumber(numa) || numa->valuedouble < 0 || numa->valuedouble > 1024)
        return cu_conf_bad(dev, "numa", "must be an integer from 0 to 1024");
    if (!cJSON_IsNumber(u) || u->valuedouble < 0 || u->valuedouble > 1)
        return cu_conf_bad(dev, "utilization", "must be a number from 0 to 1");
    if (!cJSON_IsBool(cJSON_GetObjectItem(d, "healthy")))
        return cu_conf_bad(dev, "healthy", "must be true or false");
    if (dom && !cJSON_IsString(dom))
        return cu_conf_bad(dev, "domain", "must be a string");
    return check_node(d, dev);
}

/* Reads and checks the config into a (defaults applied here too). */
static int read_config(struct accel_sim *a, const char *json, char *err, size_t len)
{
    cJSON *root = cJSON_Parse(json ? json : "{}");
    int rc = cJSON_IsObject(root) ? CUBE_OK : cu_conf_bad(AT(NULL), NULL, "must be an object");
    if (!rc)
        rc = cu_conf_strbuf(AT(root), "resource", "sim.cube.dev/gpu", a->resource,
                            sizeof a->resource);
    if (!rc && (!strchr(a->resource, '/') || a->resource[0] == '/'))
        rc = cu_conf_bad(AT(root), "resource", "must look like vendor.com/device");
    if (!rc)
        rc = cu_conf_strbuf(AT(root), "visible_env", "SIM_VISIBLE_DEVICES", a->visible_env,
                            sizeof a->visible_env);
    if (!rc)
        rc = cu_conf_strbuf(AT(root), "share_env", "SIM_DEVICE_SHARE", a->share_env,
                            sizeof a->share_env);
    if (!rc && !cu_env_name(a->visible_env))
        rc = cu_conf_bad(AT(root), "visible_env", "must be a variable name");
    if (!rc && !cu_env_name(a->share_env))
        rc = cu_conf_bad(AT(root), "share_env", "must be a variable name");
    cJSON *devs = cJSON_DetachItemFromObjectCaseSensitive(root, "devices");
    if (!rc && devs && (!cJSON_IsArray(devs) || cJSON_GetArraySize(devs) > MAX_DEVICES))
        rc = cu_conf_bad(AT(root), "devices", "must be an array of at most %d devices",
                         MAX_DEVICES);
    for (int i = 0; !rc && i < cJSON_GetArraySize(devs); i++)
        rc = check_device(cJSON_GetArrayItem(devs, i), i, devs, err, len);
    a->devices = rc ? NULL : devs ? devs : cJSON_CreateArray();
    if (rc)
        cJSON_Delete(devs);
    cJSON *mounts = cJSON_DetachItemFromObjectCaseSensitive(root, "mounts");
    if (!rc && (rc = check_mounts(a, mounts, err, len)) == CUBE_OK)
        mounts = NULL;
    cJSON_Delete(mounts);
    cJSON_Delete(root);
    return rc;
}

const cJSON *sim_find(const struct accel_sim *a, const char *id)
{
    const cJSON *d;
    cJSON_ArrayForEach(d, a->devices)
        if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(d, "id")), id) == 0)
            return d;
    return NULL;
}

int sim_answer(cJSON *doc, char **out)
{
    char *text = doc ? cJSON_PrintUnformatted(doc) : NULL;
    cJSON_Delete(doc);
    *out = text ? strdup(text) : NULL;
    cJSON_free(text);
    return *out ? CUBE_OK : CUBE_ENOMEM;
}

static int sim_discover(void *state, char **devices_json)
{
    struct accel_sim *a = state;
    cJSON *list = cJSON_CreateArray();
    const cJSON *d;
    static const char *const KEYS[] = {"id", "model", "memory", "numa", "domain", "healthy", NULL};
    cJSON_ArrayForEach(d, a->devices) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddItemToArray(list, o);
        for (int k = 0; KEYS[k]; k++)
            if (cJSON_HasObjectItem(d, KEYS[k]))
                cJSON_AddItemToObject(o, KEYS[k], cJSON_Duplicate(cJSON_GetObjectItem(d, KEYS[k]), 1));
        cJSON_AddStringToObject(o, "resource", a->resource);
    }
    return sim_answer(list, devices_json);
}

int sim_ids(struct accel_sim *a, const char *ids_json, double share, char *list, size_t len)
{
    cJSON *ids = cJSON_Parse(ids_json ? ids_json : ""), *id;
    size_t o = 0;
    int n = cJSON_GetArraySize(ids), rc = cJSON_IsArray(ids) && n > 0 ? CUBE_OK : CUBE_EINVAL;
    if (rc == CUBE_OK && (!(share > 0 && share <= 1) || (share < 1 && n != 1)))
        rc = CUBE_EINVAL;  /* a fraction is of exactly one device */
    cJSON *each = rc ? NULL : ids;
    list[0] = '\0';
    pthread_mutex_lock(&a->mu);
    cJSON_ArrayForEach(id, each) {
        const char *s = cJSON_GetStringValue(id);
        int known = s && (sim_find(a, s) || cJSON_GetObjectItemCaseSensitive(a->partitions, s));
        int w = known ? snprintf(list + o, len - o, "%s%s", o ? "," : "", s) : -1;
        if (w < 0 || (size_t)w >= len - o) {
            a->host->log(a->self, CUBE_LOG_WARN, "pin: unknown device id in %.200s", ids_json);
            a->host->set_error(a->self, "unknown device id in %.200s", ids_json);
            rc = CUBE_EINVAL;
            break;
        }
        o += (size_t)w;
    }
    pthread_mutex_unlock(&a->mu);
    cJSON_Delete(ids);
    return rc;
}

static int sim_pin_env(void *state, const char *ids_json, double share, char **env_json)
{
    struct accel_sim *a = state;
    char list[4096];
    int rc = sim_ids(a, ids_json, share, list, sizeof list);
    if (rc != CUBE_OK)
        return rc;
    cJSON *env = cJSON_CreateObject();
    cJSON_AddStringToObject(env, a->visible_env, list);
    if (share < 1) {
        char frac[32];
        snprintf(frac, sizeof frac, "%g", share);
        cJSON_AddStringToObject(env, a->share_env, frac);
    }
    return sim_answer(env, env_json);
}

static int sim_usage(void *state, char **usage_json)
{
    struct accel_sim *a = state;
    cJSON *list = cJSON_CreateArray();
    const cJSON *d;
    cJSON_ArrayForEach(d, a->devices) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddItemToArray(list, o);
        cJSON_AddStringToObject(o, "id", cJSON_GetStringValue(cJSON_GetObjectItem(d, "id")));
        cJSON_AddNumberToObject(o, "utilization",
                                cJSON_GetNumberValue(cJSON_GetObjectItem(d, "utilization")));
        cJSON_AddStringToObject(o, "memoryUsed",
                                cJSON_GetStringValue(cJSON_GetObjectItem(d, "memory_used")));
    }
    return sim_answer(list, usage_json);
}

static void accel_sim_free(struct accel_sim *a)
{
    cJSON_Delete(a->devices);
    cJSON_Delete(a->mounts);
    cJSON_Delete(a->partitions);
    cJSON_Delete(a->calls);
    pthread_mutex_destroy(&a->mu);
    free(a);
}

static int accel_sim_init(const struct cube_host *host, cube_plugin *self, void **state)
{
    struct accel_sim *a = calloc(1, sizeof *a);
    char err[256], *json = a ? host->config_json(self) : NULL;
    if (!a || !json) {
        free(a);
        host->set_error(self, "out of memory");
        return CUBE_ENOMEM;
    }
    a->host = host;
    a->self = self;
    pthread_mutex_init(&a->mu, NULL);
    a->partitions = cJSON_CreateObject();
    a->calls = cJSON_CreateArray();
    int rc = read_config(a, json, err, sizeof err);
    host->free(json);
    const struct cube_accel_desc desc = {
        .size = sizeof desc, .name = "sim", .resource = a->resource,
        .discover = sim_discover, .pin_env = sim_pin_env, .usage = sim_usage,
        .pin = sim_pin, .prepare = sim_prepare, .release = sim_release,
    };
    if (rc == CUBE_OK && (rc = host->register_accel(self, &desc)) != CUBE_OK)
        snprintf(err, sizeof err, "register_accel failed (%d): see the log", rc);
    if (rc == CUBE_OK && (rc = sim_routes(a)) != CUBE_OK)
        snprintf(err, sizeof err, "register_route failed (%d): see the log", rc);
    if (rc != CUBE_OK) {
        host->set_error(self, "%s", err);
        accel_sim_free(a);
        return rc;
    }
    *state = a;
    host->log(self, CUBE_LOG_INFO, "%d simulated %s devices", cJSON_GetArraySize(a->devices),
              a->resource);
    return CUBE_OK;
}

static void accel_sim_fini(void *state)
{
    accel_sim_free(state);
}

CUBE_PLUGIN_DEFINE(accel_sim,
    .name = "accel-sim",
    .version = "1.0.0",
    .vendor = "Cube",
    .license = "Apache-2.0",
    .description = "Simulated accelerator devices declared in the config (vendor \"sim\")",
    .config_schema = ACCEL_SIM_CONFIG_SCHEMA,
    .init = accel_sim_init,
    .fini = accel_sim_fini)
