/* test_oidc_units.c — the sso-oidc building blocks without a network:
 * base64url, PKCE, JWK Sets, JWS parsing, claim checks, identity mapping,
 * the pending-login store and config loading. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oidc.h"
#include "testkeys.h"

static char err[OIDC_ERR_LEN];

/* Decodes s; returns the bytes as a NUL-terminated string or NULL. */
static char *dec(const char *s)
{
    size_t n = 0;
    unsigned char *b = oidc_b64url_decode(s, strlen(s), &n);
    if (!b)
        return NULL;
    char *out = malloc(n + 1);
    memcpy(out, b, n);
    out[n] = '\0';
    free(b);
    return out;
}

static void b64url_edge_cases(void **st)
{
    (void)st;
    const char *good[][2] = {{"", ""}, {"QQ", "A"}, {"QUI", "AB"}, {"QUJD", "ABC"},
                             {"QUJDRA", "ABCD"}, {"Pz8_", "??" "?"}, {"Pj4-", ">>>"}};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        char *d = dec(good[i][0]);
        assert_non_null(d);
        assert_string_equal(d, good[i][1]);
        free(d);
    }
    /* length 1 mod 4, padding, standard-alphabet characters, spaces and
     * non-zero trailing bits are all refused */
    const char *bad[] = {"Q", "QUJDR", "QQ==", "QUI=", "Pz8/", "Pj4+", "QU I", "QR", "QUJ",
                         "QUJDRB", "Q\xc3\xa9", "QQ\n"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_null(dec(bad[i]));
    /* every length from 0 to 70 and every byte value round-trips */
    unsigned char raw[70];
    for (size_t n = 0; n <= sizeof raw; n++) {
        for (size_t i = 0; i < n; i++)
            raw[i] = (unsigned char)(i * 37 + n * 11);
        char *e = oidc_b64url_encode(raw, n);
        assert_int_equal(strlen(e), (n * 4 + 2) / 3);
        size_t m = 99;
        unsigned char *d = oidc_b64url_decode(e, strlen(e), &m);
        assert_non_null(d);
        assert_int_equal(m, n);
        if (n)
            assert_memory_equal(d, raw, n);
        free(d);
        free(e);
    }
}

static void random_tokens_and_pkce(void **st)
{
    (void)st;
    char a[OIDC_TOKEN_LEN], b[OIDC_TOKEN_LEN], c[OIDC_TOKEN_LEN];
    assert_int_equal(oidc_random_token(a), 0);
    assert_int_equal(oidc_random_token(b), 0);
    assert_int_equal(strlen(a), 43);
    assert_string_not_equal(a, b);
    size_t n;
    unsigned char *raw = oidc_b64url_decode(a, 43, &n);
    assert_int_equal(n, 32);
    free(raw);
    /* RFC 7636 appendix B */
    assert_int_equal(oidc_pkce_challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk", c), 0);
    assert_string_equal(c, "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
}

static struct tk_key rsa, ec;

static int keys_setup(void **st)
{
    (void)st;
    return tk_generate(&rsa, OIDC_ALG_RS256, "r1") || tk_generate(&ec, OIDC_ALG_ES256, "e1");
}

static int keys_teardown(void **st)
{
    (void)st;
    tk_free(&rsa);
    tk_free(&ec);
    return 0;
}

static void jwks_keeps_usable_keys(void **st)
{
    (void)st;
    char *r = tk_jwk(&rsa), *e = tk_jwk(&ec), doc[8192];
    snprintf(doc, sizeof doc, "{\"keys\":[%s,{\"kty\":\"oct\",\"k\":\"AAAA\"},"
             "{\"kty\":\"RSA\",\"use\":\"enc\",\"n\":\"x\",\"e\":\"AQAB\"},"
             "{\"kty\":\"EC\",\"crv\":\"P-384\",\"x\":\"AA\",\"y\":\"AA\"},%s]}", r, e);
    struct oidc_jwks set;
    assert_int_equal(oidc_jwks_parse(doc, &set, err, sizeof err), 0);
    assert_int_equal(set.n, 2);
    EVP_PKEY *k = oidc_jwks_find(&set, "r1", OIDC_ALG_RS256);
    assert_ptr_equal(k, set.keys[0].pkey);
    EVP_PKEY_free(k);
    assert_null(oidc_jwks_find(&set, "r1", OIDC_ALG_ES256));
    assert_null(oidc_jwks_find(&set, "nope", OIDC_ALG_RS256));
    k = oidc_jwks_find(&set, NULL, OIDC_ALG_ES256); /* the only ES256 key */
    assert_ptr_equal(k, set.keys[1].pkey);
    EVP_PKEY_free(k);
    oidc_jwks_free(&set);
    free(r);
    free(e);
}

/* Expects oidc_jwks_parse to fail with a message containing want. */
static void jwks_fails(const char *doc, const char *want)
{
    struct oidc_jwks set;
    assert_int_equal(oidc_jwks_parse(doc, &set, err, sizeof err), -1);
    if (!strstr(err, want))
        fail_msg("\"%s\" lacks \"%s\"", err, want);
    assert_int_equal(set.n, 0);
}

static void jwks_rejects_bad_keys(void **st)
{
    (void)st;
    char *e = tk_jwk(&ec), doc[4096];
    jwks_fails("nope", "not a JWK Set");
    jwks_fails("{\"keys\":{}}", "not a JWK Set");
    jwks_fails("{\"keys\":[]}", "no RS256 or ES256");
    jwks_fails("{\"keys\":[{\"kty\":\"oct\",\"k\":\"AA\"}]}", "no RS256 or ES256");
    jwks_fails("{\"keys\":[{\"kty\":\"RSA\",\"kid\":\"a\",\"n\":\"AQAB\",\"e\":\"AQAB\"}]}",
               "RSA modulus of 17 bits");
    jwks_fails("{\"keys\":[{\"kty\":\"RSA\",\"n\":\"a+b\",\"e\":\"AQAB\"}]}", "\"n\" is not base64url");
    jwks_fails("{\"keys\":[{\"kty\":\"RSA\",\"e\":\"AQAB\"}]}", "\"n\" is missing");
    jwks_fails("{\"keys\":[1]}", "not an object");
    /* a point off the curve: flip a bit of y */
    char *y = strstr(e, "\"y\":\"") + 5;
    y[5] = y[5] == 'A' ? 'B' : 'A';
    snprintf(doc, sizeof doc, "{\"keys\":[%s]}", e);
    jwks_fails(doc, "not on curve P-256");
    jwks_fails("{\"keys\":[{\"kty\":\"EC\",\"crv\":\"P-256\",\"x\":\"AAAA\",\"y\":\"AAAA\"}]}",
               "32 bytes");
    free(e);
}

/* Expects oidc_jws_parse(token, RS256|ES256) to fail with want. */
static void jws_fails(const char *token, const char *want)
{
    struct oidc_jws j;
    assert_int_equal(oidc_jws_parse(token, OIDC_ALG_RS256 | OIDC_ALG_ES256, &j, err, sizeof err), -1);
    if (!strstr(err, want))
        fail_msg("\"%s\" lacks \"%s\"", err, want);
}

static void jws_parse_refuses_malformed(void **st)
{
    (void)st;
    /* {"alg":"RS256"} . {"a":1} */
    jws_fails("eyJhbGciOiJSUzI1NiJ9.eyJhIjoxfQ", "compact form");
    jws_fails("eyJhbGciOiJSUzI1NiJ9.eyJhIjoxfQ.AA.AA", "compact form");
    jws_fails("", "compact form");
    jws_fails("e30.eyJhIjoxfQ.AAAA", "no \"alg\"");
    jws_fails("eyJhbGciOiJub25lIn0.eyJhIjoxfQ.", "\"none\" is not allowed");
    jws_fails("eyJhbGciOiJIUzI1NiJ9.eyJhIjoxfQ.AAAA", "\"HS256\" is not allowed");
    jws_fails("eyJhbGciOiJSUzI1NiJ9.WzFd.AAAA", "payload is not");
    jws_fails("eyJhbGciOiJSUzI1NiJ9.eyJhIjoxfQ.", "signature is missing");
    jws_fails("eyJhbGciOiJSUzI1NiJ9=.eyJhIjoxfQ.AAAA", "header is not");
    /* {"alg":"RS256","crit":["exp"]} */
    jws_fails("eyJhbGciOiJSUzI1NiIsImNyaXQiOlsiZXhwIl19.eyJhIjoxfQ.AAAA", "crit");
    struct oidc_jws j;
    assert_int_equal(oidc_jws_parse("eyJhbGciOiJFUzI1NiJ9.eyJhIjoxfQ.AAAA", OIDC_ALG_RS256, &j,
                                    err, sizeof err), -1);
    assert_string_equal(err, "ID token algorithm \"ES256\" is not allowed");
}

/* Runs oidc_claims_check on claims JSON; returns err ("" when it passed). */
static const char *check(const char *claims, const char *nonce, long now)
{
    cJSON *c = cJSON_Parse(claims);
    const struct oidc_expect e = {.issuer = "https://idp", .client_id = "cube",
                                  .nonce = nonce, .skew_s = 60, .now = now};
    err[0] = '\0';
    int rc = oidc_claims_check(c, &e, err, sizeof err);
    cJSON_Delete(c);
    assert_true(rc == 0 ? err[0] == '\0' : err[0] != '\0');
    return err;
}

static void claims_are_checked(void **st)
{
    (void)st;
    const char *base = "\"iss\":\"https://idp\",\"sub\":\"s\",\"nonce\":\"n\",\"iat\":1000,\"exp\":1300";
    char c[512];
#define CLAIMS(...) (snprintf(c, sizeof c, __VA_ARGS__), c)
    assert_string_equal(check(CLAIMS("{%s,\"aud\":\"cube\"}", base), "n", 1100), "");
    assert_string_equal(check(CLAIMS("{%s,\"aud\":[\"cube\"]}", base), "n", 1100), "");
    assert_string_equal(check(CLAIMS("{%s,\"aud\":[\"cube\",\"x\"],\"azp\":\"cube\"}", base), "n", 1100), "");
    assert_string_equal(check(CLAIMS("{%s,\"aud\":[\"cube\",\"x\"]}", base), "n", 1100),
                        "ID token authorized party (azp) does not match");
    assert_string_equal(check(CLAIMS("{%s,\"aud\":\"cube\",\"azp\":\"x\"}", base), "n", 1100),
                        "ID token authorized party (azp) does not match");
    assert_string_equal(check(CLAIMS("{%s,\"aud\":[\"x\",\"y\"],\"azp\":\"cube\"}", base), "n", 1100),
                        "ID token audience does not match");
    assert_string_equal(check(CLAIMS("{%s,\"aud\":\"x\"}", base), "n", 1100),
                        "ID token audience does not match");
    assert_string_equal(check(CLAIMS("{%s,\"aud\":\"cube\"}", base), "m", 1100),
                        "ID token nonce does not match");
    assert_string_equal(check(CLAIMS("{%s,\"aud\":\"cube\"}", base), "n", 1360), "ID token has expired");
    assert_string_equal(check(CLAIMS("{%s,\"aud\":\"cube\"}", base), "n", 1359), ""); /* skew */
    assert_string_equal(check(CLAIMS("{%s,\"aud\":\"cube\"}", base), "n", 939),
                        "ID token is issued in the future (check the clocks)");
    assert_string_equal(check(CLAIMS("{%s,\"aud\":\"cube\",\"nbf\":1200}", base), "n", 1100),
                        "ID token is not valid yet (nbf)");
    assert_string_equal(check(CLAIMS("{%s,\"aud\":\"cube\",\"nbf\":1150}", base), "n", 1100), "");
    assert_string_equal(check("{\"iss\":\"https://idp/\",\"aud\":\"cube\"}", "n", 1100),
                        "ID token issuer does not match");
    assert_string_equal(check("{\"iss\":\"https://idp\",\"aud\":\"cube\",\"exp\":\"1300\",\"iat\":1000}",
                              "n", 1100), "ID token lacks a numeric \"exp\" or \"iat\"");
    assert_string_equal(check("{\"iss\":\"https://idp\",\"aud\":\"cube\",\"nonce\":\"n\",\"iat\":1000,"
                              "\"exp\":1300}", "n", 1100), "ID token has no subject (\"sub\")");
#undef CLAIMS
}

/* The identity of claims under config JSON cfg (free()), or NULL + err. */
static char *identity(const char *cfg, const char *claims)
{
    struct oidc_config c;
    assert_int_equal(oidc_config_load(cfg, &c, err, sizeof err), 0);
    cJSON *cl = cJSON_Parse(claims);
    char *id = oidc_identity_json(cl, &c, err, sizeof err);
    cJSON_Delete(cl);
    oidc_config_free(&c);
    return id;
}

static void claims_map_to_identity(void **st)
{
    (void)st;
    const char *cfg = "{\"issuer\":\"https://idp\",\"client_id\":\"c\",\"client_secret\":\"s\","
        "\"admin_values\":[\"ops-admins\"],\"project_roles\":["
        "{\"group\":\"vision\",\"project\":\"vision\",\"role\":\"viewer\"},"
        "{\"group\":\"vision-dev\",\"project\":\"vision\",\"role\":\"dev\"},"
        "{\"group\":\"nlp\",\"project\":\"nlp\",\"role\":\"creator\"}]}";
    char *id = identity(cfg, "{\"sub\":\"1\",\"preferred_username\":\"Alice\",\"name\":\"A L\","
                        "\"email\":\"a@x\",\"groups\":[\"vision\",\"ops-admins\",\"vision-dev\"]}");
    assert_string_equal(id, "{\"username\":\"Alice\",\"displayName\":\"A L\",\"email\":\"a@x\","
                            "\"role\":\"admin\",\"projects\":{\"vision\":\"dev\"}}");
    free(id);
    id = identity(cfg, "{\"sub\":\"1\",\"preferred_username\":\"bob\",\"groups\":\"nlp\"}");
    assert_string_equal(id, "{\"username\":\"bob\",\"role\":\"user\",\"projects\":{\"nlp\":\"creator\"}}");
    free(id);
    assert_null(identity(cfg, "{\"sub\":\"1\"}"));
    assert_non_null(strstr(err, "no \"preferred_username\" claim"));
    id = identity("{\"issuer\":\"https://idp\",\"client_id\":\"c\",\"client_secret\":\"s\","
                  "\"username_claim\":\"upn\",\"username_fallback_sub\":true,"
                  "\"roles_claim\":\"realm_access.roles\",\"admin_values\":[\"admin\"]}",
                  "{\"sub\":\"s-9\",\"realm_access\":{\"roles\":[\"admin\"]}}");
    assert_string_equal(id, "{\"username\":\"s-9\",\"role\":\"admin\"}");
    free(id);
}

static void pending_logins_are_bounded_and_single_use(void **st)
{
    (void)st;
    struct oidc_flow f;
    struct oidc_pending p[4], got;
    assert_int_equal(oidc_flow_init(&f, 3, 600), 0);
    for (int i = 0; i < 4; i++)
        assert_int_equal(oidc_flow_begin(&f, "bind", "/n", "http://r", 1000 + i, &p[i]), 0);
    assert_int_equal(oidc_flow_count(&f), 3);
    assert_int_equal(oidc_flow_take(&f, p[0].state, 1010, &got), -1); /* evicted: oldest */
    assert_int_equal(oidc_flow_take(&f, p[1].state, 1010, &got), 0);
    assert_string_equal(got.nonce, p[1].nonce);
    assert_string_equal(got.verifier, p[1].verifier);
    assert_string_equal(got.next, "/n");
    assert_string_not_equal(p[1].nonce, p[1].state);
    oidc_pending_clear(&got);
    assert_int_equal(oidc_flow_take(&f, p[1].state, 1010, &got), -1); /* used */
    assert_int_equal(oidc_flow_take(&f, p[2].state, 1602, &got), -1); /* expired */
    assert_int_equal(oidc_flow_take(&f, "short", 1010, &got), -1);
    assert_int_equal(oidc_flow_take(&f, NULL, 1010, &got), -1);
    assert_int_equal(oidc_flow_count(&f), 1);
    for (int i = 0; i < 4; i++)
        oidc_pending_clear(&p[i]);
    oidc_flow_fini(&f);
}

/* Expects oidc_config_load to fail naming want. */
static void config_fails(const char *json, const char *want)
{
    struct oidc_config c;
    assert_int_equal(oidc_config_load(json, &c, err, sizeof err), -1);
    if (!strstr(err, want))
        fail_msg("\"%s\" lacks \"%s\"", err, want);
}

static void config_is_checked(void **st)
{
    (void)st;
    struct oidc_config c;
    config_fails("{\"client_id\":\"c\"}", "issuer: required");
    config_fails("{\"issuer\":\"https://i\",\"client_id\":\"c\"}", "client_secret: required");
    config_fails("{\"issuer\":\"https://i\",\"client_id\":\"c\",\"client_secret_env\":\"OIDC_UNSET_X\"}",
                 "client_secret_env: environment variable OIDC_UNSET_X is not set");
    config_fails("{\"issuer\":\"https://i\",\"client_id\":\"c\",\"client_secret\":\"s\","
                 "\"scopes\":\"profile email\"}", "scopes: must include \"openid\"");
    config_fails("{\"issuer\":\"https://i\",\"client_id\":\"c\",\"client_secret\":\"s\","
                 "\"allowed_algs\":[]}", "allowed_algs");
    setenv("OIDC_TEST_SECRET", "from-env", 1);
    assert_int_equal(oidc_config_load("{\"issuer\":\"https://i\",\"client_id\":\"c\","
                                      "\"client_secret_env\":\"OIDC_TEST_SECRET\","
                                      "\"allowed_algs\":[\"ES256\"]}", &c, err, sizeof err), 0);
    assert_string_equal(c.client_secret, "from-env");
    assert_string_equal(c.name, "oidc");
    assert_int_equal(c.algs, OIDC_ALG_ES256);
    assert_int_equal(c.auth_method, OIDC_AUTH_BASIC);
    assert_int_equal(c.skew_s, 60);
    oidc_config_free(&c);
    assert_int_equal(oidc_config_load("{\"issuer\":\"https://i\",\"client_id\":\"c\","
                                      "\"token_endpoint_auth_method\":\"none\"}", &c, err, sizeof err), 0);
    assert_int_equal(c.auth_method, OIDC_AUTH_NONE);
    oidc_config_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(b64url_edge_cases),
        cmocka_unit_test(random_tokens_and_pkce),
        cmocka_unit_test(jwks_keeps_usable_keys),
        cmocka_unit_test(jwks_rejects_bad_keys),
        cmocka_unit_test(jws_parse_refuses_malformed),
        cmocka_unit_test(claims_are_checked),
        cmocka_unit_test(claims_map_to_identity),
        cmocka_unit_test(pending_logins_are_bounded_and_single_use),
        cmocka_unit_test(config_is_checked),
    };
    return cmocka_run_group_tests_name("sso-oidc units", tests, keys_setup, keys_teardown);
}
