/* abclient.c — the interleaved latency client of tests/bench/proxy.sh:
 * N sequential GETs on each of two keep-alive connections to 127.0.0.1,
 * alternating A, B, A, B ..., so that both targets see the same machine
 * noise; prints the p50/p90/p99/p99.9 of each and their difference.
 *
 *   abclient PORT_A PATH_A PORT_B PATH_B HEADER N
 *
 * HEADER is one extra request header line ("Authorization: Bearer x") sent
 * to both. Answers must carry Content-Length (no chunked bodies). Exits
 * non-zero on bad arguments, a failed connection or a non-200 answer.
 *
 * Built by proxy.sh with: cc -O2 -o abclient abclient.c */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

struct target {
    int fd;
    char req[1024];
    size_t req_len;
    double *lat_us;
};

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int dial(int port)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
    int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) < 0)
        return -1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

/* Sends the request and reads one whole answer; 0, or -1. */
static int roundtrip(struct target *t)
{
    static char buf[65536];
    if (send(t->fd, t->req, t->req_len, 0) != (ssize_t)t->req_len)
        return -1;
    size_t have = 0;
    for (;;) {
        ssize_t n = recv(t->fd, buf + have, sizeof buf - 1 - have, 0);
        if (n <= 0)
            return -1;
        have += (size_t)n;
        buf[have] = '\0';
        char *end = strstr(buf, "\r\n\r\n");
        if (!end)
            continue;
        if (strncmp(buf + 9, "200", 3) != 0)
            return -1;
        char *cl = strcasestr(buf, "\r\nContent-Length:");
        if (!cl)
            return -1;
        size_t want = (size_t)(end + 4 - buf) + strtoul(cl + 17, NULL, 10);
        if (have >= want)
            return 0;
    }
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double pct(const double *v, long n, double p)
{
    long i = (long)(p / 100.0 * (double)(n - 1) + 0.5);
    return v[i];
}

int main(int argc, char **argv)
{
    if (argc != 7) {
        fprintf(stderr, "usage: abclient PORT_A PATH_A PORT_B PATH_B HEADER N\n");
        return 2;
    }
    long n = atol(argv[6]);
    struct target t[2];
    for (int i = 0; i < 2; i++) {
        t[i].fd = dial(atoi(argv[1 + 2 * i]));
        t[i].req_len = (size_t)snprintf(t[i].req, sizeof t[i].req,
                                        "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n%s\r\n\r\n",
                                        argv[2 + 2 * i], argv[5]);
        t[i].lat_us = calloc((size_t)n, sizeof(double));
        if (t[i].fd < 0 || !t[i].lat_us || n < 10) {
            fprintf(stderr, "abclient: cannot connect to port %s\n", argv[1 + 2 * i]);
            return 1;
        }
    }
    for (long k = 0; k < n; k++)
        for (int i = 0; i < 2; i++) {
            double t0 = now_us();
            if (roundtrip(&t[i]) < 0) {
                fprintf(stderr, "abclient: request %ld to %s failed\n", k, argv[2 + 2 * i]);
                return 1;
            }
            t[i].lat_us[k] = now_us() - t0;
        }
    const double ps[] = {50, 90, 99, 99.9};
    for (int i = 0; i < 2; i++) {
        qsort(t[i].lat_us, (size_t)n, sizeof(double), cmp);
        printf("%s", i ? "B" : "A");
        for (size_t j = 0; j < 4; j++)
            printf(" p%g=%.3f", ps[j], pct(t[i].lat_us, n, ps[j]) / 1000.0);
        printf("\n");
    }
    printf("delta");
    for (size_t j = 0; j < 4; j++)
        printf(" p%g=%+.3f", ps[j],
               (pct(t[1].lat_us, n, ps[j]) - pct(t[0].lat_us, n, ps[j])) / 1000.0);
    printf("\n");
    return 0;
}
