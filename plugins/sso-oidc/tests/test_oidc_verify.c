/* test_oidc_verify.c — ID token verification inside an initialised plugin
 * (fake host, fake provider over loopback HTTP), with keys and tokens made
 * here: RS256 and ES256 pass; tampering, wrong aud/iss/nonce, expiry,
 * "none", HS256 and unknown keys fail with their message; key rotation
 * refetches the JWK Set, at most once per interval. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cube_mock.h"
#include "fakeidp.h"
#include "oidc.h"
#include "testkeys.h"

const struct cube_plugin_desc *cube_plugin_sso_oidc(void);

static struct fakeidp idp;
static struct tk_key rsa, ec, rsa2;
static struct oidc *o;
static char err[OIDC_ERR_LEN];
static long now;

static int group_setup(void **st)
{
    (void)st;
    if (tk_generate(&rsa, OIDC_ALG_RS256, "r1") || tk_generate(&ec, OIDC_ALG_ES256, "e1") ||
        tk_generate(&rsa2, OIDC_ALG_RS256, "r2") || fakeidp_start(&idp))
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
    tk_free(&rsa2);
    return 0;
}

/* Initialises the plugin with `extra` config members (",\"k\":v" or ""). */
static int init_with(const char *extra)
{
    char cfg[1024];
    void *state = NULL;
    snprintf(cfg, sizeof cfg, "{\"issuer\":\"%s\",\"client_id\":\"cube\","
             "\"client_secret\":\"s3cret\",\"redirect_uri\":\"http://cube/cb\"%s}", idp.issuer, extra);
    int rc = cube_mock_init(cube_plugin_sso_oidc(), cfg, &state);
    o = state;
    now = (long)time(NULL);
    return rc;
}

static int setup(void **st)
{
    (void)st;
    return init_with("");
}

static int teardown(void **st)
{
    (void)st;
    cube_mock_reset(cube_plugin_sso_oidc(), o);
    o = NULL;
    return 0;
}

/* Verifies token for nonce "n-1"; returns "" or the error. Frees token. */
static const char *verify(char *token)
{
    cJSON *claims = NULL;
    err[0] = '\0';
    int rc = oidc_verify_id_token(o, token, "n-1", (time_t)now, &claims, err, sizeof err);
    assert_true(rc == 0 ? claims != NULL && err[0] == '\0' : claims == NULL && err[0] != '\0');
    cJSON_Delete(claims);
    free(token);
    return err;
}

/* A token signed by k with standard claims plus extra. */
static char *token(const struct tk_key *k, const char *extra)
{
    char *c = tk_claims(idp.issuer, "\"cube\"", "n-1", now, extra);
    char *t = tk_token(k, c);
    free(c);
    return t;
}

static void good_tokens_verify(void **st)
{
    (void)st;
    assert_string_equal(verify(token(&rsa, "")), "");
    assert_string_equal(verify(token(&ec, "")), "");
    char *c = tk_claims(idp.issuer, "[\"other\",\"cube\"]", "n-1", now, ",\"azp\":\"cube\"");
    assert_string_equal(verify(tk_token(&ec, c)), "");
    free(c);
}

static void tampered_tokens_fail(void **st)
{
    (void)st;
    /* payload swapped for one with another subject, signature kept */
    char *t = token(&rsa, ""), *c = tk_claims(idp.issuer, "\"cube\"", "n-1", now, "");
    char *sub = strstr(c, "u-1");
    sub[2] = '2';
    char *p = oidc_b64url_encode((const unsigned char *)c, strlen(c));
    char *d1 = strchr(t, '.'), *d2 = strchr(d1 + 1, '.');
    char *forged = malloc(strlen(t) + strlen(p) + 2);
    sprintf(forged, "%.*s.%s%s", (int)(d1 - t), t, p, d2);
    assert_string_equal(verify(forged), "ID token signature is invalid");
    free(t);
    free(p);
    free(c);
    /* a flipped signature bit, for both algorithms */
    for (int i = 0; i < 2; i++) {
        t = token(i ? &ec : &rsa, "");
        char *s = strrchr(t, '.') + 3;
        *s = *s == 'A' ? 'B' : 'A';
        assert_string_equal(verify(t), "ID token signature is invalid");
    }
    /* an ES256 signature in DER instead of raw r||s is refused */
    t = token(&ec, "");
    *strrchr(t, '.') = '\0';
    unsigned char der[70] = {0x30, 0x44, 0x02, 0x20, [36] = 0x02, [37] = 0x20};
    char *b = oidc_b64url_encode(der, sizeof der), *bad = malloc(strlen(t) + strlen(b) + 2);
    sprintf(bad, "%s.%s", t, b);
    free(t);
    free(b);
    assert_string_equal(verify(bad), "ID token signature is invalid");
}

static void claims_mismatches_fail(void **st)
{
    (void)st;
    char *c = tk_claims(idp.issuer, "\"someone-else\"", "n-1", now, "");
    assert_string_equal(verify(tk_token(&rsa, c)), "ID token audience does not match");
    free(c);
    c = tk_claims(idp.issuer, "\"cube\"", "n-2", now, "");
    assert_string_equal(verify(tk_token(&ec, c)), "ID token nonce does not match");
    free(c);
    c = tk_claims("https://evil.example", "\"cube\"", "n-1", now, "");
    assert_string_equal(verify(tk_token(&rsa, c)), "ID token issuer does not match");
    free(c);
    c = tk_claims(idp.issuer, "\"cube\"", "n-1", now - 1000, ""); /* exp = now - 700 */
    assert_string_equal(verify(tk_token(&rsa, c)), "ID token has expired");
    free(c);
    c = tk_claims(idp.issuer, "[\"cube\",\"x\"]", "n-1", now, "");
    assert_string_equal(verify(tk_token(&rsa, c)), "ID token authorized party (azp) does not match");
    free(c);
}

static void unexpected_algorithms_fail(void **st)
{
    (void)st;
    char *c = tk_claims(idp.issuer, "\"cube\"", "n-1", now, "");
    char *p = oidc_b64url_encode((const unsigned char *)c, strlen(c)), t[4096];
    snprintf(t, sizeof t, "eyJhbGciOiJub25lIn0.%s.", p); /* {"alg":"none"} */
    assert_string_equal(verify(strdup(t)), "ID token algorithm \"none\" is not allowed");
    snprintf(t, sizeof t, "eyJhbGciOiJub25lIn0.%s.AAAA", p);
    assert_string_equal(verify(strdup(t)), "ID token algorithm \"none\" is not allowed");
    /* HS256 "signed" with the RSA public key as the secret: the classic confusion */
    assert_string_equal(verify(tk_sign(&rsa, "{\"alg\":\"HS256\",\"kid\":\"r1\"}", c)),
                        "ID token algorithm \"HS256\" is not allowed");
    /* RS256 header on an EC key id: no RS256 key is called e1 */
    char *t2 = tk_sign(&ec, "{\"alg\":\"RS256\",\"kid\":\"e1\"}", c);
    assert_string_equal(verify(t2), "ID token signing key (kid \"e1\") is unknown");
    free(p);
    free(c);
}

static void configured_algorithms_only(void **st)
{
    (void)st;
    teardown(st);
    assert_int_equal(init_with(",\"allowed_algs\":[\"RS256\"]"), CUBE_OK);
    assert_string_equal(verify(token(&rsa, "")), "");
    assert_string_equal(verify(token(&ec, "")), "ID token algorithm \"ES256\" is not allowed");
}

static void unknown_kid_refetches_keys_once(void **st)
{
    (void)st;
    int hits = idp.jwks_hits;
    assert_string_equal(verify(token(&rsa2, "")), "ID token signing key (kid \"r2\") is unknown");
    assert_int_equal(idp.jwks_hits, hits + 1); /* it looked */
    const struct tk_key *keys[] = {&ec, &rsa2};  /* rotation: r1 retired, r2 added */
    char *jwks = tk_jwks(keys, 2);
    fakeidp_set(&idp, "jwks", 200, jwks);
    free(jwks);
    assert_string_equal(verify(token(&rsa2, "")), "ID token signing key (kid \"r2\") is unknown");
    assert_int_equal(idp.jwks_hits, hits + 1); /* rate limited */
    o->jwks_fetched -= o->cfg.jwks_refetch_s; /* the interval passes */
    assert_string_equal(verify(token(&rsa2, "")), "");
    assert_int_equal(idp.jwks_hits, hits + 2);
    assert_string_equal(verify(token(&rsa, "")), "ID token signing key (kid \"r1\") is unknown");
    assert_int_equal(idp.jwks_hits, hits + 2);
    const struct tk_key *back[] = {&rsa, &ec};
    jwks = tk_jwks(back, 2);
    fakeidp_set(&idp, "jwks", 200, jwks);
    free(jwks);
}

static void bad_refetch_keeps_old_keys(void **st)
{
    (void)st;
    fakeidp_set(&idp, "jwks", 200, "{\"keys\":\"garbage\"}");
    assert_string_equal(verify(token(&rsa2, "")), "ID token signing key (kid \"r2\") is unknown");
    assert_non_null(strstr(cube_mock_last_log(), "bad JWK Set"));
    assert_string_equal(verify(token(&rsa, "")), "");
    const struct tk_key *back[] = {&rsa, &ec};
    char *jwks = tk_jwks(back, 2);
    fakeidp_set(&idp, "jwks", 200, jwks);
    free(jwks);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(good_tokens_verify, setup, teardown),
        cmocka_unit_test_setup_teardown(tampered_tokens_fail, setup, teardown),
        cmocka_unit_test_setup_teardown(claims_mismatches_fail, setup, teardown),
        cmocka_unit_test_setup_teardown(unexpected_algorithms_fail, setup, teardown),
        cmocka_unit_test_setup_teardown(configured_algorithms_only, setup, teardown),
        cmocka_unit_test_setup_teardown(unknown_kid_refetches_keys_once, setup, teardown),
        cmocka_unit_test_setup_teardown(bad_refetch_keeps_old_keys, setup, teardown),
    };
    return cmocka_run_group_tests_name("sso-oidc ID token verification", tests,
                                       group_setup, group_teardown);
}
