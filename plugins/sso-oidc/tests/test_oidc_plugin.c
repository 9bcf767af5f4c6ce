/* test_oidc_plugin.c — the sso-oidc plugin through the fake host against a
 * fake provider: descriptor and registration, init failures naming the
 * setting, the login redirect, and callbacks (success with the identity
 * handed to auth_complete, client authentication, replays, bad state, a
 * foreign browser, provider errors, refused codes, bad tokens). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/sha.h>

#include "cube_mock.h"
#include "fakeidp.h"
#include "oidc.h"
#include "testkeys.h"

const struct cube_plugin_desc *cube_plugin_sso_oidc(void);

static struct fakeidp idp;
static struct tk_key rsa, ec;
static void *state;

static int group_setup(void **st)
{
    (void)st;
    if (tk_generate(&rsa, OIDC_ALG_RS256, "r1") || tk_generate(&ec, OIDC_ALG_ES256, "e1") ||
        fakeidp_start(&idp))
        return -1;
    const struct tk_key *keys[] = {&rsa, &ec};
    char *jwks = tk_jwks(keys, 2);
    fakeidp_set(&idp, "jwks", 200, jwks);
    free(jwks);
    return 0;
}

static int group_teardown(void **st)
{
    (void)st;
    fakeidp_stop(&idp);
    tk_free(&rsa);
    tk_free(&ec);
    return 0;
}

/* Initialises the plugin against the fake provider with extra members. */
static int init_with(const char *extra)
{
    char cfg[2048];
    snprintf(cfg, sizeof cfg, "{\"issuer\":\"%s\",\"client_id\":\"cube\","
             "\"client_secret\":\"s3cr:t\",\"redirect_uri\":\"http://cube.test/api/v1/auth/oidc/callback\","
             "\"admin_values\":[\"cube-admins\"],\"project_roles\":["
             "{\"group\":\"vision-devs\",\"project\":\"vision\",\"role\":\"dev\"}]%s}",
             idp.issuer, extra);
    return cube_mock_init(cube_plugin_sso_oidc(), cfg, &state);
}

static int setup(void **st)
{
    (void)st;
    return init_with("");
}

static int teardown(void **st)
{
    (void)st;
    cube_mock_reset(cube_plugin_sso_oidc(), state);
    state = NULL;
    return 0;
}

/* The value of response header `name` (static buffer), or NULL. */
static const char *header(const struct cube_mock_response *r, const char *name)
{
    static char v[4096];
    char key[64];
    snprintf(key, sizeof key, "%s: ", name);
    const char *p = r->headers ? strstr(r->headers, key) : NULL;
    if (!p)
        return NULL;
    p += strlen(key);
    snprintf(v, sizeof v, "%.*s", (int)strcspn(p, "\n"), p);
    return v;
}

/* Copies query parameter `name` of url into out ("" when absent). */
static void url_param(const char *url, const char *name, char *out, size_t n)
{
    char key[64];
    snprintf(key, sizeof key, "%s=", name);
    const char *p = strstr(url, key);
    out[0] = '\0';
    if (p && (p[-1] == '?' || p[-1] == '&'))
        snprintf(out, n, "%.*s", (int)strcspn(p + strlen(key), "&"), p + strlen(key));
}

struct login {
    char state[64], nonce[64], challenge[64], cookie[128];
};

/* Runs GET .../login?next=... and reads what the browser would keep. */
static void login(const char *query, struct login *l)
{
    struct cube_mock_response r = cube_mock_request("GET", "/api/v1/auth/oidc/login", query, NULL, NULL);
    assert_int_equal(r.status, 302);
    const char *loc = header(&r, "Location");
    assert_non_null(loc);
    url_param(loc, "state", l->state, sizeof l->state);
    url_param(loc, "nonce", l->nonce, sizeof l->nonce);
    url_param(loc, "code_challenge", l->challenge, sizeof l->challenge);
    const char *c = header(&r, "Set-Cookie");
    assert_non_null(c);
    snprintf(l->cookie, sizeof l->cookie, "Cookie: %.*s", (int)strcspn(c, ";"), c);
    cube_mock_response_free(&r);
}

/* Makes the provider's token endpoint answer with an ID token for claims. */
static void token_answer(const struct tk_key *k, const char *nonce, const char *extra)
{
    char *c = tk_claims(idp.issuer, "\"cube\"", nonce, (long)time(NULL), extra);
    char *t = tk_token(k, c), body[8192];
    snprintf(body, sizeof body, "{\"access_token\":\"at\",\"token_type\":\"Bearer\",\"id_token\":\"%s\"}", t);
    fakeidp_set(&idp, "token", 200, body);
    free(c);
    free(t);
}

/* GET .../callback?code=c0de&state=<state> with the given Cookie header. */
static struct cube_mock_response callback(const char *state_value, const char *cookie)
{
    char q[256];
    snprintf(q, sizeof q, "code=c0de&state=%s", state_value);
    return cube_mock_request("GET", "/api/v1/auth/oidc/callback", q, cookie, NULL);
}

/* Asserts r is a 401 whose message contains want, and frees it. */
static void assert_refused(struct cube_mock_response *r, const char *want)
{
    assert_int_equal(r->status, 401);
    if (!strstr(r->body, want))
        fail_msg("%s lacks \"%s\"", r->body, want);
    assert_non_null(strstr(r->body, "OIDC login failed: "));
    cube_mock_response_free(r);
}

static const char CLAIMS[] = ",\"preferred_username\":\"alice\",\"name\":\"Alice L\","
    "\"email\":\"alice@example.org\",\"groups\":[\"cube-admins\",\"vision-devs\"]";

static void registers_routes_and_login_method(void **st)
{
    (void)st;
    const struct cube_plugin_desc *d = cube_plugin_sso_oidc();
    assert_string_equal(d->name, "sso-oidc");
    assert_non_null(d->config_schema);
    cJSON *schema = cJSON_Parse(d->config_schema);
    assert_non_null(schema);
    cJSON_Delete(schema);
    assert_int_equal(cube_mock_route_count(), 2);
    const struct cube_auth_desc *a = cube_mock_auth_provider("oidc");
    assert_non_null(a);
    assert_int_equal(a->kind, CUBE_AUTH_REDIRECT);
    assert_string_equal(a->login_path, "/api/v1/auth/oidc/login");
    assert_string_equal(a->display_name, "Single sign-on");
}

static void name_and_display_name_are_configurable(void **st)
{
    teardown(st);
    assert_int_equal(init_with(",\"name\":\"corp\",\"display_name\":\"Sign in with Corp\""), CUBE_OK);
    const struct cube_auth_desc *a = cube_mock_auth_provider("corp");
    assert_non_null(a);
    assert_string_equal(a->display_name, "Sign in with Corp");
    assert_string_equal(a->login_path, "/api/v1/auth/corp/login");
    struct cube_mock_response r = cube_mock_request("GET", "/api/v1/auth/corp/login", NULL, NULL, NULL);
    assert_int_equal(r.status, 302);
    assert_non_null(strstr(header(&r, "Set-Cookie"), "cube_oidc_corp="));
    assert_non_null(strstr(header(&r, "Set-Cookie"), "Path=/api/v1/auth/corp/;"));
    cube_mock_response_free(&r);
}

static void login_redirects_with_pkce_state_and_nonce(void **st)
{
    (void)st;
    struct cube_mock_response r = cube_mock_request("GET", "/api/v1/auth/oidc/login", "next=/notebooks",
                                                    NULL, NULL);
    assert_int_equal(r.status, 302);
    char want[512], v[128];
    snprintf(want, sizeof want, "%s/authorize?response_type=code&client_id=cube&redirect_uri="
             "http%%3A%%2F%%2Fcube.test%%2Fapi%%2Fv1%%2Fauth%%2Foidc%%2Fcallback&scope=openid%%20profile"
             "%%20email&state=", idp.issuer);
    const char *loc = header(&r, "Location");
    assert_memory_equal(loc, want, strlen(want));
    assert_non_null(strstr(loc, "&code_challenge_method=S256"));
    url_param(loc, "state", v, sizeof v);
    assert_int_equal(strlen(v), 43);
    url_param(loc, "nonce", v, sizeof v);
    assert_int_equal(strlen(v), 43);
    url_param(loc, "code_challenge", v, sizeof v);
    assert_int_equal(strlen(v), 43);
    assert_non_null(strstr(header(&r, "Set-Cookie"), "; Path=/api/v1/auth/oidc/; Max-Age=600; HttpOnly; SameSite=Lax"));
    assert_string_equal(header(&r, "Cache-Control"), "no-store");
    assert_int_equal(oidc_flow_count(&((struct oidc *)state)->flow), 1);
    cube_mock_response_free(&r);
}

static void callback_completes_sign_in(void **st)
{
    (void)st;
    struct login l;
    login("next=/notebooks", &l);
    token_answer(&rsa, l.nonce, CLAIMS);
    char q[256];
    snprintf(q, sizeof q, "code=c0de&state=%s&iss=%s", l.state, idp.issuer);
    struct cube_mock_response r = cube_mock_request("GET", "/api/v1/auth/oidc/callback", q,
                                                    l.cookie, NULL);
    assert_int_equal(r.status, 303);
    assert_string_equal(header(&r, "Location"), "/notebooks");
    assert_string_equal(cube_mock_last_identity(),
        "{\"username\":\"alice\",\"displayName\":\"Alice L\",\"email\":\"alice@example.org\","
        "\"role\":\"admin\",\"projects\":{\"vision\":\"dev\"}}");
    assert_non_null(strstr(r.headers, "Set-Cookie: cube_oidc_oidc=; Path=/api/v1/auth/oidc/; Max-Age=0"));
    cube_mock_response_free(&r);
    /* what the token endpoint received: client_secret_basic with the id
     * and secret form-encoded, the code, the redirect URI and a verifier
     * whose S256 is the challenge sent at login */
    assert_string_equal(idp.last_auth, "Basic Y3ViZTpzM2NyJTNBdA==");
    assert_non_null(strstr(idp.last_form, "grant_type=authorization_code&code=c0de&redirect_uri="
                                          "http%3A%2F%2Fcube.test%2Fapi%2Fv1%2Fauth%2Foidc%2Fcallback"));
    assert_null(strstr(idp.last_form, "client_secret"));
    char verifier[64], challenge[OIDC_TOKEN_LEN];
    url_param(strstr(idp.last_form, "code_verifier=") - 1, "code_verifier", verifier, sizeof verifier);
    assert_int_equal(oidc_pkce_challenge(verifier, challenge), 0);
    assert_string_equal(challenge, l.challenge);
}

static void client_secret_post_and_es256(void **st)
{
    teardown(st);
    assert_int_equal(init_with(",\"token_endpoint_auth_method\":\"client_secret_post\""), CUBE_OK);
    struct login l;
    login(NULL, &l);
    token_answer(&ec, l.nonce, CLAIMS);
    struct cube_mock_response r = callback(l.state, l.cookie);
    assert_int_equal(r.status, 303);
    assert_string_equal(header(&r, "Location"), "/");
    cube_mock_response_free(&r);
    assert_string_equal(idp.last_auth, "");
    assert_non_null(strstr(idp.last_form, "&client_id=cube&client_secret=s3cr%3At"));
}

static void state_is_single_use_and_browser_bound(void **st)
{
    (void)st;
    struct login l, m;
    login("next=/x", &l);
    token_answer(&rsa, l.nonce, CLAIMS);
    struct cube_mock_response r = callback(l.state, l.cookie);
    assert_int_equal(r.status, 303);
    cube_mock_response_free(&r);
    r = callback(l.state, l.cookie); /* replay */
    assert_refused(&r, "unknown, used or expired state");
    r = callback("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", l.cookie);
    assert_refused(&r, "unknown, used or expired state");
    r = cube_mock_request("GET", "/api/v1/auth/oidc/callback", "code=c0de", l.cookie, NULL);
    assert_refused(&r, "the callback has no state");
    login(NULL, &m);
    r = callback(m.state, "Cookie: cube_oidc_oidc=BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB");
    assert_refused(&r, "started in another browser");
    login(NULL, &m);
    r = callback(m.state, NULL);
    assert_refused(&r, "started in another browser");
    login(NULL, &m);
    char q[256];
    snprintf(q, sizeof q, "code=c0de&state=%s&iss=https%%3A%%2F%%2Fevil.example", m.state);
    r = cube_mock_request("GET", "/api/v1/auth/oidc/callback", q, m.cookie, NULL);
    assert_refused(&r, "the callback's iss is not the configured issuer");
    assert_int_equal(oidc_flow_count(&((struct oidc *)state)->flow), 0);
}

static void provider_and_token_errors_are_reported(void **st)
{
    (void)st;
    struct login l;
    login(NULL, &l);
    char q[256];
    snprintf(q, sizeof q, "error=access_denied&error_description=End-User+aborted&state=%s", l.state);
    struct cube_mock_response r = cube_mock_request("GET", "/api/v1/auth/oidc/callback", q, l.cookie, NULL);
    assert_refused(&r, "the identity provider answered access_denied: End-User aborted");
    r = callback(l.state, l.cookie);
    assert_refused(&r, "unknown, used or expired state");
    login(NULL, &l);
    fakeidp_set(&idp, "token", 400, "{\"error\":\"invalid_grant\",\"error_description\":\"code \\\"expired\\\"\"}");
    r = callback(l.state, l.cookie);
    /* (the fake host does not JSON-escape resp_error messages) */
    assert_refused(&r, "the token endpoint refused the code: invalid_grant: code \"expired\"");
    assert_null(strstr(cube_mock_last_log(), "c0de")); /* codes are not logged */
    login(NULL, &l);
    fakeidp_set(&idp, "token", 200, "{\"access_token\":\"at\"}");
    r = callback(l.state, l.cookie);
    assert_refused(&r, "answered without an id_token");
}

static void bad_id_tokens_are_refused(void **st)
{
    (void)st;
    struct login l;
    login(NULL, &l);
    char *c = tk_claims(idp.issuer, "\"not-cube\"", l.nonce, (long)time(NULL), CLAIMS);
    char *t = tk_token(&rsa, c), body[8192];
    snprintf(body, sizeof body, "{\"id_token\":\"%s\"}", t);
    fakeidp_set(&idp, "token", 200, body);
    struct cube_mock_response r = callback(l.state, l.cookie);
    assert_refused(&r, "OIDC login failed: ID token audience does not match");
    free(c);
    free(t);
    login(NULL, &l);
    token_answer(&rsa, "another-nonce", CLAIMS);
    r = callback(l.state, l.cookie);
    assert_refused(&r, "ID token nonce does not match");
    login(NULL, &l);
    token_answer(&rsa, l.nonce, ",\"name\":\"No Username\"");
    r = callback(l.state, l.cookie);
    assert_refused(&r, "no \"preferred_username\" claim");
    assert_string_equal(cube_mock_last_identity(), "");
}

static void unsafe_next_becomes_root_and_host_builds_redirect(void **st)
{
    teardown(st);
    char cfg[512];
    snprintf(cfg, sizeof cfg, "{\"issuer\":\"%s\",\"client_id\":\"cube\",\"client_secret\":\"x\"}",
             idp.issuer);
    assert_int_equal(cube_mock_init(cube_plugin_sso_oidc(), cfg, &state), CUBE_OK);
    struct cube_mock_response r = cube_mock_request("GET", "/api/v1/auth/oidc/login",
                                                    "next=//evil.example/x", "Host: cube.example:8080", NULL);
    assert_int_equal(r.status, 302);
    assert_non_null(strstr(header(&r, "Location"),
                           "&redirect_uri=http%3A%2F%2Fcube.example%3A8080%2Fapi%2Fv1%2Fauth%2Foidc%2Fcallback&"));
    cube_mock_response_free(&r);
    struct oidc *o = state;
    assert_string_equal(o->flow.items[0].next, "/");
    r = cube_mock_request("GET", "/api/v1/auth/oidc/login", NULL, "Host: bad host\"", NULL);
    assert_int_equal(r.status, 400);
    cube_mock_response_free(&r);
}

/* Expects init with config json to fail with a message containing want. */
static void init_fails(const char *json, const char *want)
{
    void *s = NULL;
    assert_int_not_equal(cube_mock_init(cube_plugin_sso_oidc(), json, &s), CUBE_OK);
    if (!strstr(cube_mock_last_error(), want))
        fail_msg("\"%s\" lacks \"%s\"", cube_mock_last_error(), want);
    assert_int_equal(cube_mock_route_count(), 0);
    assert_int_equal(cube_mock_auth_count(), 0);
    cube_mock_reset(cube_plugin_sso_oidc(), NULL);
}

static void init_fails_naming_the_setting(void **st)
{
    teardown(st);
    char cfg[512], want[256], *doc = strdup(idp.discovery), *jwks = strdup(idp.jwks);
    init_fails("{\"client_id\":\"c\"}", "issuer: is required");
    /* nothing listens on port 1 */
    init_fails("{\"issuer\":\"http://127.0.0.1:1\",\"client_id\":\"c\",\"client_secret\":\"s\"}",
               "issuer: cannot fetch discovery document from "
               "http://127.0.0.1:1/.well-known/openid-configuration: ");
    snprintf(cfg, sizeof cfg, "{\"issuer\":\"%s/\",\"client_id\":\"c\",\"client_secret\":\"s\"}", idp.issuer);
    snprintf(want, sizeof want, "issuer: the discovery document at %s/.well-known/openid-configuration "
             "names issuer \"%s\", not the configured one", idp.issuer, idp.issuer);
    init_fails(cfg, want);
    snprintf(cfg, sizeof cfg, "{\"issuer\":\"%s\",\"client_id\":\"c\",\"client_secret\":\"s\"}", idp.issuer);
    fakeidp_set(&idp, "discovery", 404, "{}");
    init_fails(cfg, "openid-configuration: HTTP 404");
    fakeidp_set(&idp, "discovery", 200, "<html>");
    init_fails(cfg, "is not a JSON object");
    fakeidp_set(&idp, "discovery", 200, "{\"issuer\":\"http://x\"}");
    init_fails("{\"issuer\":\"http://x\",\"client_id\":\"c\",\"client_secret\":\"s\"}", "issuer:");
    fakeidp_set(&idp, "discovery", 200, doc);
    fakeidp_set(&idp, "jwks", 200, "{\"keys\":[{\"kty\":\"RSA\",\"n\":\"AQAB\",\"e\":\"AQAB\"}]}");
    init_fails(cfg, "issuer: bad JWK Set at");
    fakeidp_set(&idp, "jwks", 500, "oops");
    init_fails(cfg, "/jwks: HTTP 500");
    fakeidp_set(&idp, "jwks", 200, jwks);
    free(doc);
    free(jwks);
    setup(st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(registers_routes_and_login_method, setup, teardown),
        cmocka_unit_test_setup_teardown(name_and_display_name_are_configurable, setup, teardown),
        cmocka_unit_test_setup_teardown(login_redirects_with_pkce_state_and_nonce, setup, teardown),
        cmocka_unit_test_setup_teardown(callback_completes_sign_in, setup, teardown),
        cmocka_unit_test_setup_teardown(client_secret_post_and_es256, setup, teardown),
        cmocka_unit_test_setup_teardown(state_is_single_use_and_browser_bound, setup, teardown),
        cmocka_unit_test_setup_teardown(provider_and_token_errors_are_reported, setup, teardown),
        cmocka_unit_test_setup_teardown(bad_id_tokens_are_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(unsafe_next_becomes_root_and_host_builds_redirect, setup, teardown),
        cmocka_unit_test_setup_teardown(init_fails_naming_the_setting, setup, teardown),
    };
    return cmocka_run_group_tests_name("sso-oidc plugin (fake host, fake provider)", tests,
                                       group_setup, group_teardown);
}
