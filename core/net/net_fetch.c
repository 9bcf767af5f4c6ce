/* net_fetch.c — one fetch's libcurl easy handle: built from the plugin's
 * descriptor, its header, body and socket callbacks (the allow-list's
 * check on each connected address), redirects re-checked by hand, and the
 * result handed to done. Everything but cube_net_fetch_prepare runs on
 * the network thread. */
#include <arpa/inet.h>
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "cube_build.h"
#include "base/clock.h"
#include "base/log.h"
#include "config/config.h"
#include "ctx/ctx.h"
#include "net_priv.h"

void cube_net_fetch_fail(struct net_fetch *f, int code, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    free(f->result_message);
    f->result_message = strdup(msg);
    f->result = (struct cube_fetch_result){.size = sizeof f->result, .error = code,
                                           .message = f->result_message ? f->result_message : "",
                                           .headers = "", .body = "", .url = f->url};
}

/* (net_priv.h) Sets the current URL: its host and port, whether the proxy is used for
 * it, and the allow-list's verdict before resolution (f->refused). Returns
 * 0, or -1 when it is no http(s) URL. */
int cube_net_fetch_retarget(struct net_fetch *f, const char *url)
{
    CURLU *u = curl_url();
    char *scheme = NULL, *host = NULL, *port = NULL;
    int rc = -1;
    if (!u || curl_url_set(u, CURLUPART_URL, url, 0) ||
        curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) ||
        curl_url_get(u, CURLUPART_HOST, &host, 0) ||
        curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT))
        goto out;
    if (strcasecmp(scheme, "http") && strcasecmp(scheme, "https"))
        goto out;
    size_t n = strlen(host);
    int br = n >= 2 && host[0] == '[';
    if (n - 2 * (size_t)br >= sizeof f->host)
        goto out;
    memcpy(f->host, host + br, n - 2 * (size_t)br);
    f->host[n - 2 * (size_t)br] = '\0';
    f->port = atoi(port);
    char *copy = strdup(url);
    if (!copy)
        goto out;
    free(f->url);
    f->url = copy;
    const struct cube_config *cfg = f->net->cfg;
    char why[512];
    f->via_proxy = cfg->egress_proxy &&
                   cube_egress_check(cfg->egress_no_proxy, cfg->n_egress_no_proxy, f->host,
                                     f->port, 0, NULL, 1, why, sizeof why) < 0;
    f->refused[0] = '\0';
    if (cube_egress_check(cfg->egress_allow, cfg->n_egress_allow, f->host, f->port, 0, NULL,
                          f->via_proxy, f->refused, sizeof f->refused) >= 0)
        f->refused[0] = '\0';
    curl_easy_setopt(f->easy, CURLOPT_URL, f->url);
    curl_easy_setopt(f->easy, CURLOPT_PROXY, f->via_proxy ? cfg->egress_proxy : "");
    rc = 0;
out:
    curl_free(scheme);
    curl_free(host);
    curl_free(port);
    curl_url_cleanup(u);
    return rc;
}

/* The allow-list's check on each address libcurl is about to connect to
 * (a name's, after resolution; the proxy's own is admitted). */
static curl_socket_t open_socket(void *p, curlsocktype purpose, struct curl_sockaddr *a)
{
    struct net_fetch *f = p;
    (void)purpose;
    if (!f->via_proxy) {
        uint8_t addr[16] = {0};
        int family = 0, port = 0;
        if (a->family == AF_INET) {
            const struct sockaddr_in *s4 = (const struct sockaddr_in *)&a->addr;
            memcpy(addr, &s4->sin_addr, 4);
            family = 4;
            port = ntohs(s4->sin_port);
        } else if (a->family == AF_INET6) {
            const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)&a->addr;
            char text[INET6_ADDRSTRLEN];
            inet_ntop(AF_INET6, &s6->sin6_addr, text, sizeof text);
            cube_egress_addr_parse(text, &family, addr);   /* unmaps ::ffff:v4 */
            port = ntohs(s6->sin6_port);
        }
        const struct cube_config *cfg = f->net->cfg;
        if (!family || cube_egress_check(cfg->egress_allow, cfg->n_egress_allow, f->host, port,
                                         family, addr, 0, f->refused, sizeof f->refused) < 0)
            return CURL_SOCKET_BAD;
    }
    return socket(a->family, a->socktype | SOCK_CLOEXEC, a->protocol);
}

static size_t on_header(char *b, size_t size, size_t n, void *p)
{
    struct net_fetch *f = p;
    size_t len = size * n;
    if (len >= 5 && !memcmp(b, "HTTP/", 5)) {   /* a new answer (1xx, redirect) */
        f->resp_headers.len = 0;
        if (f->resp_headers.p)
            f->resp_headers.p[0] = '\0';
    } else if (len > 2 || (len && b[0] != '\r' && b[0] != '\n')) {
        cube_text_put(&f->resp_headers, b, len);
    }
    return f->resp_headers.oom ? 0 : len;
}

static int is_redirect(long code)
{
    return code == 301 || code == 302 || code == 303 || code == 307 || code == 308;
}

/* Whether the answer being received is a redirect that will be followed. */
static int following(struct net_fetch *f)
{
    long code = 0;
    char *loc = NULL;
    curl_easy_getinfo(f->easy, CURLINFO_RESPONSE_CODE, &code);
    curl_easy_getinfo(f->easy, CURLINFO_REDIRECT_URL, &loc);
    return f->follow && is_redirect(code) && loc;
}

static size_t on_body(char *b, size_t size, size_t n, void *p)
{
    struct net_fetch *f = p;
    size_t len = size * n;
    if (atomic_load(&f->stop_code))
        return 0;
    if (following(f))
        return len;                 /* a redirect's own body is dropped */
    if (f->max_bytes && f->got + len > f->max_bytes) {
        f->too_big = 1;
        return 0;
    }
    if (f->chunk) {
        if (cube_net_deliver(f, b, len))
            return CURL_WRITEFUNC_PAUSE;   /* handed over again on resume */
    } else {
        cube_text_put(&f->resp_body, b, len);
        if (f->resp_body.oom)
            return 0;
    }
    f->got += len;
    return len;
}

/* The request headers into f->hdrs; without credentials when the current
 * host and port are not the first URL's. */
static int build_headers(struct net_fetch *f)
{
    int same = f->port == f->first_port && !strcasecmp(f->host, f->first_host);
    curl_slist_free_all(f->hdrs);
    f->hdrs = curl_slist_append(NULL, "Expect:");
    for (size_t i = 0; f->hdrs && i < f->n_req_headers; i++) {
        const char *h = f->req_headers[i];
        if (!same && (!strncasecmp(h, "authorization:", 14) || !strncasecmp(h, "cookie:", 7) ||
                      !strncasecmp(h, "proxy-authorization:", 20)))
            continue;
        struct curl_slist *next = curl_slist_append(f->hdrs, h);
        if (!next)
            return -1;
        f->hdrs = next;
    }
    if (!f->hdrs)
        return -1;
    curl_easy_setopt(f->easy, CURLOPT_HTTPHEADER, f->hdrs);
    return 0;
}

/* Copies and checks the request headers ("Name: value", no CR/LF). */
static int copy_headers(struct net_fetch *f, const char *const *h, const char **why)
{
    size_t n = 0;
    while (h && h[n])
        n++;
    if (n > 100)
        return *why = "more than 100 headers", -1;
    f->req_headers = calloc(n + 1, sizeof *f->req_headers);
    if (!f->req_headers)
        return *why = "out of memory", -1;
    for (size_t i = 0; i < n; i++) {
        const char *colon = strchr(h[i], ':');
        if (!colon || colon == h[i] || strpbrk(h[i], "\r\n") || strlen(h[i]) > 8192)
            return *why = "a header is not \"Name: value\" on one line", -1;
        for (const char *c = h[i]; c < colon; c++)
            if (!isgraph((unsigned char)*c))
                return *why = "a header name holds a space or control character", -1;
        if (!(f->req_headers[f->n_req_headers++] = strdup(h[i])))
            return *why = "out of memory", -1;
    }
    return 0;
}

static int copy_fields(struct net_fetch *f, const struct cube_fetch_desc *d, const char **why)
{
    const char *m = d->method ? d->method : "GET";
    size_t ml = strlen(m);
    if (!ml || ml > 16 || strspn(m, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != ml)
        return *why = "method must be 1..16 capital letters", -1;
    if (d->timeout_ms > NET_MAX_TIMEOUT_MS)
        return *why = "timeout_ms is above 3600000", -1;
    if (d->max_redirects > NET_MAX_REDIRECTS || d->max_redirects < CUBE_FETCH_NO_REDIRECTS)
        return *why = "max_redirects must be -1..10", -1;
    if (!d->body && d->body_len)
        return *why = "body is NULL with a body_len", -1;
    if (!(f->method = strdup(m)))
        return *why = "out of memory", -1;
    if (d->body_len) {
        if (!(f->body = malloc(d->body_len)))
            return *why = "out of memory", -1;
        memcpy(f->body, d->body, d->body_len);
        f->body_len = d->body_len;
    }
    f->timeout_ms = d->timeout_ms ? d->timeout_ms : NET_DEFAULT_TIMEOUT_MS;
    f->max_bytes = d->max_bytes ? d->max_bytes : d->chunk ? 0 : NET_DEFAULT_MAX_BYTES;
    f->follow = d->max_redirects != CUBE_FETCH_NO_REDIRECTS;
    f->redirects_left = d->max_redirects > 0 ? d->max_redirects : NET_DEFAULT_REDIRECTS;
    return copy_headers(f, d->headers, why);
}

/* The method and body on the handle (after a redirect to GET too). */
static void set_method(struct net_fetch *f)
{
    CURL *c = f->easy;
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, NULL);
    curl_easy_setopt(c, CURLOPT_NOBODY, 0L);
    if (!strcmp(f->method, "GET") && !f->body_len) {
        curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
        return;
    }
    if (!strcmp(f->method, "HEAD")) {
        curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
        return;
    }
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)f->body_len);
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, f->body ? f->body : "");
    if (strcmp(f->method, "POST"))
        curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, f->method);
}

static void set_options(struct net_fetch *f)
{
    CURL *c = f->easy;
    const struct cube_config *cfg = f->net->cfg;
    curl_easy_setopt(c, CURLOPT_PRIVATE, f);
    curl_easy_setopt(c, CURLOPT_SHARE, f->net->share);
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);   /* followed by hand, re-checked */
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 1L);
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 2L);
    if (cfg->egress_ca_file)
        curl_easy_setopt(c, CURLOPT_CAINFO, cfg->egress_ca_file);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)f->timeout_ms);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, (long)(f->timeout_ms < 10000 ? f->timeout_ms : 10000));
    if (f->max_bytes)
        curl_easy_setopt(c, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)f->max_bytes);
    curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING, "");
    curl_easy_setopt(c, CURLOPT_USERAGENT, "cube/" CUBE_VERSION);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, f->errbuf);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, f);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, f);
    curl_easy_setopt(c, CURLOPT_OPENSOCKETFUNCTION, open_socket);
    curl_easy_setopt(c, CURLOPT_OPENSOCKETDATA, f);
    set_method(f);
}

int cube_net_fetch_prepare(struct net_fetch *f, const struct cube_fetch_desc *d)
{
    const char *why = NULL;
    const char *who = f->owner->log_component;
    if (!d->url || !d->done) {
        why = !d->url ? "url is NULL" : "done is NULL";
    } else if (copy_fields(f, d, &why) == 0) {
        if (!(f->easy = curl_easy_init())) {
            why = "out of memory";
        } else {
            set_options(f);
            if (d->ca_file && *d->ca_file)   /* libcurl copies the string */
                curl_easy_setopt(f->easy, CURLOPT_CAINFO, d->ca_file);
            if (cube_net_fetch_retarget(f, d->url))
                why = "url is not an absolute http:// or https:// URL";
        }
    }
    if (!why) {
        snprintf(f->first_host, sizeof f->first_host, "%s", f->host);
        f->first_port = f->port;
        if (build_headers(f))
            why = "out of memory";
    }
    if (why) {
        cube_log(CUBE_LOG_WARN, who, "fetch: %s", why);
        return strcmp(why, "out of memory") ? CUBE_EINVAL : CUBE_ENOMEM;
    }
    f->chunk = d->chunk;
    f->done = d->done;
    f->arg = d->arg;
    f->start_ns = cube_now_ns();
    return CUBE_OK;
}

int cube_net_fetch_rearm(struct net_fetch *f, long timeout_ms)
{
    f->resp_headers.len = f->resp_body.len = 0;
    if (f->resp_headers.p)
        f->resp_headers.p[0] = '\0';
    if (f->resp_body.p)
        f->resp_body.p[0] = '\0';
    f->got = 0;
    set_method(f);
    curl_easy_setopt(f->easy, CURLOPT_TIMEOUT_MS, timeout_ms);
    return build_headers(f);
}
