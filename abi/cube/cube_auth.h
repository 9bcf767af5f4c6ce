/*
 * cube_auth.h — login methods contributed by plugins (since ABI 1.2).
 *
 * Part of the Cube plugin ABI (append-only; see cube_plugin.h). The core
 * owns users, sessions, API tokens and project roles; an auth provider only
 * says who someone is. It does so in one of two ways:
 *
 *  - CUBE_AUTH_PASSWORD (LDAP, RADIUS ...): the core's
 *    POST /api/v1/auth/login calls `password_login` with the name and
 *    password the user typed, and starts a session when it succeeds.
 *  - CUBE_AUTH_REDIRECT (OIDC, SAML ...): the plugin registers its own
 *    public routes (start and callback), sends the browser to the identity
 *    provider, and once the callback has verified the answer calls
 *    cube_host.auth_complete, which starts the session and redirects back
 *    into the console. `login_path` is where the console's button points.
 *
 * Either way the provider describes the person as an identity, JSON text:
 *
 *   {"username":    "alice",           required; lower-cased, and every
 *                                      character outside [a-z0-9-] becomes
 *                                      '-' (user names are DNS labels)
 *    "displayName": "Alice Liddell",   optional
 *    "email":       "alice@example.org", optional
 *    "role":        "admin" | "user",  optional platform role; when absent
 *                                      an existing user keeps theirs and a
 *                                      new one is "user"
 *    "projects":    {"vision": "dev"}} optional project roles (creator, ops,
 *                                      dev, viewer) to grant; memberships
 *                                      not named are left as they are
 *
 * A user seen for the first time is created (provider recorded in
 * spec.provider) and joins the default project like any new user. A
 * disabled user is refused whatever the provider says.
 */
#ifndef CUBE_AUTH_H
#define CUBE_AUTH_H

#include "cube_plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

/** How a provider logs people in (since 1.2). */
enum cube_auth_kind {
    CUBE_AUTH_PASSWORD = 1, /**< checks a user name and password */
    CUBE_AUTH_REDIRECT = 2, /**< sends the browser elsewhere and back */
};

/** Describes a login method; passed to cube_host.register_auth_provider
 *  (since 1.2). */
struct cube_auth_desc {
    /* since 1.2 */
    size_t size;              /**< sizeof(struct cube_auth_desc) */
    /** Unique DNS label naming the method: "ldap", "oidc". Recorded as the
     *  provider of users it creates. */
    const char *name;
    /** Shown on the console's login page: "Sign in with Keycloak". */
    const char *display_name;
    int kind;                 /**< enum cube_auth_kind */
    /**
     * CUBE_AUTH_PASSWORD only (required there). Checks the credentials.
     * On success set *identity_json to a malloc()ed identity (the host
     * frees it) and return CUBE_OK. Return CUBE_EPERM for a wrong password
     * or an unknown user (the client gets one generic message either way),
     * CUBE_EUNAVAIL when the directory cannot be reached; write a reason
     * for the log into msg (never the password). Runs on an HTTP thread;
     * may block for the directory's round trips.
     */
    int (*password_login)(void *state, const char *username,
                          const char *password, char **identity_json,
                          char *msg, size_t msg_len);
    /** CUBE_AUTH_REDIRECT only (required there): the path of the plugin's
     *  public route that starts the flow, e.g. "/api/v1/auth/oidc/login".
     *  The console appends `?next=<console path>`. */
    const char *login_path;

    /* since 1.5 */
    /**
     * CUBE_AUTH_PASSWORD: the check through the error channel (cube_host.h);
     * when set the host calls it instead of password_login (a 1.5 provider
     * may leave password_login NULL). On success set *identity_json to an
     * identity allocated with cube_host.alloc and return CUBE_OK. Return
     * CUBE_DECLINED when the user is not this provider's (not in the
     * directory): the next provider is tried; CUBE_EPERM for a wrong
     * password (no further provider is tried: the person is this one's);
     * CUBE_EUNAVAIL when the directory cannot be reached (the next is
     * tried). Explain with set_error, for the log (never the password).
     * Runs on an HTTP thread; may block for the directory's round trips.
     */
    int (*password_check)(void *state, const char *username,
                          const char *password, char **identity_json);
};

#ifdef __cplusplus
}
#endif

#endif /* CUBE_AUTH_H */
