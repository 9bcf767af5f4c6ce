/* test_tpe.c — TPE: its Parzen estimators are densities (a discrete one
 * sums to 1, a continuous one integrates to 1), Optuna's weight ramp,
 * TPE beats random on Branin (fixed seeds, univariate and multivariate),
 * and a nested choice's conditional dimensions are learnt from the trials
 * that took their option. */
#include "test_common.h"
#include "tuner_internal.h"

static void parzen_is_a_density(void **st)
{
    (void)st;
    struct hp_space *s = space_of("{\"k\": {\"_type\": \"randint\", \"_value\": [0, 20]},"
                                  " \"u\": {\"_type\": \"uniform\", \"_value\": [-1, 3]},"
                                  " \"c\": {\"_type\": \"choice\", \"_value\": [1, 2, 3, 4]}}");
    double obs[] = {2, 3, 3, 17}, w[] = {1, 1, 1, 1};
    for (int bw = 0; bw < 2; bw++) {
        struct hp_parzen pe;
        struct hp_parzen_opts o = {1.0, bw ? 0.2 : 0, 0};
        assert_int_equal(hp_parzen_build(&pe, &s->dims[0], obs, w, 4, &o), 0);
        double sum = 0;
        for (int v = 0; v < 20; v++)
            sum += exp(hp_parzen_logpdf(&pe, v));
        assert_true(fabs(sum - 1) < 1e-9);
        hp_parzen_free(&pe);
        double uobs[] = {-0.5, 0, 2.9, 1};
        assert_int_equal(hp_parzen_build(&pe, &s->dims[1], uobs, w, 4, &o), 0);
        sum = 0;
        for (int i = 0; i < 40000; i++)
            sum += exp(hp_parzen_logpdf(&pe, -1 + (i + 0.5) * 4 / 40000.0)) * 4 / 40000.0;
        assert_true(fabs(sum - 1) < 1e-4);
        hp_parzen_free(&pe);
        double cobs[] = {0, 0, 1, 3};
        assert_int_equal(hp_parzen_build(&pe, &s->dims[2], cobs, w, 4, &o), 0);
        sum = 0;
        for (int c = 0; c < 4; c++)
            sum += exp(hp_parzen_logpdf(&pe, c));
        assert_true(fabs(sum - 1) < 1e-12);
        assert_true(hp_parzen_logpdf(&pe, 0) > hp_parzen_logpdf(&pe, 2));
        hp_parzen_free(&pe);
    }
    hp_space_free(s);
}

static void weights_ramp_as_optuna(void **st)
{
    (void)st;
    double w[30];
    hp_tpe_weights(10, w);
    for (int i = 0; i < 10; i++)
        assert_true(w[i] == 1);
    hp_tpe_weights(30, w);   /* linspace(1/30, 1, 5), then 25 ones */
    assert_true(fabs(w[0] - 1.0 / 30) < 1e-12 && fabs(w[4] - 1) < 1e-12);
    assert_true(fabs(w[2] - (1.0 / 30 + (1 - 1.0 / 30) / 2)) < 1e-12);
    assert_true(w[5] == 1 && w[29] == 1);
}

static const char BRANIN[] = "{\"x1\": {\"_type\": \"uniform\", \"_value\": [-5, 10]},"
                             " \"x2\": {\"_type\": \"uniform\", \"_value\": [0, 15]}}";

static double branin(const struct hp_space *s, const double *x)
{
    (void)s;
    double a = 1, b = 5.1 / (4 * M_PI * M_PI), c = 5 / M_PI, r = 6, t = 1 / (8 * M_PI);
    double u = x[1] - b * x[0] * x[0] + c * x[0] - r;
    return a * u * u + 10 * (1 - t) * cos(x[0]) + 10;
}

static double median_best(const char *name, const char *args, int trials)
{
    return median_best_of(BRANIN, branin, name, args, trials, 10, 1000);
}

static void tpe_beats_random_on_branin(void **st)
{
    (void)st;
    double rnd = median_best("random", NULL, 60);
    double tpe = median_best("tpe", NULL, 60);
    double uni = median_best("tpe", "{\"multivariate\": false}", 60);
    print_message("Branin, 60 trials, median best of 10 seeds: random %.4f, tpe %.4f, "
                  "univariate tpe %.4f (optimum 0.3979)\n", rnd, tpe, uni);
    assert_true(tpe < rnd);
    assert_true(uni < rnd);
    assert_true(tpe < 0.6);
}

/* The "b" option is better, and its x near 0.7. */
static double nested_objective(const struct hp_space *s, const double *x)
{
    (void)s;
    if ((int)x[0] == 0)
        return 1 + 0.1 * x[1];
    return (x[2] - 0.7) * (x[2] - 0.7);
}

static void nested_dimensions_are_conditional(void **st)
{
    (void)st;
    struct hp_space *s = space_of(
        "{\"m\": {\"_type\": \"choice\", \"_value\": ["
        "  {\"_name\": \"a\", \"y\": {\"_type\": \"uniform\", \"_value\": [0, 1]}},"
        "  {\"_name\": \"b\", \"x\": {\"_type\": \"uniform\", \"_value\": [0, 1]}}]}}");
    struct hp_tuner *t = tuner_of("tpe", NULL, s, 11);
    struct run r = run_tuner(t, s, 60, nested_objective);
    int late_b = 0;
    for (int i = 40; i < 60; i++)
        late_b += (int)r.obs[i].x[0] == 1;
    assert_true(late_b >= 15);   /* it learnt the option */
    assert_true(r.best < 0.01);
    run_free(&r);
    hp_tuner_free(t);
    hp_space_free(s);
}

static void startup_is_random_then_model(void **st)
{
    (void)st;
    struct hp_space *s = space_of(BRANIN);
    struct hp_tuner *t = tuner_of("tpe", "{\"n_startup_trials\": 5}", s, 3);
    struct hp_tuner *rnd = tuner_of("random", NULL, s, 3);
    struct run a = run_tuner(t, s, 8, branin), b = run_tuner(rnd, s, 8, branin);
    assert_memory_equal(a.xs, b.xs, 5 * 2 * sizeof(double));   /* the first 5: the prior */
    assert_memory_not_equal(a.xs + 10, b.xs + 10, 2 * sizeof(double));
    run_free(&a), run_free(&b);
    hp_tuner_free(t), hp_tuner_free(rnd);
    hp_space_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parzen_is_a_density),
        cmocka_unit_test(weights_ramp_as_optuna),
        cmocka_unit_test(tpe_beats_random_on_branin),
        cmocka_unit_test(nested_dimensions_are_conditional),
        cmocka_unit_test(startup_is_random_then_model),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
