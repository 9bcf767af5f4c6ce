/* fakeidp.c — see fakeidp.h. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fakeidp.h"

/* Reads one request (headers and Content-Length body) into buf. */
static int read_request(int c, char *buf, size_t cap)
{
    size_t have = 0;
    char *end = NULL;
    while (!end && have + 1 < cap) {
        ssize_t n = read(c, buf + have, cap - have - 1);
        if (n <= 0)
            return -1;
        have += (size_t)n;
        buf[have] = '\0';
        end = strstr(buf, "\r\n\r\n");
    }
    if (!end)
        return -1;
    const char *cl = strcasestr(buf, "\r\nContent-Length:");
    size_t want = (size_t)(end + 4 - buf) + (cl ? strtoul(cl + 17, NULL, 10) : 0);
    while (have < want && have + 1 < cap) {
        ssize_t n = read(c, buf + have, cap - have - 1);
        if (n <= 0)
            return -1;
        have += (size_t)n;
        buf[have] = '\0';
    }
    return 0;
}

/* Records the token request's form and Authorization header. */
static void record_token(struct fakeidp *f, const char *req)
{
    const char *body = strstr(req, "\r\n\r\n");
    const char *auth = strcasestr(req, "\r\nAuthorization: ");
    snprintf(f->last_form, sizeof f->last_form, "%s", body ? body + 4 : "");
    f->last_auth[0] = '\0';
    if (auth)
        snprintf(f->last_auth, sizeof f->last_auth, "%.*s",
                 (int)strcspn(auth + 17, "\r\n"), auth + 17);
    f->token_hits++;
}

/* Answers one connection. */
static void serve(struct fakeidp *f, int c)
{
    char req[16384], head[256];
    const char *body = "{}";
    int status = 404;
    if (read_request(c, req, sizeof req) < 0)
        return;
    pthread_mutex_lock(&f->mu);
    if (strncmp(req, "GET /.well-known/openid-configuration ", 38) == 0) {
        status = f->discovery_status;
        body = f->discovery;
    } else if (strncmp(req, "GET /jwks ", 10) == 0) {
        status = f->jwks_status;
        body = f->jwks ? f->jwks : "{}";
        f->jwks_hits++;
    } else if (strncmp(req, "POST /token ", 12) == 0) {
        status = f->token_status;
        body = f->token ? f->token : "{}";
        record_token(f, req);
    }
    int n = snprintf(head, sizeof head, "HTTP/1.1 %d X\r\nContent-Type: application/json\r\n"
                     "Content-Length: %zu\r\nConnection: close\r\n\r\n", status, strlen(body));
    if (write(c, head, (size_t)n) == n)
        (void)!write(c, body, strlen(body));
    pthread_mutex_unlock(&f->mu);
}

static void *loop(void *arg)
{
    struct fakeidp *f = arg;
    while (!__atomic_load_n(&f->stop, __ATOMIC_ACQUIRE)) {
        struct pollfd p = {.fd = f->fd, .events = POLLIN};
        if (poll(&p, 1, 50) <= 0)
            continue;
        int c = accept(f->fd, NULL, NULL);
        if (c >= 0) {
            serve(f, c);
            close(c);
        }
    }
    return NULL;
}

void fakeidp_set(struct fakeidp *f, const char *which, int status, const char *body)
{
    pthread_mutex_lock(&f->mu);
    char **slot = strcmp(which, "discovery") == 0 ? &f->discovery
                  : strcmp(which, "jwks") == 0    ? &f->jwks : &f->token;
    int *st = strcmp(which, "discovery") == 0 ? &f->discovery_status
              : strcmp(which, "jwks") == 0    ? &f->jwks_status : &f->token_status;
    free(*slot);
    *slot = strdup(body);
    *st = status;
    pthread_mutex_unlock(&f->mu);
}

int fakeidp_start(struct fakeidp *f)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    memset(f, 0, sizeof *f);
    pthread_mutex_init(&f->mu, NULL);
    f->fd = socket(AF_INET, SOCK_STREAM, 0);
    if (f->fd < 0 || bind(f->fd, (struct sockaddr *)&a, sizeof a) < 0 || listen(f->fd, 16) < 0 ||
        getsockname(f->fd, (struct sockaddr *)&a, &len) < 0)
        return -1;
    f->port = ntohs(a.sin_port);
    snprintf(f->issuer, sizeof f->issuer, "http://127.0.0.1:%d", f->port);
    char doc[1024];
    snprintf(doc, sizeof doc, "{\"issuer\":\"%s\",\"authorization_endpoint\":\"%s/authorize\","
             "\"token_endpoint\":\"%s/token\",\"jwks_uri\":\"%s/jwks\","
             "\"code_challenge_methods_supported\":[\"S256\"]}",
             f->issuer, f->issuer, f->issuer, f->issuer);
    fakeidp_set(f, "discovery", 200, doc);
    fakeidp_set(f, "jwks", 200, "{\"keys\":[]}");
    fakeidp_set(f, "token", 200, "{}");
    return pthread_create(&f->thread, NULL, loop, f) == 0 ? 0 : -1;
}

void fakeidp_stop(struct fakeidp *f)
{
    __atomic_store_n(&f->stop, 1, __ATOMIC_RELEASE);
    pthread_join(f->thread, NULL);
    close(f->fd);
    free(f->discovery);
    free(f->jwks);
    free(f->token);
    pthread_mutex_destroy(&f->mu);
}
