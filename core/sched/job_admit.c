/* job_admit.c — what a Job must satisfy to be admitted beyond its schema
 * and resources (job_kind.c): environment names that are portable and not
 * Cube's own, no mounts and no image (no executor of this Cube does
 * either yet: refused, never accepted and ignored), a pool some node
 * serves and the project may use, and a spec that never changes once the
 * Job exists (the scheduler queued it as it was). A Project's spec.env and
 * spec.mounts, the defaults of its Jobs, follow the same rules. */
#include <stdio.h>
#include <string.h>

#include "auth/auth_priv.h"
#include "ctx/ctx.h"
#include "jobs.h"
#include "objects/kinds.h"
#include "base/names.h"
#include "objects/objects.h"
#include "schema/schema.h"

#define ENV_NAME_MAX 128

/* The variables job_env.c sets for every replica or for a distributed
 * mode: a Job or Project naming one would be silently overridden. Keep in
 * step with job_env.c. */
static const char *const RESERVED_ENV[] = {
    "CUBE_API", "CUBE_PROJECT", "CUBE_JOB", "CUBE_REPLICA", "CUBE_REPLICAS", "CUBE_TOKEN",
    "CUBE_HOSTFILE",
    /* pytorch, deepspeed */
    "MASTER_ADDR", "MASTER_PORT", "WORLD_SIZE", "RANK", "NODE_RANK", "LOCAL_RANK",
    "LOCAL_WORLD_SIZE", "NPROC_PER_NODE",
    /* tensorflow */
    "TF_CONFIG",
    /* mpi */
    "OMPI_MCA_orte_default_hostfile", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE",
};

static int bad(struct cube_op_error *e, const char *field, const char *msg)
{
    cube_op_fail(e, 422, "Invalid", field, "%s: %s", field, msg);
    return -1;
}

/* 1 when name is a portable variable name: [A-Za-z_][A-Za-z0-9_]*. */
static int portable_name(const char *name)
{
    size_t n = strlen(name);
    if (n == 0 || n > ENV_NAME_MAX || (name[0] >= '0' && name[0] <= '9'))
        return 0;
    for (const char *p = name; *p; p++)
        if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
              (*p >= '0' && *p <= '9') || *p == '_'))
            return 0;
    return 1;
}

int job_env_reserved(const char *name)
{
    if (!strncmp(name, "CUBE_PORT_", 10))   /* a named port's (spec.ports) */
        return 1;
    for (size_t i = 0; i < sizeof RESERVED_ENV / sizeof RESERVED_ENV[0]; i++)
        if (strcmp(name, RESERVED_ENV[i]) == 0)
            return 1;
    return 0;
}

int job_env_check(const cJSON *env, const char *base, struct cube_op_error *e)
{
    const cJSON *v;
    char field[64 + ENV_NAME_MAX + 8];
    cJSON_ArrayForEach(v, env) {
        const char *name = v->string;
        if (!portable_name(name)) {
            snprintf(field, sizeof field, "%s.%.*s", base, ENV_NAME_MAX, name);
            return bad(e, field, "not a portable variable name (letters, digits and _, not "
                       "starting with a digit, at most 128)");
        }
        snprintf(field, sizeof field, "%s.%s", base, name);
        if (job_env_reserved(name))
            return bad(e, field, "reserved: Cube sets this variable itself");
    }
    return 0;
}

/* 1 when path is absolute and clean: no empty, "." or ".." segment. */
int job_path_clean(const char *path)
{
    if (path[0] != '/')
        return 0;
    for (const char *p = path + 1; *p;) {
        size_t n = strcspn(p, "/");
        if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
            return 0;
        p += n;
        if (*p == '/' && *++p == '\0')
            return 0;   /* a trailing slash */
    }
    return 1;
}

int job_mounts_refuse(const cJSON *mounts, const char *base, struct cube_op_error *e)
{
    const cJSON *m;
    char field[96], why[128];
    int i = 0;
    if (cJSON_GetArraySize(mounts) == 0)
        return 0;
    cJSON_ArrayForEach(m, mounts) {
        const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "name"));
        const char *path = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "path"));
        snprintf(field, sizeof field, "%s[%d].name", base, i);
        if (!name || cube_name_check(name, why, sizeof why) < 0)
            return bad(e, field, "must name a volume (a DNS label: no '/', no '..')");
        snprintf(field, sizeof field, "%s[%d].path", base, i);
        if (!path || !job_path_clean(path))
            return bad(e, field, "must be an absolute path without '.', '..' or empty parts");
        i++;
    }
    return bad(e, base, "not supported: no executor of this Cube mounts volumes yet (use "
               "the project's files, CUBE_PROJECT_DIR, or the home directory)");
}

/* 1 when the project lets its Jobs use pool: spec.pools absent or empty
 * means every pool. A missing project allows nothing. */
static int project_allows(struct cube_ctx *ctx, const char *project, const char *pool)
{
    struct cube_kind *pk = ctx->auth ? ctx->auth->project_kind : NULL;
    cJSON *p = NULL;
    struct cube_op_error e;
    if (!pk)
        return 1;
    if (cube_obj_get(ctx, pk, NULL, project, &p, &e) < 0)
        return 0;
    int ok = sched_pools_allow(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(p, "spec"), "pools"), pool);
    cJSON_Delete(p);
    return ok;
}

int sched_pools_allow(const cJSON *pools, const char *pool)
{
    const cJSON *v;
    if (cJSON_GetArraySize(pools) == 0)
        return 1;
    cJSON_ArrayForEach(v, pools)
        if (cJSON_IsString(v) && strcmp(v->valuestring, pool) == 0)
            return 1;
    return 0;
}

/* spec.pool: served by some node, and one the project may use. */
static int pool_check(struct cube_ctx *ctx, const char *project, const char *pool,
                      struct cube_op_error *e)
{
    char msg[200];
    if (!sched_pool_known(ctx->sched, pool)) {
        snprintf(msg, sizeof msg, "no node serves pool \"%.63s\" (is its executor plugin "
                 "enabled?)", pool);
        return bad(e, "spec.pool", msg);
    }
    if (!project_allows(ctx, project, pool)) {
        snprintf(msg, sizeof msg, "project \"%.63s\" may not use pool \"%.63s\" (see the "
                 "project's spec.pools)", project, pool);
        return bad(e, "spec.pool", msg);
    }
    return 0;
}

/* The first key of spec that differs between a and b, or NULL. */
static const char *first_change(const cJSON *a, const cJSON *b)
{
    const cJSON *v;
    cJSON_ArrayForEach(v, a)
        if (!cJSON_Compare(v, cJSON_GetObjectItemCaseSensitive(b, v->string), 1))
            return v->string;
    cJSON_ArrayForEach(v, b)
        if (!cJSON_HasObjectItem(a, v->string))
            return v->string;
    return NULL;
}

/* 422 naming the first changed field when an update changes the spec.
 * The stored spec gets today's defaults first (the update's already has
 * them), so a default added since it was stored is no change. */
static int spec_frozen(struct cube_ctx *ctx, const cJSON *obj, const cJSON *old,
                       struct cube_op_error *e)
{
    const cJSON *stored = cJSON_GetObjectItemCaseSensitive(old, "spec");
    cJSON *was = stored ? cJSON_Duplicate(stored, 1) : cJSON_CreateObject();
    if (!was || (ctx->sched && cube_schema_apply_defaults(ctx->sched->job_kind->spec_schema,
                                                          was) < 0)) {
        cJSON_Delete(was);
        cube_op_fail(e, 503, "Unavailable", NULL, "out of memory");
        return -1;
    }
    const char *key = first_change(cJSON_GetObjectItemCaseSensitive(obj, "spec"), was);
    char field[128];
    if (key)
        snprintf(field, sizeof field, "spec.%.100s", key);
    cJSON_Delete(was);
    if (!key)
        return 0;
    return bad(e, field, "a Job's spec cannot change once it is admitted (labels and "
               "annotations can); create a new Job instead");
}

int job_admit_check(struct cube_ctx *ctx, const cJSON *obj, const cJSON *old,
                    struct cube_op_error *e)
{
    if (old)
        return spec_frozen(ctx, obj, old, e);
    const cJSON *spec = cJSON_GetObjectItemCaseSensitive(obj, "spec");
    const char *image = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(spec, "image"));
    const char *pool = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(spec, "pool"));
    const char *project = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(obj, "metadata"), "project"));
    if (job_env_check(cJSON_GetObjectItemCaseSensitive(spec, "env"), "spec.env", e) < 0 ||
        job_spec_ports_check(spec, e) < 0 ||
        job_mounts_refuse(cJSON_GetObjectItemCaseSensitive(spec, "mounts"), "spec.mounts",
                          e) < 0)
        return -1;
    if (image && *image)
        return bad(e, "spec.image", "not supported: no executor of this Cube runs container "
                   "images yet (the command runs on the node as the Job's owner)");
    return pool_check(ctx, project ? project : "", pool ? pool : CUBE_SP_DEFAULT_POOL, e);
}
