/* test_hyperband.c — Hyperband's brackets for R = 81, eta = 3 are the
 * table of Li et al. 2018 (Table 1); the schedule runs every rung at its
 * budget, promotes the best of each rung, waits for a rung to end, and is
 * DONE after all brackets; bohb follows the same schedule. */
#include "test_common.h"
#include "tuner_internal.h"

static void plan_matches_the_paper(void **st)
{
    (void)st;
    struct hp_rung p[HP_HB_MAX_BRACKETS][HP_HB_MAX_BRACKETS];
    assert_int_equal(hp_hyperband_plan(81, 3, p), 4);
    /* Li et al., Table 1: n_i, r_i per bracket s */
    static const long long n[5][5] = {{5}, {8, 2}, {15, 5, 1}, {34, 11, 3, 1},
                                      {81, 27, 9, 3, 1}};
    static const double r[5][5] = {{81}, {27, 81}, {9, 27, 81}, {3, 9, 27, 81},
                                   {1, 3, 9, 27, 81}};
    for (int s = 0; s <= 4; s++)
        for (int i = 0; i <= s; i++) {
            assert_int_equal(p[s][i].n, n[s][i]);
            assert_true(fabs(p[s][i].r - r[s][i]) < 1e-9);
        }
    assert_int_equal(hp_hyperband_plan(1, 3, p), 0);
    assert_int_equal(hp_hyperband_plan(0.5, 3, p), -1);
}

static double sphere(const struct hp_space *s, const double *x)
{
    (void)s;
    return (x[0] - 0.3) * (x[0] - 0.3) + (x[1] - 0.6) * (x[1] - 0.6);
}

static void schedule_runs_every_rung(void **st)
{
    (void)st;
    struct hp_space *s = space_of("{\"a\": {\"_type\": \"uniform\", \"_value\": [0, 1]},"
                                  " \"b\": {\"_type\": \"uniform\", \"_value\": [0, 1]}}");
    const char *names[] = {"hyperband", "bohb"};
    for (int k = 0; k < 2; k++) {
        struct hp_tuner *t = tuner_of(names[k], "{\"R\": 81, \"eta\": 3}", s, 9);
        assert_int_equal(hp_tuner_total(t), 206);
        struct run r = run_tuner(t, s, 300, sphere);
        assert_int_equal(r.n, 206);   /* then DONE */
        static const long long n[5][5] = {{5}, {8, 2}, {15, 5, 1}, {34, 11, 3, 1},
                                          {81, 27, 9, 3, 1}};
        long long count[5][5] = {{0}};
        for (int i = 0; i < r.n; i++) {
            const struct hp_obs *o = &r.obs[i];
            count[o->bracket][o->rung]++;
            assert_true(fabs(o->budget - 81 * pow(3, o->rung - o->bracket)) < 1e-9);
            if (o->rung == 0) {
                assert_int_equal(o->parent, 0);
                continue;
            }
            /* a promotion: its parent's configuration, one rung below, among the best */
            const struct hp_obs *p = &r.obs[o->parent - 1];
            assert_int_equal(p->bracket, o->bracket);
            assert_int_equal(p->rung, o->rung - 1);
            assert_memory_equal(p->x, o->x, 2 * sizeof(double));
            int better = 0;
            for (int j = 0; j < r.n; j++)
                better += r.obs[j].bracket == p->bracket && r.obs[j].rung == p->rung &&
                          r.obs[j].loss < p->loss;
            assert_true(better < n[o->bracket][o->rung]);   /* among the rung's best */
        }
        for (int b = 0; b <= 4; b++)
            for (int i = 0; i <= b; i++)
                assert_int_equal(count[b][i], n[b][i]);
        run_free(&r);
        hp_tuner_free(t);
    }
    hp_space_free(s);
}

static void waits_for_a_running_rung(void **st)
{
    (void)st;
    struct hp_space *s = space_of("{\"a\": {\"_type\": \"uniform\", \"_value\": [0, 1]}}");
    struct hp_tuner *t = tuner_of("hyperband", "{\"R\": 9, \"eta\": 3}", s, 2);
    /* brackets: s=2 (9, 3, 1), s=1 (5? ceil(3*3/2) = 5, 1), s=0 (3) */
    struct hp_obs h[64];
    double xs[64][1];
    int n = 0, rc;
    for (;;) {   /* issue everything that can start while nothing ends */
        struct hp_suggestion sg = {.x = xs[n]};
        rc = hp_tuner_suggest(t, h, n, n + 1, &sg);
        if (rc != HP_SUGGEST_OK)
            break;
        h[n] = (struct hp_obs){.n = n + 1, .x = xs[n], .state = HP_RUNNING, .loss = NAN,
                               .bracket = sg.bracket, .rung = sg.rung, .parent = sg.parent,
                               .budget = sg.budget};
        n++;
    }
    assert_int_equal(rc, HP_SUGGEST_WAIT);
    assert_int_equal(n, 9 + 5 + 3);   /* every bracket's first rung */
    for (int i = 0; i < n; i++) {
        h[i].state = HP_DONE;
        h[i].loss = xs[i][0];
    }
    struct hp_suggestion sg = {.x = xs[n]};
    assert_int_equal(hp_tuner_suggest(t, h, n, n + 1, &sg), HP_SUGGEST_OK);
    assert_int_equal(sg.rung, 1);
    /* the best of bracket 2's first rung goes first */
    double best = INFINITY;
    int who = 0;
    for (int i = 0; i < n; i++)
        if (h[i].bracket == 2 && h[i].loss < best)
            best = h[i].loss, who = h[i].n;
    assert_int_equal(sg.bracket, 2);
    assert_int_equal(sg.parent, who);
    assert_true(sg.budget == 3);
    hp_tuner_free(t);
    hp_space_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(plan_matches_the_paper),
        cmocka_unit_test(schedule_runs_every_rung),
        cmocka_unit_test(waits_for_a_running_rung),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
