/* test_cron.c — cron parsing and next ticks in time zones, against a table
 * of expressions with hand-checked answers (local times with their UTC
 * offsets), DST transitions included, and the parser's error messages.
 * Scratch zone directories are made in the working directory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <pthread.h>

#include "civil.h"
#include "cron.h"

/* "2024-03-10T03:30-04:00" to Unix seconds. */
static int64_t at(const char *iso)
{
    int y, mo, d, h, mi, oh, om;
    char sign;
    if (sscanf(iso, "%d-%d-%dT%d:%d%c%d:%d", &y, &mo, &d, &h, &mi, &sign, &oh, &om) != 8)
        fail_msg("bad time in the test table: %s", iso);
    int64_t off = (oh * 3600 + om * 60) * (sign == '-' ? -1 : 1);
    return pl_days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 - off;
}

static const struct tick_case {
    const char *expr, *zone, *after, *next;  /* next NULL: none within 5 years */
} ticks[] = {
    {"* * * * *", "UTC", "2024-01-01T00:00+00:00", "2024-01-01T00:01+00:00"},
    {"*/15 * * * *", "UTC", "2024-01-01T00:14+00:00", "2024-01-01T00:15+00:00"},
    {"0 0 1 1 *", "UTC", "2024-06-01T00:00+00:00", "2025-01-01T00:00+00:00"},
    {"@yearly", "UTC", "2024-06-01T00:00+00:00", "2025-01-01T00:00+00:00"},
    {"@annually", "UTC", "2024-06-01T00:00+00:00", "2025-01-01T00:00+00:00"},
    {"@monthly", "UTC", "2024-01-31T12:00+00:00", "2024-02-01T00:00+00:00"},
    {"@weekly", "UTC", "2024-01-01T00:00+00:00", "2024-01-07T00:00+00:00"},
    {"@daily", "UTC", "2024-01-01T00:00+00:00", "2024-01-02T00:00+00:00"},
    {"@MIDNIGHT", "UTC", "2024-01-01T23:59+00:00", "2024-01-02T00:00+00:00"},
    {"@hourly", "UTC", "2024-01-01T00:30+00:00", "2024-01-01T01:00+00:00"},
    /* names, 7 = Sunday, ranges through Sunday */
    {"0 9 * JAN-mar MON-fri", "UTC", "2024-03-29T09:00+00:00", "2025-01-01T09:00+00:00"},
    {"0 0 * * 7", "UTC", "2024-01-01T00:00+00:00", "2024-01-07T00:00+00:00"},
    {"0 0 * * fri-sun", "UTC", "2024-01-06T00:00+00:00", "2024-01-07T00:00+00:00"},
    {"0 0 * * */2", "UTC", "2024-01-01T00:00+00:00", "2024-01-02T00:00+00:00"},
    {"5/20 * * * *", "UTC", "2024-01-01T00:46+00:00", "2024-01-01T01:05+00:00"},
    {"1-10/4,30 * * * *", "UTC", "2024-01-01T00:06+00:00", "2024-01-01T00:09+00:00"},
    /* Vixie OR rule: the 13th or any Friday */
    {"0 0 13 * 5", "UTC", "2024-09-01T00:00+00:00", "2024-09-06T00:00+00:00"},
    {"0 0 13 * 5", "UTC", "2024-09-06T00:00+00:00", "2024-09-13T00:00+00:00"},
    {"0 0 13 * *", "UTC", "2024-09-13T00:00+00:00", "2024-10-13T00:00+00:00"},
    /* leap years, short months, impossible dates */
    {"0 0 29 2 *", "UTC", "2024-03-01T00:00+00:00", "2028-02-29T00:00+00:00"},
    {"0 0 29 2 *", "UTC", "2096-03-01T00:00+00:00", NULL},  /* 2100 is not leap */
    {"0 0 30 2 *", "UTC", "2024-01-01T00:00+00:00", NULL},
    {"0 0 31 2,4,6,9,11 *", "UTC", "2024-01-01T00:00+00:00", NULL},
    {"0 0 31 * *", "UTC", "2024-04-01T00:00+00:00", "2024-05-31T00:00+00:00"},
    {"59 23 31 12 *", "UTC", "2024-12-31T23:59+00:00", "2025-12-31T23:59+00:00"},
    /* seconds in `after` */
    {"* * * * *", "UTC", "2024-01-01T00:00+00:00", "2024-01-01T00:01+00:00"},
    /* zones without DST */
    {"0 9 * * *", "Asia/Shanghai", "2024-01-01T09:00+08:00", "2024-01-02T09:00+08:00"},
    {"30 0 * * *", "Asia/Shanghai", "2024-01-01T16:00+00:00", "2024-01-02T00:30+08:00"},
    {"0 0 * * *", "Asia/Kolkata", "2024-01-01T00:00+05:30", "2024-01-02T00:00+05:30"},
    /* New York, spring forward 2024-03-10 02:00 EST -> 03:00 EDT */
    {"0 3 * * *", "America/New_York", "2024-03-10T01:30-05:00", "2024-03-10T03:00-04:00"},
    {"30 2 * * *", "America/New_York", "2024-03-10T01:30-05:00", "2024-03-10T03:30-04:00"},
    {"30 2 * * *", "America/New_York", "2024-03-10T03:10-04:00", "2024-03-10T03:30-04:00"},
    {"30 2 * * *", "America/New_York", "2024-03-10T03:30-04:00", "2024-03-11T02:30-04:00"},
    {"0 * * * *", "America/New_York", "2024-03-10T01:30-05:00", "2024-03-10T03:00-04:00"},
    {"0 12 * * *", "America/New_York", "2024-03-09T13:00-05:00", "2024-03-10T12:00-04:00"},
    /* New York, fall back 2024-11-03 02:00 EDT -> 01:00 EST */
    {"*/15 * * * *", "America/New_York", "2024-11-03T01:50-04:00", "2024-11-03T01:00-05:00"},
    {"30 1 * * *", "America/New_York", "2024-11-03T00:45-04:00", "2024-11-03T01:30-04:00"},
    {"30 1 * * *", "America/New_York", "2024-11-03T01:45-04:00", "2024-11-04T01:30-05:00"},
    {"30 1 * * *", "America/New_York", "2024-11-03T01:10-05:00", "2024-11-04T01:30-05:00"},
    {"0 4 * * *", "America/New_York", "2024-11-03T00:45-04:00", "2024-11-03T04:00-05:00"},
    {"0 12 * * *", "America/New_York", "2024-11-02T13:00-04:00", "2024-11-03T12:00-05:00"},
    /* past the files' table: the footer rule (2040-03-11, 2040-11-04) */
    {"30 2 * * *", "America/New_York", "2040-03-11T01:00-05:00", "2040-03-11T03:30-04:00"},
    {"0 1 * * *", "America/New_York", "2040-11-04T00:30-04:00", "2040-11-04T01:00-04:00"},
    {"0 1 * * *", "America/New_York", "2040-11-04T01:00-04:00", "2040-11-05T01:00-05:00"},
    /* London: 2024-03-31 01:00 GMT -> 02:00 BST; 2024-10-27 02:00 BST -> 01:00 GMT */
    {"30 1 * * *", "Europe/London", "2024-03-31T00:59+00:00", "2024-03-31T02:30+01:00"},
    {"0 9 * * *", "Europe/London", "2024-03-30T09:00+00:00", "2024-03-31T09:00+01:00"},
    {"30 1 * * *", "Europe/London", "2024-10-27T01:40+01:00", "2024-10-28T01:30+00:00"},
    {"*/30 * * * *", "Europe/London", "2024-10-27T01:40+01:00", "2024-10-27T01:00+00:00"},
    /* Lord Howe: 30-minute DST. 2024-10-06 02:00 +10:30 -> 02:30 +11:00;
     * 2024-04-07 02:00 +11:00 -> 01:30 +10:30 */
    {"15 2 * * *", "Australia/Lord_Howe", "2024-10-06T01:00+10:30", "2024-10-06T02:45+11:00"},
    {"45 2 * * *", "Australia/Lord_Howe", "2024-10-06T01:00+10:30", "2024-10-06T02:45+11:00"},
    {"45 1 * * *", "Australia/Lord_Howe", "2024-04-07T01:50+11:00", "2024-04-08T01:45+10:30"},
    {"*/15 * * * *", "Australia/Lord_Howe", "2024-04-07T01:50+11:00", "2024-04-07T01:30+10:30"},
};

static void test_next_ticks(void **state)
{
    (void)state;
    char err[256];
    for (size_t i = 0; i < sizeof ticks / sizeof ticks[0]; i++) {
        const struct tick_case *tc = &ticks[i];
        pl_cron *c = pl_cron_parse(tc->expr, err, sizeof err);
        if (!c)
            fail_msg("%s: %s", tc->expr, err);
        pl_tz *tz = pl_tz_load(tc->zone, err, sizeof err);
        if (!tz)
            fail_msg("%s: %s", tc->zone, err);
        int64_t got = pl_cron_next(c, tz, at(tc->after));
        int64_t want = tc->next ? at(tc->next) : -1;
        if (got != want)
            fail_msg("\"%s\" in %s after %s: got %lld, want %lld (%s)", tc->expr, tc->zone,
                     tc->after, (long long)got, (long long)want, tc->next ? tc->next : "none");
        pl_cron_free(c);
        pl_tz_free(tz);
    }
}

static void test_null_zone_is_utc(void **state)
{
    (void)state;
    char err[128];
    pl_cron *c = pl_cron_parse("0 0 * * *", err, sizeof err);
    assert_non_null(c);
    assert_int_equal(pl_cron_next(c, NULL, at("2024-01-01T00:00+00:00") + 30),
                     at("2024-01-02T00:00+00:00"));
    assert_int_equal(pl_cron_next(c, NULL, at("1969-12-31T12:00+00:00")), 0);
    pl_cron_free(c);
}

static const struct error_case {
    const char *expr, *message;
} errors[] = {
    {"1 2 3 4 8", "day-of-week: 8 is out of range 0-7"},
    {"60 * * * *", "minute: 60 is out of range 0-59"},
    {"* 24 * * *", "hour: 24 is out of range 0-23"},
    {"* * 0 * *", "day-of-month: 0 is out of range 1-31"},
    {"* * 32 * *", "day-of-month: 32 is out of range 1-31"},
    {"* * * 13 *", "month: 13 is out of range 1-12"},
    {"* * * foo *", "month: unknown name \"foo\""},
    {"* * * * funday", "day-of-week: unknown name \"funday\""},
    {"* * * * 5-2", "day-of-week: range 5-2 is backwards"},
    {"*/0 * * * *", "minute: step 0 is out of range 1-59"},
    {"*/ * * * *", "minute: a step needs a number after '/'"},
    {"1,,2 * * * *", "minute: empty list item"},
    {"jan * * * *", "minute: unexpected 'j'"},
    {"* * * *", "expected 5 fields (minute hour day-of-month month day-of-week), got 4"},
    {"* * * * * *", "expected 5 fields (minute hour day-of-month month day-of-week), got more"},
    {"", "expected 5 fields (minute hour day-of-month month day-of-week), got 0"},
    {"@reboot", "unknown alias \"@reboot\" (use @yearly, @annually, @monthly, @weekly, "
                "@daily, @midnight or @hourly)"},
    {"1-2-3 * * * *", "minute: unexpected '-'"},
    {"99999999999999999999 * * * *", "minute: 99999999999999999999 is out of range 0-59"},
};

static void test_parse_errors(void **state)
{
    (void)state;
    char err[256];
    for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++) {
        err[0] = '\0';
        pl_cron *c = pl_cron_parse(errors[i].expr, err, sizeof err);
        if (c)
            fail_msg("\"%s\" parsed but should not", errors[i].expr);
        if (strcmp(err, errors[i].message) != 0)
            fail_msg("\"%s\": got \"%s\", want \"%s\"", errors[i].expr, err, errors[i].message);
    }
}

static void test_zone_errors(void **state)
{
    (void)state;
    char err[256];
    assert_null(pl_tz_load("Mars/Olympus", err, sizeof err));
    assert_string_equal(err, "time zone \"Mars/Olympus\": unknown time zone");
    assert_null(pl_tz_load("../../etc/passwd", err, sizeof err));
    assert_string_equal(err, "time zone \"../../etc/passwd\": not a valid zone name");
    assert_null(pl_tz_load("/etc/passwd", err, sizeof err));
    assert_null(pl_tz_load("", err, sizeof err));
    /* a file that is not TZif */
    char dir[] = "pl-tzdir-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/Bogus", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("not a zone file", f);
    fclose(f);
    setenv("TZDIR", dir, 1);
    assert_null(pl_tz_load("Bogus", err, sizeof err));
    assert_string_equal(err, "time zone \"Bogus\": not a TZif file");
    unsetenv("TZDIR");
    remove(path);
    rmdir(dir);
}

/* Without zoneinfo files, UTC still loads; other zones do not. */
static void test_utc_without_zoneinfo(void **state)
{
    (void)state;
    char dir[] = "pl-tzdir-XXXXXX", err[256];
    assert_non_null(mkdtemp(dir));
    setenv("TZDIR", dir, 1);
    pl_tz *utc = pl_tz_load("Etc/UTC", err, sizeof err);
    assert_null(pl_tz_load("Europe/London", err, sizeof err));
    unsetenv("TZDIR");
    rmdir(dir);
    assert_non_null(utc);
    pl_cron *c = pl_cron_parse("0 12 * * *", err, sizeof err);
    assert_int_equal(pl_cron_next(c, utc, at("2024-07-01T12:00+00:00")),
                     at("2024-07-02T12:00+00:00"));
    pl_cron_free(c);
    pl_tz_free(utc);
}

/* Shared zone and expression objects give the same answers from several
 * threads at once (no hidden state). */
struct walk {
    const pl_cron *c;
    const pl_tz *tz;
    int64_t sum;
};

static void *walk_ticks(void *arg)
{
    struct walk *w = arg;
    int64_t t = at("2023-01-01T00:00+00:00");
    for (int i = 0; i < 5000 && t >= 0; i++)
        w->sum += (t = pl_cron_next(w->c, w->tz, t)) % 1000003;
    return NULL;
}

static void test_threads(void **state)
{
    (void)state;
    char err[256];
    pl_cron *c = pl_cron_parse("*/7 1-3 * * *", err, sizeof err);
    pl_tz *tz = pl_tz_load("America/New_York", err, sizeof err);
    assert_non_null(c);
    assert_non_null(tz);
    struct walk one = {c, tz, 0}, many[4];
    walk_ticks(&one);
    pthread_t th[4];
    for (int i = 0; i < 4; i++) {
        many[i] = (struct walk){c, tz, 0};
        assert_int_equal(pthread_create(&th[i], NULL, walk_ticks, &many[i]), 0);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        assert_int_equal(many[i].sum, one.sum);
    }
    pl_cron_free(c);
    pl_tz_free(tz);
}

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* A version 1 file (32-bit table, no footer): New York's own v1 section. */
static void test_tzif_v1(void **state)
{
    (void)state;
    static unsigned char data[8192];
    FILE *in = fopen("/usr/share/zoneinfo/America/New_York", "rb");
    assert_non_null(in);
    size_t len = fread(data, 1, sizeof data, in);
    fclose(in);
    assert_true(len > 44);
    uint32_t isut = be32(data + 20), isstd = be32(data + 24), leap = be32(data + 28);
    uint32_t time = be32(data + 32), type = be32(data + 36), chars = be32(data + 40);
    size_t v1 = 44 + time * 5 + type * 6 + chars + leap * 8 + isstd + isut;
    assert_true(v1 <= len && time > 100);
    data[4] = '\0';
    char dir[] = "pl-tzdir-XXXXXX", path[256], err[256];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/V1", dir);
    FILE *f = fopen(path, "wb");
    fwrite(data, 1, v1, f);
    fclose(f);
    setenv("TZDIR", dir, 1);
    pl_tz *tz = pl_tz_load("V1", err, sizeof err);
    unsetenv("TZDIR");
    remove(path);
    rmdir(dir);
    if (!tz)
        fail_msg("%s", err);
    pl_cron *c = pl_cron_parse("0 3 * * *", err, sizeof err);
    assert_int_equal(pl_cron_next(c, tz, at("2024-03-10T01:30-05:00")), at("2024-03-10T03:00-04:00"));
    assert_int_equal(pl_cron_next(c, tz, at("2024-11-02T12:00-04:00")), at("2024-11-03T03:00-05:00"));
    pl_cron_free(c);
    pl_tz_free(tz);
}

/* A TZif file cut at every length never crashes the loader. */
static void test_truncated_tzif(void **state)
{
    (void)state;
    FILE *in = fopen("/usr/share/zoneinfo/America/New_York", "rb");
    assert_non_null(in);
    static unsigned char data[8192];
    size_t len = fread(data, 1, sizeof data, in);
    fclose(in);
    char dir[] = "pl-tzdir-XXXXXX", path[256], err[256];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/Cut", dir);
    setenv("TZDIR", dir, 1);
    for (size_t n = 0; n < len; n += 7) {
        FILE *f = fopen(path, "wb");
        fwrite(data, 1, n, f);
        fclose(f);
        pl_tz_free(pl_tz_load("Cut", err, sizeof err));
    }
    unsetenv("TZDIR");
    remove(path);
    rmdir(dir);
}

/* pl_tz_day_start: a civil day's first instant in a zone. */
static void test_day_start(void **state)
{
    (void)state;
    static const struct { const char *zone; int y, m, d; const char *start; } cases[] = {
        {"Asia/Shanghai", 2026, 11, 25, "2026-11-25T00:00+08:00"},
        {"Asia/Shanghai", 2026, 11, 28, "2026-11-28T00:00+08:00"}, /* 27 + 1 */
        {"America/New_York", 2024, 3, 10, "2024-03-10T00:00-05:00"},  /* DST later that day */
        {"America/New_York", 2024, 3, 11, "2024-03-11T00:00-04:00"},
        {"America/New_York", 2024, 11, 3, "2024-11-03T00:00-04:00"},
        {"America/Sao_Paulo", 2018, 11, 4, "2018-11-04T01:00-02:00"}, /* midnight skipped */
        {"America/Havana", 2024, 11, 3, "2024-11-03T00:00-04:00"},    /* 01:00 repeats */
        {"Europe/London", 2024, 12, 32, "2025-01-01T00:00+00:00"},    /* rolls over */
    };
    char err[256];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pl_tz *tz = pl_tz_load(cases[i].zone, err, sizeof err);
        assert_non_null(tz);
        int64_t got = pl_tz_day_start(tz, cases[i].y, cases[i].m, cases[i].d);
        if (got != at(cases[i].start))
            fail_msg("%s %d-%d-%d: %lld, want %s", cases[i].zone, cases[i].y, cases[i].m,
                     cases[i].d, (long long)got, cases[i].start);
        pl_tz_free(tz);
    }
    assert_int_equal(pl_tz_day_start(NULL, 1970, 1, 2), 86400);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_next_ticks),      cmocka_unit_test(test_null_zone_is_utc),
        cmocka_unit_test(test_parse_errors),    cmocka_unit_test(test_zone_errors),
        cmocka_unit_test(test_truncated_tzif),  cmocka_unit_test(test_utc_without_zoneinfo),
        cmocka_unit_test(test_threads),         cmocka_unit_test(test_tzif_v1),
        cmocka_unit_test(test_day_start),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
