/* test_common.h — helpers the hpsearch library tests share: parsing a
 * space from text and driving a tuner over an objective. */
#ifndef HP_TEST_COMMON_H
#define HP_TEST_COMMON_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hp.h"

static inline struct hp_space *space_of(const char *text)
{
    cJSON *j = cJSON_Parse(text);
    struct hp_space *s = NULL;
    struct hp_err e;
    if (!j || hp_space_parse(j, HP_BUDGET_PARAM, &s, &e) < 0)
        fail_msg("space %s: %s: %s", text, j ? e.field : "", j ? e.msg : "not JSON");
    cJSON_Delete(j);
    return s;
}

/* The field of the error parsing text gives ("" when none, "OK" when it parses). */
static inline const char *space_error(const char *text, struct hp_err *e)
{
    cJSON *j = cJSON_Parse(text);
    struct hp_space *s = NULL;
    assert_non_null(j);
    int rc = hp_space_parse(j, HP_BUDGET_PARAM, &s, e);
    cJSON_Delete(j);
    hp_space_free(s);
    return rc == 0 ? "OK" : e->field;
}

static inline struct hp_tuner *tuner_of(const char *name, const char *args,
                                        const struct hp_space *s, uint64_t seed)
{
    cJSON *a = args ? cJSON_Parse(args) : NULL;
    struct hp_tuner *t = NULL;
    struct hp_err e;
    if (hp_tuner_new(name, a, s, seed, &t, &e) < 0)
        fail_msg("tuner %s %s: %s: %s", name, args ? args : "", e.field, e.msg);
    cJSON_Delete(a);
    return t;
}

/* A run: trials 1..n, each evaluated at once by f (a loss). */
struct run {
    struct hp_obs *obs;
    double *xs;
    int n;
    double best;
};

typedef double (*objective_fn)(const struct hp_space *s, const double *x);

static inline struct run run_tuner(struct hp_tuner *t, const struct hp_space *s, int n,
                                   objective_fn f)
{
    struct run r = {.obs = calloc((size_t)n, sizeof *r.obs),
                    .xs = calloc((size_t)n * (size_t)s->n, sizeof *r.xs), .best = INFINITY};
    for (int i = 0; i < n; i++) {
        double *x = r.xs + (size_t)i * (size_t)s->n;
        struct hp_suggestion sg = {.x = x};
        int rc = hp_tuner_suggest(t, r.obs, r.n, i + 1, &sg);
        if (rc != HP_SUGGEST_OK)
            break;
        double loss = f(s, x);
        r.obs[r.n++] = (struct hp_obs){.n = i + 1, .x = x, .state = HP_DONE, .loss = loss,
                                       .last_loss = NAN, .bracket = sg.bracket,
                                       .rung = sg.rung, .parent = sg.parent,
                                       .budget = sg.budget};
        if (loss < r.best)
            r.best = loss;
    }
    return r;
}

static inline void run_free(struct run *r)
{
    free(r->obs);
    free(r->xs);
}

static inline int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static inline double median_of(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_dbl);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The median over seeds seed0 .. seed0 + seeds - 1 (at most 32) of the
 * best loss of `trials` trials of tuner name on the space of text. */
static inline double median_best_of(const char *space_text, objective_fn f, const char *name,
                                    const char *args, int trials, int seeds, uint64_t seed0)
{
    struct hp_space *s = space_of(space_text);
    double best[32];
    for (int k = 0; k < seeds && k < 32; k++) {
        struct hp_tuner *t = tuner_of(name, args, s, seed0 + (uint64_t)k);
        struct run r = run_tuner(t, s, trials, f);
        best[k] = r.best;
        run_free(&r);
        hp_tuner_free(t);
    }
    hp_space_free(s);
    return median_of(best, seeds < 32 ? seeds : 32);
}

#endif
