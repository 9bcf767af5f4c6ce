/* upload_client.c — one streamed upload for tests/bench/upload.sh: a PUT
 * with Content-Length of MIB MiB of zero bytes, written from one 1 MiB
 * buffer as fast as the socket takes them (what dd if=/dev/zero writes),
 * then the answer read whole. Times connect to the answer's last byte.
 *
 *   upload_client PORT PATH TOKEN MIB
 *
 * Prints "status=S seconds=T sent=U mib_s=R body=..." (U: when the last
 * byte was handed to the socket) and exits 0 when the answer was a 200, 1
 * otherwise. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MIB (1u << 20)

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int send_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
        if (k <= 0)
            return -1;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: upload_client PORT PATH TOKEN MIB\n");
        return 2;
    }
    unsigned long long mib = strtoull(argv[4], NULL, 10);
    static char zeros[MIB];
    char head[1024], resp[4096];
    int n = snprintf(head, sizeof head,
                     "PUT %s HTTP/1.1\r\nHost: 127.0.0.1:%s\r\nAuthorization: Bearer %s\r\n"
                     "Content-Length: %llu\r\nConnection: close\r\n\r\n",
                     argv[2], argv[1], argv[3], mib * MIB);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(argv[1]))};
    inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
    double t0 = now();
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
        perror("connect");
        return 1;
    }
    if (send_all(fd, head, (size_t)n) < 0) {
        perror("send");
        return 1;
    }
    for (unsigned long long i = 0; i < mib; i++)
        if (send_all(fd, zeros, MIB) < 0) {
            perror("send");   /* the server answered early and closed */
            break;
        }
    double sent = now() - t0;
    size_t got = 0;
    for (ssize_t k; got < sizeof resp - 1 && (k = recv(fd, resp + got, sizeof resp - 1 - got, 0)) > 0;)
        got += (size_t)k;
    double secs = now() - t0;
    close(fd);
    resp[got] = '\0';
    int status = 0;
    sscanf(resp, "HTTP/1.%*d %d", &status);
    const char *body = strstr(resp, "\r\n\r\n");
    printf("status=%d seconds=%.3f sent=%.3f mib_s=%.1f body=%s\n", status, secs, sent,
           (double)mib / secs, body ? body + 4 : "");
    return status == 200 ? 0 : 1;
}
