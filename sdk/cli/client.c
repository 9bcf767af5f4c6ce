/* client.c — see client.h. */
#include "client.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef CUBECTL_VERSION
#define CUBECTL_VERSION "dev"
#endif

#define CONNECT_TIMEOUT_S 10L
#define REQUEST_TIMEOUT_S 120L   /* plain requests; streams have none */

struct sink {
    struct http_client *c;
    struct http_resp *resp;
    http_chunk_fn fn;     /* NULL: collect everything into resp->body */
    void *ud;
    int stopped;          /* fn asked to stop */
};

int http_client_init(struct http_client *c, const char *server,
                     const char *token, int verbose)
{
    memset(c, 0, sizeof *c);
    c->server = strdup(server);
    c->token = token && *token ? strdup(token) : NULL;
    c->verbose = verbose;
    c->curl = curl_easy_init();
    if (!c->server || (token && *token && !c->token) || !c->curl) {
        http_client_cleanup(c);
        return -1;
    }
    size_t n = strlen(c->server);
    while (n > 0 && c->server[n - 1] == '/')
        c->server[--n] = '\0';
    return 0;
}

void http_client_cleanup(struct http_client *c)
{
    if (c->curl)
        curl_easy_cleanup(c->curl);
    free(c->server);
    free(c->token);
    memset(c, 0, sizeof *c);
}

void http_resp_free(struct http_resp *resp)
{
    buf_free(&resp->body);
    memset(resp, 0, sizeof *resp);
}

static size_t on_body(char *data, size_t size, size_t nmemb, void *ud)
{
    struct sink *s = ud;
    size_t n = size * nmemb;
    long status = 0;
    curl_easy_getinfo(s->c->curl, CURLINFO_RESPONSE_CODE, &status);
    if (!s->fn || status < 200 || status > 299)
        return buf_add(&s->resp->body, data, n) ? 0 : n;
    if (s->fn(s->ud, data, n)) {
        s->stopped = 1;
        return 0;   /* makes libcurl end the transfer */
    }
    return n;
}

static struct curl_slist *headers_for(const struct http_client *c,
                                      const char *accept, const char *ctype,
                                      int expect)
{
    char line[4096];
    struct curl_slist *h = NULL;
    snprintf(line, sizeof line, "Accept: %s", accept);
    h = curl_slist_append(h, line);
    if (c->token) {
        snprintf(line, sizeof line, "Authorization: Bearer %s", c->token);
        h = curl_slist_append(h, line);
    }
    if (ctype) {
        snprintf(line, sizeof line, "Content-Type: %s", ctype);
        h = curl_slist_append(h, line);
    }
    /* no 100-continue round trip before bodies, but for uploads: there
     * the server may refuse (413) before the body is sent */
    return curl_slist_append(h, expect ? "Expect: 100-continue" : "Expect:");
}

static void set_method(CURL *curl, const char *method, const char *body)
{
    if (body) {
        curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body);
        curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(body));
    }
    if (strcmp(method, "GET") && strcmp(method, "POST") && strcmp(method, "HEAD"))
        curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method);
    else if (!strcmp(method, "POST") && !body)
        curl_easy_setopt(curl, CURLOPT_POSTFIELDS, "");
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void set_common(struct http_client *c, const char *url,
                       struct curl_slist *h, struct sink *s)
{
    CURL *curl = c->curl;
    curl_easy_reset(curl);   /* keeps the open connection */
    curl_easy_setopt(curl, CURLOPT_URL, url);
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(curl, CURLOPT_USERAGENT, "cubectl/" CUBECTL_VERSION);
    curl_easy_setopt(curl, CURLOPT_ACCEPT_ENCODING, "");
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, s);
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, c->errbuf);
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, CONNECT_TIMEOUT_S);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_TCP_KEEPALIVE, 1L);
    c->errbuf[0] = '\0';
}

/* One transfer's inputs. */
struct req {
    const char *method, *path, *ctype, *body, *accept;
    long idle_s;   /* streams: end when silent this long; 0 = never */
    FILE *upload;  /* a body read from here (PUT), or NULL */
    long long upload_size;  /* < 0: unknown */
    int head;      /* HEAD: no body */
    int transfer;  /* no overall time limit (uploads) */
};

static size_t on_read(char *buf, size_t size, size_t nmemb, void *ud)
{
    FILE *f = ud;
    size_t n = fread(buf, 1, size * nmemb, f);
    return n == 0 && ferror(f) ? CURL_READFUNC_ABORT : n;
}

/* A PUT body from a file, or a HEAD. */
static void set_body_source(CURL *curl, const struct req *r)
{
    if (r->head)
        curl_easy_setopt(curl, CURLOPT_NOBODY, 1L);
    if (!r->upload)
        return;
    curl_easy_setopt(curl, CURLOPT_UPLOAD, 1L);
    curl_easy_setopt(curl, CURLOPT_READFUNCTION, on_read);
    curl_easy_setopt(curl, CURLOPT_READDATA, r->upload);
    if (r->upload_size >= 0)
        curl_easy_setopt(curl, CURLOPT_INFILESIZE_LARGE, (curl_off_t)r->upload_size);
}

static void set_limits(CURL *curl, const struct sink *s, const struct req *r)
{
    if (!s->fn && !r->transfer)
        curl_easy_setopt(curl, CURLOPT_TIMEOUT, REQUEST_TIMEOUT_S);
    if (r->idle_s > 0) {
        curl_easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
        curl_easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, r->idle_s);
    }
}

/* Runs one transfer. Returns 0 once a response began, or -1 (printed). */
static int perform(struct http_client *c, const struct req *r, struct sink *s)
{
    char *url = NULL;
    if (asprintf(&url, "%s%s", c->server, r->path) < 0) {
        fprintf(stderr, "error: out of memory\n");
        return -1;
    }
    struct curl_slist *h = headers_for(c, r->accept, r->ctype, r->upload != NULL);
    set_common(c, url, h, s);
    set_method(c->curl, r->method, r->body);
    set_body_source(c->curl, r);
    set_limits(c->curl, s, r);
    if (c->verbose)
        fprintf(stderr, "> %s %s%s\n", r->method, url,
                r->body || r->upload ? " (with body)" : "");
    double t0 = now_ms();
    CURLcode rc = curl_easy_perform(c->curl);
    curl_easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, &s->resp->status);
    if (c->verbose)
        fprintf(stderr, "< %ld %s (%.0f ms)\n", s->resp->status, url, now_ms() - t0);
    const char *why = c->errbuf[0] ? c->errbuf : curl_easy_strerror(rc);
    int ret = 0;
    if (rc != CURLE_OK && !s->stopped && s->resp->status == 0) {
        fprintf(stderr, "error: cannot reach %s: %s\n", url, why);
        ret = -1;
    } else if (rc != CURLE_OK && !s->stopped) {
        snprintf(s->resp->broken, sizeof s->resp->broken, "%s", why);
    }
    curl_slist_free_all(h);
    free(url);
    return ret;
}

int http_do(struct http_client *c, const char *method, const char *path,
            const char *ctype, const char *body, struct http_resp *resp)
{
    struct sink s = {.c = c, .resp = resp};
    struct req r = {method, path, ctype, body, "application/json", 0, NULL, 0, 0, 0};
    memset(resp, 0, sizeof *resp);
    if (perform(c, &r, &s))
        return -1;
    if (resp->broken[0]) {
        fprintf(stderr, "error: %s %s%s: %s\n", method, c->server, path,
                resp->broken);
        return -1;
    }
    return 0;
}

int http_stream(struct http_client *c, const char *path, const char *accept,
                long idle_s, http_chunk_fn fn, void *ud, struct http_resp *resp)
{
    struct sink s = {.c = c, .resp = resp, .fn = fn, .ud = ud};
    struct req r = {"GET", path, NULL, NULL, accept, idle_s, NULL, 0, 0, 0};
    memset(resp, 0, sizeof *resp);
    return perform(c, &r, &s);
}

int http_upload(struct http_client *c, const char *path, FILE *f, long long size,
                long idle_s, struct http_resp *resp)
{
    struct sink s = {.c = c, .resp = resp};
    struct req r = {"PUT", path, "application/octet-stream", NULL, "application/json",
                    idle_s, f, size, 0, 1};
    memset(resp, 0, sizeof *resp);
    if (perform(c, &r, &s))
        return -1;
    /* a refusal may close the connection while the body is still going:
     * then the server's answer says more than the broken transfer */
    if (resp->broken[0] && (resp->status < 300 || !resp->body.len)) {
        fprintf(stderr, "error: PUT %s%s: %s\n", c->server, path, resp->broken);
        return -1;
    }
    return 0;
}

int http_head(struct http_client *c, const char *path, struct http_resp *resp,
              char *ctype, size_t len)
{
    struct sink s = {.c = c, .resp = resp};
    struct req r = {"HEAD", path, NULL, NULL, "*/*", 0, NULL, 0, 1, 0};
    memset(resp, 0, sizeof *resp);
    if (len)
        ctype[0] = '\0';
    if (perform(c, &r, &s))
        return -1;
    char *ct = NULL;
    if (curl_easy_getinfo(c->curl, CURLINFO_CONTENT_TYPE, &ct) == CURLE_OK && ct && len)
        snprintf(ctype, len, "%s", ct);
    return 0;
}
