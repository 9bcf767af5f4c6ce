/* test_metrics.c — the metrics registry: validation, exact exposition text,
 * escaping, concurrent updates, and a promtool check of the output. */
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "metrics/metrics.h"

static const char *const route_status[] = {"route", "status"};

static struct cube_metric_desc desc(enum cube_metric_type type,
                                    const char *name, const char *help)
{
    return (struct cube_metric_desc){
        .size = sizeof(struct cube_metric_desc),
        .type = type,
        .name = name,
        .help = help,
    };
}

/* Registers d into a fresh registry and returns the error text ("" when it
 * registered). */
static const char *reg_err(const struct cube_metric_desc *d)
{
    static char err[256];
    err[0] = '\0';
    struct cube_metrics *reg = cube_metrics_new();
    assert_non_null(reg);
    struct cube_metric *m = cube_metrics_register(reg, d, "test", err, sizeof err);
    if (m)
        assert_string_equal(err, "");
    else
        assert_true(err[0] != '\0');
    cube_metrics_free(reg);
    return err;
}

static void assert_prefix(const char *s, const char *prefix)
{
    if (strncmp(s, prefix, strlen(prefix)) != 0)
        fail_msg("\"%s\" does not start with \"%s\"", s, prefix);
}

static char *render(struct cube_metrics *reg)
{
    size_t len = 0;
    char *out = cube_metrics_render(reg, &len);
    assert_non_null(out);
    assert_int_equal(len, strlen(out));
    return out;
}

static void test_desc_errors(void **state)
{
    (void)state;
    assert_prefix(reg_err(NULL), "descriptor: NULL");
    struct cube_metric_desc d = desc(CUBE_METRIC_GAUGE, "g", "help");
    d.size = offsetof(struct cube_metric_desc, bucket_count);
    assert_prefix(reg_err(&d), "descriptor too small");
    d.size = 0;
    assert_prefix(reg_err(&d), "descriptor too small");
    /* Exactly the 1.0 fields (no tail padding) is enough. */
    d.size = offsetof(struct cube_metric_desc, bucket_count) + sizeof(unsigned);
    assert_string_equal(reg_err(&d), "");
    d.type = (enum cube_metric_type)7;
    assert_prefix(reg_err(&d), "type: ");
}

/* A descriptor from a newer plugin, larger than ours, is accepted. */
static void test_desc_larger(void **state)
{
    (void)state;
    struct {
        struct cube_metric_desc d;
        double future_field;
    } big = {.d = desc(CUBE_METRIC_GAUGE, "g", "help"), .future_field = 1};
    big.d.size = sizeof big;
    assert_string_equal(reg_err(&big.d), "");
}

static void test_name_errors(void **state)
{
    (void)state;
    const char *bad[] = {"", "1abc", "a-b", "a b", "é", "a.b"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct cube_metric_desc d = desc(CUBE_METRIC_GAUGE, bad[i], "h");
        assert_prefix(reg_err(&d), "name: ");
    }
    struct cube_metric_desc d = desc(CUBE_METRIC_GAUGE, NULL, "h");
    assert_prefix(reg_err(&d), "name: missing");
    const char *good[] = {"a", "_a", ":a", "a:b_c9", "A_Z"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        d = desc(CUBE_METRIC_GAUGE, good[i], "h");
        assert_string_equal(reg_err(&d), "");
    }
    d = desc(CUBE_METRIC_COUNTER, "requests", "h");
    assert_prefix(reg_err(&d), "name: counter \"requests\" must end in");
    d = desc(CUBE_METRIC_COUNTER, "requests_total", "h");
    assert_string_equal(reg_err(&d), "");
}

static void test_help_errors(void **state)
{
    (void)state;
    struct cube_metric_desc d = desc(CUBE_METRIC_GAUGE, "g", NULL);
    assert_prefix(reg_err(&d), "help: ");
    d.help = "";
    assert_prefix(reg_err(&d), "help: ");
    d.help = "bad \xff byte";
    assert_prefix(reg_err(&d), "help: not valid UTF-8");
    d.help = "caf\xc3\xa9";
    assert_string_equal(reg_err(&d), "");
}

static const char *label_err(enum cube_metric_type type,
                             const char *const *names, unsigned n)
{
    struct cube_metric_desc d = desc(type, type == CUBE_METRIC_COUNTER
                                               ? "c_total" : "m", "h");
    d.label_names = names;
    d.label_count = n;
    return reg_err(&d);
}

static void test_label_errors(void **state)
{
    (void)state;
    const char *nine[] = {"a", "b", "c", "d", "e", "f", "g", "h", "i"};
    assert_string_equal(label_err(CUBE_METRIC_GAUGE, nine, 8), "");
    assert_prefix(label_err(CUBE_METRIC_GAUGE, nine, 9), "label_names: 9 labels");
    assert_prefix(label_err(CUBE_METRIC_GAUGE, NULL, 1), "label_names: NULL");
    assert_string_equal(label_err(CUBE_METRIC_GAUGE, NULL, 0), "");
    const char *bad[][1] = {{"1a"}, {"a-b"}, {"a:b"}, {""}, {NULL}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_prefix(label_err(CUBE_METRIC_GAUGE, bad[i], 1),
                      "label_names[0]: ");
    const char *reserved[] = {"__name"};
    assert_prefix(label_err(CUBE_METRIC_COUNTER, reserved, 1),
                  "label_names[0]: \"__name\" is reserved");
    const char *le[] = {"x", "le"};
    assert_prefix(label_err(CUBE_METRIC_HISTOGRAM, le, 2),
                  "label_names[1]: \"le\" is reserved");
    assert_string_equal(label_err(CUBE_METRIC_GAUGE, le, 2), "");
    const char *dup[] = {"x", "y", "x"};
    assert_prefix(label_err(CUBE_METRIC_GAUGE, dup, 3),
                  "label_names[2]: duplicate \"x\"");
}

static const char *bucket_err(const double *b, unsigned n)
{
    struct cube_metric_desc d = desc(CUBE_METRIC_HISTOGRAM, "h", "h");
    d.buckets = b;
    d.bucket_count = n;
    return reg_err(&d);
}

static void test_bucket_errors(void **state)
{
    (void)state;
    const double ok[] = {-1, 0, 0.5, 1e9};
    assert_string_equal(bucket_err(ok, 4), "");
    assert_string_equal(bucket_err(NULL, 4), ""); /* defaults */
    assert_string_equal(bucket_err(ok, 0), "");   /* defaults */
    const double eq[] = {1, 2, 2};
    assert_prefix(bucket_err(eq, 3), "buckets[2]: ");
    const double down[] = {1, 0.5};
    assert_prefix(bucket_err(down, 2), "buckets[1]: ");
    const double nan[] = {1, NAN};
    assert_prefix(bucket_err(nan, 2), "buckets[1]: ");
    const double inf[] = {1, INFINITY};
    assert_prefix(bucket_err(inf, 2), "buckets[1]: ");
    /* Buckets are ignored on other types. */
    struct cube_metric_desc d = desc(CUBE_METRIC_GAUGE, "g", "h");
    d.buckets = down;
    d.bucket_count = 2;
    assert_string_equal(reg_err(&d), "");
}

static void test_duplicates(void **state)
{
    (void)state;
    char err[256];
    struct cube_metrics *reg = cube_metrics_new();
    struct cube_metric_desc h = desc(CUBE_METRIC_HISTOGRAM, "lat", "h");
    assert_non_null(cube_metrics_register(reg, &h, "plugin:a", err, sizeof err));
    assert_null(cube_metrics_register(reg, &h, "plugin:b", err, sizeof err));
    assert_string_equal(err, "name: \"lat\" already registered by plugin:a");
    struct cube_metric_desc g = desc(CUBE_METRIC_GAUGE, "lat_sum", "h");
    assert_null(cube_metrics_register(reg, &g, "plugin:b", err, sizeof err));
    assert_prefix(err, "name: \"lat_sum\" clashes with a series of \"lat\"");
    g = desc(CUBE_METRIC_GAUGE, "x_count", "h");
    assert_non_null(cube_metrics_register(reg, &g, NULL, err, sizeof err));
    h = desc(CUBE_METRIC_HISTOGRAM, "x", "h");
    assert_null(cube_metrics_register(reg, &h, "core", err, sizeof err));
    assert_prefix(err, "name: \"x_count\" clashes");
    /* No err buffer: still refused, nothing written. */
    assert_null(cube_metrics_register(reg, &g, NULL, NULL, 0));
    assert_null(cube_metrics_register(NULL, &g, NULL, err, sizeof err));
    cube_metrics_free(reg);
}

static void test_render_empty(void **state)
{
    (void)state;
    struct cube_metrics *reg = cube_metrics_new();
    char *out = render(reg);
    assert_string_equal(out, "");
    free(out);
    cube_metrics_free(reg);
}

static void test_render_counter_gauge(void **state)
{
    (void)state;
    char err[256];
    struct cube_metrics *reg = cube_metrics_new();
    struct cube_metric_desc d = desc(CUBE_METRIC_COUNTER, "req_total", "Requests.");
    d.label_names = route_status;
    d.label_count = 2;
    struct cube_metric *c = cube_metrics_register(reg, &d, "core", err, sizeof err);
    d = desc(CUBE_METRIC_GAUGE, "temp", "Temperature.");
    struct cube_metric *g = cube_metrics_register(reg, &d, "core", err, sizeof err);
    d = desc(CUBE_METRIC_COUNTER, "idle_total", "Never touched.");
    assert_non_null(cube_metrics_register(reg, &d, "core", err, sizeof err));
    const char *b500[] = {"/b", "500"}, *a200[] = {"/a", "200"};
    cube_metric_add(c, b500, 1);
    cube_metric_add(c, a200, 1);
    cube_metric_add(c, a200, 2.5);
    cube_metric_set(g, NULL, -3);
    cube_metric_add(g, NULL, 0.5);
    char *out = render(reg);
    assert_string_equal(out,
        "# HELP req_total Requests.\n"
        "# TYPE req_total counter\n"
        "req_total{route=\"/a\",status=\"200\"} 3.5\n"
        "req_total{route=\"/b\",status=\"500\"} 1\n"
        "# HELP temp Temperature.\n"
        "# TYPE temp gauge\n"
        "temp -2.5\n"
        "# HELP idle_total Never touched.\n"
        "# TYPE idle_total counter\n"
        "idle_total 0\n");
    free(out);
    cube_metrics_free(reg);
}

static void test_render_histogram(void **state)
{
    (void)state;
    char err[256];
    struct cube_metrics *reg = cube_metrics_new();
    const double b[] = {0.1, 1};
    struct cube_metric_desc d = desc(CUBE_METRIC_HISTOGRAM, "lat_seconds", "Latency.");
    d.buckets = b;
    d.bucket_count = 2;
    struct cube_metric *h = cube_metrics_register(reg, &d, "core", err, sizeof err);
    const char *const lbl[] = {"route"};
    d.name = "size_bytes";
    d.label_names = lbl;
    d.label_count = 1;
    struct cube_metric *s = cube_metrics_register(reg, &d, "core", err, sizeof err);
    cube_metric_observe(h, NULL, 0.0625);
    cube_metric_observe(h, NULL, 1); /* bounds are inclusive */
    cube_metric_observe(h, NULL, 4);
    cube_metric_observe(h, NULL, NAN); /* ignored */
    const char *r[] = {"/x"};
    cube_metric_observe(s, r, 0.5);
    char *out = render(reg);
    assert_string_equal(out,
        "# HELP lat_seconds Latency.\n"
        "# TYPE lat_seconds histogram\n"
        "lat_seconds_bucket{le=\"0.1\"} 1\n"
        "lat_seconds_bucket{le=\"1\"} 2\n"
        "lat_seconds_bucket{le=\"+Inf\"} 3\n"
        "lat_seconds_sum 5.0625\n"
        "lat_seconds_count 3\n"
        "# HELP size_bytes Latency.\n"
        "# TYPE size_bytes histogram\n"
        "size_bytes_bucket{route=\"/x\",le=\"0.1\"} 0\n"
        "size_bytes_bucket{route=\"/x\",le=\"1\"} 1\n"
        "size_bytes_bucket{route=\"/x\",le=\"+Inf\"} 1\n"
        "size_bytes_sum{route=\"/x\"} 0.5\n"
        "size_bytes_count{route=\"/x\"} 1\n");
    free(out);
    cube_metrics_free(reg);
}

/* No observations: an unlabelled histogram shows every default bucket at 0;
 * a labelled metric shows only its HELP and TYPE. */
static void test_render_untouched(void **state)
{
    (void)state;
    char err[256];
    struct cube_metrics *reg = cube_metrics_new();
    struct cube_metric_desc d = desc(CUBE_METRIC_HISTOGRAM, "h", "H.");
    assert_non_null(cube_metrics_register(reg, &d, "core", err, sizeof err));
    d = desc(CUBE_METRIC_GAUGE, "g", "G.");
    d.label_names = route_status;
    d.label_count = 2;
    assert_non_null(cube_metrics_register(reg, &d, "core", err, sizeof err));
    char *out = render(reg);
    assert_string_equal(out,
        "# HELP h H.\n# TYPE h histogram\n"
        "h_bucket{le=\"0.005\"} 0\nh_bucket{le=\"0.01\"} 0\n"
        "h_bucket{le=\"0.025\"} 0\nh_bucket{le=\"0.05\"} 0\n"
        "h_bucket{le=\"0.1\"} 0\nh_bucket{le=\"0.25\"} 0\n"
        "h_bucket{le=\"0.5\"} 0\nh_bucket{le=\"1\"} 0\n"
        "h_bucket{le=\"2.5\"} 0\nh_bucket{le=\"5\"} 0\n"
        "h_bucket{le=\"10\"} 0\nh_bucket{le=\"+Inf\"} 0\n"
        "h_sum 0\nh_count 0\n"
        "# HELP g G.\n# TYPE g gauge\n");
    free(out);
    cube_metrics_free(reg);
}

static void test_escaping(void **state)
{
    (void)state;
    char err[256];
    struct cube_metrics *reg = cube_metrics_new();
    struct cube_metric_desc d = desc(CUBE_METRIC_GAUGE, "g",
                                     "a \\ b\nc \"quoted\"");
    const char *const lbl[] = {"v"};
    d.label_names = lbl;
    d.label_count = 1;
    struct cube_metric *g = cube_metrics_register(reg, &d, "core", err, sizeof err);
    const char *v1[] = {"back\\slash \"q\"\nnl"}, *v2[] = {NULL};
    cube_metric_set(g, v1, 1);
    cube_metric_set(g, v2, 2); /* NULL value means "" */
    cube_metric_set(g, NULL, 3); /* so does a NULL array */
    char *out = render(reg);
    assert_string_equal(out,
        "# HELP g a \\\\ b\\nc \"quoted\"\n"
        "# TYPE g gauge\n"
        "g{v=\"\"} 3\n"
        "g{v=\"back\\\\slash \\\"q\\\"\\nnl\"} 1\n");
    free(out);
    cube_metrics_free(reg);
}

/* Invalid UTF-8 in a label value would make Prometheus drop the whole
 * scrape: such bytes become U+FFFD, and the fixed value is one series. */
static void test_label_utf8(void **state)
{
    (void)state;
    char err[256];
    struct cube_metrics *reg = cube_metrics_new();
    struct cube_metric_desc d = desc(CUBE_METRIC_COUNTER, "c_total", "C.");
    const char *const lbl[] = {"path"};
    d.label_names = lbl;
    d.label_count = 1;
    struct cube_metric *c = cube_metrics_register(reg, &d, "x", err, sizeof err);
    const char *bad1[] = {"/a\xff"}, *bad2[] = {"/a\xfe"}, *ok[] = {"/\xc3\xa9"};
    const char *trunc[] = {"\xe2\x82"}; /* cut-off 3-byte sequence */
    cube_metric_add(c, bad1, 1);
    cube_metric_add(c, bad2, 1);
    cube_metric_add(c, ok, 1);
    cube_metric_add(c, trunc, 1);
    char *out = render(reg);
    assert_string_equal(out,
        "# HELP c_total C.\n# TYPE c_total counter\n"
        "c_total{path=\"/a\xef\xbf\xbd\"} 2\n"
        "c_total{path=\"/\xc3\xa9\"} 1\n"
        "c_total{path=\"\xef\xbf\xbd\xef\xbf\xbd\"} 1\n");
    free(out);
    cube_metrics_free(reg);
}

static void test_value_format(void **state)
{
    (void)state;
    static const struct {
        double v;
        const char *text;
    } cases[] = {
        {0.1, "0.1"}, {-0.0, "0"}, {123456789, "123456789"},
        {999999999999999, "999999999999999"}, {1e15, "1e+15"},
        {1.0 / 3, "0.3333333333333333"}, {0.1 + 0.2, "0.30000000000000004"}, {2.5e-7, "2.5e-07"},
        {INFINITY, "+Inf"}, {-INFINITY, "-Inf"}, {NAN, "NaN"},
        {-42, "-42"}, {1.7976931348623157e308, "1.7976931348623157e+308"},
    };
    char err[256], want[128];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct cube_metrics *reg = cube_metrics_new();
        struct cube_metric_desc d = desc(CUBE_METRIC_GAUGE, "g", "G.");
        struct cube_metric *g = cube_metrics_register(reg, &d, "c", err, sizeof err);
        cube_metric_set(g, NULL, cases[i].v);
        char *out = render(reg);
        snprintf(want, sizeof want, "# HELP g G.\n# TYPE g gauge\ng %s\n",
                 cases[i].text);
        assert_string_equal(out, want);
        free(out);
        cube_metrics_free(reg);
    }
}

/* Wrong-type updates and negative counter adds change nothing. */
static void test_ignored_updates(void **state)
{
    (void)state;
    char err[256];
    struct cube_metrics *reg = cube_metrics_new();
    struct cube_metric_desc d = desc(CUBE_METRIC_COUNTER, "c_total", "C.");
    struct cube_metric *c = cube_metrics_register(reg, &d, "x", err, sizeof err);
    const double b[] = {1};
    d = desc(CUBE_METRIC_HISTOGRAM, "h", "H.");
    d.buckets = b;
    d.bucket_count = 1;
    struct cube_metric *h = cube_metrics_register(reg, &d, "x", err, sizeof err);
    cube_metric_add(c, NULL, 2);
    cube_metric_add(c, NULL, -1);
    cube_metric_add(c, NULL, NAN);
    cube_metric_set(c, NULL, 100);
    cube_metric_observe(c, NULL, 1);
    cube_metric_add(h, NULL, 1);
    cube_metric_set(h, NULL, 1);
    cube_metric_add(NULL, NULL, 1);
    char *out = render(reg);
    assert_string_equal(out,
        "# HELP c_total C.\n# TYPE c_total counter\nc_total 2\n"
        "# HELP h H.\n# TYPE h histogram\n"
        "h_bucket{le=\"1\"} 0\nh_bucket{le=\"+Inf\"} 0\nh_sum 0\nh_count 0\n");
    free(out);
    cube_metrics_free(reg);
}

/* Many label sets: the per-metric table grows and keeps every count. */
static void test_many_children(void **state)
{
    (void)state;
    char err[256], v[16];
    struct cube_metrics *reg = cube_metrics_new();
    struct cube_metric_desc d = desc(CUBE_METRIC_COUNTER, "c_total", "C.");
    const char *const lbl[] = {"id"};
    d.label_names = lbl;
    d.label_count = 1;
    struct cube_metric *c = cube_metrics_register(reg, &d, "x", err, sizeof err);
    for (int round = 0; round < 2; round++) {
        for (int i = 0; i < 2000; i++) {
            snprintf(v, sizeof v, "%04d", i);
            const char *vals[] = {v};
            cube_metric_add(c, vals, 1);
        }
    }
    char *out = render(reg);
    assert_non_null(strstr(out, "c_total{id=\"0000\"} 2\nc_total{id=\"0001\"} 2\n"));
    assert_non_null(strstr(out, "c_total{id=\"1999\"} 2\n"));
    size_t lines = 0;
    for (const char *p = out; *p; p++)
        lines += *p == '\n';
    assert_int_equal(lines, 2 + 2000);
    free(out);
    cube_metrics_free(reg);
}

struct hammer {
    struct cube_metric *c;
    struct cube_metric *h;
    struct cube_metrics *reg;
    int id;
};

#define HAMMER_THREADS 8
#define HAMMER_ITERS 20000

static void *hammer_main(void *arg)
{
    struct hammer *hm = arg;
    const char *a[] = {"/a", "200"}, *b[] = {"/b", hm->id % 2 ? "200" : "404"};
    for (int i = 0; i < HAMMER_ITERS; i++) {
        cube_metric_add(hm->c, i % 2 ? a : b, 1);
        cube_metric_observe(hm->h, NULL, i % 3 ? 0.5 : 2);
        if (hm->id == 0 && i % 5000 == 0)
            free(cube_metrics_render(hm->reg, NULL));
    }
    return NULL;
}

static void test_concurrent_updates(void **state)
{
    (void)state;
    char err[256];
    struct cube_metrics *reg = cube_metrics_new();
    struct cube_metric_desc d = desc(CUBE_METRIC_COUNTER, "c_total", "C.");
    d.label_names = route_status;
    d.label_count = 2;
    struct cube_metric *c = cube_metrics_register(reg, &d, "x", err, sizeof err);
    const double bounds[] = {1};
    d = desc(CUBE_METRIC_HISTOGRAM, "h", "H.");
    d.buckets = bounds;
    d.bucket_count = 1;
    struct cube_metric *h = cube_metrics_register(reg, &d, "x", err, sizeof err);
    pthread_t th[HAMMER_THREADS];
    struct hammer hm[HAMMER_THREADS];
    for (int i = 0; i < HAMMER_THREADS; i++) {
        hm[i] = (struct hammer){.c = c, .h = h, .reg = reg, .id = i};
        assert_int_equal(pthread_create(&th[i], NULL, hammer_main, &hm[i]), 0);
    }
    for (int i = 0; i < HAMMER_THREADS; i++)
        pthread_join(th[i], NULL);
    char *out = render(reg);
    /* Per thread: 10000 on /a 200, 10000 on /b (200 or 404 by parity). */
    assert_non_null(strstr(out, "c_total{route=\"/a\",status=\"200\"} 80000\n"));
    assert_non_null(strstr(out, "c_total{route=\"/b\",status=\"200\"} 40000\n"));
    assert_non_null(strstr(out, "c_total{route=\"/b\",status=\"404\"} 40000\n"));
    /* i % 3 == 0 for 6667 of 20000 iterations: those observe 2. */
    assert_non_null(strstr(out, "h_bucket{le=\"1\"} 106664\n"));
    assert_non_null(strstr(out, "h_count 160000\n"));
    assert_non_null(strstr(out, "h_sum 160004\n"));
    free(out);
    cube_metrics_free(reg);
}

static struct cube_metrics *full_registry(void)
{
    char err[256];
    struct cube_metrics *reg = cube_metrics_new();
    struct cube_metric_desc d = desc(CUBE_METRIC_COUNTER,
        "cube_http_requests_total", "HTTP requests by route and status.");
    d.label_names = route_status;
    d.label_count = 2;
    struct cube_metric *c = cube_metrics_register(reg, &d, "core", err, sizeof err);
    const char *const lbl[] = {"route"};
    d = desc(CUBE_METRIC_HISTOGRAM, "cube_http_request_duration_seconds",
             "Request latency,\nwith a \\ in the help.");
    d.label_names = lbl;
    d.label_count = 1;
    struct cube_metric *h = cube_metrics_register(reg, &d, "core", err, sizeof err);
    d = desc(CUBE_METRIC_GAUGE, "cube_temperature_celsius", "A gauge.");
    struct cube_metric *g = cube_metrics_register(reg, &d, "core", err, sizeof err);
    d = desc(CUBE_METRIC_HISTOGRAM, "cube_idle_seconds", "Empty histogram.");
    assert_non_null(cube_metrics_register(reg, &d, "core", err, sizeof err));
    d = desc(CUBE_METRIC_GAUGE, "cube_labelled_idle", "No children yet.");
    d.label_names = lbl;
    d.label_count = 1;
    assert_non_null(cube_metrics_register(reg, &d, "core", err, sizeof err));
    const char *v1[] = {"/v1/\"odd\"\\path\n\xff", "200"}, *v2[] = {"/", "404"};
    cube_metric_add(c, v1, 3);
    cube_metric_add(c, v2, 1);
    cube_metric_observe(h, v1, 0.003);
    cube_metric_observe(h, v2, 42);
    cube_metric_set(g, NULL, -1.0 / 3);
    return reg;
}

static void test_promtool(void **state)
{
    (void)state;
    if (system("command -v promtool >/dev/null 2>&1") != 0)
        skip();
    struct cube_metrics *reg = full_registry();
    char *out = render(reg);
    FILE *p = popen("promtool check metrics", "w");
    assert_non_null(p);
    fputs(out, p);
    int rc = pclose(p);
    if (rc != 0)
        fail_msg("promtool rejected:\n%s", out);
    free(out);
    cube_metrics_free(reg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_desc_errors),
        cmocka_unit_test(test_desc_larger),
        cmocka_unit_test(test_name_errors),
        cmocka_unit_test(test_help_errors),
        cmocka_unit_test(test_label_errors),
        cmocka_unit_test(test_bucket_errors),
        cmocka_unit_test(test_duplicates),
        cmocka_unit_test(test_render_empty),
        cmocka_unit_test(test_render_counter_gauge),
        cmocka_unit_test(test_render_histogram),
        cmocka_unit_test(test_render_untouched),
        cmocka_unit_test(test_escaping),
        cmocka_unit_test(test_label_utf8),
        cmocka_unit_test(test_value_format),
        cmocka_unit_test(test_ignored_updates),
        cmocka_unit_test(test_many_children),
        cmocka_unit_test(test_concurrent_updates),
        cmocka_unit_test(test_promtool),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
