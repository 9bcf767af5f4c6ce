/* assess_internal.h — what the assessors of hp.h share (assess.c, the
 * registry and median stop; assess_curve.c, curve fitting). */
#ifndef HP_ASSESS_INTERNAL_H
#define HP_ASSESS_INTERNAL_H

#include "hp.h"

enum { HP_MEDIANSTOP, HP_CURVEFITTING };

struct hp_assessor {
    int kind;
    int maximize;
    long long start_step;
    /* curvefitting */
    long long epoch_num, gap;
    double threshold;
};

/* Curve fitting's verdict (assess_curve.c). */
int hp_curve_assess(const struct hp_assessor *a, const struct hp_curve *cur, double best,
                    char *why, size_t why_len);
/* The final value the fitted models predict for values y[0..n-1] (steps
 * 1..n, higher is better) at step `at`; NAN when no model fits. */
double hp_curve_predict(const double *y, int n, double at);

#endif
