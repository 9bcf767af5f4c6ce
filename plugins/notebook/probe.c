/* probe.c — where a server is (its Job's reported endpoint, ABI 1.5) and a
 * tiny blocking HTTP/1.0 client for its status page, and time parsing.
 * The status probe is not the host's fetch slot (cube_fetch.h): fetch is
 * for egress, checked against the administrator's allow-list, which
 * admits loopback and private addresses only by an explicit rule for every
 * plugin at once, and it answers through callbacks while the controller
 * and the culling timer need the answer in the call. */
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

#include "notebook.h"

#define MAX_BODY (256 * 1024)

int nb_endpoint_of(const void *job_cjson, char *host, size_t hlen, unsigned *port)
{
    const cJSON *rep = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(job_cjson, "status"), "replicas"), 0);
    const char *hp = cu_str(cJSON_GetObjectItemCaseSensitive(rep, "endpoints"), NB_PORT_NAME);
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

int nb_is_loopback(const char *host)
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

char *nb_http_get(const char *host, unsigned port, const char *path, const char *header,
                  int timeout_ms, int *status)
{
    char req[2048];
    int v6 = strchr(host, ':') != NULL;
    int fd = connect_to(host, port, timeout_ms);
    int n = snprintf(req, sizeof req, "GET %s HTTP/1.0\r\nHost: %s%s%s:%u\r\n%s%s"
                     "Connection: close\r\n\r\n", path, v6 ? "[" : "", host, v6 ? "]" : "",
                     port, header ? header : "", header ? "\r\n" : "");
    if (fd < 0)
        return NULL;
    size_t len = 0;
    char *raw = NULL;
    if (n > 0 && (size_t)n < sizeof req && write(fd, req, (size_t)n) == n)
        raw = read_all(fd, timeout_ms, &len);
    close(fd);
    char *body = raw ? strstr(raw, "\r\n\r\n") : NULL;
    if (!body || sscanf(raw, "HTTP/%*d.%*d %d", status) != 1) {
        free(raw);
        return NULL;
    }
    memmove(raw, body + 4, len - (size_t)(body + 4 - raw) + 1);
    return raw;
}

time_t nb_parse_time(const char *s)
{
    struct tm tm = {0};
    if (!s || sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                     &tm.tm_hour, &tm.tm_min, &tm.tm_sec) != 6)
        return -1;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    return timegm(&tm);
}

void nb_format_time(time_t t, char *out, size_t len)
{
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(out, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* Jupyter's /api/status: last_activity and connections. */
static int probe_jupyter(const struct nb_entry *e, const char *project, const char *name,
                         time_t *last, int *connections)
{
    char path[512], hdr[NB_TOKEN_LEN + 32];
    nb_base_url(project, name, path, sizeof path - 16);
    strcat(path, "api/status");
    snprintf(hdr, sizeof hdr, "Authorization: token %s", e->token);
    int status = 0;
    char *body = nb_http_get(e->host, e->port, path, hdr, 2000, &status);
    cJSON *doc = status == 200 ? cJSON_Parse(body) : NULL;
    free(body);
    if (!doc)
        return 0;
    *last = nb_parse_time(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(doc, "last_activity")));
    *connections = (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(doc, "connections"));
    if (*connections < 0)
        *connections = 0;
    cJSON_Delete(doc);
    return 1;
}

/* code-server's /healthz: lastHeartbeat (ms since the epoch), updated
 * while a browser is connected and working. */
static int probe_vscode(const struct nb_entry *e, time_t *last, int *connections)
{
    int status = 0;
    char *body = nb_http_get(e->host, e->port, "/healthz", NULL, 2000, &status);
    cJSON *doc = status == 200 ? cJSON_Parse(body) : NULL;
    free(body);
    if (!doc)
        return 0;
    double hb = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(doc, "lastHeartbeat"));
    *last = hb > 0 ? (time_t)(hb / 1000) : 0;
    *connections = 0;
    cJSON_Delete(doc);
    return 1;
}

int nb_probe(const struct nb_entry *e, const char *project, const char *name, time_t *last,
             int *connections)
{
    *last = 0;
    *connections = 0;
    if (!*e->token || !*e->host || !e->port)
        return 0;
    return !strcmp(e->ide, "vscode") ? probe_vscode(e, last, connections)
                                     : probe_jupyter(e, project, name, last, connections);
}
