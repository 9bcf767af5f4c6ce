/* oidc.h — the sso-oidc plugin's internal interfaces (not part of the ABI).
 *
 * One file per concern: b64url.c (base64url), http.c (the host's fetch), jwk.c (JWK
 * sets to OpenSSL keys), jws.c (JWS compact parsing and signatures),
 * claims.c (ID token claim checks), identity.c (claims to a Cube identity),
 * flow.c (pending logins), config.c (settings), discovery.c (discovery
 * document and key cache), token.c (code exchange), routes.c (login and
 * callback) and plugin.c (descriptor, init, fini).
 *
 * Error messages are written into caller-provided buffers of OIDC_ERR_LEN;
 * they never contain secrets, codes or tokens. */
#ifndef OIDC_H
#define OIDC_H

#include <pthread.h>
#include <stddef.h>
#include <time.h>

#include <cjson/cJSON.h>
#include <openssl/evp.h>

#include <cube/cube.h>

#define OIDC_ERR_LEN 256
/* 256 random bits in base64url: 43 characters and a NUL. */
#define OIDC_TOKEN_LEN 44

/* ---- b64url.c ------------------------------------------------------- */

/* Decodes unpadded base64url (s, len) into a new buffer (free()); NULL for
 * bad characters, impossible lengths or non-zero trailing bits. */
unsigned char *oidc_b64url_decode(const char *s, size_t len, size_t *out_len);
/* Encodes n bytes as unpadded base64url; a new string (free()) or NULL. */
char *oidc_b64url_encode(const unsigned char *p, size_t n);
/* Writes 256 random bits as base64url into out; 0, or -1 when the RNG fails. */
int oidc_random_token(char out[OIDC_TOKEN_LEN]);
/* Writes the PKCE S256 challenge of verifier into out; 0 or -1. */
int oidc_pkce_challenge(const char *verifier, char out[OIDC_TOKEN_LEN]);

/* ---- http.c --------------------------------------------------------- */

struct oidc_http_opts {
    const struct cube_host *host;   /* fetch runs through the host */
    cube_plugin *self;
    long timeout_s;      /* whole transfer */
    const char *ca_file; /* NULL: cube.yaml's egress.ca_file, else the system's */
};

struct oidc_http_resp {
    long status;
    char *body; /* NUL-terminated */
    size_t len;
};

/* GETs url (no redirects, at most 1 MiB) through the host's fetch, the
 * caller's thread waiting; 0 with *resp filled, or -1 with the reason in
 * err (an egress refusal names cube.yaml's egress.allow). */
int oidc_http_get(const struct oidc_http_opts *o, const char *url,
                  struct oidc_http_resp *resp, char *err, size_t errlen);
/* POSTs an application/x-www-form-urlencoded body, with HTTP Basic
 * credentials when user is not NULL; as oidc_http_get otherwise. */
int oidc_http_post_form(const struct oidc_http_opts *o, const char *url,
                        const char *form, const char *user, const char *pass,
                        struct oidc_http_resp *resp, char *err, size_t errlen);
void oidc_http_resp_free(struct oidc_http_resp *resp);
/* Percent-encodes everything but RFC 3986 unreserved characters; a new
 * string (free()) or NULL. */
char *oidc_url_escape(const char *s);

/* Copies s into out (size n) keeping printable ASCII, other bytes as '?',
 * cut to fit: for provider-supplied text shown in messages and logs. */
void oidc_printable(char *out, size_t n, const char *s);

/* ---- jwk.c ---------------------------------------------------------- */

enum oidc_alg { OIDC_ALG_RS256 = 1u, OIDC_ALG_ES256 = 2u };

struct oidc_jwk {
    char *kid;      /* or NULL */
    unsigned alg;   /* the enum oidc_alg the key serves */
    EVP_PKEY *pkey;
};

struct oidc_jwks {
    struct oidc_jwk *keys;
    size_t n;
};

/* The enum oidc_alg for a JWS "alg" name, or 0. */
unsigned oidc_alg_parse(const char *name);
/* Builds an RSA or EC P-256 public key from one JWK; NULL with err. */
EVP_PKEY *oidc_jwk_to_pkey(const cJSON *jwk, unsigned *alg, char *err, size_t errlen);
/* Parses a JWK Set document; keys of other types or uses are skipped. 0, or
 * -1 with err when the document or a supported key is malformed or no
 * usable key is left. */
int oidc_jwks_parse(const char *json, struct oidc_jwks *out, char *err, size_t errlen);
void oidc_jwks_free(struct oidc_jwks *set);
/* The key for (kid, alg), with a new reference (EVP_PKEY_free), or NULL.
 * Without a kid, only a set holding exactly one key for alg answers. */
EVP_PKEY *oidc_jwks_find(const struct oidc_jwks *set, const char *kid, unsigned alg);

/* ---- jws.c ---------------------------------------------------------- */

struct oidc_jws {
    cJSON *header, *payload;
    const char *input; /* signing input (header.payload), borrowed */
    size_t input_len;
    unsigned char *sig;
    size_t sig_len;
    unsigned alg;
    const char *kid; /* borrowed from header, or NULL */
};

/* Splits and decodes a compact JWS whose alg is in `allowed` (a mask of
 * enum oidc_alg); 0, or -1 with err ("none" and unknown algs refused). */
int oidc_jws_parse(const char *token, unsigned allowed, struct oidc_jws *out,
                   char *err, size_t errlen);
/* Checks the signature with key (which must suit jws->alg); 0 or -1 + err. */
int oidc_jws_verify(const struct oidc_jws *jws, EVP_PKEY *key, char *err, size_t errlen);
void oidc_jws_free(struct oidc_jws *jws);

/* ---- claims.c ------------------------------------------------------- */

struct oidc_expect {
    const char *issuer, *client_id, *nonce;
    long skew_s; /* allowed clock difference */
    time_t now;
};

/* Checks iss, aud, azp, exp, iat, nbf, nonce and sub; 0 or -1 with err. */
int oidc_claims_check(const cJSON *claims, const struct oidc_expect *e,
                      char *err, size_t errlen);

/* ---- config.c ------------------------------------------------------- */

struct oidc_project_role {
    char *group, *project, *role;
};

enum oidc_auth_method { OIDC_AUTH_BASIC, OIDC_AUTH_POST, OIDC_AUTH_NONE };

struct oidc_config {
    char *name, *display_name, *issuer, *client_id, *client_secret;
    char *redirect_uri, *scopes, *ca_file;
    int auth_method;         /* enum oidc_auth_method */
    unsigned algs;           /* mask of enum oidc_alg */
    long skew_s, timeout_s, pending_max, pending_ttl_s, jwks_refetch_s;
    char *username_claim;
    int username_fallback_sub;
    char *roles_claim, *groups_claim;
    char **admin_values;
    size_t n_admin;
    struct oidc_project_role *project_roles;
    size_t n_project_roles;
};

/* Reads the validated config (defaults applied by the host, applied again
 * here for the fake host); the secret may come from client_secret_env.
 * 0, or -1 with err naming the setting. */
int oidc_config_load(const char *json, struct oidc_config *c, char *err, size_t errlen);
void oidc_config_free(struct oidc_config *c);

/* ---- identity.c ----------------------------------------------------- */

/* Builds the identity JSON (see cube_auth.h) from verified claims; a new
 * string (free()) or NULL with err. */
char *oidc_identity_json(const cJSON *claims, const struct oidc_config *c,
                         char *err, size_t errlen);

/* ---- flow.c --------------------------------------------------------- */

struct oidc_pending {
    char state[OIDC_TOKEN_LEN], nonce[OIDC_TOKEN_LEN];
    char verifier[OIDC_TOKEN_LEN], binding[OIDC_TOKEN_LEN];
    char *next, *redirect_uri;
    time_t expires;
};

struct oidc_flow {
    pthread_mutex_t mu;
    struct oidc_pending *items;
    size_t n, max;
    long ttl_s;
};

/* Prepares an empty store of at most max logins living ttl_s; 0 or -1. */
int oidc_flow_init(struct oidc_flow *f, size_t max, long ttl_s);
void oidc_flow_fini(struct oidc_flow *f);
/* Starts a login: fresh state, nonce and verifier in *out (strings copied
 * for the caller: release with oidc_pending_clear); expired entries are
 * dropped and, when full, the oldest. 0 or -1. */
int oidc_flow_begin(struct oidc_flow *f, const char *binding, const char *next,
                    const char *redirect_uri, time_t now, struct oidc_pending *out);
/* Removes the login for state into *out; 0, or -1 when unknown or expired
 * (each state is usable once). */
int oidc_flow_take(struct oidc_flow *f, const char *state, time_t now,
                   struct oidc_pending *out);
/* Number of logins kept (tests). */
size_t oidc_flow_count(struct oidc_flow *f);
void oidc_pending_clear(struct oidc_pending *p);

/* ---- the plugin (discovery.c, token.c, routes.c, plugin.c) ----------- */

struct oidc {
    const struct cube_host *host;
    cube_plugin *self;
    struct oidc_config cfg;
    struct oidc_http_opts http;
    char *authorization_endpoint, *token_endpoint, *jwks_uri;
    pthread_mutex_t keys_mu; /* guards jwks and jwks_fetched */
    struct oidc_jwks jwks;
    time_t jwks_fetched;
    struct oidc_flow flow;
    char login_path[96], callback_path[96], cookie_name[64], cookie_path[96];
};

/* Fetches and checks the discovery document; 0 or -1 with err naming the
 * `issuer` setting. */
int oidc_discover(struct oidc *o, char *err, size_t errlen);
/* Fetches the JWK Set and replaces the cache; 0 or -1 with err. */
int oidc_jwks_refresh(struct oidc *o, char *err, size_t errlen);
/* The key for (kid, alg); refetches the JWK Set once when kid is unknown
 * and the last fetch is older than jwks_refetch_s. A new reference or NULL
 * with err. */
EVP_PKEY *oidc_signing_key(struct oidc *o, const char *kid, unsigned alg,
                           char *err, size_t errlen);
/* Exchanges code at the token endpoint and verifies the ID token against
 * pending p; *claims (cJSON_Delete) on 0, else -1 with err. */
int oidc_redeem(struct oidc *o, const char *code, const struct oidc_pending *p,
                cJSON **claims, char *err, size_t errlen);
/* Verifies an ID token (signature, then claims) for nonce at time now. */
int oidc_verify_id_token(struct oidc *o, const char *token, const char *nonce,
                         time_t now, cJSON **claims, char *err, size_t errlen);
/* The two public route handlers. */
int oidc_route_login(void *state, cube_req *req);
int oidc_route_callback(void *state, cube_req *req);

#endif
