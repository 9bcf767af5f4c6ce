/* assess_curve.c — the curve-fitting assessor: from start_step on (every
 * gap steps), the learning curve so far is fitted by least squares with
 * four parametric learning-curve models (after Domhan et al. 2015, the
 * family NNI's CurvefittingAssessor draws from):
 *   loglinear  y = a ln x + b
 *   ilog2      y = c - a / ln(x + 1)
 *   pow3       y = c - a x^-alpha            (alpha > 0)
 *   exp3       y = c - exp(b - a x)          (a > 0)
 * (the first two linear, the others by Levenberg-Marquardt). Each model
 * that fits predicts the value at epoch_num; the prediction is their mean
 * weighted by 1 / mean squared residual, models whose prediction is far
 * outside the curve's span left out. The trial is stopped when the
 * prediction cannot beat the best final value by the threshold: below
 * best - (1 - threshold) |best| (maximizing; mirrored when minimizing: for
 * a positive best that maximizes, threshold x best, as NNI). No fit, no
 * verdict: the trial goes on. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "assess_internal.h"

enum { LOGLINEAR, ILOG2, POW3, EXP3, N_MODELS };
static const char *const MODEL_NAMES[] = {"loglinear", "ilog2", "pow3", "exp3"};

/* Least squares y = p0 f(x) + p1. */
static int linear_fit(const double *f, const double *y, int n, double *p)
{
    double sf = 0, sy = 0, sff = 0, sfy = 0;
    for (int i = 0; i < n; i++)
        sf += f[i], sy += y[i], sff += f[i] * f[i], sfy += f[i] * y[i];
    double det = n * sff - sf * sf;
    if (fabs(det) < 1e-300)
        return -1;
    p[0] = (n * sfy - sf * sy) / det;
    p[1] = (sy - p[0] * sf) / n;
    return 0;
}

static double model(int m, const double *p, double x)
{
    switch (m) {
    case LOGLINEAR:
        return p[0] * log(x) + p[1];
    case ILOG2:
        return p[1] - p[0] / log(x + 1);
    case POW3:
        return p[2] - p[0] * pow(x, -p[1]);
    default:
        return p[2] - exp(p[1] - p[0] * x);
    }
}

/* d model / d p at x (the nonlinear models' 3 parameters). */
static void jacobian(int m, const double *p, double x, double *j)
{
    if (m == POW3) {
        double t = pow(x, -p[1]);
        j[0] = -t, j[1] = p[0] * t * log(x), j[2] = 1;
    } else {
        double t = exp(p[1] - p[0] * x);
        j[0] = x * t, j[1] = -t, j[2] = 1;
    }
}

static double sse(int m, const double *p, const double *x, const double *y, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++) {
        double r = y[i] - model(m, p, x[i]);
        s += r * r;
    }
    return isfinite(s) ? s : INFINITY;
}

/* Solves the 3x3 system a d = b (Gaussian elimination, partial pivoting). */
static int solve3(double a[3][3], double *b, double *d)
{
    for (int c = 0; c < 3; c++) {
        int piv = c;
        for (int r = c + 1; r < 3; r++)
            if (fabs(a[r][c]) > fabs(a[piv][c]))
                piv = r;
        if (fabs(a[piv][c]) < 1e-300)
            return -1;
        for (int k = 0; k < 3; k++) {
            double t = a[c][k];
            a[c][k] = a[piv][k], a[piv][k] = t;
        }
        double t = b[c];
        b[c] = b[piv], b[piv] = t;
        for (int r = c + 1; r < 3; r++) {
            double f = a[r][c] / a[c][c];
            for (int k = c; k < 3; k++)
                a[r][k] -= f * a[c][k];
            b[r] -= f * b[c];
        }
    }
    for (int r = 2; r >= 0; r--) {
        double s = b[r];
        for (int k = r + 1; k < 3; k++)
            s -= a[r][k] * d[k];
        d[r] = s / a[r][r];
    }
    return 0;
}

/* Levenberg-Marquardt from p; 0 when it ends at a finite fit. */
static int lm_fit(int m, const double *x, const double *y, int n, double *p)
{
    double lambda = 1e-3, cur = sse(m, p, x, y, n);
    for (int it = 0; it < 200 && isfinite(cur); it++) {
        double jtj[3][3] = {{0}}, jtr[3] = {0}, j[3], d[3], q[3];
        for (int i = 0; i < n; i++) {
            jacobian(m, p, x[i], j);
            double r = y[i] - model(m, p, x[i]);
            for (int a = 0; a < 3; a++) {
                jtr[a] += j[a] * r;
                for (int b = 0; b < 3; b++)
                    jtj[a][b] += j[a] * j[b];
            }
        }
        for (int a = 0; a < 3; a++)
            jtj[a][a] *= 1 + lambda;
        if (solve3(jtj, jtr, d) < 0)
            lambda *= 10;
        else {
            for (int a = 0; a < 3; a++)
                q[a] = p[a] + d[a];
            double next = (q[0] > 0 && q[1] > 0) || m == EXP3 ? sse(m, q, x, y, n) : INFINITY;
            if (m == EXP3 && !(q[0] > 0))
                next = INFINITY;
            if (next < cur) {
                double gain = cur - next;
                memcpy(p, q, sizeof q);
                cur = next;
                lambda = fmax(lambda / 10, 1e-12);
                if (gain < 1e-12 * (1 + cur))
                    break;
            } else {
                lambda *= 10;
            }
        }
        if (lambda > 1e12)
            break;
    }
    return isfinite(cur) && isfinite(p[0]) && isfinite(p[1]) && isfinite(p[2]) ? 0 : -1;
}

/* Fits model m; returns its mean squared residual (INFINITY: no fit). */
static double fit(int m, const double *x, const double *y, int n, double *p)
{
    double f[512], ymax = y[0], ymin = y[0];
    for (int i = 1; i < n; i++)
        ymax = fmax(ymax, y[i]), ymin = fmin(ymin, y[i]);
    if (m == LOGLINEAR || m == ILOG2) {
        for (int i = 0; i < n; i++)
            f[i] = m == LOGLINEAR ? log(x[i]) : -1 / log(x[i] + 1);
        if (linear_fit(f, y, n, p) < 0)
            return INFINITY;
    } else {
        double span = fmax(ymax - ymin, 1e-6 * fmax(fabs(ymax), 1e-12));
        if (m == POW3)
            p[0] = fmax(ymax - y[0], span), p[1] = 0.5, p[2] = ymax + 0.1 * span;
        else
            p[0] = 0.5, p[2] = ymax + 0.1 * span, p[1] = log(fmax(p[2] - y[0], 1e-12)) + 0.5;
        if (lm_fit(m, x, y, n, p) < 0)
            return INFINITY;
    }
    return sse(m, p, x, y, n) / n;
}

static double predict_xy(const double *x, const double *y, int n, double at, char *how,
                         size_t len)
{
    if (n < 3)
        return NAN;
    double ymax = y[0], ymin = y[0], wsum = 0, psum = 0;
    for (int i = 1; i < n; i++)
        ymax = fmax(ymax, y[i]), ymin = fmin(ymin, y[i]);
    double span = fmax(ymax - ymin, 1e-6 * fmax(fabs(ymax), 1e-12));
    if (how && len)
        how[0] = '\0';
    for (int m = 0; m < N_MODELS; m++) {
        double p[3] = {0, 0, 0}, mse = fit(m, x, y, n, p), v = model(m, p, at);
        if (!isfinite(mse) || !isfinite(v) || v < ymin - 3 * span || v > ymax + 3 * span)
            continue;
        double w = 1 / (mse + 1e-12 * span * span);
        wsum += w, psum += w * v;
        if (how) {
            size_t l = strlen(how);
            snprintf(how + l, len - l, "%s%s %.4g", l ? ", " : "", MODEL_NAMES[m], v);
        }
    }
    return wsum > 0 ? psum / wsum : NAN;
}

double hp_curve_predict(const double *y, int n, double at)
{
    double x[512];
    if (n > 512)
        y += n - 512, n = 512;
    for (int i = 0; i < n; i++)
        x[i] = i + 1;
    return predict_xy(x, y, n, at, NULL, 0);
}

int hp_curve_assess(const struct hp_assessor *a, const struct hp_curve *cur, double best,
                    char *why, size_t why_len)
{
    int n = cur->n;
    if (n < a->start_step || (n - a->start_step) % a->gap || n >= a->epoch_num ||
        !isfinite(best))
        return HP_GOOD;
    double x[512], y[512], sign = a->maximize ? 1 : -1;
    int k = 0;
    for (int i = n > 512 ? n - 512 : 0; i < n; i++)   /* the latest 512 steps */
        if (isfinite(cur->v[i]))
            x[k] = i + 1, y[k++] = sign * cur->v[i];
    char how[200];
    double pred = predict_xy(x, y, k, (double)a->epoch_num, how, sizeof how);
    double b = sign * best, limit = b - (1 - a->threshold) * fabs(b);
    if (!isfinite(pred) || pred >= limit)
        return HP_GOOD;
    snprintf(why, why_len, "curvefitting at step %d: the predicted value at step %lld, %g "
             "(%s), cannot beat the best %g by the threshold %g", n, a->epoch_num,
             sign * pred, how, best, a->threshold);
    return HP_BAD;
}
