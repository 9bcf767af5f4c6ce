/* token.c — the authorization code exchange at the token endpoint
 * (client_secret_basic, client_secret_post or none, plus the PKCE
 * code_verifier) and the ID token verification that follows it. The form,
 * the answer and the tokens are wiped from memory after use. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "oidc.h"

/* Appends "&key=<escaped value>" (no '&' first) to buf; -1 when it does
 * not fit or memory runs out. */
static int add_field(char *buf, size_t cap, const char *key, const char *value)
{
    char *v = oidc_url_escape(value);
    size_t have = strlen(buf);
    int n = v ? snprintf(buf + have, cap - have, "%s%s=%s", have ? "&" : "", key, v) : -1;
    if (v)
        OPENSSL_cleanse(v, strlen(v));
    free(v);
    return n < 0 || (size_t)n >= cap - have ? -1 : 0;
}

/* The token request's form body; a new string (cleanse and free) or NULL. */
static char *token_form(const struct oidc *o, const char *code, const struct oidc_pending *p)
{
    size_t cap = strlen(code) * 3 + strlen(p->redirect_uri) * 3 + strlen(o->cfg.client_id) * 3 +
                 (o->cfg.client_secret ? strlen(o->cfg.client_secret) * 3 : 0) + 256;
    char *f = calloc(1, cap);
    if (!f || add_field(f, cap, "grant_type", "authorization_code") < 0 ||
        add_field(f, cap, "code", code) < 0 ||
        add_field(f, cap, "redirect_uri", p->redirect_uri) < 0 ||
        add_field(f, cap, "code_verifier", p->verifier) < 0 ||
        (o->cfg.auth_method != OIDC_AUTH_BASIC &&
         add_field(f, cap, "client_id", o->cfg.client_id) < 0) ||
        (o->cfg.auth_method == OIDC_AUTH_POST &&
         add_field(f, cap, "client_secret", o->cfg.client_secret) < 0)) {
        if (f)
            OPENSSL_cleanse(f, cap);
        free(f);
        return NULL;
    }
    return f;
}

/* Posts the form with the configured client authentication. */
static int post_token(struct oidc *o, const char *form, struct oidc_http_resp *r,
                      char *err, size_t errlen)
{
    if (o->cfg.auth_method != OIDC_AUTH_BASIC)
        return oidc_http_post_form(&o->http, o->token_endpoint, form, NULL, NULL, r, err, errlen);
    /* RFC 6749 §2.3.1: both are form-urlencoded before Basic encoding. */
    char *user = oidc_url_escape(o->cfg.client_id);
    char *pass = oidc_url_escape(o->cfg.client_secret);
    int rc = -1;
    if (user && pass)
        rc = oidc_http_post_form(&o->http, o->token_endpoint, form, user, pass, r, err, errlen);
    else
        snprintf(err, errlen, "out of memory");
    if (pass)
        OPENSSL_cleanse(pass, strlen(pass));
    free(user);
    free(pass);
    return rc;
}

/* Describes a refused exchange from the endpoint's error answer. */
static void token_refusal(const struct oidc_http_resp *r, const cJSON *doc,
                          char *err, size_t errlen)
{
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(doc, "error");
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(doc, "error_description");
    char code[64], desc[160];
    if (!cJSON_IsString(e)) {
        snprintf(err, errlen, "the token endpoint answered HTTP %ld", r->status);
        return;
    }
    oidc_printable(code, sizeof code, e->valuestring);
    oidc_printable(desc, sizeof desc, cJSON_IsString(d) ? d->valuestring : "");
    snprintf(err, errlen, "the token endpoint refused the code: %s%s%s", code,
             desc[0] ? ": " : "", desc);
}

int oidc_verify_id_token(struct oidc *o, const char *token, const char *nonce,
                         time_t now, cJSON **claims, char *err, size_t errlen)
{
    struct oidc_jws jws;
    *claims = NULL;
    if (oidc_jws_parse(token, o->cfg.algs, &jws, err, errlen) < 0)
        return -1;
    EVP_PKEY *key = oidc_signing_key(o, jws.kid, jws.alg, err, errlen);
    const struct oidc_expect e = {.issuer = o->cfg.issuer, .client_id = o->cfg.client_id,
                                  .nonce = nonce, .skew_s = o->cfg.skew_s, .now = now};
    int rc = -1;
    if (key && oidc_jws_verify(&jws, key, err, errlen) == 0 &&
        oidc_claims_check(jws.payload, &e, err, errlen) == 0) {
        *claims = jws.payload;
        jws.payload = NULL;
        rc = 0;
    }
    EVP_PKEY_free(key);
    oidc_jws_free(&jws);
    return rc;
}

int oidc_redeem(struct oidc *o, const char *code, const struct oidc_pending *p,
                cJSON **claims, char *err, size_t errlen)
{
    char why[OIDC_ERR_LEN];
    struct oidc_http_resp r = {0};
    cJSON *doc = NULL;
    int rc = -1;
    *claims = NULL;
    char *form = token_form(o, code, p);
    if (!form) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int sent = post_token(o, form, &r, why, sizeof why);
    OPENSSL_cleanse(form, strlen(form));
    free(form);
    if (sent < 0) {
        snprintf(err, errlen, "cannot reach the token endpoint: %s", why);
        return -1;
    }
    doc = cJSON_Parse(r.body);
    const cJSON *idt = cJSON_GetObjectItemCaseSensitive(doc, "id_token");
    if (r.status != 200)
        token_refusal(&r, doc, err, errlen);
    else if (!cJSON_IsString(idt))
        snprintf(err, errlen, "the token endpoint answered without an id_token");
    else
        rc = oidc_verify_id_token(o, idt->valuestring, p->nonce, time(NULL), claims, err, errlen);
    if (cJSON_IsString(idt))
        OPENSSL_cleanse(idt->valuestring, strlen(idt->valuestring));
    cJSON_Delete(doc);
    OPENSSL_cleanse(r.body, r.len);
    oidc_http_resp_free(&r);
    return rc;
}
