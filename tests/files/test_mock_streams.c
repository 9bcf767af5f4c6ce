/* test_mock_streams.c — the fake host's ABI 1.5 streamed bodies and file
 * slots (tests/mock), as a plugin's unit test uses them: the streamprobe
 * plugin compiled in, its uploads sent in chunks, cut short, resumed,
 * refused, and read back with ranges and ETags. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "cube_mock.h"

const struct cube_plugin_desc *cube_plugin_streamprobe(void);

#define UP "/api/v1/projects/data/streamprobe/uploads/"
#define SMALL "/api/v1/projects/data/streamprobe/small/"

static void *state;

static int setup(void **ts)
{
    (void)ts;
    assert_int_equal(cube_mock_init(cube_plugin_streamprobe(), NULL, &state), CUBE_OK);
    cube_mock_set_user("dana", "dev");
    return 0;
}

static int teardown(void **ts)
{
    (void)ts;
    cube_mock_reset(cube_plugin_streamprobe(), state);
    return 0;
}

static char *bytes(size_t n)
{
    char *b = malloc(n);
    for (size_t i = 0; i < n; i++)
        b[i] = (char)(i * 7 + i / 251);
    return b;
}

static void hex_sha(const void *d, size_t n, char out[65])
{
    unsigned char md[32];
    unsigned len;
    EVP_Digest(d, n, md, &len, EVP_sha256(), NULL);
    for (int i = 0; i < 32; i++)
        snprintf(out + 2 * i, 3, "%02x", md[i]);
}

/* The value of header name in a response ("" when absent), in buf. */
static const char *header(const struct cube_mock_response *r, const char *name, char *buf,
                          size_t len)
{
    const char *p = r->headers ? strstr(r->headers, name) : NULL;
    buf[0] = '\0';
    if (p)
        snprintf(buf, len, "%.*s", (int)strcspn(p + strlen(name) + 2, "\n"),
                 p + strlen(name) + 2);
    return buf;
}

static long long stat_of(const char *key)
{
    cube_mock_set_user("root", "admin");
    struct cube_mock_response r = cube_mock_request("GET", "/api/v1/streamprobe/stats", NULL,
                                                    NULL, NULL);
    cube_mock_set_user("dana", "dev");
    assert_int_equal(r.status, 200);
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    const char *p = strstr(r.body, pat);
    assert_non_null(p);
    long long v = strtoll(p + strlen(pat), NULL, 10);
    cube_mock_response_free(&r);
    return v;
}

static void test_upload_in_chunks_then_read(void **ts)
{
    (void)ts;
    size_t n = 300000;
    char *data = bytes(n), sha[65], body[200], etag[64], buf[128];
    hex_sha(data, n, sha);
    char q[100];
    snprintf(q, sizeof q, "sha256=%s", sha);
    struct cube_mock_response r =
        cube_mock_request_stream("PUT", UP "m1", q, NULL, data, n, 4096, (size_t)-1);
    snprintf(body, sizeof body, "{\"sha256\":\"%s\",\"size\":%zu}", sha, n);
    assert_int_equal(r.status, 200);
    assert_string_equal(r.body, body);
    cube_mock_response_free(&r);
    assert_int_equal(stat_of("max_chunk"), 4096);
    assert_int_equal(stat_of("last_close"), CUBE_OK);

    r = cube_mock_request("GET", UP "m1", NULL, NULL, NULL);
    assert_int_equal(r.status, 200);
    assert_int_equal(r.body_len, n);
    assert_memory_equal(r.body, data, n);
    header(&r, "ETag", etag, sizeof etag);
    assert_true(etag[0] == '"');
    cube_mock_response_free(&r);

    r = cube_mock_request("GET", UP "m1", NULL, "Range: bytes=100-199", NULL);
    assert_int_equal(r.status, 206);
    assert_int_equal(r.body_len, 100);
    assert_memory_equal(r.body, data + 100, 100);
    assert_string_equal(header(&r, "Content-Range", buf, sizeof buf), "bytes 100-199/300000");
    cube_mock_response_free(&r);
    r = cube_mock_request("GET", UP "m1", NULL, "Range: bytes=300000-", NULL);
    assert_int_equal(r.status, 416);
    cube_mock_response_free(&r);
    snprintf(buf, sizeof buf, "If-None-Match: %s", etag);
    r = cube_mock_request("GET", UP "m1", NULL, buf, NULL);
    assert_int_equal(r.status, 304);
    assert_int_equal(r.body_len, 0);
    cube_mock_response_free(&r);
    free(data);
}

static void test_limits_and_permissions_before_the_handler(void **ts)
{
    (void)ts;
    long long handlers = stat_of("handlers");
    char *big = bytes((1u << 20) + 1);
    struct cube_mock_response r =
        cube_mock_request_stream("PUT", SMALL "x", NULL, NULL, big, (1u << 20) + 1, 0,
                                 (size_t)-1);
    assert_int_equal(r.status, 413);
    cube_mock_response_free(&r);
    cube_mock_set_user(NULL, NULL);
    r = cube_mock_request("PUT", UP "x", NULL, NULL, "body");
    assert_int_equal(r.status, 401);
    cube_mock_response_free(&r);
    cube_mock_set_user("vic", "viewer");
    r = cube_mock_request("PUT", UP "x", NULL, NULL, "body");
    assert_int_equal(r.status, 403);
    cube_mock_response_free(&r);
    cube_mock_set_user("dana", "dev");
    assert_int_equal(stat_of("handlers"), handlers);
    r = cube_mock_request_stream("PUT", SMALL "x", NULL, NULL, big, 1u << 20, 0, (size_t)-1);
    assert_int_equal(r.status, 200);   /* at the limit is fine */
    cube_mock_response_free(&r);
    free(big);
}

static void test_cut_short_then_resumed(void **ts)
{
    (void)ts;
    size_t n = 100000;
    char *data = bytes(n), sha[65], q[120];
    hex_sha(data, n, sha);
    struct cube_mock_response r =
        cube_mock_request_stream("PUT", UP "cut", NULL, NULL, data, n, 1000, 42000);
    assert_int_equal(r.status, 0);   /* the client left: no answer */
    cube_mock_response_free(&r);
    assert_int_equal(stat_of("last_close"), CUBE_EIO);
    r = cube_mock_request("GET", UP "cut", NULL, NULL, NULL);
    assert_int_equal(r.status, 404);   /* nothing published */
    cube_mock_response_free(&r);
    r = cube_mock_request("GET", UP "cut/pending", NULL, NULL, NULL);
    assert_string_equal(r.body, "{\"size\":42000}");
    cube_mock_response_free(&r);
    r = cube_mock_request("PUT", UP "cut", "offset=7", NULL, "x");
    assert_int_equal(r.status, 409);   /* not where the upload is */
    cube_mock_response_free(&r);
    snprintf(q, sizeof q, "offset=42000&sha256=%s", sha);
    r = cube_mock_request_stream("PUT", UP "cut", q, NULL, data + 42000, n - 42000, 5000,
                                 (size_t)-1);
    assert_int_equal(r.status, 200);
    assert_non_null(strstr(r.body, sha));
    cube_mock_response_free(&r);
    r = cube_mock_request("GET", UP "cut", NULL, NULL, NULL);
    assert_int_equal(r.body_len, n);
    assert_memory_equal(r.body, data, n);
    cube_mock_response_free(&r);
    free(data);
}

static void test_wrong_digest_and_abort(void **ts)
{
    (void)ts;
    char q[100];
    snprintf(q, sizeof q, "sha256=%064d", 0);
    struct cube_mock_response r = cube_mock_request("PUT", UP "d", q, NULL, "weights");
    assert_int_equal(r.status, 422);
    cube_mock_response_free(&r);
    r = cube_mock_request("GET", UP "d", NULL, NULL, NULL);
    assert_int_equal(r.status, 404);
    cube_mock_response_free(&r);
    r = cube_mock_request("GET", UP "d/pending", NULL, NULL, NULL);
    assert_string_equal(r.body, "{\"size\":7}");
    cube_mock_response_free(&r);
    r = cube_mock_request("DELETE", UP "d/pending", NULL, NULL, NULL);
    assert_int_equal(r.status, 200);
    cube_mock_response_free(&r);
    r = cube_mock_request("GET", UP "d/pending", NULL, NULL, NULL);
    assert_string_equal(r.body, "{\"size\":0}");
    cube_mock_response_free(&r);
}

static void test_refused_mid_body_and_plugin_area(void **ts)
{
    (void)ts;
    char *data = bytes(10000);
    struct cube_mock_response r =
        cube_mock_request_stream("PUT", UP "f", "fail_at=5000", NULL, data, 10000, 1000,
                                 (size_t)-1);
    assert_int_equal(r.status, 409);
    cube_mock_response_free(&r);
    assert_int_equal(stat_of("last_close"), CUBE_ESTATE);   /* answered before the end */
    r = cube_mock_request_stream("PUT", UP "g", "refuse_at=3000", NULL, data, 10000, 1000,
                                 (size_t)-1);
    assert_int_equal(r.status, 400);   /* the code's status, with set_error's message */
    assert_non_null(strstr(r.body, "refused past byte 3000"));
    cube_mock_response_free(&r);
    assert_int_equal(stat_of("last_close"), CUBE_EINVAL);
    r = cube_mock_request("PUT", UP "mine", "area=plugin", NULL, "private");
    assert_int_equal(r.status, 200);
    cube_mock_response_free(&r);
    r = cube_mock_request("GET", UP "mine", "area=plugin", NULL, NULL);
    assert_int_equal(r.status, 200);
    assert_string_equal(r.body, "private");
    cube_mock_response_free(&r);
    r = cube_mock_request("GET", UP "mine", NULL, NULL, NULL);
    assert_int_equal(r.status, 404);   /* not a project file */
    cube_mock_response_free(&r);
    free(data);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_upload_in_chunks_then_read, setup, teardown),
        cmocka_unit_test_setup_teardown(test_limits_and_permissions_before_the_handler, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_cut_short_then_resumed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_wrong_digest_and_abort, setup, teardown),
        cmocka_unit_test_setup_teardown(test_refused_mid_body_and_plugin_area, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
