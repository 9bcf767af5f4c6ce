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

const char cube_config_auth_schema[] =
    "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{"
    "\"local_login\":{\"type\":\"boolean\",\"default\":true},"
    "\"session_idle_minutes\":{\"type\":\"integer\",\"minimum\":1,"
    "\"maximum\":525600,\"default\":720},"
    "\"session_max_hours\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":8760,"
    "\"default\":168},"
    "\"max_token_days\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":3650,"
    "\"default\":365},"
    "\"default_project\":{\"type\":\"string\",\"maxLength\":63,"
    "\"pattern\":\"^([a-z0-9]([-a-z0-9]*[a-z0-9])?)?$\",\"default\":\"public\"},"
    "\"default_role\":{\"enum\":[\"creator\",\"ops\",\"dev\",\"viewer\"],"
    "\"default\":\"dev\"},"
    "\"users_create_projects\":{\"type\":\"boolean\",\"default\":false},"
    "\"throttle\":{\"type\":\"object\",\"additionalProperties\":false,"
    "\"default\":{},\"properties\":{"
    "\"free_failures\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":1000,"
    "\"default\":5},"
    "\"base_ms\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":3600000,"
    "\"default\":1000},"
    "\"max_ms\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":86400000,"
    "\"default\":900000}}},"
    "\"trusted_header\":{\"type\":\"object\",\"additionalProperties\":false,"
    "\"required\":[\"proxies\"],\"properties\":{"
    "\"header\":{\"type\":\"string\",\"pattern\":\"^[A-Za-z0-9-]{1,63}$\","
    "\"default\":\"X-Remote-User\"},"
    "\"proxies\":{\"type\":\"array\",\"minItems\":1,\"maxItems\":64,"
    "\"items\":{\"type\":\"string\",\"minLength\":2,\"maxLength\":45}}}}"
    "}}";
