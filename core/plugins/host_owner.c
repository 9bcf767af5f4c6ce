/* host_owner.c — whom an object a plugin creates is for. The host decides
 * it, never a field a user can write: the signed-in caller of the request
 * the plugin handles (obj_create_for, since ABI 1.5), or the owner of the
 * object whose controller made it (obj_create with a controller
 * ownerReference: a pipeline run's task Jobs run as the run's owner, a
 * scheduled run as its Pipeline's). Without either the owner is the plugin
 * itself, and Jobs of such an owner never start (job_env.c). */
#include <stdio.h>
#include <string.h>

#include "auth/auth.h"
#include "ctx/ctx.h"
#include "host_slots.h"
#include "http/http_req.h"
#include "objects/kinds.h"
#include "base/log.h"
#include "objects/objects.h"

int cube_host_owner_of_request(cube_plugin *self, cube_req *req, const struct cube_kind *k,
                               const char *project, char owner[CUBE_OWNER_MAX], int *rc)
{
    const struct cube_principal *p = cube_auth_who(req);
    int role = p->via ? cube_auth_role(req, project) : CUBE_ROLE_NONE;
    int may = k->scope == CUBE_SCOPE_CLUSTER ? p->admin : role >= CUBE_ROLE_DEV;
    if (!p->via || !may || !cube_owner_is_user(p->user)) {
        cube_log(CUBE_LOG_INFO, self->log_component, "%s may not create %s in %s",
                 p->via ? p->user : "anonymous", k->plural, project ? project : "the cluster");
        cube_host_refusal_set(self, p->via ? 403 : 401, p->via ? "Forbidden" : "Unauthorized",
                              NULL, "%s may not create %s in %s", p->via ? p->user : "anonymous",
                              k->plural, project ? project : "the cluster");
        *rc = CUBE_EPERM;
        return -1;
    }
    snprintf(owner, CUBE_OWNER_MAX, "%s", p->user);
    return 0;
}

/* The first ownerReference marked controller, or NULL. */
static const cJSON *controller_ref(const cJSON *body)
{
    const cJSON *ref;
    cJSON_ArrayForEach(ref, cJSON_GetObjectItemCaseSensitive(
                                cJSON_GetObjectItemCaseSensitive(body, "metadata"),
                                "ownerReferences"))
        if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ref, "controller")))
            return ref;
    return NULL;
}

static const char *str(const cJSON *o, const char *key)
{
    return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, key));
}

void cube_host_owner_inherited(cube_plugin *self, const cJSON *body, const char *project,
                               char owner[CUBE_OWNER_MAX])
{
    const cJSON *ref = controller_ref(body);
    const char *kind = str(ref, "kind"), *name = str(ref, "name"), *uid = str(ref, "uid");
    const struct cube_kind *k = kind ? cube_kinds_by_kind(&self->ctx->kinds, kind) : NULL;
    cJSON *parent = NULL;
    struct cube_op_error e;
    owner[0] = '\0';
    if (!k || !name || (k->scope == CUBE_SCOPE_PROJECT) != (project != NULL) ||
        cube_obj_get(self->ctx, k, k->scope == CUBE_SCOPE_PROJECT ? project : NULL, name,
                     &parent, &e) < 0)
        return;
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(parent, "metadata");
    if (!uid || !*uid || (str(meta, "uid") && !strcmp(uid, str(meta, "uid"))))
        snprintf(owner, CUBE_OWNER_MAX, "%s", str(meta, "owner") ? str(meta, "owner") : "");
    else
        cube_log(CUBE_LOG_INFO, self->log_component, "%s %s is not the object %s refers to",
                 kind, name, uid);
    cJSON_Delete(parent);
}

char *cube_slot_obj_create_for(cube_plugin *self, cube_req *req, const char *object_json,
                               int *rc)
{
    if (!req) {
        cube_host_refusal_set(self, 400, "BadRequest", NULL, "obj_create_for needs the request");
        *rc = CUBE_EINVAL;
        return NULL;
    }
    return cube_host_obj_create(self, req, object_json, rc);
}
