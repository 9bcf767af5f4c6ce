/* test_tuners.c — grid enumerates exactly (nested choices too) and refuses
 * a continuous dimension; batch; random, anneal and evolution stay within
 * the space, are deterministic for a seed, and anneal and evolution beat
 * random on a fixed objective; unknown tuners and arguments out of range
 * are refused naming the field; trials without results never break a
 * tuner. */
#include "test_common.h"

static void grid_enumerates_exactly(void **st)
{
    (void)st;
    struct hp_space *s = space_of(
        "{\"a\": {\"_type\": \"choice\", \"_value\": [\"x\", \"y\", \"z\"]},"
        " \"b\": {\"_type\": \"randint\", \"_value\": [0, 4]},"
        " \"c\": {\"_type\": \"quniform\", \"_value\": [0, 1, 0.25]},"
        " \"d\": {\"_type\": \"qloguniform\", \"_value\": [1, 100, 30]}}");
    struct hp_tuner *t = tuner_of("grid", NULL, s, 1);
    long long total = hp_tuner_total(t);
    assert_int_equal(total, 3 * 4 * 5 * 5);   /* d: 1, 30, 60, 90, 100 */
    struct hp_obs *h = calloc((size_t)total + 1, sizeof *h);
    double *xs = calloc((size_t)(total + 1) * 4, sizeof *xs);
    for (int i = 0; i < total; i++) {
        struct hp_suggestion sg = {.x = xs + i * 4};
        assert_int_equal(hp_tuner_suggest(t, h, i, i + 1, &sg), HP_SUGGEST_OK);
        for (int j = 0; j < i; j++)
            assert_false(!memcmp(xs + j * 4, xs + i * 4, 4 * sizeof *xs));   /* each once */
        h[i] = (struct hp_obs){.n = i + 1, .x = xs + i * 4, .state = HP_RUNNING};
    }
    struct hp_suggestion sg = {.x = xs + total * 4};
    assert_int_equal(hp_tuner_suggest(t, h, (int)total, (int)total + 1, &sg), HP_SUGGEST_DONE);
    /* a user-added trial does not use up a grid point */
    h[0].foreign = 1;
    assert_int_equal(hp_tuner_suggest(t, h, (int)total, (int)total + 1, &sg), HP_SUGGEST_OK);
    double d_values[5] = {0};
    for (int i = 0; i < 5; i++)
        d_values[i] = xs[i * 4 + 3];
    assert_true(d_values[0] == 1 && d_values[1] == 30 && d_values[2] == 60 &&
                d_values[3] == 90 && d_values[4] == 100);
    free(h), free(xs);
    hp_tuner_free(t);
    hp_space_free(s);
}

static void grid_over_nested_choices(void **st)
{
    (void)st;
    struct hp_space *s = space_of(
        "{\"m\": {\"_type\": \"choice\", \"_value\": ["
        "   {\"_name\": \"svm\", \"C\": {\"_type\": \"choice\", \"_value\": [1, 10, 100]}},"
        "   {\"_name\": \"tree\", \"depth\": {\"_type\": \"randint\", \"_value\": [1, 3]}},"
        "   {\"_name\": \"none\"}]},"
        " \"k\": {\"_type\": \"choice\", \"_value\": [0, 1]}}");
    struct hp_tuner *t = tuner_of("grid", NULL, s, 1);
    assert_int_equal(hp_tuner_total(t), (3 + 2 + 1) * 2);
    int per_model[3] = {0};
    struct hp_obs h[12];
    double xs[12][4];
    for (int i = 0; i < 12; i++) {
        struct hp_suggestion sg = {.x = xs[i]};
        assert_int_equal(hp_tuner_suggest(t, h, i, i + 1, &sg), HP_SUGGEST_OK);
        per_model[(int)xs[i][0]]++;
        assert_int_equal(!isnan(xs[i][1]), xs[i][0] == 0);
        assert_int_equal(!isnan(xs[i][2]), xs[i][0] == 1);
        h[i] = (struct hp_obs){.n = i + 1, .x = xs[i], .state = HP_DONE, .loss = i};
    }
    assert_int_equal(per_model[0], 6);
    assert_int_equal(per_model[1], 4);
    assert_int_equal(per_model[2], 2);
    hp_tuner_free(t);
    hp_space_free(s);
}

static void grid_refuses_continuous(void **st)
{
    (void)st;
    struct hp_space *s = space_of(
        "{\"a\": {\"_type\": \"choice\", \"_value\": [1, 2]},"
        " \"lr\": {\"_type\": \"loguniform\", \"_value\": [0.001, 0.1]}}");
    cJSON *args = NULL;
    struct hp_tuner *t;
    struct hp_err e;
    assert_int_equal(hp_tuner_new("grid", args, s, 1, &t, &e), -1);
    assert_string_equal(e.field, "lr._type");
    assert_non_null(strstr(e.msg, "continuous"));
    hp_space_free(s);
}

static void batch_gives_each_entry(void **st)
{
    (void)st;
    struct hp_space *s = space_of(
        "{\"combine_params\": {\"_type\": \"choice\", \"_value\": ["
        " {\"optimizer\": \"Adam\", \"lr\": 0.001}, {\"optimizer\": \"SGD\", \"lr\": 0.1}]}}");
    struct hp_tuner *t = tuner_of("batch", NULL, s, 1);
    struct hp_obs h[3];
    double xs[3][1];
    for (int i = 0; i < 2; i++) {
        struct hp_suggestion sg = {.x = xs[i]};
        assert_int_equal(hp_tuner_suggest(t, h, i, i + 1, &sg), HP_SUGGEST_OK);
        cJSON *p = hp_tuner_params(t, xs[i]);
        assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(p, "optimizer")),
                            i == 0 ? "Adam" : "SGD");
        cJSON_Delete(p);
        h[i] = (struct hp_obs){.n = i + 1, .x = xs[i], .state = HP_FAILED};
    }
    struct hp_suggestion sg = {.x = xs[2]};
    assert_int_equal(hp_tuner_suggest(t, h, 2, 3, &sg), HP_SUGGEST_DONE);
    hp_tuner_free(t);
    hp_space_free(s);
}

/* A bowl around lr = 0.01, momentum 0.9, the "sgd" option. */
static double bowl(const struct hp_space *s, const double *x)
{
    (void)s;
    double a = log10(x[0]) + 2, b = x[1] - 0.9;
    return a * a + 4 * b * b + (x[2] == 1 ? 0 : 0.5);
}

static const char BOWL[] =
    "{\"lr\": {\"_type\": \"loguniform\", \"_value\": [0.0001, 1]},"
    " \"momentum\": {\"_type\": \"uniform\", \"_value\": [0, 1]},"
    " \"opt\": {\"_type\": \"choice\", \"_value\": [\"adam\", \"sgd\", \"rmsprop\"]}}";

static double median_best(const char *name, const char *args, int trials, int seeds)
{
    return median_best_of(BOWL, bowl, name, args, trials, seeds, 100);
}

static void anneal_and_evolution_beat_random(void **st)
{
    (void)st;
    double rnd = median_best("random", NULL, 60, 11);
    double ann = median_best("anneal", NULL, 60, 11);
    double evo = median_best("evolution", "{\"population_size\": 12, \"sample_size\": 4}", 60, 11);
    print_message("median best of 60 trials: random %.4f anneal %.4f evolution %.4f\n", rnd,
                  ann, evo);
    assert_true(ann < rnd);
    assert_true(evo < rnd);
}

static void deterministic_for_a_seed(void **st)
{
    (void)st;
    const char *names[] = {"random", "tpe", "anneal", "evolution"};
    struct hp_space *s = space_of(BOWL);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        struct hp_tuner *a = tuner_of(names[i], NULL, s, 5), *b = tuner_of(names[i], "{\"seed\": 5}", s, 9);
        struct run ra = run_tuner(a, s, 40, bowl), rb = run_tuner(b, s, 40, bowl);
        assert_memory_equal(ra.xs, rb.xs, 40 * 3 * sizeof(double));
        run_free(&ra), run_free(&rb);
        hp_tuner_free(a), hp_tuner_free(b);
    }
    hp_space_free(s);
}

static void results_missing_or_failed_are_ignored(void **st)
{
    (void)st;
    const char *names[] = {"random", "tpe", "anneal", "evolution", "hyperband", "bohb"};
    struct hp_space *s = space_of(BOWL);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        struct hp_tuner *t = tuner_of(names[i], "{\"seed\": 3}", s, 1);
        struct hp_obs h[60];
        double xs[60][3];
        for (int n = 0; n < 60; n++) {
            struct hp_suggestion sg = {.x = xs[n]};
            int rc = hp_tuner_suggest(t, h, n, n + 1, &sg);
            assert_true(rc == HP_SUGGEST_OK || rc == HP_SUGGEST_WAIT);
            if (rc != HP_SUGGEST_OK)
                break;
            assert_true(xs[n][0] >= 0.0001 && xs[n][0] <= 1 && xs[n][1] >= 0 && xs[n][1] <= 1);
            int kind = n % 3;   /* no result, failed, a result */
            h[n] = (struct hp_obs){.n = n + 1, .x = xs[n], .state = kind == 1 ? HP_FAILED : HP_DONE,
                                   .loss = kind == 2 ? bowl(s, xs[n]) : NAN, .last_loss = NAN,
                                   .bracket = sg.bracket, .rung = sg.rung, .parent = sg.parent,
                                   .budget = sg.budget};
        }
        hp_tuner_free(t);
    }
    hp_space_free(s);
}

static void bad_tuners_and_arguments(void **st)
{
    (void)st;
    struct hp_space *s = space_of(BOWL);
    struct { const char *name, *args, *field; } cases[] = {
        {"smac", NULL, "name"},
        {"tpe", "{\"gamma\": 1.5}", "args.gamma"},
        {"tpe", "{\"n_ei_candidates\": 0}", "args.n_ei_candidates"},
        {"tpe", "{\"n_startup_trials\": 2.5}", "args.n_startup_trials"},
        {"tpe", "{\"gama\": 0.2}", "args.gama"},
        {"tpe", "{\"seed\": -1}", "args.seed"},
        {"tpe", "[1]", "args"},
        {"evolution", "{\"population_size\": 1}", "args.population_size"},
        {"evolution", "{\"population_size\": 4, \"sample_size\": 8}", "args.sample_size"},
        {"hyperband", "{\"eta\": 1}", "args.eta"},
        {"hyperband", "{\"R\": 0.5}", "args.R"},
        {"bohb", "{\"top_n_percent\": 100}", "args.top_n_percent"},
        {"anneal", "{\"shrink_coef\": -1}", "args.shrink_coef"},
        {"batch", NULL, ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cJSON *a = cases[i].args ? cJSON_Parse(cases[i].args) : NULL;
        struct hp_tuner *t = NULL;
        struct hp_err e;
        assert_int_equal(hp_tuner_new(cases[i].name, a, s, 1, &t, &e), -1);
        if (strcmp(e.field, cases[i].field))
            fail_msg("%s %s: field %s (%s), want %s", cases[i].name,
                     cases[i].args ? cases[i].args : "", e.field, e.msg, cases[i].field);
        cJSON_Delete(a);
    }
    hp_space_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(grid_enumerates_exactly),
        cmocka_unit_test(grid_over_nested_choices),
        cmocka_unit_test(grid_refuses_continuous),
        cmocka_unit_test(batch_gives_each_entry),
        cmocka_unit_test(anneal_and_evolution_beat_random),
        cmocka_unit_test(deterministic_for_a_seed),
        cmocka_unit_test(results_missing_or_failed_are_ignored),
        cmocka_unit_test(bad_tuners_and_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
