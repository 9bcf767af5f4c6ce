/* http.c — the plugin's outgoing HTTP: GET (discovery, JWKS) and form POST
 * (token endpoint) with libcurl. One easy handle per call, so any thread may
 * call; no redirects are followed; bodies are capped at 1 MiB. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "oidc.h"

#define MAX_BODY (1u << 20)

struct sink {
    char *buf;
    size_t len;
    int too_big;
};

/* libcurl write callback: appends to the sink, refusing more than MAX_BODY. */
static size_t sink_write(char *data, size_t size, size_t n, void *arg)
{
    struct sink *s = arg;
    size_t add = size * n;
    if (s->len + add > MAX_BODY) {
        s->too_big = 1;
        return 0;
    }
    char *grown = realloc(s->buf, s->len + add + 1);
    if (!grown)
        return 0;
    memcpy(grown + s->len, data, add);
    s->buf = grown;
    s->len += add;
    s->buf[s->len] = '\0';
    return add;
}

/* Sets the options every request shares. */
static void common_opts(CURL *c, const struct oidc_http_opts *o, const char *url,
                        struct sink *s, char *curl_err)
{
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, o->timeout_s < 5 ? o->timeout_s : 5L);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, o->timeout_s);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, sink_write);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, s);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, curl_err);
    curl_easy_setopt(c, CURLOPT_USERAGENT, "cube-sso-oidc/1.0");
    if (o->ca_file && *o->ca_file)
        curl_easy_setopt(c, CURLOPT_CAINFO, o->ca_file);
}

/* Runs the prepared handle and fills resp; 0, or -1 with err. */
static int perform(CURL *c, struct sink *s, const char *curl_err,
                   struct oidc_http_resp *resp, char *err, size_t errlen)
{
    CURLcode rc = curl_easy_perform(c);
    if (rc != CURLE_OK) {
        if (s->too_big)
            snprintf(err, errlen, "response larger than %u bytes", MAX_BODY);
        else
            snprintf(err, errlen, "%s", curl_err[0] ? curl_err : curl_easy_strerror(rc));
        free(s->buf);
        return -1;
    }
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &resp->status);
    resp->body = s->buf ? s->buf : calloc(1, 1);
    resp->len = s->len;
    if (!resp->body) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return 0;
}

int oidc_http_get(const struct oidc_http_opts *o, const char *url,
                  struct oidc_http_resp *resp, char *err, size_t errlen)
{
    struct sink s = {0};
    char curl_err[CURL_ERROR_SIZE] = "";
    memset(resp, 0, sizeof *resp);
    CURL *c = curl_easy_init();
    if (!c) {
        snprintf(err, errlen, "cannot create a libcurl handle");
        return -1;
    }
    struct curl_slist *hdrs = curl_slist_append(NULL, "Accept: application/json");
    common_opts(c, o, url, &s, curl_err);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
    int rc = perform(c, &s, curl_err, resp, err, errlen);
    curl_slist_free_all(hdrs);
    curl_easy_cleanup(c);
    return rc;
}

int oidc_http_post_form(const struct oidc_http_opts *o, const char *url,
                        const char *form, const char *user, const char *pass,
                        struct oidc_http_resp *resp, char *err, size_t errlen)
{
    struct sink s = {0};
    char curl_err[CURL_ERROR_SIZE] = "";
    memset(resp, 0, sizeof *resp);
    CURL *c = curl_easy_init();
    if (!c) {
        snprintf(err, errlen, "cannot create a libcurl handle");
        return -1;
    }
    struct curl_slist *hdrs = curl_slist_append(NULL, "Accept: application/json");
    hdrs = curl_slist_append(hdrs, "Content-Type: application/x-www-form-urlencoded");
    common_opts(c, o, url, &s, curl_err);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, form);
    if (user) {
        curl_easy_setopt(c, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
        curl_easy_setopt(c, CURLOPT_USERNAME, user);
        curl_easy_setopt(c, CURLOPT_PASSWORD, pass ? pass : "");
    }
    int rc = perform(c, &s, curl_err, resp, err, errlen);
    curl_slist_free_all(hdrs);
    curl_easy_cleanup(c);
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
