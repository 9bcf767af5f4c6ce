/* test_sse.c — Server-Sent Events parsing however the bytes are split. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "buf.h"
#include "sse.h"

struct seen {
    struct buf log;   /* "event|data\n" per event */
    int stop_after;   /* stop when this many were seen; 0 = never */
    int count;
};

static int on_event(void *ud, const char *event, const char *data)
{
    struct seen *s = ud;
    buf_printf(&s->log, "%s|%s\n", event, data);
    return ++s->count == s->stop_after ? 7 : 0;
}

static const char stream[] =
    ": ping\n\n"
    "event: ADDED\ndata: {\"type\":\"ADDED\"}\n\n"
    "event: MODIFIED\r\ndata:{\"a\":1}\r\ndata: {\"b\":2}\r\n\r\n"
    "id: 5\nretry: 100\nevent: DELETED\rdata: x\r\r"
    "data: no event name\n\n"
    "event: lonely\n\n"
    "event: ERROR\ndata: {\"type\":\"ERROR\"}\n\n";

static const char want[] =
    "ADDED|{\"type\":\"ADDED\"}\n"
    "MODIFIED|{\"a\":1}\n{\"b\":2}\n"
    "DELETED|x\n"
    "message|no event name\n"
    "ERROR|{\"type\":\"ERROR\"}\n";

/* Feeds the stream in pieces of `step` bytes. */
static void feed_in_steps(size_t step)
{
    struct seen s = {0};
    struct sse p;
    sse_init(&p, on_event, &s);
    size_t n = strlen(stream);
    for (size_t i = 0; i < n; i += step)
        assert_int_equal(sse_feed(&p, stream + i, i + step > n ? n - i : step), 0);
    if (strcmp(buf_str(&s.log), want))
        fail_msg("step %zu:\n%s", step, buf_str(&s.log));
    sse_free(&p);
    buf_free(&s.log);
}

static void test_any_split(void **state)
{
    (void)state;
    for (size_t step = 1; step <= sizeof stream; step++)
        feed_in_steps(step);
}

static void test_callback_stops(void **state)
{
    (void)state;
    struct seen s = {.stop_after = 2};
    struct sse p;
    sse_init(&p, on_event, &s);
    assert_int_equal(sse_feed(&p, stream, strlen(stream)), 7);
    assert_int_equal(s.count, 2);
    sse_free(&p);
    buf_free(&s.log);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_any_split),
        cmocka_unit_test(test_callback_stops),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
