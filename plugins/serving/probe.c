/* probe.c — where a replica is (its Job's reported endpoint, ABI 1.5) and
 * a tiny blocking HTTP/1.0 client for its readiness probe and the console's
 * "try it" requests. Not the host's fetch slot (cube_fetch.h): that is for
 * egress, checked against the administrator's allow-list, and answers
 * through callbacks, while the controller needs the answer in the call. */
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

#include <cjson/cJSON.h>
#include <cube/util/endpoint.h>
#include <cube/util/json.h>

#include "serving.h"

#define MAX_BODY (4 * 1024 * 1024)

int sv_endpoint_of(const void *job_cjson, char *host, size_t hlen, unsigned *port)
{
    const cJSON *rep = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(job_cjson, "status"), "replicas"), 0);
    const char *hp = cu_str(cJSON_GetObjectItemCaseSensitive(rep, "endpoints"), SV_PORT);
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

int sv_is_loopback(const char *host)
{
    struct in_addr a4;
    struct in6_addr a6;
    if (inet_pton(AF_INET, host, &a4) == 1)
        return (ntohl(a4.s_addr) >> 24) == 127;
    return inet_pton(AF_INET6, host, &a6) == 1 && IN6_IS_ADDR_LOOPBACK(&a6);
}

/* A connected socket to host:port (numeric), or -1. */
static int connect_to(const char *host, unsigned port, int timeout_ms)
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
    if (poll(&p, 1, timeout_ms) != 1 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen) < 0 ||
        err)
        goto fail;
    freeaddrinfo(ai);
    return fd;
fail:
    if (fd >= 0)
        close(fd);
    freeaddrinfo(ai);
    return -1;
}

/* Reads until EOF or the deadline; the raw answer (malloc) or NULL. */
static char *read_all(int fd, int timeout_ms, size_t *len)
{
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (buf) {
        clock_gettime(CLOCK_MONOTONIC, &t);
        long left = timeout_ms - ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000);
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (left <= 0 || poll(&p, 1, (int)left) != 1)
            break;
        if (n + 1 >= cap) {
            char *b = cap >= MAX_BODY ? NULL : realloc(buf, cap *= 2);
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
    }
    free(buf);
    return NULL;
}

char *sv_http(const char *method, const char *host, unsigned port, const char *path,
              const char *header, const char *body, int timeout_ms, int *status)
{
    size_t blen = body ? strlen(body) : 0, cap = 2048 + blen;
    char *req = malloc(cap);
    int v6 = strchr(host, ':') != NULL;
    int fd = req ? connect_to(host, port, timeout_ms) : -1;
    int n = req ? snprintf(req, cap, "%s %s HTTP/1.0\r\nHost: %s%s%s:%u\r\n%s%s"
                           "Content-Type: application/json\r\nContent-Length: %zu\r\n"
                           "Connection: close\r\n\r\n%s", method, path, v6 ? "[" : "", host,
                           v6 ? "]" : "", port, header ? header : "", header ? "\r\n" : "",
                           blen, body ? body : "") : -1;
    if (fd < 0) {
        free(req);
        return NULL;
    }
    size_t len = 0;
    char *raw = NULL;
    if (n > 0 && (size_t)n < cap && write(fd, req, (size_t)n) == n)
        raw = read_all(fd, timeout_ms, &len);
    close(fd);
    free(req);
    char *at = raw ? strstr(raw, "\r\n\r\n") : NULL;
    if (!at || sscanf(raw, "HTTP/%*d.%*d %d", status) != 1) {
        free(raw);
        return NULL;
    }
    memmove(raw, at + 4, len - (size_t)(at + 4 - raw) + 1);
    return raw;
}
