/* authprobe.c — a test plugin exercising the ABI 1.2 slots end to end:
 * a password login method ("probe": users named probe-*, password
 * "probe-pass"), a redirect login method ("probe-sso", whose login route
 * vouches for ?user= at once), routes answering req_user/req_project_role,
 * and token_issue for "jobs". Never built into a release. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cube/cube.h>

static const struct cube_host *H;

/* Identity for a probe user: admin when named probe-admin; dev in
 * project "mapped" (when it exists) as a group mapping would give. */
static char *identity(const char *user)
{
    char *out = malloc(512);
    if (out)
        snprintf(out, 512, "{\"username\":\"%s\",\"displayName\":\"Probe %s\","
                 "\"email\":\"%s@probe.test\",\"role\":\"%s\",\"projects\":{\"mapped\":\"dev\"}}",
                 user, user, user, strcmp(user, "probe-admin") == 0 ? "admin" : "user");
    return out;
}

static int password_login(void *state, const char *user, const char *password, char **id,
                          char *msg, size_t msg_len)
{
    (void)state;
    if (strncasecmp(user, "probe-", 6) != 0 || strlen(user) > 40) {
        snprintf(msg, msg_len, "unknown user");
        return CUBE_EPERM;
    }
    if (strcmp(password, "probe-pass") != 0) {
        snprintf(msg, msg_len, "wrong password");
        return CUBE_EPERM;
    }
    if (strcmp(user, "probe-down") == 0) {
        snprintf(msg, msg_len, "directory unreachable");
        return CUBE_EUNAVAIL;
    }
    *id = identity(user);
    return *id ? CUBE_OK : CUBE_ENOMEM;
}

/* "probe2", an ABI 1.5 method (password_check, the error channel): users
 * p2-* and probe-final, password "p2-pass"; anyone else is declined, so
 * the next method is tried. Registered before "probe". */
static cube_plugin *SELF;

static int password_check(void *state, const char *user, const char *password, char **id)
{
    (void)state;
    if ((strncasecmp(user, "p2-", 3) != 0 && strcasecmp(user, "probe-final") != 0) ||
        strlen(user) > 40) {
        H->set_error(SELF, "not a probe2 user");
        return CUBE_DECLINED;
    }
    if (strcmp(password, "p2-pass") != 0) {
        H->set_error(SELF, "probe2: wrong password for %s", user);
        return CUBE_EPERM;
    }
    char *tmp = identity(user);
    size_t n = tmp ? strlen(tmp) + 1 : 0;
    *id = tmp ? H->alloc(n) : NULL;
    if (*id)
        memcpy(*id, tmp, n);
    free(tmp);
    return *id ? CUBE_OK : CUBE_ENOMEM;
}

/* GET /api/v1/auth/probe-sso/login?user=U&next=N: vouches for U. */
static int sso_login(void *state, cube_req *req)
{
    (void)state;
    const char *user = H->req_query(req, "user");
    if (!user)
        return H->resp_error(req, 400, "BadRequest", "user is required");
    if (strcmp(user, "bad-identity") == 0)
        return H->auth_complete(req, "probe-sso", "{\"displayName\":\"x\"}", NULL);
    char *id = identity(user);
    int rc = H->auth_complete(req, "probe-sso", id, H->req_query(req, "next"));
    free(id);
    return rc;
}

static int whoami(void *state, cube_req *req)
{
    (void)state;
    char body[256];
    const char *user = H->req_user(req);
    const char *role = H->req_project_role(req, H->req_param(req, "project"));
    snprintf(body, sizeof body, "{\"user\":\"%s\",\"role\":\"%s\"}", user ? user : "",
             role ? role : "");
    return H->resp_json(req, 200, body);
}

static char *issue(const char *user, int *rc)
{
    return H->token_issue(SELF, user, 120, "probe job", rc);
}

/* POST /api/v1/authprobe/job-token: a token of the caller, as a job gets. */
static int job_token_self(void *state, cube_req *req)
{
    (void)state;
    int rc;
    char *t = issue(H->req_user(req), &rc);
    if (!t)
        return H->resp_error(req, 409, "Conflict", "token_issue failed");
    char body[200];
    snprintf(body, sizeof body, "{\"token\":\"%s\"}", t);
    H->free(t);
    return H->resp_json(req, 200, body);
}

static int init(const struct cube_host *host, cube_plugin *self, void **state)
{
    H = host;
    SELF = self;
    *state = NULL;
    if (!CUBE_HOST_HAS(host, token_issue) || !CUBE_HOST_HAS(host, alloc))
        return CUBE_EVERSION;
    const struct cube_auth_desc pw2 = {.size = sizeof pw2, .name = "probe2",
                                       .display_name = "Probe 2", .kind = CUBE_AUTH_PASSWORD,
                                       .password_check = password_check};
    const struct cube_auth_desc pw = {.size = sizeof pw, .name = "probe",
                                      .display_name = "Probe directory",
                                      .kind = CUBE_AUTH_PASSWORD,
                                      .password_login = password_login};
    const struct cube_auth_desc sso = {.size = sizeof sso, .name = "probe-sso",
                                       .display_name = "Sign in with Probe",
                                       .kind = CUBE_AUTH_REDIRECT,
                                       .login_path = "/api/v1/auth/probe-sso/login"};
    const struct cube_route_desc routes[] = {
        {sizeof routes[0], "GET", "/api/v1/auth/probe-sso/login", CUBE_PERM_PUBLIC, sso_login,
         "Probe SSO: vouches for ?user=", 0, 0, NULL},
        {sizeof routes[0], "GET", "/api/v1/authprobe/{project}/whoami", CUBE_PERM_PROJECT_VIEW,
         whoami, "The caller and their role in the project", 0, 0, NULL},
        {sizeof routes[0], "POST", "/api/v1/authprobe/job-token", CUBE_PERM_USER, job_token_self,
         "A job token of the caller", 0, 0, NULL},
    };
    if (host->register_auth_provider(self, &pw2) != CUBE_OK ||
        host->register_auth_provider(self, &pw) != CUBE_OK ||
        host->register_auth_provider(self, &sso) != CUBE_OK)
        return CUBE_EINVAL;
    for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++)
        if (host->register_route(self, &routes[i]) != CUBE_OK)
            return CUBE_EINVAL;
    return CUBE_OK;
}

CUBE_PLUGIN_DEFINE(authprobe,
    .name = "authprobe", .version = "1.0.0", .vendor = "Cube", .license = "Apache-2.0",
    .description = "Exercises the auth ABI in tests", .init = init)
