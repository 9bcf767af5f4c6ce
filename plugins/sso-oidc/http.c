/* http.c — the plugin's outgoing HTTP: GET (discovery, JWKS) and form POST
 * (token endpoint) through the host's fetch (ABI 1.5), so TLS, the proxy and
 * cube.yaml's egress allow-list are the platform's. The caller's thread
 * waits for the answer (init, or a login's HTTP thread: the flow needs it
 * before it can answer); the network wait itself holds no host worker. No
 * redirects are followed; bodies are capped at 1 MiB. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/evp.h>

#include "oidc.h"

#define MAX_BODY (1u << 20)

/* One fetch's outcome, filled by done on a host worker. */
struct wait {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int finished, error;
    long status;
    char *body;
    size_t len;
    char msg[256];
};

static void on_done(void *state, void *arg, const struct cube_fetch_result *r)
{
    (void)state;
    struct wait *w = arg;
    pthread_mutex_lock(&w->mu);
    w->error = r->error;
    w->status = r->status;
    snprintf(w->msg, sizeof w->msg, "%s", r->message ? r->message : "");
    if (r->error == CUBE_OK && (w->body = malloc(r->body_len + 1))) {
        memcpy(w->body, r->body, r->body_len);
        w->body[r->body_len] = '\0';
        w->len = r->body_len;
    } else if (r->error == CUBE_OK) {
        w->error = CUBE_ENOMEM;
    }
    w->finished = 1;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
}

/* Why the fetch failed, for the log and the login error. */
static void describe(const struct wait *w, char *err, size_t errlen)
{
    if (w->error == CUBE_ETOOBIG)
        snprintf(err, errlen, "response larger than %u bytes", MAX_BODY);
    else if (w->error == CUBE_EPERM)
        snprintf(err, errlen, "%s (cube.yaml's egress.allow must admit the identity "
                 "provider)", w->msg);
    else if (w->error == CUBE_ENOMEM)
        snprintf(err, errlen, "out of memory");
    else
        snprintf(err, errlen, "%s", w->msg[0] ? w->msg : "the request failed");
}

/* Runs one fetch to its end; 0 with resp filled, or -1 with err. */
static int run(const struct oidc_http_opts *o, const char *method, const char *url,
               const char *const *headers, const char *body, struct oidc_http_resp *resp,
               char *err, size_t errlen)
{
    struct wait w = {.finished = 0};
    pthread_mutex_init(&w.mu, NULL);
    pthread_cond_init(&w.cv, NULL);
    const struct cube_fetch_desc d = {
        .size = sizeof d, .method = method, .url = url, .headers = headers,
        .body = body, .body_len = body ? strlen(body) : 0,
        .timeout_ms = (uint32_t)(o->timeout_s * 1000), .max_bytes = MAX_BODY,
        .max_redirects = CUBE_FETCH_NO_REDIRECTS, .done = on_done, .arg = &w,
        .ca_file = o->ca_file,
    };
    int rc = CUBE_OK;
    uint64_t id = o->host->fetch(o->self, &d, &rc);
    if (!id) {
        snprintf(err, errlen, "cannot start the request (%d)", rc);
        pthread_cond_destroy(&w.cv);
        pthread_mutex_destroy(&w.mu);
        return -1;
    }
    /* The fetch ends within its timeout; the margin covers a host that
     * stops meanwhile and cancels it (then done never runs). */
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += o->timeout_s + 5;
    pthread_mutex_lock(&w.mu);
    while (!w.finished && pthread_cond_timedwait(&w.cv, &w.mu, &until) == 0)
        ;
    int finished = w.finished;
    pthread_mutex_unlock(&w.mu);
    if (!finished && o->host->fetch_cancel(o->self, id) == CUBE_OK) {
        w.error = CUBE_ETIMEDOUT;
        snprintf(w.msg, sizeof w.msg, "no answer within %ld s", o->timeout_s);
    }
    /* fetch_cancel's CUBE_ENOTFOUND: done ran meanwhile (w is complete). */
    pthread_cond_destroy(&w.cv);
    pthread_mutex_destroy(&w.mu);
    if (w.error != CUBE_OK) {
        describe(&w, err, errlen);
        free(w.body);
        return -1;
    }
    resp->status = w.status;
    resp->body = w.body;
    resp->len = w.len;
    return 0;
}

int oidc_http_get(const struct oidc_http_opts *o, const char *url,
                  struct oidc_http_resp *resp, char *err, size_t errlen)
{
    static const char *const headers[] = {"Accept: application/json", NULL};
    memset(resp, 0, sizeof *resp);
    return run(o, "GET", url, headers, NULL, resp, err, errlen);
}

/* "Authorization: Basic base64(user:pass)" into out (RFC 7617). */
static int basic_auth(const char *user, const char *pass, char *out, size_t len)
{
    char creds[1024];
    int n = snprintf(creds, sizeof creds, "%s:%s", user, pass ? pass : "");
    size_t head = strlen("Authorization: Basic ");
    if (n < 0 || (size_t)n >= sizeof creds || head + 4 * (((size_t)n + 2) / 3) + 1 > len)
        return -1;
    memcpy(out, "Authorization: Basic ", head);
    EVP_EncodeBlock((unsigned char *)out + head, (const unsigned char *)creds, n);
    OPENSSL_cleanse(creds, sizeof creds);
    return 0;
}

int oidc_http_post_form(const struct oidc_http_opts *o, const char *url,
                        const char *form, const char *user, const char *pass,
                        struct oidc_http_resp *resp, char *err, size_t errlen)
{
    char auth[1500];
    const char *headers[] = {"Accept: application/json",
                             "Content-Type: application/x-www-form-urlencoded", NULL, NULL};
    memset(resp, 0, sizeof *resp);
    if (user) {
        if (basic_auth(user, pass, auth, sizeof auth) < 0) {
            snprintf(err, errlen, "client_id and client_secret are too long");
            return -1;
        }
        headers[2] = auth;
    }
    int rc = run(o, "POST", url, headers, form, resp, err, errlen);
    if (user)
        OPENSSL_cleanse(auth, sizeof auth);
    return rc;
}

void oidc_http_resp_free(struct oidc_http_resp *resp)
{
    free(resp->body);
    memset(resp, 0, sizeof *resp);
}

char *oidc_url_escape(const char *s)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t n = strlen(s);
    char *out = malloc(n * 3 + 1);
    if (!out)
        return NULL;
    size_t o = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
            (*p >= '0' && *p <= '9') || strchr("-._~", *p)) {
            out[o++] = (char)*p;
        } else {
            out[o++] = '%';
            out[o++] = hex[*p >> 4];
            out[o++] = hex[*p & 15];
        }
    }
    out[o] = '\0';
    return out;
}

void oidc_printable(char *out, size_t n, const char *s)
{
    size_t o = 0;
    for (; s && *s && o + 1 < n; s++)
        out[o++] = (*s >= 0x20 && *s < 0x7f) ? *s : '?';
    if (n)
        out[o] = '\0';
}
