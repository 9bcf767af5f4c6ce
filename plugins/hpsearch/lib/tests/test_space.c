/* test_space.c — search spaces: every _type parsed and sampled within its
 * bounds (chi-square on 10,000 draws for the uniform ones and choice, fixed
 * seed), nested choices as conditional dimensions, bad spaces refused
 * naming the field, parameters built and parsed back. */
#include "test_common.h"

#define DRAWS 10000
/* chi-square critical values at p = 0.001 */
static double chi2_crit(int df)
{
    static const double v[] = {0, 10.83, 13.82, 16.27, 18.47, 20.52, 22.46, 24.32, 26.12, 27.88,
                               29.59};
    return df <= 10 ? v[df] : df + 3.1 * sqrt(2.0 * df) + 2;
}

static double chi2(const int *counts, int k, double expected)
{
    double c = 0;
    for (int i = 0; i < k; i++)
        c += (counts[i] - expected) * (counts[i] - expected) / expected;
    return c;
}

static const char ALL[] =
    "{\"c\": {\"_type\": \"choice\", \"_value\": [\"a\", 2, true, null, [1, 2]]},"
    " \"ri\": {\"_type\": \"randint\", \"_value\": [3, 10]},"
    " \"u\": {\"_type\": \"uniform\", \"_value\": [-2, 6]},"
    " \"qu\": {\"_type\": \"quniform\", \"_value\": [0, 1, 0.25]},"
    " \"lu\": {\"_type\": \"loguniform\", \"_value\": [0.0001, 0.1]},"
    " \"qlu\": {\"_type\": \"qloguniform\", \"_value\": [1, 1000, 10]},"
    " \"n\": {\"_type\": \"normal\", \"_value\": [5, 2]},"
    " \"qn\": {\"_type\": \"qnormal\", \"_value\": [0, 10, 5]},"
    " \"ln\": {\"_type\": \"lognormal\", \"_value\": [0, 1]},"
    " \"qln\": {\"_type\": \"qlognormal\", \"_value\": [2, 0.5, 1]}}";

static int on_grid(double v, double q)
{
    double k = v / q;
    return fabs(k - round(k)) < 1e-9;
}

static void every_type_within_bounds(void **st)
{
    (void)st;
    struct hp_space *s = space_of(ALL);
    assert_int_equal(s->n, 10);
    struct hp_rng r;
    hp_rng_seed(&r, 42, 0);
    int choice[5] = {0}, ints[7] = {0}, uni[10] = {0}, logu[10] = {0};
    double nsum = 0, nsq = 0, lnlog = 0;
    for (int i = 0; i < DRAWS; i++) {
        double x[10];
        hp_space_sample(s, &r, x);
        assert_true(x[0] >= 0 && x[0] < 5 && x[0] == floor(x[0]));
        choice[(int)x[0]]++;
        assert_true(x[1] >= 3 && x[1] < 10 && x[1] == floor(x[1]));
        ints[(int)x[1] - 3]++;
        assert_true(x[2] >= -2 && x[2] <= 6);
        uni[(int)((x[2] + 2) / 8 * 10) % 10]++;
        assert_true(x[3] >= 0 && x[3] <= 1 && on_grid(x[3], 0.25));
        assert_true(x[4] >= 0.0001 && x[4] <= 0.1);
        logu[(int)((log(x[4]) - log(0.0001)) / (log(0.1) - log(0.0001)) * 10) % 10]++;
        assert_true(x[5] >= 1 && x[5] <= 1000 && (x[5] == 1 || on_grid(x[5], 10)));
        nsum += x[6], nsq += x[6] * x[6];
        assert_true(on_grid(x[7], 5));
        assert_true(x[8] > 0);
        lnlog += log(x[8]);
        assert_true(x[9] >= 0 && on_grid(x[9], 1));
    }
    assert_true(chi2(choice, 5, DRAWS / 5.0) < chi2_crit(4));
    assert_true(chi2(ints, 7, DRAWS / 7.0) < chi2_crit(6));
    assert_true(chi2(uni, 10, DRAWS / 10.0) < chi2_crit(9));
    assert_true(chi2(logu, 10, DRAWS / 10.0) < chi2_crit(9));
    double mean = nsum / DRAWS, sd = sqrt(nsq / DRAWS - mean * mean);
    assert_true(fabs(mean - 5) < 0.1 && fabs(sd - 2) < 0.1);
    assert_true(fabs(lnlog / DRAWS) < 0.05);
    hp_space_free(s);
}

static void quniform_clips_as_nni(void **st)
{
    (void)st;
    struct hp_space *s = space_of("{\"q\": {\"_type\": \"quniform\", \"_value\": [1, 10, 4]}}");
    assert_true(hp_dim_round(&s->dims[0], 0.2) == 1);    /* clip(round(v/q)*q, low, high) */
    assert_true(hp_dim_round(&s->dims[0], 5.9) == 4);
    assert_true(hp_dim_round(&s->dims[0], 6.1) == 8);
    assert_true(hp_dim_round(&s->dims[0], 9.9) == 8);
    assert_true(hp_dim_round(&s->dims[0], 10) == 10);
    hp_space_free(s);
    s = space_of("{\"q\": {\"_type\": \"quniform\", \"_value\": [0, 1, 0.1]}}");
    assert_true(hp_dim_round(&s->dims[0], 0.31) == 0.3);  /* no binary noise: 0.3, not 0.30000000000000004 */
    hp_space_free(s);
}

static const char NESTED[] =
    "{\"lr\": {\"_type\": \"loguniform\", \"_value\": [0.001, 0.1]},"
    " \"model\": {\"_type\": \"choice\", \"_value\": ["
    "   {\"_name\": \"svm\", \"C\": {\"_type\": \"uniform\", \"_value\": [0.1, 10]},"
    "    \"kernel\": {\"_type\": \"choice\", \"_value\": [\"rbf\", \"linear\"]}},"
    "   {\"_name\": \"tree\", \"depth\": {\"_type\": \"randint\", \"_value\": [1, 8]}},"
    "   {\"_name\": \"none\"}]}}";

static void nested_choice_is_conditional(void **st)
{
    (void)st;
    struct hp_space *s = space_of(NESTED);
    assert_int_equal(s->n, 5);   /* lr, model, C, kernel, depth */
    assert_int_equal(s->dims[2].parent, 1);
    assert_int_equal(s->dims[2].parent_option, 0);
    assert_int_equal(s->dims[4].parent_option, 1);
    assert_string_equal(s->dims[2].field, "model._value[0].C");
    struct hp_rng r;
    hp_rng_seed(&r, 7, 1);
    int seen[3] = {0};
    for (int i = 0; i < 300; i++) {
        double x[5];
        hp_space_sample(s, &r, x);
        int m = (int)x[1];
        seen[m]++;
        assert_int_equal(!isnan(x[2]), m == 0);
        assert_int_equal(!isnan(x[3]), m == 0);
        assert_int_equal(!isnan(x[4]), m == 1);
        cJSON *p = hp_params_build(s, x);
        const cJSON *model = cJSON_GetObjectItemCaseSensitive(p, "model");
        assert_true(cJSON_IsObject(model));
        assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(model, "_name")),
                            m == 0 ? "svm" : m == 1 ? "tree" : "none");
        double y[5];
        struct hp_err e;
        assert_int_equal(hp_params_parse(s, p, NULL, y, &e), 0);
        for (int d = 0; d < 5; d++)
            assert_true((isnan(x[d]) && isnan(y[d])) || x[d] == y[d]);
        cJSON_Delete(p);
    }
    assert_true(seen[0] > 50 && seen[1] > 50 && seen[2] > 50);
    hp_space_free(s);
}

static void parse_params_names_the_field(void **st)
{
    (void)st;
    struct hp_space *s = space_of(NESTED);
    struct { const char *params, *field; } cases[] = {
        {"{\"lr\": 0.01, \"model\": {\"_name\": \"svm\", \"C\": 20, \"kernel\": \"rbf\"}}",
         "model.C"},
        {"{\"lr\": 0.01, \"model\": {\"_name\": \"svm\", \"C\": 2}}", "model.kernel"},
        {"{\"lr\": 0.01, \"model\": {\"_name\": \"mlp\"}}", "model"},
        {"{\"lr\": \"x\", \"model\": {\"_name\": \"none\"}}", "lr"},
        {"{\"model\": {\"_name\": \"none\"}}", "lr"},
        {"{\"lr\": 0.01, \"model\": {\"_name\": \"none\"}, \"extra\": 1}", "extra"},
        {"{\"lr\": 0.01, \"model\": {\"_name\": \"tree\", \"depth\": 2.5}}", "model.depth"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cJSON *p = cJSON_Parse(cases[i].params);
        double x[5];
        struct hp_err e;
        assert_int_equal(hp_params_parse(s, p, NULL, x, &e), -1);
        if (strcmp(e.field, cases[i].field))
            fail_msg("%s: field %s (%s), want %s", cases[i].params, e.field, e.msg,
                     cases[i].field);
        cJSON_Delete(p);
    }
    cJSON *p = cJSON_Parse("{\"lr\": 0.01, \"model\": {\"_name\": \"none\"}, \"TRIAL_BUDGET\": 3}");
    double x[5];
    struct hp_err e;
    assert_int_equal(hp_params_parse(s, p, HP_BUDGET_PARAM, x, &e), 0);
    cJSON_Delete(p);
    hp_space_free(s);
}

static void bad_spaces_name_the_field(void **st)
{
    (void)st;
    struct { const char *space, *field, *words; } cases[] = {
        {"{\"lr\": {\"_type\": \"uniform\", \"_value\": [1]}}", "lr._value", "[low, high]"},
        {"{\"lr\": {\"_type\": \"uniform\", \"_value\": 3}}", "lr._value", "a list"},
        {"{\"lr\": {\"_type\": \"uniform\", \"_value\": [0.5, 0.1]}}", "lr._value", "below"},
        {"{\"lr\": {\"_type\": \"loguniform\", \"_value\": [0, 0.1]}}", "lr._value", "positive"},
        {"{\"lr\": {\"_type\": \"qloguniform\", \"_value\": [-1, 0.1, 0.01]}}", "lr._value",
         "positive"},
        {"{\"lr\": {\"_type\": \"gaussian\", \"_value\": [0, 1]}}", "lr._type", "unknown _type"},
        {"{\"lr\": {\"_value\": [0, 1]}}", "lr._type", "required"},
        {"{\"lr\": {\"_type\": \"quniform\", \"_value\": [0, 1, 0]}}", "lr._value", "q must"},
        {"{\"lr\": {\"_type\": \"normal\", \"_value\": [0, -1]}}", "lr._value", "sigma"},
        {"{\"lr\": {\"_type\": \"randint\", \"_value\": [1.5, 4]}}", "lr._value", "integers"},
        {"{\"lr\": {\"_type\": \"randint\", \"_value\": [5, 5]}}", "lr._value", "below"},
        {"{\"lr\": {\"_type\": \"choice\", \"_value\": []}}", "lr._value", "non-empty"},
        {"{\"lr\": {\"_type\": \"uniform\", \"_value\": [0, 1], \"extra\": 1}}", "lr.extra",
         "unknown"},
        {"{\"m\": {\"_type\": \"choice\", \"_value\": [{\"_name\": 3}]}}", "m._value[0]", "_name"},
        {"{\"m\": {\"_type\": \"choice\", \"_value\": [{\"_name\": \"a\", \"x\": {\"_type\": "
         "\"uniform\", \"_value\": [2, 1]}}]}}", "m._value[0].x._value", "below"},
        {"{\"TRIAL_BUDGET\": {\"_type\": \"uniform\", \"_value\": [0, 1]}}", "TRIAL_BUDGET",
         "tuner"},
        {"{\"lr\": 0.1}", "lr", "object"},
        {"[]", "", "object"},
        {"{}", "", "no parameters"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct hp_err e;
        const char *f = space_error(cases[i].space, &e);
        if (strcmp(f, cases[i].field) || !strstr(e.msg, cases[i].words))
            fail_msg("%s: field \"%s\" (%s), want \"%s\" with \"%s\"", cases[i].space, f,
                     e.msg, cases[i].field, cases[i].words);
    }
    struct hp_err e;   /* NNI's older randint [upper] */
    assert_string_equal(space_error("{\"k\": {\"_type\": \"randint\", \"_value\": [4]}}", &e),
                        "OK");
}

static void truncated_normal_stays_inside(void **st)
{
    (void)st;
    struct hp_rng r;
    hp_rng_seed(&r, 1, 2);
    for (int i = 0; i < 2000; i++) {
        double v = hp_rng_truncnorm(&r, 0, 1, 8, 9);   /* far in the tail */
        assert_true(v >= 8 && v <= 9);
        v = hp_rng_truncnorm(&r, 5, 0.1, -1, 0);
        assert_true(v >= -1 && v <= 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_type_within_bounds),
        cmocka_unit_test(quniform_clips_as_nni),
        cmocka_unit_test(nested_choice_is_conditional),
        cmocka_unit_test(parse_params_names_the_field),
        cmocka_unit_test(bad_spaces_name_the_field),
        cmocka_unit_test(truncated_normal_stays_inside),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
