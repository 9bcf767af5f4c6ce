/* auth_index.c — the in-memory index of users and project memberships that
 * every permission check reads (no database round trip per request). It
 * mirrors the User and Project objects: loaded at start, then updated by
 * the kinds' after-write hook in the same critical section as the write. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth_priv.h"
#include "ctx/ctx.h"
#include "base/log.h"
#include "store/store.h"
#include "base/strmap.h"

static void user_free(void *p)
{
    struct auth_user *u = p;
    if (!u)
        return;
    free(u->display_name);
    free(u->email);
    free(u);
}

static void project_free(void *p)
{
    struct auth_project *pr = p;
    if (pr)
        free(pr->m);
    free(pr);
}

int auth_index_init(struct cube_auth *a)
{
    pthread_rwlock_init(&a->mu, NULL);
    a->users = cube_strmap_new();
    a->projects = cube_strmap_new();
    return a->users && a->projects ? 0 : -1;
}

void auth_index_free(struct cube_auth *a)
{
    cube_strmap_free(a->users, user_free);
    cube_strmap_free(a->projects, project_free);
    a->users = a->projects = NULL;
    pthread_rwlock_destroy(&a->mu);
}

static const char *spec_string(const cJSON *spec, const char *key)
{
    const char *s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(spec, key));
    return s ? s : "";
}

/* A new index entry for a User object (NULL when out of memory). */
static struct auth_user *user_from(const cJSON *obj)
{
    const cJSON *spec = cJSON_GetObjectItemCaseSensitive(obj, "spec");
    struct auth_user *u = calloc(1, sizeof *u);
    if (!u)
        return NULL;
    u->admin = strcmp(spec_string(spec, "role"), "admin") == 0;
    u->disabled = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(spec, "disabled"));
    snprintf(u->provider, sizeof u->provider, "%s", spec_string(spec, "provider"));
    u->display_name = strdup(spec_string(spec, "displayName"));
    u->email = strdup(spec_string(spec, "email"));
    if (!u->display_name || !u->email) {
        user_free(u);
        return NULL;
    }
    return u;
}

int auth_index_user(struct cube_auth *a, const char *name, const cJSON *obj)
{
    struct auth_user *u = obj ? user_from(obj) : NULL;
    void *old = NULL;
    pthread_rwlock_wrlock(&a->mu);
    if (!obj)
        old = cube_strmap_del(a->users, name);
    else if (!u || cube_strmap_put(a->users, name, u, &old) < 0)
        cube_log(CUBE_LOG_ERROR, "auth", "user %s: out of memory", name);
    pthread_rwlock_unlock(&a->mu);
    user_free(old);
    return obj && u && !old;
}

/* The members of a Project object as a new entry (NULL when out of memory). */
static struct auth_project *project_from(const cJSON *obj)
{
    const cJSON *members = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(obj, "spec"), "members"), *m;
    struct auth_project *p = calloc(1, sizeof *p);
    size_t n = (size_t)cJSON_GetArraySize(members);
    if (!p || (n && !(p->m = calloc(n, sizeof *p->m)))) {
        project_free(p);
        return NULL;
    }
    cJSON_ArrayForEach(m, members) {
        const char *user = spec_string(m, "user");
        int role = cube_role_parse(spec_string(m, "role"));
        if (!*user || !role || strlen(user) >= CUBE_USER_MAX)
            continue;
        snprintf(p->m[p->n].user, CUBE_USER_MAX, "%s", user);
        p->m[p->n++].role = role;
    }
    return p;
}

void auth_index_project(struct cube_auth *a, const char *name, const cJSON *obj)
{
    struct auth_project *p = obj ? project_from(obj) : NULL;
    void *old = NULL;
    pthread_rwlock_wrlock(&a->mu);
    if (!obj)
        old = cube_strmap_del(a->projects, name);
    else if (!p || cube_strmap_put(a->projects, name, p, &old) < 0)
        cube_log(CUBE_LOG_ERROR, "auth", "project %s: out of memory", name);
    pthread_rwlock_unlock(&a->mu);
    project_free(old);
}

int auth_index_get_user(struct cube_auth *a, const char *name, int *admin, int *disabled)
{
    pthread_rwlock_rdlock(&a->mu);
    const struct auth_user *u = cube_strmap_get(a->users, name);
    if (u) {
        *admin = u->admin;
        *disabled = u->disabled;
    }
    pthread_rwlock_unlock(&a->mu);
    return u ? 0 : -1;
}

static int role_locked(struct cube_auth *a, const char *project, const char *user)
{
    const struct auth_project *p = cube_strmap_get(a->projects, project);
    for (size_t i = 0; p && i < p->n; i++)
        if (strcmp(p->m[i].user, user) == 0)
            return p->m[i].role;
    return CUBE_ROLE_NONE;
}

int auth_index_provider(struct cube_auth *a, const char *name, char *out, size_t len)
{
    pthread_rwlock_rdlock(&a->mu);
    const struct auth_user *u = cube_strmap_get(a->users, name);
    if (u)
        snprintf(out, len, "%s", u->provider);
    pthread_rwlock_unlock(&a->mu);
    return u ? 0 : -1;
}

int auth_index_role(struct cube_auth *a, const char *project, const char *user)
{
    pthread_rwlock_rdlock(&a->mu);
    int role = role_locked(a, project, user);
    pthread_rwlock_unlock(&a->mu);
    return role;
}

int auth_index_has_project(struct cube_auth *a, const char *project)
{
    pthread_rwlock_rdlock(&a->mu);
    int has = cube_strmap_get(a->projects, project) != NULL;
    pthread_rwlock_unlock(&a->mu);
    return has;
}

int auth_index_describe(struct cube_auth *a, const char *user, cJSON *o)
{
    pthread_rwlock_rdlock(&a->mu);
    const struct auth_user *u = cube_strmap_get(a->users, user);
    if (u) {
        cJSON_AddStringToObject(o, "name", user);
        cJSON_AddStringToObject(o, "displayName", u->display_name);
        cJSON_AddStringToObject(o, "email", u->email);
        cJSON_AddStringToObject(o, "role", u->admin ? "admin" : "user");
        cJSON_AddStringToObject(o, "provider", u->provider);
        cJSON_AddBoolToObject(o, "disabled", u->disabled);
    }
    pthread_rwlock_unlock(&a->mu);
    return u ? 0 : -1;
}

/* -- /api/v1/auth/me without building a tree (it is the hottest auth
 * route: a token check and this) ----------------------------------------- */

struct out {
    char *buf;
    size_t len, used;
    int full;
};

static void emit(struct out *o, const char *s, size_t n)
{
    if (o->used + n >= o->len) {
        o->full = 1;
        return;
    }
    memcpy(o->buf + o->used, s, n);
    o->used += n;
    o->buf[o->used] = '\0';
}

static void emit_str(struct out *o, const char *s)
{
    emit(o, s, strlen(s));
}

/* s as a JSON string, quotes included. */
static void emit_json(struct out *o, const char *s)
{
    char esc[8];
    emit(o, "\"", 1);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            emit(o, (const char[]){'\\', (char)*p}, 2);
        else if (*p < 0x20)
            emit(o, esc, (size_t)snprintf(esc, sizeof esc, "\\u%04x", *p));
        else
            emit(o, (const char *)p, 1);
    }
    emit(o, "\"", 1);
}

struct member_of {
    const char *user;
    const char *names[256];
    int roles[256];
    size_t n;
};

static int find_memberships(void *cls, const char *project, void *value)
{
    struct member_of *m = cls;
    const struct auth_project *p = value;
    for (size_t i = 0; i < p->n && m->n < 256; i++)
        if (strcmp(p->m[i].user, m->user) == 0) {
            m->names[m->n] = project;
            m->roles[m->n++] = p->m[i].role;
        }
    return 0;
}

/* Sorts memberships by project name (insertion: they are few). */
static void sort_memberships(struct member_of *m)
{
    for (size_t i = 1; i < m->n; i++)
        for (size_t j = i; j > 0 && strcmp(m->names[j - 1], m->names[j]) > 0; j--) {
            const char *t = m->names[j];
            int r = m->roles[j];
            m->names[j] = m->names[j - 1];
            m->roles[j] = m->roles[j - 1];
            m->names[j - 1] = t;
            m->roles[j - 1] = r;
        }
}

int auth_index_me(struct cube_auth *a, const char *user, int admin, char *buf, size_t len)
{
    struct out o = {buf, len, 0, 0};
    struct member_of m = {.user = user};
    buf[0] = '\0';
    pthread_rwlock_rdlock(&a->mu);
    const struct auth_user *u = cube_strmap_get(a->users, user);
    emit_str(&o, "{\"user\":{\"name\":");
    emit_json(&o, user);
    if (u) {
        emit_str(&o, ",\"displayName\":");
        emit_json(&o, u->display_name);
        emit_str(&o, ",\"email\":");
        emit_json(&o, u->email);
        emit_str(&o, u->admin ? ",\"role\":\"admin\"" : ",\"role\":\"user\"");
        emit_str(&o, ",\"provider\":");
        emit_json(&o, u->provider);
        emit_str(&o, u->disabled ? ",\"disabled\":true}" : ",\"disabled\":false}");
        cube_strmap_each(a->projects, find_memberships, &m);
    } else {
        emit_str(&o, ",\"role\":\"admin\"}");
    }
    sort_memberships(&m);
    emit_str(&o, admin ? ",\"role\":\"admin\",\"projects\":[" : ",\"role\":\"user\",\"projects\":[");
    for (size_t i = 0; i < m.n; i++) {
        emit_str(&o, i ? ",{\"name\":" : "{\"name\":");
        emit_json(&o, m.names[i]);
        emit_str(&o, ",\"role\":\"");
        emit_str(&o, cube_role_name(m.roles[i]));
        emit_str(&o, "\"}");
    }
    emit_str(&o, "]");
    pthread_rwlock_unlock(&a->mu);
    return o.full ? -1 : (int)o.used;
}

size_t auth_index_users(struct cube_auth *a)
{
    pthread_rwlock_rdlock(&a->mu);
    size_t n = cube_strmap_size(a->users);
    pthread_rwlock_unlock(&a->mu);
    return n;
}

/* Loads one stored object into the index. */
static int load_row(void *cls, const struct cube_store_obj *o)
{
    struct cube_auth *a = cls;
    cJSON *obj = cJSON_Parse(o->doc);
    if (!obj)
        return 0;
    if (strcmp(o->kind, "User") == 0)
        auth_index_user(a, o->name, obj);
    else
        auth_index_project(a, o->name, obj);
    cJSON_Delete(obj);
    return 0;
}

int auth_index_load(struct cube_auth *a)
{
    struct cube_store *s = a->ctx->store;
    if (cube_store_list(s, "User", "", NULL, NULL, 0, load_row, a) != CUBE_OK ||
        cube_store_list(s, "Project", "", NULL, NULL, 0, load_row, a) != CUBE_OK) {
        cube_log(CUBE_LOG_ERROR, "auth", "cannot load users and projects from the store");
        return -1;
    }
    return 0;
}
