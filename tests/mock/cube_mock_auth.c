/* cube_mock_auth.c — the fake host's ABI 1.2 slots: login methods,
 * auth_complete, the request's user and role, and job tokens (see
 * cube_mock.h). Test-only global state. */
#include "cube_mock.h"
#include "cube_mock_priv.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#define MAX_PROVIDERS 8

static struct {
    const struct cube_host *host;
    struct cube_auth_desc providers[MAX_PROVIDERS];
    int n;
    char *identity, *next;
    char user[128], role[32];
    int has_user, has_role;
} A;

static int register_auth_provider(cube_plugin *self, const struct cube_auth_desc *d)
{
    (void)self;
    if (mock_after_init())
        return CUBE_ESTATE;
    if (!d || d->size < offsetof(struct cube_auth_desc, login_path) || !mock_dns_label(d->name))
        return CUBE_EINVAL;
    struct cube_auth_desc c = {0};
    memcpy(&c, d, d->size < sizeof c ? d->size : sizeof c);
#if CUBE_ABI_MINOR >= 5
    int checks = c.password_login || c.password_check;
#else
    int checks = c.password_login != NULL;
#endif
    if ((c.kind == CUBE_AUTH_PASSWORD && !checks) ||
        (c.kind == CUBE_AUTH_REDIRECT && (!c.login_path || c.login_path[0] != '/')) ||
        (c.kind != CUBE_AUTH_PASSWORD && c.kind != CUBE_AUTH_REDIRECT))
        return CUBE_EINVAL;
    if (cube_mock_auth_provider(c.name))
        return CUBE_EEXIST;
    if (A.n == MAX_PROVIDERS)
        return CUBE_ENOMEM;
    c.name = mock_strdup(c.name);
    c.display_name = mock_strdup(c.display_name);
    c.login_path = mock_strdup(c.login_path);
    A.providers[A.n++] = c;
    return CUBE_OK;
}

static int auth_complete(cube_req *req, const char *provider, const char *identity,
                         const char *next)
{
    cJSON *id = identity ? cJSON_Parse(identity) : NULL;
    int ok = provider && cube_mock_auth_provider(provider) && cJSON_IsObject(id) &&
             cJSON_IsString(cJSON_GetObjectItemCaseSensitive(id, "username"));
    cJSON_Delete(id);
    if (!ok) {
        const char *e = "{\"error\":{\"code\":\"Unauthorized\",\"message\":\"bad identity\"}}";
        mock_answer(req, 401, "application/json", e, strlen(e));
        return CUBE_OK;
    }
    free(A.identity);
    free(A.next);
    A.identity = strdup(identity);
    A.next = strdup(next && next[0] == '/' && next[1] != '/' ? next : "/");
    A.host->resp_header(req, "Location", A.next);
    A.host->resp_header(req, "Set-Cookie", "cube_session=mock; HttpOnly; SameSite=Lax");
    return mock_answer(req, 303, "text/plain; charset=utf-8", "", 0);
}

static const char *req_user(cube_req *req)
{
    (void)req;
    return A.has_user ? A.user : NULL;
}

static const char *req_project_role(cube_req *req, const char *project)
{
    (void)req;
    (void)project;
    return A.has_role ? A.role : NULL;
}

static char *token_issue(cube_plugin *self, const char *user, unsigned ttl,
                         const char *purpose, int *rc)
{
    (void)self;
    (void)purpose;
    if (!user || !*user || ttl == 0 || ttl > 604800) {
        *rc = CUBE_EINVAL;
        return NULL;
    }
    char *t = malloc(strlen(user) + 40);
    if (!t) {
        *rc = CUBE_ENOMEM;
        return NULL;
    }
    sprintf(t, "mock-token:%s:%u", user, ttl);
    *rc = CUBE_OK;
    return t;
}

void mock_auth_install(struct cube_host *h)
{
    A.host = h;
    h->register_auth_provider = register_auth_provider;
    h->auth_complete = auth_complete;
    h->req_user = req_user;
    h->req_project_role = req_project_role;
    h->token_issue = token_issue;
}

void mock_auth_reset(void)
{
    for (int i = 0; i < A.n; i++) {
        free((char *)A.providers[i].name);
        free((char *)A.providers[i].display_name);
        free((char *)A.providers[i].login_path);
    }
    free(A.identity);
    free(A.next);
    const struct cube_host *h = A.host;
    memset(&A, 0, sizeof A);
    A.host = h;
}

const struct cube_auth_desc *cube_mock_auth_provider(const char *name)
{
    for (int i = 0; name && i < A.n; i++)
        if (strcmp(A.providers[i].name, name) == 0)
            return &A.providers[i];
    return NULL;
}

int cube_mock_auth_count(void) { return A.n; }
const char *cube_mock_last_identity(void) { return A.identity ? A.identity : ""; }
const char *cube_mock_last_next(void) { return A.next ? A.next : ""; }

void cube_mock_set_user(const char *user, const char *project_role)
{
    A.has_user = user != NULL;
    A.has_role = project_role != NULL;
    snprintf(A.user, sizeof A.user, "%s", user ? user : "");
    snprintf(A.role, sizeof A.role, "%s", project_role ? project_role : "");
}

/* Rank of a project role: viewer 1, dev 2, ops 3, creator 4, admin 5 (a
 * platform administrator passes every check); 0 for none. */
static int rank(const char *role)
{
    static const char *const R[] = {"viewer", "dev", "ops", "creator", "admin"};
    for (int i = 0; role && i < 5; i++)
        if (strcmp(role, R[i]) == 0)
            return i + 1;
    return 0;
}

int mock_permission(const char *perm, const char *owner)
{
    int r = A.has_role ? rank(A.role) : 0;
    if (!perm || !strcmp(perm, CUBE_PERM_PUBLIC))
        return 0;
    if (!A.has_user)
        return 401;
    if (r == 5 || !strcmp(perm, CUBE_PERM_USER))
        return 0;
    if (!strcmp(perm, CUBE_PERM_ADMIN))
        return 403;
    if (r == 0)
        return 404;   /* not a member: the project's name does not leak */
    int need = !strcmp(perm, CUBE_PERM_PROJECT_VIEW) ? 1
             : !strcmp(perm, CUBE_PERM_PROJECT_EDIT) ? 2
             : !strcmp(perm, CUBE_PERM_PROJECT_OPERATE) ? 3 : 4;
    if (need == 3 && r == 2 && owner && !strcmp(owner, A.user))
        return 0;     /* a dev operates the objects they own */
    return r >= need ? 0 : 403;
}
