/* cube_mock_fetch.c — the fake host's fetch and fetch_cancel (ABI 1.5):
 * real HTTP with libcurl's easy interface, one thread per fetch, on which
 * its callbacks run (cubed runs them on its workers; either way never
 * inside the fetch call, one at a time, in order). Same codes as cubed
 * (CUBE_ETIMEDOUT, CUBE_ETOOBIG, CUBE_EPERM ...). The egress allow-list is
 * off unless a test sets one with cube_mock_set_egress; then cubed's own
 * rules (core/base/egress.c) are checked on the URL and on every address
 * connected to, redirects included. */
#include <arpa/inet.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <curl/curl.h>

#include "base/egress.h"
#include "cube_mock.h"
#include "cube_mock_priv.h"

struct mfetch {
    struct mfetch *next;
    uint64_t id;
    struct cube_fetch_desc d;      /* strings below are the copies */
    char *method, *url, *body, **hdrs, *ca_file;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pthread_t cb_thread;
    int in_cb, done_started;
    atomic_int cancelled;
    int stop_code, too_big;
    uint64_t got;
    char host[256];
    char refused[512];
    char *resp_headers, *resp_body;
    size_t hlen, blen;
};

static struct {
    pthread_mutex_t mu;
    struct mfetch *all;
    uint64_t next_id;
    struct cube_egress_rule *rules;
    size_t n_rules;
    int egress_on;
} F = {.mu = PTHREAD_MUTEX_INITIALIZER};

int cube_mock_set_egress(const char *const *patterns, size_t n)
{
    pthread_mutex_lock(&F.mu);
    for (size_t i = 0; i < F.n_rules; i++)
        cube_egress_rule_clear(&F.rules[i]);
    free(F.rules);
    F.rules = NULL;
    F.n_rules = 0;
    F.egress_on = patterns != NULL;
    int rc = CUBE_OK;
    if (patterns && n && !(F.rules = calloc(n, sizeof *F.rules)))
        rc = CUBE_ENOMEM;
    for (size_t i = 0; rc == CUBE_OK && patterns && i < n; i++) {
        const char *why;
        if (cube_egress_rule_parse(patterns[i], &F.rules[F.n_rules], &why))
            rc = CUBE_EINVAL;
        else
            F.n_rules++;
    }
    pthread_mutex_unlock(&F.mu);
    return rc;
}

/* The URL's host and port, or -1. */
static int url_target(const char *url, char *host, size_t n, int *port)
{
    CURLU *u = curl_url();
    char *h = NULL, *p = NULL, *s = NULL;
    int rc = -1;
    if (u && !curl_url_set(u, CURLUPART_URL, url, 0) &&
        !curl_url_get(u, CURLUPART_SCHEME, &s, 0) && !curl_url_get(u, CURLUPART_HOST, &h, 0) &&
        !curl_url_get(u, CURLUPART_PORT, &p, CURLU_DEFAULT_PORT) &&
        (!strcmp(s, "http") || !strcmp(s, "https"))) {
        size_t len = strlen(h);
        int br = h[0] == '[';
        snprintf(host, n, "%.*s", (int)(len - 2 * (size_t)br), h + br);
        *port = atoi(p);
        rc = 0;
    }
    curl_free(h);
    curl_free(p);
    curl_free(s);
    curl_url_cleanup(u);
    return rc;
}

static curl_socket_t open_socket(void *p, curlsocktype purpose, struct curl_sockaddr *a)
{
    struct mfetch *f = p;
    (void)purpose;
    if (F.egress_on) {
        char text[INET6_ADDRSTRLEN] = "";
        int port = 0, family = 0;
        uint8_t addr[16];
        if (a->family == AF_INET) {
            const struct sockaddr_in *s = (const void *)&a->addr;
            inet_ntop(AF_INET, &s->sin_addr, text, sizeof text);
            port = ntohs(s->sin_port);
        } else if (a->family == AF_INET6) {
            const struct sockaddr_in6 *s = (const void *)&a->addr;
            inet_ntop(AF_INET6, &s->sin6_addr, text, sizeof text);
            port = ntohs(s->sin6_port);
        }
        if (cube_egress_addr_parse(text, &family, addr) ||
            cube_egress_check(F.rules, F.n_rules, f->host, port, family, addr, 0, f->refused,
                              sizeof f->refused) < 0)
            return CURL_SOCKET_BAD;
    }
    return socket(a->family, a->socktype | SOCK_CLOEXEC, a->protocol);
}

/* Runs a callback as the host would: flagged, so cancel can wait for it. */
static int enter_cb(struct mfetch *f, int is_done)
{
    pthread_mutex_lock(&f->mu);
    int ok = !atomic_load(&f->cancelled);
    if (ok) {
        f->in_cb = 1;
        f->cb_thread = pthread_self();
        f->done_started |= is_done;
    }
    pthread_mutex_unlock(&f->mu);
    return ok;
}

static void leave_cb(struct mfetch *f)
{
    pthread_mutex_lock(&f->mu);
    f->in_cb = 0;
    pthread_cond_broadcast(&f->cv);
    pthread_mutex_unlock(&f->mu);
}

static size_t on_header(char *b, size_t s, size_t n, void *p)
{
    struct mfetch *f = p;
    size_t len = s * n;
    if (len >= 5 && !memcmp(b, "HTTP/", 5)) {
        f->hlen = 0;
        return len;
    }
    if (len <= 2)
        return len;
    char *g = realloc(f->resp_headers, f->hlen + len + 1);
    if (!g)
        return 0;
    memcpy(g + f->hlen, b, len);
    f->resp_headers = g;
    f->hlen += len;
    g[f->hlen] = '\0';
    return len;
}

static size_t on_body(char *b, size_t s, size_t n, void *p)
{
    struct mfetch *f = p;
    size_t len = s * n;
    if (atomic_load(&f->cancelled))
        return 0;
    if (f->d.max_bytes && f->got + len > f->d.max_bytes) {
        f->too_big = 1;
        return 0;
    }
    f->got += len;
    if (f->d.chunk) {
        if (!enter_cb(f, 0))
            return 0;
        int rc = f->d.chunk(mock_state(), f->d.arg, b, len);
        leave_cb(f);
        if (rc != CUBE_OK) {
            f->stop_code = rc;
            return 0;
        }
        return len;
    }
    char *g = realloc(f->resp_body, f->blen + len + 1);
    if (!g)
        return 0;
    memcpy(g + f->blen, b, len);
    f->resp_body = g;
    f->blen += len;
    g[f->blen] = '\0';
    return len;
}

static int on_progress(void *p, curl_off_t a, curl_off_t b, curl_off_t c, curl_off_t d)
{
    (void)a, (void)b, (void)c, (void)d;
    return atomic_load(&((struct mfetch *)p)->cancelled);
}

/* The outcome of curl_easy_perform as cubed reports it. */
static int outcome(struct mfetch *f, CURLcode rc, char *msg, size_t n, const char *err)
{
    if (rc == CURLE_OK)
        return CUBE_OK;
    if (f->stop_code)
        return snprintf(msg, n, "the chunk callback stopped the fetch"), f->stop_code;
    if (f->too_big || rc == CURLE_FILESIZE_EXCEEDED)
        return snprintf(msg, n, "the answer's body passed max_bytes (%llu)",
                        (unsigned long long)f->d.max_bytes), CUBE_ETOOBIG;
    if (f->refused[0])
        return snprintf(msg, n, "%s", f->refused), CUBE_EPERM;
    if (rc == CURLE_OPERATION_TIMEDOUT)
        return snprintf(msg, n, "no complete answer within %u ms", f->d.timeout_ms), CUBE_ETIMEDOUT;
    if (rc == CURLE_TOO_MANY_REDIRECTS)
        return snprintf(msg, n, "more redirects than max_redirects allows"), CUBE_EIO;
    return snprintf(msg, n, "%s", err[0] ? err : curl_easy_strerror(rc)), CUBE_EIO;
}

static void *run(void *arg)
{
    struct mfetch *f = arg;
    char err[CURL_ERROR_SIZE] = "", msg[768] = "";
    CURL *c = curl_easy_init();
    struct curl_slist *h = curl_slist_append(NULL, "Expect:");
    for (char **p = f->hdrs; p && *p; p++)
        h = curl_slist_append(h, *p);
    curl_easy_setopt(c, CURLOPT_URL, f->url);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, f->d.max_redirects != CUBE_FETCH_NO_REDIRECTS);
    curl_easy_setopt(c, CURLOPT_MAXREDIRS, (long)(f->d.max_redirects > 0 ? f->d.max_redirects : 5));
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_PROXY, "");
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)f->d.timeout_ms);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, err);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, f);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, f);
    curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
    curl_easy_setopt(c, CURLOPT_XFERINFODATA, f);
    curl_easy_setopt(c, CURLOPT_OPENSOCKETFUNCTION, open_socket);
    curl_easy_setopt(c, CURLOPT_OPENSOCKETDATA, f);
    if (f->ca_file)
        curl_easy_setopt(c, CURLOPT_CAINFO, f->ca_file);
    if (strcmp(f->method, "GET") || f->body) {
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)f->d.body_len);
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, f->body ? f->body : "");
        if (strcmp(f->method, "POST"))
            curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, f->method);
    }
    int code = CUBE_OK;
    long status = 0;
    if (f->refused[0]) {
        code = CUBE_EPERM;
        snprintf(msg, sizeof msg, "%s", f->refused);
    } else {
        code = outcome(f, curl_easy_perform(c), msg, sizeof msg, err);
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    }
    char *url = NULL;
    curl_easy_getinfo(c, CURLINFO_EFFECTIVE_URL, &url);
    struct cube_fetch_result r = {
        .size = sizeof r, .error = code, .message = msg, .status = code ? 0 : (int)status,
        .headers = f->resp_headers && !code ? f->resp_headers : "",
        .body = f->resp_body && !code ? f->resp_body : "", .body_len = code ? 0 : f->blen,
        .url = url ? url : f->url};
    if (enter_cb(f, 1)) {
        f->d.done(mock_state(), f->d.arg, &r);
        leave_cb(f);
    }
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    return NULL;
}

/* Copies the descriptor's strings into f; 0 or -1 (with the reason logged). */
static int copy_desc(struct mfetch *f, const struct cube_fetch_desc *d)
{
    size_t n = 0;
    while (d->headers && d->headers[n])
        n++;
    f->d = *d;
    f->method = mock_strdup(d->method ? d->method : "GET");
    f->url = mock_strdup(d->url);
    if (d->ca_file && *d->ca_file)
        f->ca_file = mock_strdup(d->ca_file);
    f->hdrs = calloc(n + 1, sizeof *f->hdrs);
    if (d->body_len && (f->body = malloc(d->body_len)))
        memcpy(f->body, d->body, d->body_len);
    for (size_t i = 0; f->hdrs && i < n; i++)
        f->hdrs[i] = mock_strdup(d->headers[i]);
    if (!f->d.timeout_ms)
        f->d.timeout_ms = 30000;
    if (!f->d.max_bytes && !d->chunk)
        f->d.max_bytes = 8u << 20;
    return f->method && f->url && f->hdrs ? 0 : -1;
}

static uint64_t fetch(cube_plugin *self, const struct cube_fetch_desc *desc, int *rc)
{
    int dummy;
    rc = rc ? rc : &dummy;
    (void)self;
    int port = 0;
    struct mfetch *f = calloc(1, sizeof *f);
    const char *m = desc && desc->method ? desc->method : "GET";
    *rc = CUBE_EINVAL;
    if (!desc || !desc->url || !desc->done || strspn(m, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != strlen(m) ||
        !*m || url_target(desc->url, f ? f->host : (char[256]){0}, 256, &port)) {
        mock_logf("fetch: bad descriptor (url, method or done)");
        free(f);
        return 0;
    }
    if (!f || copy_desc(f, desc)) {
        *rc = CUBE_ENOMEM;
        return 0;   /* a test's out-of-memory: leaks what was copied */
    }
    if (F.egress_on && cube_egress_check(F.rules, F.n_rules, f->host, port, 0, NULL, 0,
                                         f->refused, sizeof f->refused) >= 0)
        f->refused[0] = '\0';
    pthread_mutex_init(&f->mu, NULL);
    pthread_cond_init(&f->cv, NULL);
    pthread_mutex_lock(&F.mu);
    f->id = ++F.next_id;
    f->next = F.all;
    F.all = f;
    pthread_mutex_unlock(&F.mu);
    if (pthread_create(&f->thread, NULL, run, f)) {
        atomic_store(&f->cancelled, 1);
        *rc = CUBE_ENOMEM;
        return 0;
    }
    *rc = CUBE_OK;
    return f->id;
}

static int fetch_cancel(cube_plugin *self, uint64_t id)
{
    (void)self;
    pthread_mutex_lock(&F.mu);
    struct mfetch *f = F.all;
    while (f && f->id != id)
        f = f->next;
    pthread_mutex_unlock(&F.mu);
    if (!f)
        return CUBE_ENOTFOUND;
    pthread_mutex_lock(&f->mu);
    atomic_store(&f->cancelled, 1);
    int own = f->in_cb && pthread_equal(f->cb_thread, pthread_self());
    while (!own && f->in_cb)
        pthread_cond_wait(&f->cv, &f->mu);
    int rc = f->done_started ? CUBE_ENOTFOUND : CUBE_OK;
    pthread_mutex_unlock(&f->mu);
    return rc;
}

void mock_fetch_install(struct cube_host *h)
{
    h->fetch = fetch;
    h->fetch_cancel = fetch_cancel;
}

void mock_fetch_reset(void)
{
    pthread_mutex_lock(&F.mu);
    struct mfetch *all = F.all;
    F.all = NULL;
    pthread_mutex_unlock(&F.mu);
    while (all) {
        struct mfetch *f = all;
        all = f->next;
        atomic_store(&f->cancelled, 1);
        pthread_join(f->thread, NULL);
        for (char **p = f->hdrs; p && *p; p++)
            free(*p);
        free(f->hdrs);
        free(f->method);
        free(f->url);
        free(f->ca_file);
        free(f->body);
        free(f->resp_headers);
        free(f->resp_body);
        pthread_mutex_destroy(&f->mu);
        pthread_cond_destroy(&f->cv);
        free(f);
    }
    cube_mock_set_egress(NULL, 0);
}
