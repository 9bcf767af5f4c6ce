/* cube_mock_objects.c — the fake host's objects, events and controller
 * queue (ABI 1.1), all in memory. See cube_mock.h for what it does and does
 * not check. Test-only code: global state is fine here. */
#include "cube_mock.h"
#include "cube_mock_priv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

struct mobj { char *kind, *project, *name; long long rv; cJSON *doc; }; /* project "" */
struct mref { char *kind, *project, *name; };             /* a queued reconcile */

static struct {
    struct mobj *objs;
    int n_objs, cap_objs;
    struct cube_mock_event *events;                       /* strings owned */
    int n_events, cap_events;
    struct mref *queue;
    int n_queue, cap_queue;
    long long rv;
    unsigned long uid_seq;
    char *shown;                                          /* cube_mock_object's text */
} O;

static int json_eq(const cJSON *a, const cJSON *b)
{
    return (!a && !b) || (a && b && cJSON_Compare(a, b, 1));
}

/* The kind, or NULL with *rc = CUBE_EINVAL and the reason logged. */
static const struct cube_kind_desc *known_kind(const char *kind, int *rc)
{
    const struct cube_kind_desc *k = mock_find_kind(kind);
    if (!k) {
        mock_logf("unknown kind '%s'", kind ? kind : "");
        *rc = CUBE_EINVAL;
    }
    return k;
}

/* The project key of an object of k: "" for cluster kinds. */
static const char *scoped(const struct cube_kind_desc *k, const char *project)
{
    return k->scope == CUBE_SCOPE_CLUSTER || !project ? "" : project;
}

static struct mobj *find_obj(const char *kind, const char *project, const char *name)
{
    for (int i = 0; name && i < O.n_objs; i++) {
        struct mobj *o = &O.objs[i];
        if (strcmp(o->kind, kind) == 0 && strcmp(o->project, project ? project : "") == 0 &&
            strcmp(o->name, name) == 0)
            return o;
    }
    return NULL;
}

static char *print(const cJSON *doc, int *rc)
{
    char *text = cJSON_PrintUnformatted(doc);
    *rc = text ? CUBE_OK : CUBE_ENOMEM;
    return text;
}

int mock_object_exists(const char *kind, const char *project, const char *name)
{
    const struct cube_kind_desc *k = mock_find_kind(kind);
    return k && find_obj(k->kind, scoped(k, project), name) != NULL;
}

const char *mock_object_owner(const char *kind, const char *project, const char *name)
{
    const struct cube_kind_desc *k = mock_find_kind(kind);
    const struct mobj *o = k ? find_obj(k->kind, scoped(k, project), name) : NULL;
    return o ? cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
                   cJSON_GetObjectItemCaseSensitive(o->doc, "metadata"), "owner"))
             : NULL;
}

/* -- the controller queue ------------------------------------------- */

static void queue_reconcile(const char *kind, const char *project, const char *name)
{
    const struct cube_kind_desc *k = mock_find_kind(kind);
    if (!k || !k->reconcile || !name)
        return;
    project = scoped(k, project);
    for (int i = 0; i < O.n_queue; i++)
        if (!strcmp(O.queue[i].kind, kind) && !strcmp(O.queue[i].project, project) &&
            !strcmp(O.queue[i].name, name))
            return; /* already due: the host coalesces triggers */
    struct mref *grown = mock_grow(O.queue, O.n_queue, &O.cap_queue, sizeof *O.queue);
    if (!grown)
        return;
    O.queue = grown;
    struct mref *r = &O.queue[O.n_queue];
    r->kind = mock_strdup(kind), r->project = mock_strdup(project), r->name = mock_strdup(name);
    if (r->kind && r->project && r->name)
        O.n_queue++;
    else
        free(r->kind), free(r->project), free(r->name);
}

/* Queues the object's own controller and those of its owners. */
static void queue_for(const char *kind, const char *project, const cJSON *doc)
{
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(doc, "metadata"), *ref;
    queue_reconcile(kind, project, cJSON_GetStringValue(
        cJSON_GetObjectItemCaseSensitive(meta, "name")));
    cJSON_ArrayForEach(ref, cJSON_GetObjectItemCaseSensitive(meta, "ownerReferences"))
        queue_reconcile(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ref, "kind")),
                        project,
                        cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ref, "name")));
}

void mock_queue_owners(const char *kind, const char *project, const char *name)
{
    const struct cube_kind_desc *k = mock_find_kind(kind);
    const struct mobj *o = k ? find_obj(k->kind, scoped(k, project), name) : NULL;
    const cJSON *ref;
    cJSON_ArrayForEach(ref, cJSON_GetObjectItemCaseSensitive(
                           cJSON_GetObjectItemCaseSensitive(o ? o->doc : NULL, "metadata"),
                           "ownerReferences"))
        queue_reconcile(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ref, "kind")),
                        project,
                        cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ref, "name")));
}

int cube_mock_run_controllers(void)
{
    struct mref *batch = O.queue;
    int n = O.n_queue, ran = 0;
    O.queue = NULL;
    O.n_queue = O.cap_queue = 0;
    for (int i = 0; i < n; i++) {
        const struct cube_kind_desc *k = mock_find_kind(batch[i].kind);
        cube_reconcile_fn fn = k ? k->reconcile : NULL;
        if (fn) {
            int rc;
            const struct mobj *o = find_obj(batch[i].kind, batch[i].project, batch[i].name);
            char *text = o ? print(o->doc, &rc) : NULL;
            mock_reconcile_call(fn, batch[i].kind,
                                batch[i].project[0] ? batch[i].project : NULL,
                                batch[i].name, text);
            free(text);
            ran++;
        }
        free(batch[i].kind), free(batch[i].project), free(batch[i].name);
    }
    free(batch);
    return ran;
}

int cube_mock_controllers_pending(void) { return O.n_queue; }

/* -- objects ----------------------------------------------------------- */

static void now_iso(char *buf, size_t len)
{
    struct timespec ts;
    struct tm tm;
    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    size_t n = strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf + n, len - n, ".%03ldZ", ts.tv_nsec / 1000000);
}

static void set_item(cJSON *obj, const char *key, cJSON *item)
{
    if (cJSON_GetObjectItemCaseSensitive(obj, key))
        cJSON_ReplaceItemInObjectCaseSensitive(obj, key, item);
    else
        cJSON_AddItemToObject(obj, key, item);
}

static void set_str(cJSON *obj, const char *key, const char *v) { set_item(obj, key, cJSON_CreateString(v)); }

static int string_map(const cJSON *m)
{
    const cJSON *v;
    if (!cJSON_IsObject(m))
        return 0;
    cJSON_ArrayForEach(v, m)
        if (!cJSON_IsString(v))
            return 0;
    return 1;
}

/* Checks a body's kind, metadata.name/project, labels and annotations;
 * returns its kind and sets *project (NULL for cluster kinds), or NULL with
 * *rc = CUBE_EINVAL and the reason logged. */
static const struct cube_kind_desc *target(const cJSON *body, const char **project, int *rc)
{
    if (!cJSON_IsObject(body))
        return mock_logf("the body must be a JSON object"), *rc = CUBE_EINVAL, NULL;
    const struct cube_kind_desc *k = known_kind(
        cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(body, "kind")), rc);
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(body, "metadata");
    const char *why = !k ? NULL : !cJSON_IsObject(meta) ? "metadata: must be an object"
        : !mock_dns_label(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(meta, "name")))
        ? "metadata.name: required, a DNS label" : NULL;
    const cJSON *proj = cJSON_GetObjectItemCaseSensitive(meta, "project");
    *project = cJSON_GetStringValue(proj);
    if (!k)
        return NULL;
    if (!why && k->scope == CUBE_SCOPE_PROJECT && (!*project || !**project))
        why = "metadata.project is required";
    if (!why && k->scope == CUBE_SCOPE_CLUSTER && proj)
        why = "metadata.project: cluster objects belong to no project";
    if (!why && cJSON_GetObjectItemCaseSensitive(meta, "labels") &&
        !string_map(cJSON_GetObjectItemCaseSensitive(meta, "labels")))
        why = "metadata.labels: must map names to strings";
    if (!why && cJSON_GetObjectItemCaseSensitive(meta, "annotations") &&
        !string_map(cJSON_GetObjectItemCaseSensitive(meta, "annotations")))
        why = "metadata.annotations: must map names to strings";
    if (why)
        return mock_logf("%s", why), *rc = CUBE_EINVAL, NULL;
    return k;
}

#if CUBE_ABI_MINOR >= 5
/* The kind's check in a call frame, as cubed: CUBE_EINVAL with the field
 * and message it set (logged "field: message"). */
static int kind_check(const struct cube_kind_desc *k, const cJSON *obj, const cJSON *old, int *rc)
{
    char *in = cJSON_PrintUnformatted(obj), *old_text = old ? cJSON_PrintUnformatted(old) : NULL;
    struct mock_call c;
    mock_call_begin(&c);
    int r = in ? k->check(mock_state(), in, old_text) : CUBE_ENOMEM;
    mock_call_end(&c);
    free(in);
    free(old_text);
    if (r == CUBE_OK)
        return 0;
    mock_logf("%s%s%s", c.field, c.field[0] ? ": " : "", c.msg[0] ? c.msg : "rejected");
    return *rc = r == CUBE_EINVAL ? CUBE_EINVAL : CUBE_EINTERNAL, -1;
}
#endif

/* As cubed: the spec schema's defaults, the kind's defaulting callback, the
 * object's schema (strict), the kind's validate and check callbacks. */
static int plugin_checks(const struct cube_kind_desc *k, cJSON **obj, const cJSON *old, int *rc)
{
    char why[400];
    if (mock_schema_default_spec(k->kind, *obj) < 0)
        return *rc = CUBE_ENOMEM, -1;
    if (k->defaulting) {
        char *in = cJSON_PrintUnformatted(*obj), *out = NULL;
        int r = in ? k->defaulting(mock_state(), in, &out) : CUBE_ENOMEM;
        cJSON *parsed = out ? cJSON_Parse(out) : NULL;
        free(in);
        free(out);
        if (r != CUBE_OK || (out && !parsed))
            return mock_logf("%s defaulting failed", k->kind), *rc = CUBE_EINVAL, -1;
        if (parsed)
            cJSON_Delete(*obj), *obj = parsed;
    }
    if (mock_schema_check_object(k->kind, *obj, why, sizeof why) < 0)
        return mock_logf("%s", why), *rc = CUBE_EINVAL, -1;
    if (k->validate) {
        char field[256] = "", msg[400] = "";
        char *in = cJSON_PrintUnformatted(*obj), *old_text = old ? cJSON_PrintUnformatted(old) : NULL;
        int r = in ? k->validate(mock_state(), in, old_text, field, sizeof field, msg, sizeof msg)
                   : CUBE_ENOMEM;
        free(in);
        free(old_text);
        if (r != CUBE_OK)
            return mock_logf("%s: %s", field, msg), *rc = CUBE_EINVAL, -1;
    }
#if CUBE_ABI_MINOR >= 5
    if (k->check && kind_check(k, *obj, old, rc) < 0)
        return -1;
#endif
    if (!mock_dns_label(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(*obj, "metadata"), "name"))))
        return mock_logf("metadata.name: lost by defaulting"), *rc = CUBE_EINVAL, -1;
    return 0;
}

/* Gives o a new resourceVersion, queues the controllers and publishes the
 * change to watches (type "ADDED", "MODIFIED" or "DELETED"). */
static void commit(struct mobj *o, const char *type)
{
    char rvs[24];
    o->rv = ++O.rv;
    snprintf(rvs, sizeof rvs, "%lld", o->rv);
    set_str(cJSON_GetObjectItemCaseSensitive(o->doc, "metadata"), "resourceVersion", rvs);
    queue_for(o->kind, o->project, o->doc);
    mock_watch_publish(o->rv, type, o->kind, o->project, o->doc, NULL, NULL);
}


static char *obj_get(cube_plugin *self, const char *kind, const char *project,
                     const char *name, int *rc)
{
    (void)self;
    const struct cube_kind_desc *k = known_kind(kind, rc);
    const struct mobj *o = k ? find_obj(k->kind, scoped(k, project), name) : NULL;
    if (!k || !name)
        return *rc = CUBE_EINVAL, NULL;
    return o ? print(o->doc, rc) : (*rc = CUBE_ENOTFOUND, NULL);
}

/* As the host (host_owner.c): the owner of the object the controller
 * ownerReference names (same project, same uid when given), else NULL. */
static const char *inherited_owner(const cJSON *obj, const char *project)
{
    const cJSON *ref;
    cJSON_ArrayForEach(ref, cJSON_GetObjectItemCaseSensitive(
                                cJSON_GetObjectItemCaseSensitive(obj, "metadata"),
                                "ownerReferences")) {
        const char *kind = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ref, "kind"));
        const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ref, "name"));
        const char *uid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ref, "uid"));
        const struct cube_kind_desc *k = kind ? mock_find_kind(kind) : NULL;
        const struct mobj *o = k && name && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
            ref, "controller")) ? find_obj(k->kind, scoped(k, project), name) : NULL;
        const cJSON *m = o ? cJSON_GetObjectItemCaseSensitive(o->doc, "metadata") : NULL;
        const char *ouid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "uid"));
        if (o && (!uid || !*uid || (ouid && !strcmp(uid, ouid))))
            return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "owner"));
    }
    return NULL;
}

/* A create; owner NULL: the inherited owner, else the plugin. */
static char *create_as(const char *json, const char *owner, int *rc)
{
    cJSON *obj = json ? cJSON_Parse(json) : NULL, *meta;
    const char *project, *name;
    char now[40], uid[40];
    const struct cube_kind_desc *k = target(obj, &project, rc);
    if (!k)
        return cJSON_Delete(obj), NULL;
    /* as the host, the owner is stamped before defaulting and validation */
    const char *inherited = owner ? NULL : inherited_owner(obj, project);
    set_str(cJSON_GetObjectItemCaseSensitive(obj, "metadata"), "owner",
            owner ? owner : inherited ? inherited : mock_actor());
    if (plugin_checks(k, &obj, NULL, rc) < 0)
        return cJSON_Delete(obj), NULL;
    meta = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
    name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(meta, "name"));
    /* defaulting may have replaced obj: read the project again */
    project = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(meta, "project"));
    if (find_obj(k->kind, scoped(k, project), name))
        return mock_logf("%s/%s already exists", k->plural, name), cJSON_Delete(obj),
               *rc = CUBE_EEXIST, NULL;
    now_iso(now, sizeof now);
    snprintf(uid, sizeof uid, "6d6f636b-0000-4000-8000-%012lx", ++O.uid_seq);
    set_str(obj, "apiVersion", "cube/v1");
    set_str(obj, "kind", k->kind);
    set_str(meta, "uid", uid);
    set_str(meta, "created", now);
    set_str(meta, "updated", now);
    set_item(meta, "generation", cJSON_CreateNumber(1));
    cJSON_DeleteItemFromObjectCaseSensitive(meta, "deletionTimestamp");
    cJSON_DeleteItemFromObjectCaseSensitive(meta, "resourceVersion");
    cJSON_DeleteItemFromObjectCaseSensitive(obj, "status");
    if (!cJSON_GetObjectItemCaseSensitive(obj, "spec"))
        cJSON_AddObjectToObject(obj, "spec");
    struct mobj *grown = mock_grow(O.objs, O.n_objs, &O.cap_objs, sizeof *O.objs);
    if (!grown)
        return cJSON_Delete(obj), *rc = CUBE_ENOMEM, NULL;
    O.objs = grown;
    struct mobj *o = &O.objs[O.n_objs];
    *o = (struct mobj){mock_strdup(k->kind), mock_strdup(scoped(k, project)), mock_strdup(name), 0, obj};
    if (!o->kind || !o->project || !o->name) {
        free(o->kind), free(o->project), free(o->name), cJSON_Delete(obj);
        return *rc = CUBE_ENOMEM, NULL;
    }
    O.n_objs++;
    commit(o, "ADDED");
    return print(o->doc, rc);
}

/* metadata.resourceVersion of a body: 0 when absent, -1 when bad. */
static char *obj_create(cube_plugin *self, const char *json, int *rc)
{
    (void)self;
    return create_as(json, NULL, rc);
}

/* As the host: for the request's signed-in caller, a dev or above (for
 * cluster kinds a platform administrator). */
static char *obj_create_for(cube_plugin *self, cube_req *req, const char *json, int *rc)
{
    cJSON *o = json ? cJSON_Parse(json) : NULL;
    const struct cube_kind_desc *k = mock_find_kind(cJSON_GetStringValue(
        cJSON_GetObjectItemCaseSensitive(o, "kind")));
    const char *project = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(o, "metadata"), "project"));
    const char *user = req ? mock_host()->req_user(req) : NULL;
    const char *role = user ? mock_host()->req_project_role(req, project) : NULL;
    int may = role && (!strcmp(role, "admin") ||
                       (!(k && k->scope == CUBE_SCOPE_CLUSTER) &&
                        (!strcmp(role, "creator") || !strcmp(role, "ops") ||
                         !strcmp(role, "dev"))));
    char owner[64];
    snprintf(owner, sizeof owner, "%s", user ? user : "");
    cJSON_Delete(o);
    (void)self;
    if (!may)
        return mock_logf("%s may not create objects in %s", user ? user : "anonymous",
                         project ? project : "the cluster"), *rc = CUBE_EPERM, NULL;
    return create_as(json, owner, rc);
}

static long long body_rv(const cJSON *obj)
{
    const cJSON *rv = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(obj, "metadata"), "resourceVersion");
    char *end;
    if (!rv)
        return 0;
    if (!cJSON_IsString(rv) || !rv->valuestring[0])
        return -1;
    long long v = strtoll(rv->valuestring, &end, 10);
    return *end || v <= 0 ? -1 : v;
}

static int same_content(const cJSON *a, const cJSON *b)
{
    static const char *const META[] = {"labels", "annotations", "ownerReferences"};
    const cJSON *ma = cJSON_GetObjectItemCaseSensitive(a, "metadata");
    const cJSON *mb = cJSON_GetObjectItemCaseSensitive(b, "metadata");
    for (size_t i = 0; i < 3; i++)
        if (!json_eq(cJSON_GetObjectItemCaseSensitive(ma, META[i]),
                     cJSON_GetObjectItemCaseSensitive(mb, META[i])))
            return 0;
    return json_eq(cJSON_GetObjectItemCaseSensitive(a, "spec"),
                   cJSON_GetObjectItemCaseSensitive(b, "spec"));
}

static char *obj_update(cube_plugin *self, const char *json, int *rc)
{
    (void)self;
    static const char *const KEEP[] = {"uid", "created", "owner", "deletionTimestamp"};
    cJSON *obj = json ? cJSON_Parse(json) : NULL;
    const char *project;
    char now[40];
    const struct cube_kind_desc *k = target(obj, &project, rc);
    cJSON *meta = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
    struct mobj *o = k ? find_obj(k->kind, scoped(k, project), cJSON_GetStringValue(
                             cJSON_GetObjectItemCaseSensitive(meta, "name"))) : NULL;
    long long want = body_rv(obj);
    if (!k || !o || want < 0 || (want && want != o->rv)) {
        *rc = !k ? *rc : !o ? CUBE_ENOTFOUND : want < 0 ? CUBE_EINVAL : CUBE_ECONFLICT;
        return cJSON_Delete(obj), NULL;
    }
    const cJSON *cmeta = cJSON_GetObjectItemCaseSensitive(o->doc, "metadata");
    for (size_t i = 0; i < sizeof KEEP / sizeof KEEP[0]; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(cmeta, KEEP[i]);
        cJSON_DeleteItemFromObjectCaseSensitive(meta, KEEP[i]);
        if (v)
            cJSON_AddItemToObject(meta, KEEP[i], cJSON_Duplicate(v, 1));
    }
    now_iso(now, sizeof now);
    set_str(meta, "updated", now);
    set_str(obj, "apiVersion", "cube/v1");
    set_item(meta, "generation", cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(cmeta, "generation"), 1));
    cJSON_DeleteItemFromObjectCaseSensitive(obj, "status");
    if (cJSON_GetObjectItemCaseSensitive(o->doc, "status"))
        cJSON_AddItemToObject(obj, "status",
                              cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(o->doc, "status"), 1));
    if (!cJSON_GetObjectItemCaseSensitive(obj, "spec"))
        cJSON_AddObjectToObject(obj, "spec");
    if (plugin_checks(k, &obj, o->doc, rc) < 0)
        return cJSON_Delete(obj), NULL;
    if (same_content(obj, o->doc))
        return cJSON_Delete(obj), print(o->doc, rc); /* no write, no new version */
    meta = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
    set_str(meta, "name", o->name);
    if (!json_eq(cJSON_GetObjectItemCaseSensitive(obj, "spec"),
                 cJSON_GetObjectItemCaseSensitive(o->doc, "spec")))
        set_item(meta, "generation", cJSON_CreateNumber(
            cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(cmeta, "generation")) + 1));
    cJSON_Delete(o->doc);
    o->doc = obj;
    commit(o, "MODIFIED");
    return print(o->doc, rc);
}

static char *obj_update_status(cube_plugin *self, const char *kind, const char *project,
                               const char *name, const char *status_json,
                               const char *resource_version, int *rc)
{
    (void)self;
    const struct cube_kind_desc *k = known_kind(kind, rc);
    cJSON *status = status_json ? cJSON_Parse(status_json) : NULL;
    struct mobj *o = k ? find_obj(k->kind, scoped(k, project), name) : NULL;
    long long rv = resource_version ? strtoll(resource_version, NULL, 10) : 0;
    if (!k || !name || !cJSON_IsObject(status) || !o || (rv && rv != o->rv)) {
        *rc = !k || !name || !cJSON_IsObject(status) ? CUBE_EINVAL
              : !o ? CUBE_ENOTFOUND : CUBE_ECONFLICT;
        return cJSON_Delete(status), NULL;
    }
    char why[400];
    if (mock_schema_check_status(k->kind, status, why, sizeof why) < 0)
        return mock_logf("%s", why), cJSON_Delete(status), *rc = CUBE_EINVAL, NULL;
    if (json_eq(cJSON_GetObjectItemCaseSensitive(o->doc, "status"), status))
        return cJSON_Delete(status), print(o->doc, rc); /* unchanged: not written */
    set_item(o->doc, "status", status);
    commit(o, "MODIFIED");
    return print(o->doc, rc);
}

static int owned_by(const struct mobj *o, const char *uid)
{
    const cJSON *ref;
    cJSON_ArrayForEach(ref, cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(o->doc, "metadata"), "ownerReferences")) {
        const char *u = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ref, "uid"));
        if (u && strcmp(u, uid) == 0)
            return 1;
    }
    return 0;
}

/* Publishes the deletion of o (as it was last, with a new rv). */
static void commit_delete(struct mobj *o)
{
    char rvs[24];
    long long rv = ++O.rv;
    snprintf(rvs, sizeof rvs, "%lld", rv);
    set_str(cJSON_GetObjectItemCaseSensitive(o->doc, "metadata"), "resourceVersion", rvs);
    mock_watch_publish(rv, "DELETED", o->kind, o->project, o->doc, NULL, NULL);
}

/* Removes object i, then (cascading) whatever it owned. */
static void remove_obj(int i, int depth)
{
    struct mobj o = O.objs[i];
    char *uid = mock_strdup(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(o.doc, "metadata"), "uid")));
    memmove(&O.objs[i], &O.objs[i + 1], (size_t)(O.n_objs - i - 1) * sizeof *O.objs);
    O.n_objs--;
    queue_for(o.kind, o.project, o.doc);
    commit_delete(&o);
    mock_files_forget_object(o.kind, o.project, o.name);
    free(o.kind), free(o.project), free(o.name), cJSON_Delete(o.doc);
    for (int j = 0; uid && *uid && depth < 16 && j < O.n_objs;)
        if (owned_by(&O.objs[j], uid))
            remove_obj(j, depth + 1), j = 0;
        else
            j++;
    free(uid);
}

static int obj_delete(cube_plugin *self, const char *kind, const char *project,
                      const char *name)
{
    (void)self;
    int rc = CUBE_OK;
    const struct cube_kind_desc *k = known_kind(kind, &rc);
    if (!k || !name)
        return CUBE_EINVAL;
    struct mobj *o = find_obj(k->kind, scoped(k, project), name);
    if (!o)
        return CUBE_ENOTFOUND;
    remove_obj((int)(o - O.objs), 0);
    return CUBE_OK;
}

/* Publishes a recorded event to watches as the host does: an Event
 * record (see cube_watch.h) with its own resourceVersion. */
static void publish_event(const struct cube_kind_desc *k, const struct cube_mock_event *e)
{
    char now[40], rvs[24];
    long long rv = ++O.rv;
    now_iso(now, sizeof now);
    snprintf(rvs, sizeof rvs, "%lld", rv);
    cJSON *doc = cJSON_CreateObject(), *meta = cJSON_AddObjectToObject(doc, "metadata");
    cJSON_AddStringToObject(meta, "resourceVersion", rvs);
    cJSON_AddStringToObject(meta, "created", now);
    cJSON_AddStringToObject(meta, "project", e->project);
    cJSON_AddStringToObject(doc, "kind", "Event");
    cJSON *inv = cJSON_AddObjectToObject(doc, "involvedObject");
    cJSON_AddStringToObject(inv, "kind", k->kind);
    cJSON_AddStringToObject(inv, "name", e->name);
    cJSON_AddStringToObject(inv, "project", e->project);
    cJSON_AddStringToObject(doc, "type", e->type);
    cJSON_AddStringToObject(doc, "reason", e->reason);
    cJSON_AddStringToObject(doc, "message", e->message);
    cJSON_AddStringToObject(doc, "user", mock_actor());
    mock_watch_publish(rv, "ADDED", "Event", e->project, doc, k->kind, e->reason);
    cJSON_Delete(doc);
}

static int obj_event(cube_plugin *self, const char *kind, const char *project,
                     const char *name, const char *type, const char *reason,
                     const char *message)
{
    (void)self;
    int rc = CUBE_OK;
    const struct cube_kind_desc *k = known_kind(kind, &rc);
    if (!k || !name || !reason || !type || (strcmp(type, "Normal") && strcmp(type, "Warning")))
        return CUBE_EINVAL;
    struct cube_mock_event *grown = mock_grow(O.events, O.n_events, &O.cap_events, sizeof *O.events);
    if (!grown)
        return CUBE_ENOMEM;
    O.events = grown;
    struct cube_mock_event *e = &O.events[O.n_events];
    *e = (struct cube_mock_event){mock_strdup(kind), mock_strdup(scoped(k, project)), mock_strdup(name), mock_strdup(type),
                                  mock_strdup(reason), mock_strdup(message ? message : "")};
    if (!e->kind || !e->project || !e->name || !e->type || !e->reason || !e->message) {
        free(e->kind), free(e->project), free(e->name), free(e->type), free(e->reason);
        free(e->message);
        return CUBE_ENOMEM;
    }
    O.n_events++;
    publish_event(k, e);
    return CUBE_OK;
}

const struct cube_mock_event *cube_mock_events(int *count)
{
    if (count)
        *count = O.n_events;
    return O.events;
}

const char *cube_mock_object(const char *kind, const char *project, const char *name)
{
    const struct cube_kind_desc *k = mock_find_kind(kind);
    const struct mobj *o = k ? find_obj(k->kind, scoped(k, project), name) : NULL;
    free(O.shown);
    O.shown = o ? cJSON_PrintUnformatted(o->doc) : NULL;
    return O.shown;
}

/* -- lists and label selectors --------------------------------------- */

/* 1 when labels match the selector, 0 when not, -1 when it is not one the
 * mock understands (comma-separated k=v, k==v, k!=v, k, !k). */
int mock_selector_match(const char *sel, const cJSON *labels)
{
    int ok = 1;
    for (const char *p = sel; p && *p;) {
        size_t n = strcspn(p, ",");
        char term[256], *key = term, *val = NULL, *op;
        int kind = 0; /* 0 exists, 1 equal, 2 not equal, 3 absent */
        if (n == 0 || n >= sizeof term)
            return -1;
        memcpy(term, p, n);
        term[n] = '\0';
        while (*key == ' ')
            key++;
        for (char *e = term + n; e > key && e[-1] == ' ';)
            *--e = '\0';
        if ((op = strstr(key, "!=")) != NULL)
            *op = '\0', val = op + 2, kind = 2;
        else if ((op = strchr(key, '=')) != NULL)
            *op = '\0', val = op + 1 + (op[1] == '='), kind = 1;
        else if (*key == '!')
            key++, kind = 3;
        if (!*key || strpbrk(key, "!=() ") || (val && strpbrk(val, "!=() ")))
            return -1;
        const char *have = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(labels, key));
        if (!(kind == 0 ? have != NULL : kind == 3 ? have == NULL
              : kind == 1 ? have && !strcmp(have, val) : !have || strcmp(have, val) != 0))
            ok = 0;
        p += n + (p[n] == ',');
    }
    return ok;
}

static int by_place(const void *a, const void *b)
{
    const struct mobj *x = *(const struct mobj *const *)a, *y = *(const struct mobj *const *)b;
    int c = strcmp(x->project, y->project);
    return c ? c : strcmp(x->name, y->name);
}

static char *obj_list(cube_plugin *self, const char *kind, const char *project,
                      const char *selector, int *rc)
{
    (void)self;
    const struct cube_kind_desc *k = known_kind(kind, rc);
    if (!k)
        return NULL;
    if (mock_selector_match(selector, NULL) < 0)
        return mock_logf("obj_list: selector '%s' not supported", selector), *rc = CUBE_EINVAL,
               NULL;
    const struct mobj **hits = calloc((size_t)O.n_objs + 1, sizeof *hits);
    size_t n = 0;
    if (!hits)
        return *rc = CUBE_ENOMEM, NULL;
    for (int i = 0; i < O.n_objs; i++) {
        const struct mobj *o = &O.objs[i];
        if (strcmp(o->kind, k->kind) == 0 &&
            (k->scope == CUBE_SCOPE_CLUSTER || !project || !strcmp(o->project, project)) &&
            mock_selector_match(selector, cJSON_GetObjectItemCaseSensitive(
                cJSON_GetObjectItemCaseSensitive(o->doc, "metadata"), "labels")) == 1)
            hits[n++] = o;
    }
    qsort(hits, n, sizeof *hits, by_place);
    char list_kind[96], rvs[24];
    snprintf(list_kind, sizeof list_kind, "%sList", k->kind);
    snprintf(rvs, sizeof rvs, "%lld", O.rv);
    cJSON *doc = cJSON_CreateObject(), *items = cJSON_CreateArray();
    cJSON_AddStringToObject(doc, "apiVersion", "cube/v1");
    cJSON_AddStringToObject(doc, "kind", list_kind);
    for (size_t i = 0; i < n; i++)
        cJSON_AddItemToArray(items, cJSON_Duplicate(hits[i]->doc, 1));
    cJSON_AddItemToObject(doc, "items", items);
    cJSON_AddStringToObject(cJSON_AddObjectToObject(doc, "metadata"), "resourceVersion", rvs);
    free(hits);
    char *text = print(doc, rc);
    cJSON_Delete(doc);
    return text;
}


void mock_objects_install(struct cube_host *h)
{
    h->obj_get = obj_get;
    h->obj_list = obj_list;
    h->obj_create = obj_create;
    h->obj_create_for = obj_create_for;
    h->obj_update = obj_update;
    h->obj_update_status = obj_update_status;
    h->obj_delete = obj_delete;
    h->obj_event = obj_event;
}

void mock_objects_reset(void)
{
    for (int i = 0; i < O.n_objs; i++)
        free(O.objs[i].kind), free(O.objs[i].project), free(O.objs[i].name),
            cJSON_Delete(O.objs[i].doc);
    for (int i = 0; i < O.n_events; i++) {
        struct cube_mock_event *e = &O.events[i];
        free(e->kind), free(e->project), free(e->name), free(e->type), free(e->reason);
        free(e->message);
    }
    for (int i = 0; i < O.n_queue; i++)
        free(O.queue[i].kind), free(O.queue[i].project), free(O.queue[i].name);
    free(O.objs), free(O.events), free(O.queue), free(O.shown);
    memset(&O, 0, sizeof O);
}
