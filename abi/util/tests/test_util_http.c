/* test_util_http.c — cube/util/http.h: a replica's endpoint from a Job's
 * status, loopback, and the blocking client against a real socket served
 * by a thread here (answers whole, in pieces, too large, never, none). */
#include <netinet/in.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include <cube/util/http.h>

static int endpoint_in(const char *replica_json, char *host, unsigned *port)
{
    char text[512];
    snprintf(text, sizeof text, "{\"status\":{\"replicas\":[%s]}}", replica_json);
    cJSON *job = cJSON_Parse(text);
    int rc = cu_replica_endpoint(job, 0, "http", host, 64, port);
    cJSON_Delete(job);
    return rc;
}

static void the_endpoint_comes_from_the_job(void **st)
{
    (void)st;
    char host[64];
    unsigned port = 0;
    assert_int_equal(endpoint_in("{\"node\":\"n\"}", host, &port), 1);   /* not yet */
    assert_int_equal(endpoint_in("{\"endpoints\":{\"other\":\"127.0.0.1:1\"}}", host, &port), 1);
    assert_int_equal(endpoint_in("{\"endpoints\":{\"http\":\"127.0.0.1:30001\"}}", host, &port), 0);
    assert_string_equal(host, "127.0.0.1");
    assert_int_equal(port, 30001);
    assert_int_equal(endpoint_in("{\"endpoints\":{\"http\":\"[::1]:5\"}}", host, &port), 0);
    assert_string_equal(host, "::1");
    assert_int_equal(endpoint_in("{\"endpoints\":{\"http\":\"10.88.0.2:30001\"}}", host, &port), 0);
    assert_string_equal(host, "10.88.0.2");
    assert_int_equal(endpoint_in("{\"endpoints\":{\"http\":\"nope\"}}", host, &port), -1);
    assert_int_equal(cu_replica_endpoint(NULL, 0, "http", host, 64, &port), 1);
}

static void loopback_addresses(void **st)
{
    (void)st;
    assert_true(cu_is_loopback("127.0.0.1"));
    assert_true(cu_is_loopback("127.9.9.9"));
    assert_true(cu_is_loopback("::1"));
    assert_false(cu_is_loopback("10.88.0.2"));
    assert_false(cu_is_loopback("fd00::1"));
    assert_false(cu_is_loopback(""));
}

/* One connection's worth of server: what it answers and what it got. */
struct server {
    int lfd;
    unsigned port;
    const char *answer;     /* NULL: accept, read, never answer, close late */
    int pieces;             /* write the answer in this many pieces */
    char got[4096];
    pthread_t thread;
};

static void *serve_one(void *arg)
{
    struct server *s = arg;
    int fd = accept(s->lfd, NULL, NULL);
    if (fd < 0)
        return NULL;
    ssize_t n = 0, r;
    while ((size_t)n < sizeof s->got - 1 && (r = read(fd, s->got + n, sizeof s->got - 1 - (size_t)n)) > 0) {
        n += r;
        s->got[n] = '\0';
        if (strstr(s->got, "\r\n\r\n") && (!strstr(s->got, "Content-Length") || strstr(s->got, "}")))
            break;
    }
    if (!s->answer) {
        usleep(600 * 1000);
    } else {
        size_t len = strlen(s->answer), step = len / (size_t)s->pieces + 1;
        for (size_t off = 0; off < len; off += step) {
            size_t k = len - off < step ? len - off : step;
            if (write(fd, s->answer + off, k) < 0)
                break;
            usleep(2000);
        }
    }
    close(fd);
    return NULL;
}

static void start(struct server *s, const char *answer, int pieces)
{
    memset(s, 0, sizeof *s);
    s->answer = answer;
    s->pieces = pieces;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t alen = sizeof a;
    s->lfd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(s->lfd >= 0);
    assert_int_equal(bind(s->lfd, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(listen(s->lfd, 4), 0);
    assert_int_equal(getsockname(s->lfd, (struct sockaddr *)&a, &alen), 0);
    s->port = ntohs(a.sin_port);
    assert_int_equal(pthread_create(&s->thread, NULL, serve_one, s), 0);
}

static void finish(struct server *s)
{
    pthread_join(s->thread, NULL);
    close(s->lfd);
}

static void a_post_and_its_answer(void **st)
{
    (void)st;
    struct server s;
    start(&s, "HTTP/1.1 201 Created\r\nContent-Type: application/json\r\n\r\n{\"ok\":true}", 5);
    int status = 0;
    char *body = cu_http_request("POST", "127.0.0.1", s.port, "/v2/models/m/infer",
                                 "X-Token: t1", "{\"inputs\":[]}", 1024, 2000, &status);
    finish(&s);
    assert_non_null(body);
    assert_int_equal(status, 201);
    assert_string_equal(body, "{\"ok\":true}");
    free(body);
    assert_non_null(strstr(s.got, "POST /v2/models/m/infer HTTP/1.0\r\n"));
    assert_non_null(strstr(s.got, "\r\nX-Token: t1\r\n"));
    assert_non_null(strstr(s.got, "\r\nContent-Length: 13\r\n"));
    assert_non_null(strstr(s.got, "\r\n\r\n{\"inputs\":[]}"));
}

static void a_get_sends_no_body(void **st)
{
    (void)st;
    struct server s;
    start(&s, "HTTP/1.0 503 Service Unavailable\r\n\r\n", 1);
    int status = 0;
    char *body = cu_http_request("GET", "127.0.0.1", s.port, "/ready", NULL, NULL, 1024, 2000,
                                 &status);
    finish(&s);
    assert_non_null(body);
    assert_int_equal(status, 503);
    assert_string_equal(body, "");
    free(body);
    assert_null(strstr(s.got, "Content-Length"));
}

static void limits_and_failures(void **st)
{
    (void)st;
    struct server s;
    int status = 0;
    start(&s, "HTTP/1.0 200 OK\r\n\r\n0123456789abcdef", 3);       /* 16 bytes > 8 */
    assert_null(cu_http_request("GET", "127.0.0.1", s.port, "/", NULL, NULL, 8, 2000, &status));
    finish(&s);
    start(&s, NULL, 1);                                            /* never answers */
    assert_null(cu_http_request("GET", "127.0.0.1", s.port, "/", NULL, NULL, 64, 200, &status));
    finish(&s);
    start(&s, "not http at all\r\n\r\n", 1);
    assert_null(cu_http_request("GET", "127.0.0.1", s.port, "/", NULL, NULL, 64, 2000, &status));
    finish(&s);
    unsigned closed = s.port;                                      /* nobody listens now */
    assert_null(cu_http_request("GET", "127.0.0.1", closed, "/", NULL, NULL, 64, 500, &status));
    assert_null(cu_http_request("GET", "not-numeric", 80, "/", NULL, NULL, 64, 500, &status));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_endpoint_comes_from_the_job),
        cmocka_unit_test(loopback_addresses),
        cmocka_unit_test(a_post_and_its_answer),
        cmocka_unit_test(a_get_sends_no_body),
        cmocka_unit_test(limits_and_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
