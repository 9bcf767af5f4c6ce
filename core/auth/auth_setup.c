/* auth_setup.c — the auth subsystem's life cycle: settings from cube.yaml,
 * the kinds and routes it registers, and the first start (an `admin` user
 * whose password comes from CUBE_ADMIN_PASSWORD or is generated, written
 * to <data>/initial-admin-password with mode 0600 and logged once, and the
 * default project). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "auth_password.h"
#include "auth_priv.h"
#include "auth_throttle.h"
#include "ctx/ctx.h"
#include "objects/kinds.h"
#include "base/log.h"
#include "objects/objects.h"
#include "store/store.h"
#include "base/fs.h"
#include "base/random.h"

static int64_t setting(const cJSON *cfg, const char *key, int64_t def)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(cfg, key);
    return cJSON_IsNumber(v) ? (int64_t)v->valuedouble : def;
}

static int flag(const cJSON *cfg, const char *key, int def)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(cfg, key);
    return cJSON_IsBool(v) ? cJSON_IsTrue(v) : def;
}

static int trusted_header(struct cube_auth *a, const cJSON *th)
{
    const cJSON *p;
    if (!th)
        return 0;
    const char *h = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(th, "header"));
    snprintf(a->trusted_header, sizeof a->trusted_header, "%s", h ? h : "X-Remote-User");
    const cJSON *proxies = cJSON_GetObjectItemCaseSensitive(th, "proxies");
    a->proxies = calloc((size_t)cJSON_GetArraySize(proxies) + 1, sizeof *a->proxies);
    if (!a->proxies)
        return -1;
    cJSON_ArrayForEach(p, proxies)
        if (cJSON_IsString(p) && !(a->proxies[a->n_proxies++] = strdup(p->valuestring)))
            return -1;
    return 0;
}

int auth_settings_apply(struct cube_auth *a, const cJSON *cfg)
{
    const cJSON *th = cJSON_GetObjectItemCaseSensitive(cfg, "throttle");
    a->local_login = flag(cfg, "local_login", 1);
    a->users_create_projects = flag(cfg, "users_create_projects", 0);
    a->idle_s = setting(cfg, "session_idle_minutes", 720) * 60;
    a->max_s = setting(cfg, "session_max_hours", 168) * 3600;
    a->max_token_s = setting(cfg, "max_token_days", 365) * 86400;
    const char *dp = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(cfg, "default_project"));
    snprintf(a->default_project, sizeof a->default_project, "%s", dp ? dp : "public");
    const char *dr = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(cfg, "default_role"));
    a->default_role = dr ? cube_role_parse(dr) : CUBE_ROLE_DEV;
    struct cube_throttle_cfg tc = {
        .free_failures = (unsigned)setting(th, "free_failures", 5),
        .base_ms = (uint64_t)setting(th, "base_ms", 1000),
        .max_ms = (uint64_t)setting(th, "max_ms", 900000)};
    a->throttle = cube_throttle_new(&tc);
    if (!a->throttle || trusted_header(a, cJSON_GetObjectItemCaseSensitive(cfg, "trusted_header")))
        return -1;
    return 0;
}

int cube_auth_init(struct cube_ctx *ctx)
{
    struct cube_auth *a = calloc(1, sizeof *a);
    if (!a)
        return -1;
    ctx->auth = a;
    a->ctx = ctx;
    if (auth_index_init(a) < 0 || auth_cred_init(a) < 0 ||
        auth_settings_apply(a, ctx->cfg->auth) < 0) {
        cube_log(CUBE_LOG_ERROR, "auth", "out of memory");
        return -1;
    }
    if (auth_kinds_register(a) < 0 || auth_routes_register(a) < 0 ||
        auth_members_routes_register(a) < 0)
        return -1;
    return 0;
}

/* Writes the generated password where only the server's user can read it. */
static void write_initial_password(struct cube_auth *a, const char *password)
{
    char *path = cube_path_join(a->ctx->cfg->data_dir, "initial-admin-password");
    int fd = path ? open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600) : -1;
    if (fd < 0 || write(fd, password, strlen(password)) < 0 || write(fd, "\n", 1) < 0)
        cube_log(CUBE_LOG_WARN, "auth", "cannot write %s: %s", path ? path : "(oom)",
                 strerror(errno));
    if (fd >= 0)
        close(fd);
    free(path);
}

/* Creates an object as the system (first start). 0, or -1 logged. */
static int create_as_system(struct cube_auth *a, struct cube_kind *k, const char *json)
{
    struct cube_actor sys = {AUTH_SYSTEM_ACTOR, 1, NULL};
    struct cube_op_error e;
    cJSON *body = cJSON_Parse(json), *out = NULL;
    int rc = body ? cube_obj_create(a->ctx, k, NULL, body, &sys, &out, &e) : -1;
    cJSON_Delete(body);
    cJSON_Delete(out);
    if (rc < 0 && e.status != 409) {
        cube_log(CUBE_LOG_ERROR, "auth", "first start: cannot create %s: %s", k->kind,
                 e.message);
        return -1;
    }
    return 0;
}

static int bootstrap_admin(struct cube_auth *a)
{
    char generated[33], msg[64];
    const char *pw = getenv("CUBE_ADMIN_PASSWORD");
    if (pw && !*pw)
        pw = NULL;
    if (create_as_system(a, a->user_kind, "{\"metadata\":{\"name\":\"admin\"},\"spec\":{"
                         "\"displayName\":\"Administrator\",\"role\":\"admin\"}}") < 0)
        return -1;
    if (pw && cube_password_policy(pw)) {
        snprintf(msg, sizeof msg, "%s", cube_password_policy(pw));
        cube_log(CUBE_LOG_ERROR, "auth", "CUBE_ADMIN_PASSWORD: %s", msg);
        return -1;
    }
    if (!pw && cube_random_hex(generated, 16) == 0)
        pw = generated;
    if (!pw || auth_password_set(a, "admin", pw) != CUBE_OK) {
        cube_log(CUBE_LOG_ERROR, "auth", "first start: cannot set the admin password");
        return -1;
    }
    if (pw == generated) {
        write_initial_password(a, pw);
        cube_log(CUBE_LOG_WARN, "auth", "first start: created user admin with password %s "
                 "(also in %s/initial-admin-password; shown once)", pw,
                 a->ctx->cfg->data_dir);
    } else {
        cube_log(CUBE_LOG_INFO, "auth", "first start: created user admin "
                 "(password from CUBE_ADMIN_PASSWORD)");
    }
    return 0;
}

int auth_bootstrap(struct cube_auth *a)
{
    char json[256];
    if (a->default_project[0] && !auth_index_has_project(a, a->default_project)) {
        snprintf(json, sizeof json, "{\"metadata\":{\"name\":\"%s\"},\"spec\":{\"description\":"
                 "\"Shared by every user\",\"members\":[{\"user\":\"admin\",\"role\":"
                 "\"creator\"}]}}", a->default_project);
        if (create_as_system(a, a->project_kind, json) < 0)
            return -1;
    }
    if (auth_index_users(a) == 0 && bootstrap_admin(a) < 0)
        return -1;
    return 0;
}

int cube_auth_start(struct cube_ctx *ctx)
{
    struct cube_auth *a = ctx->auth;
    if (!a || auth_index_load(a) < 0 || auth_bootstrap(a) < 0)
        return -1;
    int64_t purged = 0;
    cube_store_kv_purge(ctx->store, (int64_t)time(NULL), &purged);
    return 0;
}

void cube_auth_free(struct cube_ctx *ctx)
{
    struct cube_auth *a = ctx->auth;
    if (!a)
        return;
    auth_index_free(a);
    auth_cred_free(a);
    cube_throttle_free(a->throttle);
    for (size_t i = 0; i < a->n_proxies; i++)
        free(a->proxies[i]);
    free(a->proxies);
    for (size_t i = 0; i < a->n_providers; i++) {
        free((char *)a->providers[i].desc.name);
        free((char *)a->providers[i].desc.display_name);
        free((char *)a->providers[i].desc.login_path);
    }
    free(a->providers);
    free(a);
    ctx->auth = NULL;
}
