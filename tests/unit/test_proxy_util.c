/* test_proxy_util.c — the reverse proxy's pure helpers: which headers cross,
 * cube_session stripping, address checks, the answer head parser and the
 * chunked decoder (fed whole and byte by byte). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "proxy/proxy_priv.h"

static void hop_by_hop_headers(void **state)
{
    (void)state;
    const char *hop[] = {"Connection", "keep-alive", "TRANSFER-ENCODING", "Upgrade", "TE",
                         "Trailer", "Proxy-Authorization", "Content-Length", "Expect"};
    for (size_t i = 0; i < sizeof hop / sizeof hop[0]; i++)
        assert_true(proxy_hop_header(hop[i]));
    const char *end[] = {"Cookie", "Content-Type", "X-Probe", "Accept", "Sec-WebSocket-Key"};
    for (size_t i = 0; i < sizeof end / sizeof end[0]; i++)
        assert_false(proxy_hop_header(end[i]));
    assert_true(proxy_connection_lists("keep-alive, X-Secret", "x-secret"));
    assert_true(proxy_connection_lists("Upgrade", "upgrade"));
    assert_false(proxy_connection_lists("X-Secrets", "x-secret"));
    assert_false(proxy_connection_lists(NULL, "x"));
}

static void session_cookie_is_stripped(void **state)
{
    (void)state;
    char out[128];
    assert_int_equal(proxy_strip_cookie("a=1; cube_session=s3cret; _xsrf=x", out, sizeof out),
                     strlen("a=1; _xsrf=x"));
    assert_string_equal(out, "a=1; _xsrf=x");
    assert_int_equal(proxy_strip_cookie("cube_session=s3cret", out, sizeof out), 0);
    assert_int_equal(proxy_strip_cookie("cube_session=a;cube_session=b ;k=v", out, sizeof out),
                     3);
    assert_string_equal(out, "k=v");
    /* the apps origin's cookie goes too */
    assert_int_equal(proxy_strip_cookie("cube_app=abc; k=v; cube_app=def", out, sizeof out), 3);
    assert_string_equal(out, "k=v");
    /* a cookie merely named like it stays */
    assert_true(proxy_strip_cookie("my_cube_session=1", out, sizeof out) > 0);
    assert_string_equal(out, "my_cube_session=1");
    assert_int_equal(proxy_strip_cookie("aaaaaaaaaa=1", out, 5), -1);
}

static void header_text_and_addresses(void **state)
{
    (void)state;
    assert_true(proxy_header_name_ok("X-Probe-Token"));
    assert_false(proxy_header_name_ok("X Probe"));
    assert_false(proxy_header_name_ok("X:y"));
    assert_false(proxy_header_name_ok(""));
    assert_true(proxy_header_value_ok("token abc"));
    assert_false(proxy_header_value_ok("a\r\nInjected: 1"));
    assert_true(proxy_is_loopback("127.0.0.1"));
    assert_true(proxy_is_loopback("127.8.9.10"));
    assert_true(proxy_is_loopback("::1"));
    assert_true(proxy_is_loopback("::ffff:127.0.0.1"));
    assert_false(proxy_is_loopback("10.0.0.1"));
    assert_false(proxy_is_loopback("::ffff:10.0.0.1"));
    assert_false(proxy_is_loopback("localhost"));
    assert_true(proxy_is_numeric_host("2001:db8::1"));
    assert_false(proxy_is_numeric_host("example.org"));
}

static void answer_heads(void **state)
{
    (void)state;
    struct proxy_head h;
    const char ok[] = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n"
                      "Set-Cookie: a=1\r\nSet-Cookie:  b=2 \r\n\r\nbody";
    assert_int_equal(proxy_parse_head(ok, strlen(ok), &h), 1);
    assert_int_equal(h.status, 200);
    assert_int_equal(h.minor, 1);
    assert_int_equal(h.len, strlen(ok) - 4);
    assert_int_equal(h.n, 3);
    char v[32];
    assert_string_equal(proxy_head_get(&h, "content-type", v, sizeof v), "text/plain");
    assert_int_equal(h.h[2].vlen, 3); /* "b=2", spaces trimmed */
    assert_null(proxy_head_get(&h, "Content-Length", v, sizeof v));
    assert_int_equal(proxy_parse_head(ok, 20, &h), 0); /* incomplete */
    const char *bad[] = {"HTTP/2 200 OK\r\n\r\n", "HTTP/1.1 2000 X\r\n\r\n",
                         "HTTP/1.1 200 OK\r\nNoColon\r\n\r\n",
                         "HTTP/1.1 200 OK\r\n folded: x\r\n\r\n", "garbage\r\n\r\n"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(proxy_parse_head(bad[i], strlen(bad[i]), &h), -1);
    const char sw[] = "HTTP/1.0 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n";
    assert_int_equal(proxy_parse_head(sw, strlen(sw), &h), 1);
    assert_int_equal(h.status, 101);
    assert_int_equal(h.minor, 0);
}

static const char CHUNKED[] = "5\r\nhello\r\n7;ext=1\r\n, world\r\n"
                              "0\r\nTrailer: x\r\n\r\nNEXT";

static void chunked_whole(void **state)
{
    (void)state;
    struct proxy_chunked c = {0};
    char out[64];
    size_t used, made;
    assert_int_equal(proxy_chunked_decode(&c, CHUNKED, strlen(CHUNKED), &used, out,
                                          sizeof out, &made), 0);
    assert_true(c.done);
    assert_int_equal(made, 12);
    assert_memory_equal(out, "hello, world", 12);
    assert_int_equal(used, strlen(CHUNKED) - 4); /* stops before the next answer */
}

static void chunked_byte_by_byte_with_small_output(void **state)
{
    (void)state;
    struct proxy_chunked c = {0};
    char out[64], one[3];
    size_t total = 0;
    for (size_t i = 0; i < strlen(CHUNKED) - 4;) {
        size_t used, made;
        assert_int_equal(proxy_chunked_decode(&c, CHUNKED + i, 1, &used, one, 3, &made), 0);
        memcpy(out + total, one, made);
        total += made;
        i += used;
        assert_int_equal(used, 1);
    }
    assert_true(c.done);
    assert_int_equal(total, 12);
    assert_memory_equal(out, "hello, world", 12);
}

static void chunked_malformed(void **state)
{
    (void)state;
    const char *bad[] = {"x\r\n", "5\r\nhelloXX", "5\nhello", "ffffffffffffffffff\r\n"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct proxy_chunked c = {0};
        char out[64];
        size_t used, made;
        assert_int_equal(proxy_chunked_decode(&c, bad[i], strlen(bad[i]), &used, out,
                                              sizeof out, &made), -1);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hop_by_hop_headers),
        cmocka_unit_test(session_cookie_is_stripped),
        cmocka_unit_test(header_text_and_addresses),
        cmocka_unit_test(answer_heads),
        cmocka_unit_test(chunked_whole),
        cmocka_unit_test(chunked_byte_by_byte_with_small_output),
        cmocka_unit_test(chunked_malformed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
