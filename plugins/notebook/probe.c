/* probe.c — a tiny blocking HTTP/1.0 client for loopback servers the plugin
 * started (their status pages), free-port selection, and time parsing. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "notebook.h"

#define MAX_BODY (256 * 1024)

unsigned nb_free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t alen = sizeof a;
    unsigned port = 0;
    if (fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0 &&
        getsockname(fd, (struct sockaddr *)&a, &alen) == 0)
        port = ntohs(a.sin_port);
    if (fd >= 0)
        close(fd);
    return port;
}

static int connect_loopback(unsigned port, int timeout_ms)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    if (fd < 0)
        return -1;
    if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0 && errno != EINPROGRESS)
        goto fail;
    struct pollfd p = {.fd = fd, .events = POLLOUT};
    int err = 0;
    socklen_t elen = sizeof err;
    if (poll(&p, 1, timeout_ms) != 1 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen) < 0 ||
        err)
        goto fail;
    return fd;
fail:
    close(fd);
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

char *nb_http_get(unsigned port, const char *path, const char *header, int timeout_ms,
                  int *status)
{
    char req[2048];
    int fd = connect_loopback(port, timeout_ms);
    int n = snprintf(req, sizeof req, "GET %s HTTP/1.0\r\nHost: 127.0.0.1:%u\r\n%s%s"
                     "Connection: close\r\n\r\n", path, port, header ? header : "",
                     header ? "\r\n" : "");
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
    char *body = nb_http_get(e->port, path, hdr, 2000, &status);
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
    char *body = nb_http_get(e->port, "/healthz", NULL, 2000, &status);
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
    if (!*e->token)
        return 0;
    return !strcmp(e->ide, "vscode") ? probe_vscode(e, last, connections)
                                     : probe_jupyter(e, project, name, last, connections);
}
