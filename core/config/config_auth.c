/* config_auth.c — the schema of cube.yaml's `auth:` section. Validated
 * with the same JSON Schema code as plugin configs, so every error names
 * file:line:col and the key; defaults below are what an absent key means.
 *
 *   auth:
 *     local_login: true            local passwords at POST /api/v1/auth/login
 *     session_idle_minutes: 720    a session unused this long ends
 *     session_max_hours: 168       a session ends this long after login
 *     max_token_days: 365          longest lifetime of an API token
 *     default_project: public      new users join it ("" : none)
 *     default_role: dev            ... with this role
 *     users_create_projects: false may non-admins create projects
 *     throttle: {free_failures: 5, base_ms: 1000, max_ms: 900000}
 *     trusted_header: {header: X-Remote-User, proxies: [127.0.0.1]}
 */
#include "config_priv.h"

/* auth.schema.json beside this file, embedded at build time. */
#include "config/auth_schema.h"

const char *const cube_config_auth_schema = AUTH_SCHEMA;
