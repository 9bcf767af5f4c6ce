/* assess.c — the assessors by name and their arguments, and median stop
 * (Golovin et al. 2017, as NNI's MedianstopAssessor): from start_step on,
 * a trial at step S whose best intermediate result so far is strictly
 * worse than the median of the completed trials' running averages at step
 * S (of those that reached S) is stopped. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "assess_internal.h"
#include "tuner_internal.h"

const char *const hp_assessor_names[] = {"medianstop", "curvefitting", NULL};

/* NNI's classArgs may repeat the direction: it must agree. */
static int optimize_mode(const cJSON *args, int maximize, struct hp_err *e)
{
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(args, "optimize_mode");
    if (!m)
        return 0;
    const char *v = cJSON_GetStringValue(m);
    if (!v || (strcmp(v, "maximize") && strcmp(v, "minimize")))
        return hp_fail(e, "args.optimize_mode", "must be maximize or minimize");
    if ((!strcmp(v, "maximize")) != maximize)
        return hp_fail(e, "args.optimize_mode", "%s, but the objective's direction is %s", v,
                       maximize ? "maximize" : "minimize");
    return 0;
}

static int known(const cJSON *args, const char *const *names, const char *who,
                 struct hp_err *e)
{
    const cJSON *m;
    cJSON_ArrayForEach(m, args) {
        int ok = 0;
        for (int i = 0; names[i] && !ok; i++)
            ok = !strcmp(names[i], m->string);
        if (!ok) {
            char f[200];
            snprintf(f, sizeof f, "args.%.150s", m->string);
            return hp_fail(e, f, "unknown argument of the %s assessor", who);
        }
    }
    return 0;
}

int hp_assessor_new(const char *name, const cJSON *args, int maximize,
                    struct hp_assessor **out, struct hp_err *e)
{
    static const char *const MEDIAN[] = {"optimize_mode", "start_step", NULL};
    static const char *const CURVE[] = {"optimize_mode", "start_step", "epoch_num",
                                        "threshold", "gap", NULL};
    *out = NULL;
    int kind = !name ? -1 : !strcmp(name, "medianstop") ? HP_MEDIANSTOP
                          : !strcmp(name, "curvefitting") ? HP_CURVEFITTING : -1;
    if (kind < 0)
        return hp_fail(e, "name", "unknown assessor \"%.64s\" (known: medianstop, "
                       "curvefitting)", name ? name : "");
    if (args && !cJSON_IsObject(args) && !cJSON_IsNull(args))
        return hp_fail(e, "args", "must be an object");
    struct hp_assessor a = {.kind = kind, .maximize = maximize};
    if (known(args, kind == HP_MEDIANSTOP ? MEDIAN : CURVE, name, e) < 0 ||
        optimize_mode(args, maximize, e) < 0)
        return -1;
    if (kind == HP_MEDIANSTOP) {
        if (hp_arg_int(args, "start_step", 0, 0, 1000000, &a.start_step, e) < 0)
            return -1;
    } else {
        if (!cJSON_GetObjectItemCaseSensitive(args, "epoch_num"))
            return hp_fail(e, "args.epoch_num", "required: the step of the final result, "
                           "which the fitted curves predict");
        if (hp_arg_int(args, "epoch_num", 0, 1, 1000000, &a.epoch_num, e) < 0 ||
            hp_arg_int(args, "start_step", 6, 3, 1000000, &a.start_step, e) < 0 ||
            hp_arg_num(args, "threshold", 0.95, 1e-9, 1, &a.threshold, e) < 0 ||
            hp_arg_int(args, "gap", 1, 1, 1000000, &a.gap, e) < 0)
            return -1;
        if (a.start_step > a.epoch_num)
            return hp_fail(e, "args.start_step", "%lld is past epoch_num (%lld)", a.start_step,
                           a.epoch_num);
    }
    if (!(*out = malloc(sizeof **out)))
        return hp_fail(e, "", "out of memory");
    **out = a;
    return 0;
}

void hp_assessor_free(struct hp_assessor *a)
{
    free(a);
}

/* The mean of the values of c's first `steps` steps (NAN ones left out). */
static double running_mean(const struct hp_curve *c, int steps)
{
    double sum = 0;
    int k = 0;
    for (int i = 0; i < steps && i < c->n; i++)
        if (isfinite(c->v[i]))
            sum += c->v[i], k++;
    return k ? sum / k : NAN;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int median_assess(const struct hp_assessor *a, const struct hp_curve *cur,
                         const struct hp_curve *done, int n_done, char *why, size_t len)
{
    int step = cur->n;
    if (step < a->start_step || step < 1)
        return HP_GOOD;
    double best = NAN;
    for (int i = 0; i < step; i++)
        if (isfinite(cur->v[i]) && (isnan(best) || (a->maximize ? cur->v[i] > best
                                                                  : cur->v[i] < best)))
            best = cur->v[i];
    if (isnan(best))
        return HP_GOOD;
    double *avg = malloc((size_t)(n_done + 1) * sizeof *avg);
    int k = 0;
    for (int i = 0; avg && i < n_done; i++)
        if (done[i].n >= step && isfinite(running_mean(&done[i], step)))
            avg[k++] = running_mean(&done[i], step);
    int bad = 0;
    if (k > 0) {
        qsort(avg, (size_t)k, sizeof *avg, cmp_double);
        double median = a->maximize ? avg[(k - 1) / 2] : avg[k / 2];   /* as NNI */
        bad = a->maximize ? best < median : best > median;
        if (bad)
            snprintf(why, len, "medianstop at step %d: best %g is %s than the median %g of "
                     "%d completed trials' running averages", step, best,
                     a->maximize ? "lower" : "higher", median, k);
    }
    free(avg);
    return bad ? HP_BAD : HP_GOOD;
}

int hp_assess(const struct hp_assessor *a, const struct hp_curve *cur,
              const struct hp_curve *done, int n_done, double best_final, char *why,
              size_t why_len)
{
    if (why_len)
        why[0] = '\0';
    if (a->kind == HP_MEDIANSTOP)
        return median_assess(a, cur, done, n_done, why, why_len);
    return hp_curve_assess(a, cur, best_final, why, why_len);
}
