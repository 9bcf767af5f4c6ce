/* test_assess.c — median stop stops a clearly bad curve and spares a good
 * one (after start_step, both directions); curve fitting predicts a
 * saturating curve's end, stops a trial that cannot reach the best and
 * spares one that can; bad arguments are refused naming the field. */
#include "test_common.h"
#include "assess_internal.h"

static struct hp_assessor *assessor(const char *name, const char *args, int maximize)
{
    cJSON *a = args ? cJSON_Parse(args) : NULL;
    struct hp_assessor *as = NULL;
    struct hp_err e;
    if (hp_assessor_new(name, a, maximize, &as, &e) < 0)
        fail_msg("%s %s: %s: %s", name, args ? args : "", e.field, e.msg);
    cJSON_Delete(a);
    return as;
}

/* Accuracy-like curves of completed trials: 0.5 + 0.4 (1 - 1/(i+1)) + offset. */
static void curve(double *v, int n, double offset, double sign)
{
    for (int i = 0; i < n; i++)
        v[i] = sign * (0.5 + 0.4 * (1 - 1.0 / (i + 1)) + offset);
}

static void median_stops_bad_spares_good(void **st)
{
    (void)st;
    for (int dir = 0; dir < 2; dir++) {   /* maximize, then minimize (a loss curve) */
        int max = dir == 0;
        double sign = max ? 1 : -1;
        struct hp_assessor *a = assessor("medianstop", "{\"start_step\": 3}", max);
        double done_v[5][10];
        struct hp_curve done[5];
        for (int k = 0; k < 5; k++) {
            curve(done_v[k], 10, 0.01 * k, sign);
            done[k] = (struct hp_curve){done_v[k], 10};
        }
        double bad[10], good[10];
        curve(bad, 10, -0.3, sign);
        curve(good, 10, 0.05, sign);
        char why[300];
        struct hp_curve c = {bad, 2};   /* before start_step: spared */
        assert_int_equal(hp_assess(a, &c, done, 5, NAN, why, sizeof why), HP_GOOD);
        c.n = 4;
        assert_int_equal(hp_assess(a, &c, done, 5, NAN, why, sizeof why), HP_BAD);
        assert_non_null(strstr(why, "median"));
        c = (struct hp_curve){good, 4};
        assert_int_equal(hp_assess(a, &c, done, 5, NAN, why, sizeof why), HP_GOOD);
        c.n = 10;
        assert_int_equal(hp_assess(a, &c, done, 5, NAN, why, sizeof why), HP_GOOD);
        /* no completed trial has reached step 11: nothing to compare with */
        double longer[12];
        curve(longer, 12, -0.3, sign);
        c = (struct hp_curve){longer, 11};
        assert_int_equal(hp_assess(a, &c, done, 5, NAN, why, sizeof why), HP_GOOD);
        hp_assessor_free(a);
    }
}

static void curve_predicts_a_saturating_end(void **st)
{
    (void)st;
    double y[12];
    for (int i = 0; i < 12; i++)   /* 0.9 - 0.5 x^-0.8 */
        y[i] = 0.9 - 0.5 * pow(i + 1, -0.8);
    double p = hp_curve_predict(y, 12, 50);
    assert_true(fabs(p - (0.9 - 0.5 * pow(50, -0.8))) < 0.03);
}

static void curvefitting_stops_what_cannot_win(void **st)
{
    (void)st;
    struct hp_assessor *a = assessor("curvefitting", "{\"epoch_num\": 30, \"start_step\": 6, "
                                                     "\"threshold\": 0.95}", 1);
    double low[30], high[30];
    for (int i = 0; i < 30; i++) {
        low[i] = 0.6 - 0.3 * pow(i + 1, -0.7);    /* heads to 0.6 */
        high[i] = 0.9 - 0.5 * pow(i + 1, -0.7);   /* heads to 0.9, slowly */
    }
    char why[400];
    struct hp_curve c = {low, 5};
    assert_int_equal(hp_assess(a, &c, NULL, 0, 0.85, why, sizeof why), HP_GOOD);   /* too early */
    c.n = 8;
    assert_int_equal(hp_assess(a, &c, NULL, 0, 0.85, why, sizeof why), HP_BAD);
    assert_non_null(strstr(why, "predicted"));
    c = (struct hp_curve){high, 8};   /* at step 8 it is below the best, yet heads past it */
    assert_true(high[7] < 0.85 * 0.95);
    assert_int_equal(hp_assess(a, &c, NULL, 0, 0.85, why, sizeof why), HP_GOOD);
    c = (struct hp_curve){low, 8};   /* no best yet: no verdict */
    assert_int_equal(hp_assess(a, &c, NULL, 0, NAN, why, sizeof why), HP_GOOD);
    hp_assessor_free(a);
    /* minimizing a loss: the mirror image */
    a = assessor("curvefitting", "{\"epoch_num\": 30}", 0);
    double loss[30];
    for (int i = 0; i < 30; i++)
        loss[i] = 1.0 + 2 * pow(i + 1, -0.7);   /* heads to 1.0, the best is 0.3 */
    c = (struct hp_curve){loss, 8};
    assert_int_equal(hp_assess(a, &c, NULL, 0, 0.3, why, sizeof why), HP_BAD);
    hp_assessor_free(a);
}

static void bad_assessor_arguments(void **st)
{
    (void)st;
    struct { const char *name, *args, *field; int max; } cases[] = {
        {"earlystop", NULL, "name", 1},
        {"medianstop", "{\"start_step\": -1}", "args.start_step", 1},
        {"medianstop", "{\"optimize_mode\": \"minimize\"}", "args.optimize_mode", 1},
        {"medianstop", "{\"window\": 3}", "args.window", 1},
        {"curvefitting", NULL, "args.epoch_num", 1},
        {"curvefitting", "{\"epoch_num\": 10, \"threshold\": 1.5}", "args.threshold", 1},
        {"curvefitting", "{\"epoch_num\": 10, \"start_step\": 20}", "args.start_step", 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cJSON *j = cases[i].args ? cJSON_Parse(cases[i].args) : NULL;
        struct hp_assessor *a;
        struct hp_err e;
        assert_int_equal(hp_assessor_new(cases[i].name, j, cases[i].max, &a, &e), -1);
        if (strcmp(e.field, cases[i].field))
            fail_msg("%s %s: %s (%s), want %s", cases[i].name, cases[i].args, e.field, e.msg,
                     cases[i].field);
        cJSON_Delete(j);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(median_stops_bad_spares_good),
        cmocka_unit_test(curve_predicts_a_saturating_end),
        cmocka_unit_test(curvefitting_stops_what_cannot_win),
        cmocka_unit_test(bad_assessor_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
