/* http.c — a replica's endpoint and a tiny blocking HTTP/1.0 client
 * (cube/util/http.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cube/util/endpoint.h>
#include <cube/util/http.h>
#include <cube/util/json.h>

int cu_replica_endpoint(const cJSON *job, int replica, const char *port_name, char *host,
                        size_t hlen, unsigned *port)
{
    const cJSON *rep = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(job, "status"), "replicas"), replica);
    const char *hp = cu_str(cJSON_GetObjectItemCaseSensitive(rep, "endpoints"), port_name);
    char name[CU_HOSTPORT_MAX + 1];
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *ai = NULL;
    if (!hp)
        return 1;
    if (cu_hostport_split(hp, name, sizeof name, port, NULL) < 0 ||
        getaddrinfo(name, NULL, &hints, &ai) != 0)
        return -1;
    int rc = getnameinfo(ai->ai_addr, ai->ai_addrlen, host, (socklen_t)hlen, NULL, 0,
                         NI_NUMERICHOST) == 0 ? 0 : -1;
    freeaddrinfo(ai);
    return rc;
}

int cu_is_loopback(const char *host)
{
    struct in_addr a4;
    struct in6_addr a6;
    if (inet_pton(AF_INET, host, &a4) == 1)
        return (ntohl(a4.s_addr) >> 24) == 127;
    return inet_pton(AF_INET6, host, &a6) == 1 && IN6_IS_ADDR_LOOPBACK(&a6);
}

/* Milliseconds left of timeout_ms since t0 (may be <= 0). */
static long ms_left(const struct timespec *t0, int timeout_ms)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return timeout_ms - ((t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000);
}

/* A connected non-blocking socket to host:port (numeric), or -1. */
static int connect_to(const char *host, unsigned port, const struct timespec *t0, int timeout_ms)
{
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV}, *ai = NULL;
    char service[8];
    snprintf(service, sizeof service, "%u", port);
    if (getaddrinfo(host, service, &hints, &ai) != 0)
        return -1;
    int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0 || (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0 && errno != EINPROGRESS))
        goto fail;
    struct pollfd p = {.fd = fd, .events = POLLOUT};
    int err = 0;
    socklen_t elen = sizeof err;
    long left = ms_left(t0, timeout_ms);
    if (left <= 0 || poll(&p, 1, (int)left) != 1 ||
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen) < 0 || err)
        goto fail;
    freeaddrinfo(ai);
    return fd;
fail:
    if (fd >= 0)
        close(fd);
    freeaddrinfo(ai);
    return -1;
}

/* Writes all of buf[0..n) before the deadline; 0 or -1. */
static int write_all(int fd, const char *buf, size_t n, const struct timespec *t0, int timeout_ms)
{
    while (n) {
        struct pollfd p = {.fd = fd, .events = POLLOUT};
        long left = ms_left(t0, timeout_ms);
        if (left <= 0 || poll(&p, 1, (int)left) != 1)
            return -1;
        ssize_t w = send(fd, buf, n, MSG_NOSIGNAL);   /* a closed peer: -1, no SIGPIPE */
        if (w < 0 && errno != EINTR && errno != EAGAIN)
            return -1;
        if (w > 0)
            buf += w, n -= (size_t)w;
    }
    return 0;
}

/* Reads until EOF before the deadline, at most max bytes; the raw answer
 * (malloc'd, NUL-terminated) or NULL. */
static char *read_all(int fd, size_t max, const struct timespec *t0, int timeout_ms, size_t *len)
{
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        long left = ms_left(t0, timeout_ms);
        if (left <= 0 || poll(&p, 1, (int)left) != 1)
            break;
        if (n + 1 >= cap) {
            char *b = cap > max ? NULL : realloc(buf, cap *= 2);
            if (!b)
                break;
            buf = b;
        }
        ssize_t r = read(fd, buf + n, cap - n - 1);
        if (r == 0) {
            buf[n] = '\0';
            *len = n;
            return buf;
        }
        if (r < 0 && errno != EINTR && errno != EAGAIN)
            break;
        n += r > 0 ? (size_t)r : 0;
        if (n > max)
            break;
    }
    free(buf);
    return NULL;
}

/* The request's head and body (malloc'd) or NULL; *n its length. */
static char *request_text(const char *method, const char *host, unsigned port, const char *path,
                          const char *header, const char *body, size_t *n)
{
    int v6 = strchr(host, ':') != NULL;
    size_t blen = body ? strlen(body) : 0;
    char clen[96] = "";
    if (body)
        snprintf(clen, sizeof clen, "Content-Type: application/json\r\nContent-Length: %zu\r\n",
                 blen);
    size_t cap = strlen(method) + strlen(path) + strlen(host) + (header ? strlen(header) : 0) +
                 strlen(clen) + blen + 96;
    char *req = malloc(cap);
    int k = req ? snprintf(req, cap, "%s %s HTTP/1.0\r\nHost: %s%s%s:%u\r\n%s%s%s"
                           "Connection: close\r\n\r\n%s", method, path, v6 ? "[" : "", host,
                           v6 ? "]" : "", port, header ? header : "", header ? "\r\n" : "",
                           clen, body ? body : "") : -1;
    if (k < 0 || (size_t)k >= cap) {
        free(req);
        return NULL;
    }
    *n = (size_t)k;
    return req;
}

char *cu_http_request(const char *method, const char *host, unsigned port, const char *path,
                      const char *header, const char *body, size_t max_body, int timeout_ms,
                      int *status)
{
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    size_t n = 0, len = 0;
    char *req = request_text(method, host, port, path, header, body, &n), *raw = NULL;
    int fd = req ? connect_to(host, port, &t0, timeout_ms) : -1;
    if (fd >= 0 && write_all(fd, req, n, &t0, timeout_ms) == 0)
        raw = read_all(fd, max_body + 8192, &t0, timeout_ms, &len);   /* the head's room */
    if (fd >= 0)
        close(fd);
    free(req);
    char *at = raw ? strstr(raw, "\r\n\r\n") : NULL;
    if (!at || sscanf(raw, "HTTP/%*d.%*d %d", status) != 1 ||
        len - (size_t)(at + 4 - raw) > max_body) {
        free(raw);
        return NULL;
    }
    memmove(raw, at + 4, len - (size_t)(at + 4 - raw) + 1);
    return raw;
}
