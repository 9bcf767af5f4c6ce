/* loadgen.c — the create load of tests/bench/resources.sh: COUNT POSTs of
 * small Widget documents with unique names (PREFIX + index, indexes START ..
 * START+COUNT-1 handed out from one shared counter), over CONNS keep-alive
 * connections to 127.0.0.1:PORT, each with one request in flight.
 *
 *   loadgen PORT PATH TOKEN PREFIX START COUNT CONNS [THREADS]
 *
 * The connections are spread over THREADS threads (default: 2, at most
 * CONNS), each driving its share with epoll, as pgbench -j drives its
 * clients: the peer's client and this one then cost the shared CPUs alike
 * (a thread per connection would spend them on wake-ups of its own).
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
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define RBUF 65536

static int port;
static const char *path, *token, *prefix;
static long end_i;
static atomic_long next_i;
static atomic_long created, failed, sent;
static atomic_int first_bad;
static atomic_int connect_failures;

/* One connection: its read buffer and the request in flight. */
struct conn {
    int fd;
    double t0;     /* when the request in flight was sent */
    size_t len;    /* bytes in buf */
    char buf[RBUF];
};

struct worker {
    pthread_t tid;
    struct conn *c;
    int n_conns, ep;
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

/* The line at p (up to end) ends at the returned CRLF, or NULL. */
static const char *line_end(const char *p, const char *end)
{
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    return nl && nl > p && nl[-1] == '\r' ? nl - 1 : nl;
}

/* The end of a chunked body starting at p, or NULL while incomplete. */
static const char *chunked_end(const char *p, const char *end)
{
    for (;;) {
        const char *e = line_end(p, end);
        if (!e)
            return NULL;
        long n = strtol(p, NULL, 16);
        p = memchr(e, '\n', (size_t)(end - e)) + 1;
        if (n == 0) { /* trailers, then an empty line */
            for (;;) {
                e = line_end(p, end);
                if (!e)
                    return NULL;
                int empty = e == p;
                p = memchr(e, '\n', (size_t)(end - e)) + 1;
                if (empty)
                    return p;
            }
        }
        if (end - p < n + 2)
            return NULL;
        p += n + 2;
    }
}

/* Parses one whole response at the start of c->buf: its length (the
 * status in *status), 0 while incomplete, -1 when malformed. *close_after:
 * the server said Connection: close or the body runs to the end. */
static long parse_response(const struct conn *c, int *status, int *close_after)
{
    const char *b = c->buf, *end = c->buf + c->len;
    const char *hend = memmem(b, c->len, "\r\n\r\n", 4);
    if (!hend)
        return c->len == RBUF ? -1 : 0;
    if (sscanf(b, "HTTP/%*s %d", status) != 1)
        return -1;
    long clen = -1;
    int chunked = 0;
    *close_after = 0;
    for (const char *l = memchr(b, '\n', (size_t)(hend + 2 - b)) + 1; l < hend + 2;) {
        const char *e = line_end(l, hend + 2);
        char line[512];
        size_t k = (size_t)(e - l) < sizeof line - 1 ? (size_t)(e - l) : sizeof line - 1;
        memcpy(line, l, k);
        line[k] = '\0';
        if (!strncasecmp(line, "Content-Length:", 15))
            clen = strtol(line + 15, NULL, 10);
        else if (!strncasecmp(line, "Transfer-Encoding:", 18) && strcasestr(line, "chunked"))
            chunked = 1;
        else if (!strncasecmp(line, "Connection:", 11) && strcasestr(line, "close"))
            *close_after = 1;
        l = e + 2;
    }
    const char *body = hend + 4;
    if (chunked) {
        const char *e = chunked_end(body, end);
        return e ? e - b : c->len == RBUF ? -1 : 0;
    }
    if (clen < 0) {
        *close_after = 1; /* a body up to the end of the connection: not used */
        return body - b;
    }
    if (clen > RBUF - (body - b))
        return -1;
    return end - body >= clen ? body - b + clen : 0;
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

static void bad(int status)
{
    atomic_fetch_add(&failed, 1);
    int zero = 0;
    atomic_compare_exchange_strong(&first_bad, &zero, status);
}

static void drop(struct worker *w, struct conn *c)
{
    epoll_ctl(w->ep, EPOLL_CTL_DEL, c->fd, NULL);
    close(c->fd);
    c->fd = -1;
}

/* Sends c its next request (connecting first when needed); 0 when one is
 * in flight, -1 when there is none left to send. */
static int send_next(struct worker *w, struct conn *c)
{
    char req[4096], body[512];
    for (;;) {
        long i = atomic_fetch_add(&next_i, 1);
        if (i >= end_i)
            return -1;
        if (c->fd < 0) {
            c->fd = dial();
            c->len = 0;
            struct epoll_event ev = {.events = EPOLLIN, .data.ptr = c};
            if (c->fd < 0 || epoll_ctl(w->ep, EPOLL_CTL_ADD, c->fd, &ev) < 0) {
                if (c->fd >= 0)
                    close(c->fd);
                c->fd = -1;
                atomic_fetch_add(&connect_failures, 1);
                bad(-1);
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
        c->t0 = now_s();
        atomic_fetch_add(&sent, 1);
        if (write_all(c->fd, req, (size_t)n) == 0)
            return 0;
        note_latency(w, (now_s() - c->t0) * 1000);
        bad(-1);
        drop(w, c);
    }
}

/* Reads what c has; for each whole response, counts it and sends the next
 * request. Returns 0 while c has one in flight, -1 once it is done. */
static int on_readable(struct worker *w, struct conn *c)
{
    ssize_t got;
    do
        got = read(c->fd, c->buf + c->len, RBUF - c->len);
    while (got < 0 && errno == EINTR);
    if (got > 0)
        c->len += (size_t)got;
    int status = -1, close_after = 1;
    long used = got > 0 ? parse_response(c, &status, &close_after) : -1;
    if (used == 0)
        return 0; /* more to come */
    note_latency(w, (now_s() - c->t0) * 1000);
    if (used > 0 && status == 201)
        atomic_fetch_add(&created, 1);
    else
        bad(used < 0 ? -1 : status);
    if (used < 0 || close_after) {
        drop(w, c);
    } else {
        memmove(c->buf, c->buf + used, c->len - (size_t)used);
        c->len -= (size_t)used;
    }
    return send_next(w, c);
}

static void *run(void *arg)
{
    struct worker *w = arg;
    struct epoll_event evs[64];
    int active = 0;
    for (int i = 0; i < w->n_conns; i++) {
        w->c[i].fd = -1;
        active += send_next(w, &w->c[i]) == 0;
    }
    while (active > 0) {
        int n = epoll_wait(w->ep, evs, 64, -1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            break;
        for (int i = 0; i < n; i++)
            if (on_readable(w, evs[i].data.ptr) != 0)
                active--;
    }
    for (int i = 0; i < w->n_conns; i++)
        if (w->c[i].fd >= 0)
            close(w->c[i].fd);
    return NULL;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Starts the workers, conns spread over them; 0, or -1 when out of memory. */
static int start(struct worker *ws, int threads, int conns)
{
    for (int t = 0; t < threads; t++) {
        ws[t].n_conns = conns / threads + (t < conns % threads);
        ws[t].c = calloc((size_t)ws[t].n_conns, sizeof *ws[t].c);
        ws[t].ep = epoll_create1(0);
        if (!ws[t].c || ws[t].ep < 0)
            return -1;
    }
    for (int t = 0; t < threads; t++)
        pthread_create(&ws[t].tid, NULL, run, &ws[t]);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 8 && argc != 9) {
        fprintf(stderr, "usage: %s PORT PATH TOKEN PREFIX START COUNT CONNS [THREADS]\n", argv[0]);
        return 2;
    }
    port = atoi(argv[1]);
    path = argv[2];
    token = argv[3];
    prefix = argv[4];
    long start_i = atol(argv[5]);
    end_i = start_i + atol(argv[6]);
    int conns = atoi(argv[7]);
    int threads = argc == 9 ? atoi(argv[8]) : 2;
    if (threads > conns)
        threads = conns;
    if (port <= 0 || conns <= 0 || threads <= 0 || end_i < start_i) {
        fprintf(stderr, "loadgen: bad arguments\n");
        return 2;
    }
    atomic_store(&next_i, start_i);
    struct worker *ws = calloc((size_t)threads, sizeof *ws);
    double t0 = now_s();
    if (!ws || start(ws, threads, conns) < 0) {
        fprintf(stderr, "loadgen: out of memory\n");
        return 1;
    }
    long total = 0;
    for (int i = 0; i < threads; i++) {
        pthread_join(ws[i].tid, NULL);
        total += ws[i].n_lat;
    }
    double secs = now_s() - t0;
    double *all = malloc((size_t)(total ? total : 1) * sizeof *all);
    long k = 0;
    for (int i = 0; i < threads; i++) {
        if (all)
            memcpy(all + k, ws[i].lat_ms, (size_t)ws[i].n_lat * sizeof *all);
        k += ws[i].n_lat;
        free(ws[i].lat_ms);
        free(ws[i].c);
        close(ws[i].ep);
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
