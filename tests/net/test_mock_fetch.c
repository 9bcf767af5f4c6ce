/* test_mock_fetch.c — the fake host's fetch slots (tests/mock), as a
 * plugin's unit test uses them: the fetchprobe plugin's probe against a
 * small HTTP server in this process (127.0.0.1, a thread). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cube_mock.h"
#include "fetchprobe.h"

static int PORT;

/* Answers one connection: /hello, /stream (3 chunks), /slow (2 s),
 * /big (100000 bytes), /redirect (to 127.0.0.2), anything else 404. */
static void *serve_one(void *arg)
{
    int c = (int)(intptr_t)arg;
    char req[4096] = "";
    ssize_t n = recv(c, req, sizeof req - 1, 0);
    if (n > 0) {
        char out[256];
        if (!strncmp(req, "GET /hello ", 11) || !strncmp(req, "POST /hello ", 12)) {
            dprintf(c, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n"
                       "Connection: close\r\n\r\nhello");
        } else if (!strncmp(req, "GET /stream ", 12)) {
            dprintf(c, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n");
            for (int i = 0; i < 3; i++) {
                snprintf(out, sizeof out, "part-%d;", i);
                dprintf(c, "%zx\r\n%s\r\n", strlen(out), out);
                usleep(50000);
            }
            dprintf(c, "0\r\n\r\n");
        } else if (!strncmp(req, "GET /slow ", 10)) {
            sleep(2);
        } else if (!strncmp(req, "GET /big ", 9)) {
            dprintf(c, "HTTP/1.1 200 OK\r\nContent-Length: 100000\r\nConnection: close\r\n\r\n");
            static char x[100000];
            memset(x, 'x', sizeof x);
            (void)!write(c, x, sizeof x);
        } else if (!strncmp(req, "GET /redirect ", 14)) {
            dprintf(c, "HTTP/1.1 302 Found\r\nLocation: http://127.0.0.2:%d/hello\r\n"
                       "Content-Length: 0\r\nConnection: close\r\n\r\n", PORT);
        } else {
            dprintf(c, "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
        }
    }
    close(c);
    return NULL;
}

static void *server(void *arg)
{
    int s = (int)(intptr_t)arg;
    for (;;) {
        int c = accept(s, NULL, NULL);
        if (c < 0)
            return NULL;
        pthread_t t;
        pthread_create(&t, NULL, serve_one, (void *)(intptr_t)c);
        pthread_detach(t);
    }
}

static int start_server(void **st)
{
    (void)st;
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET};   /* any: 127.0.0.2 too */
    socklen_t len = sizeof a;
    if (bind(s, (struct sockaddr *)&a, sizeof a) || listen(s, 64) ||
        getsockname(s, (struct sockaddr *)&a, &len))
        return -1;
    PORT = ntohs(a.sin_port);
    pthread_t t;
    pthread_create(&t, NULL, server, (void *)(intptr_t)s);
    pthread_detach(t);
    return 0;
}

/* Runs the probe through the fake host. */
static struct probe_run *probe(const char *path, struct probe_args a)
{
    static char url[256];
    snprintf(url, sizeof url, "http://127.0.0.1:%d%s", PORT, path);
    a.url = url;
    cube_plugin *self;
    const struct cube_host *h = cube_mock_host("{}", &self);
    struct probe_run *r = calloc(1, sizeof *r);
    assert_int_equal(probe_fetch(h, self, r, &a), CUBE_OK);
    return r;
}

static void test_get_and_post(void **st)
{
    (void)st;
    struct probe_run *r = probe("/hello", (struct probe_args){.cancel_ms = -1});
    assert_int_equal(r->error, CUBE_OK);
    assert_int_equal(r->status, 200);
    assert_string_equal(r->body, "hello");
    assert_string_equal(r->content_type, "text/plain");
    assert_true(r->other_thread);
    free(r);
    r = probe("/hello", (struct probe_args){.method = "POST", .body = "x", .cancel_ms = -1});
    assert_int_equal(r->status, 200);
    free(r);
    cube_mock_reset(NULL, NULL);
}

static void test_stream(void **st)
{
    (void)st;
    struct probe_run *r = probe("/stream", (struct probe_args){.stream = 1, .cancel_ms = -1});
    assert_int_equal(r->error, CUBE_OK);
    assert_string_equal(r->body, "part-0;part-1;part-2;");
    assert_true(r->chunks >= 2);
    free(r);
    cube_mock_reset(NULL, NULL);
}

static void test_timeout_and_cap(void **st)
{
    (void)st;
    struct probe_run *r = probe("/slow", (struct probe_args){.timeout_ms = 200, .cancel_ms = -1});
    assert_int_equal(r->error, CUBE_ETIMEDOUT);
    free(r);
    r = probe("/big", (struct probe_args){.max_bytes = 1000, .cancel_ms = -1});
    assert_int_equal(r->error, CUBE_ETOOBIG);
    free(r);
    cube_mock_reset(NULL, NULL);
}

static void test_egress(void **st)
{
    (void)st;
    const char *allow[] = {"127.0.0.1:*"};
    assert_int_equal(cube_mock_set_egress(allow, 1), CUBE_OK);
    struct probe_run *r = probe("/hello", (struct probe_args){.cancel_ms = -1});
    assert_int_equal(r->error, CUBE_OK);
    free(r);
    r = probe("/redirect", (struct probe_args){.cancel_ms = -1});
    assert_int_equal(r->error, CUBE_EPERM);
    assert_non_null(strstr(r->message, "127.0.0.2"));
    free(r);
    assert_int_equal(cube_mock_set_egress(allow, 0), CUBE_OK);
    r = probe("/hello", (struct probe_args){.cancel_ms = -1});
    assert_int_equal(r->error, CUBE_EPERM);
    assert_non_null(strstr(r->message, "egress.allow is empty"));
    free(r);
    const char *bad[] = {"nope"};
    assert_int_equal(cube_mock_set_egress(bad, 1), CUBE_EINVAL);
    cube_mock_reset(NULL, NULL);
}

static void test_cancel(void **st)
{
    (void)st;
    struct probe_run *r = probe("/slow", (struct probe_args){.cancel_ms = 100});
    assert_int_equal(r->cancel_rc, CUBE_OK);
    assert_int_equal(r->late, 0);
    assert_false(r->finished);
    cube_mock_reset(NULL, NULL);   /* joins the fetch before r goes */
    free(r);
    cube_plugin *self;
    const struct cube_host *h = cube_mock_host("{}", &self);
    assert_int_equal(h->fetch_cancel(self, 12345), CUBE_ENOTFOUND);
    int rc;
    struct cube_fetch_desc d = {.size = sizeof d, .url = "ftp://x/"};
    assert_int_equal(h->fetch(self, &d, &rc), 0);
    assert_int_equal(rc, CUBE_EINVAL);
    cube_mock_reset(NULL, NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_get_and_post), cmocka_unit_test(test_stream),
        cmocka_unit_test(test_timeout_and_cap), cmocka_unit_test(test_egress),
        cmocka_unit_test(test_cancel),
    };
    return cmocka_run_group_tests(tests, start_server, NULL);
}
