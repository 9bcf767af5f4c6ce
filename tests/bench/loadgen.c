/* loadgen.c — the create load of tests/bench/resources.sh: COUNT POSTs of
 * small Widget documents with unique names (PREFIX + index, indexes START ..
 * START+COUNT-1 handed out from one shared counter), over CONNS keep-alive
 * connections to 127.0.0.1:PORT, one thread each.
 *
 *   loadgen PORT PATH TOKEN PREFIX START COUNT CONNS
 *
 * Prints one line of key=value pairs: sent, created (201s), failed (any
 * other answer or a lost connection), the first failing status, seconds
 * (first send to last answer), rate (201s per second) and the p50/p99
 * latency of the requests in ms. Exits non-zero only on bad arguments or
 * when nothing could connect.
 *
 * Built by resources.sh with: cc -O2 -pthread -o loadgen loadgen.c */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static int port;
static const char *path, *token, *prefix;
static long start_i, end_i;
static atomic_long next_i;
static atomic_long created, failed, sent;
static atomic_int first_bad;
static atomic_int connect_failures;

struct worker {
    pthread_t tid;
    double *lat_ms;
    long n_lat, cap_lat;
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int dial(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return -1;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0) {
        close(fd);
        return -1;
    }
    return fd;
}

static int write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* A read buffer over one connection. */
struct rd {
    int fd;
    char buf[65536];
    size_t len, off;
};

static int fill(struct rd *r)
{
    if (r->off > 0) {
        memmove(r->buf, r->buf + r->off, r->len - r->off);
        r->len -= r->off;
        r->off = 0;
    }
    if (r->len == sizeof r->buf)
        return -1;
    for (;;) {
        ssize_t n = read(r->fd, r->buf + r->len, sizeof r->buf - r->len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        r->len += (size_t)n;
        return 0;
    }
}

/* Reads one line (CRLF stripped) into out. */
static int read_line(struct rd *r, char *out, size_t max)
{
    for (;;) {
        char *nl = memchr(r->buf + r->off, '\n', r->len - r->off);
        if (nl) {
            size_t n = (size_t)(nl - (r->buf + r->off));
            size_t k = n > 0 && nl[-1] == '\r' ? n - 1 : n;
            if (k >= max)
                k = max - 1;
            memcpy(out, r->buf + r->off, k);
            out[k] = '\0';
            r->off += n + 1;
            return 0;
        }
        if (fill(r) < 0)
            return -1;
    }
}

static int skip(struct rd *r, size_t n)
{
    while (n > 0) {
        if (r->off == r->len && fill(r) < 0)
            return -1;
        size_t k = r->len - r->off < n ? r->len - r->off : n;
        r->off += k;
        n -= k;
    }
    return 0;
}

/* Reads one response; returns its status, -1 when the connection failed.
 * *close_after: the server said Connection: close. */
static int read_response(struct rd *r, int *close_after)
{
    char line[8192];
    long clen = -1;
    int chunked = 0, status;
    *close_after = 0;
    if (read_line(r, line, sizeof line) < 0 || sscanf(line, "HTTP/%*s %d", &status) != 1)
        return -1;
    for (;;) {
        if (read_line(r, line, sizeof line) < 0)
            return -1;
        if (!line[0])
            break;
        if (!strncasecmp(line, "Content-Length:", 15))
            clen = strtol(line + 15, NULL, 10);
        else if (!strncasecmp(line, "Transfer-Encoding:", 18) && strcasestr(line, "chunked"))
            chunked = 1;
        else if (!strncasecmp(line, "Connection:", 11) && strcasestr(line, "close"))
            *close_after = 1;
    }
    if (chunked) {
        for (;;) {
            if (read_line(r, line, sizeof line) < 0)
                return -1;
            long n = strtol(line, NULL, 16);
            if (n == 0) {
                do {
                    if (read_line(r, line, sizeof line) < 0)
                        return -1;
                } while (line[0]);
                break;
            }
            if (skip(r, (size_t)n + 2) < 0)
                return -1;
        }
    } else if (clen > 0 && skip(r, (size_t)clen) < 0) {
        return -1;
    } else if (clen < 0) {
        *close_after = 1; /* body runs to the end of the connection */
    }
    return status;
}

static void note_latency(struct worker *w, double ms)
{
    if (w->n_lat == w->cap_lat) {
        long cap = w->cap_lat ? 2 * w->cap_lat : 4096;
        double *v = realloc(w->lat_ms, (size_t)cap * sizeof *v);
        if (!v)
            return;
        w->lat_ms = v;
        w->cap_lat = cap;
    }
    w->lat_ms[w->n_lat++] = ms;
}

static void *run(void *arg)
{
    struct worker *w = arg;
    struct rd *r = malloc(sizeof *r);
    char req[4096], body[512];
    if (!r)
        return NULL;
    r->fd = -1;
    for (;;) {
        long i = atomic_fetch_add(&next_i, 1);
        if (i >= end_i)
            break;
        if (r->fd < 0) {
            r->fd = dial();
            r->len = r->off = 0;
            if (r->fd < 0) {
                atomic_fetch_add(&connect_failures, 1);
                atomic_fetch_add(&failed, 1);
                continue;
            }
        }
        int blen = snprintf(body, sizeof body,
                            "{\"metadata\":{\"name\":\"%s%ld\",\"labels\":{\"bench\":\"yes\"}},"
                            "\"spec\":{\"size\":%ld,\"color\":\"red\","
                            "\"note\":\"created by the benchmark\"}}",
                            prefix, i, i % 10);
        int n = snprintf(req, sizeof req,
                         "POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                         "Authorization: Bearer %s\r\n"
                         "Content-Type: application/json\r\n"
                         "Content-Length: %d\r\n\r\n%s",
                         path, token, blen, body);
        double t0 = now_s();
        atomic_fetch_add(&sent, 1);
        int close_after = 1, status = -1;
        if (write_all(r->fd, req, (size_t)n) == 0)
            status = read_response(r, &close_after);
        note_latency(w, (now_s() - t0) * 1000);
        if (status == 201) {
            atomic_fetch_add(&created, 1);
        } else {
            atomic_fetch_add(&failed, 1);
            int zero = 0;
            atomic_compare_exchange_strong(&first_bad, &zero, status < 0 ? -1 : status);
        }
        if (status < 0 || close_after) {
            close(r->fd);
            r->fd = -1;
        }
    }
    if (r->fd >= 0)
        close(r->fd);
    free(r);
    return NULL;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    if (argc != 8) {
        fprintf(stderr, "usage: %s PORT PATH TOKEN PREFIX START COUNT CONNS\n", argv[0]);
        return 2;
    }
    port = atoi(argv[1]);
    path = argv[2];
    token = argv[3];
    prefix = argv[4];
    start_i = atol(argv[5]);
    end_i = start_i + atol(argv[6]);
    int conns = atoi(argv[7]);
    if (port <= 0 || conns <= 0 || end_i < start_i) {
        fprintf(stderr, "loadgen: bad arguments\n");
        return 2;
    }
    atomic_store(&next_i, start_i);
    struct worker *ws = calloc((size_t)conns, sizeof *ws);
    if (!ws)
        return 1;
    double t0 = now_s();
    for (int i = 0; i < conns; i++)
        pthread_create(&ws[i].tid, NULL, run, &ws[i]);
    long total = 0;
    for (int i = 0; i < conns; i++) {
        pthread_join(ws[i].tid, NULL);
        total += ws[i].n_lat;
    }
    double secs = now_s() - t0;
    double *all = malloc((size_t)(total ? total : 1) * sizeof *all);
    long k = 0;
    for (int i = 0; i < conns && all; i++) {
        memcpy(all + k, ws[i].lat_ms, (size_t)ws[i].n_lat * sizeof *all);
        k += ws[i].n_lat;
        free(ws[i].lat_ms);
    }
    double p50 = 0, p99 = 0;
    if (all && k > 0) {
        qsort(all, (size_t)k, sizeof *all, cmp_double);
        p50 = all[(long)(0.50 * (double)(k - 1))];
        p99 = all[(long)(0.99 * (double)(k - 1))];
    }
    long ok = atomic_load(&created);
    printf("sent=%ld created=%ld failed=%ld first_bad=%d seconds=%.3f rate=%.1f"
           " p50_ms=%.3f p99_ms=%.3f\n",
           atomic_load(&sent), ok, atomic_load(&failed), atomic_load(&first_bad), secs,
           secs > 0 ? (double)ok / secs : 0.0, p50, p99);
    free(all);
    free(ws);
    return atomic_load(&connect_failures) > 0 && ok == 0 ? 1 : 0;
}
