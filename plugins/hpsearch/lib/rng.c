/* rng.c — random numbers for the tuners: xoshiro256** (Blackman and
 * Vigna) seeded through splitmix64, with the draws tuners need (uniform,
 * normal, truncated normal by inversion, weighted index, geometric), the
 * normal CDF and an error-formatting helper. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#include "hp.h"

int hp_fail(struct hp_err *e, const char *field, const char *fmt, ...)
{
    if (!e)
        return -1;
    snprintf(e->field, sizeof e->field, "%.319s", field ? field : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    return -1;
}

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void hp_rng_seed(struct hp_rng *r, uint64_t seed, uint64_t stream)
{
    uint64_t x = seed;
    uint64_t mix = splitmix64(&x) ^ (stream * 0xd1342543de82ef95ULL + 0x2545f4914f6cdd1dULL);
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&mix);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t hp_rng_u64(struct hp_rng *r)
{
    uint64_t *s = r->s;
    uint64_t out = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return out;
}

double hp_rng_uniform(struct hp_rng *r)
{
    return (double)(hp_rng_u64(r) >> 11) * 0x1.0p-53;
}

uint64_t hp_rng_below(struct hp_rng *r, uint64_t n)
{
    if (n <= 1)
        return 0;
    uint64_t limit = UINT64_MAX - UINT64_MAX % n, v;
    do
        v = hp_rng_u64(r);
    while (v >= limit);
    return v % n;
}

/* Marsaglia's polar method (one of the pair is dropped: no state kept). */
double hp_rng_normal(struct hp_rng *r)
{
    double u, v, s;
    do {
        u = 2 * hp_rng_uniform(r) - 1;
        v = 2 * hp_rng_uniform(r) - 1;
        s = u * u + v * v;
    } while (s >= 1 || s == 0);
    return u * sqrt(-2 * log(s) / s);
}

double hp_norm_cdf(double x)
{
    return 0.5 * erfc(-x / M_SQRT2);
}

double hp_norm_logpdf(double x)
{
    return -0.5 * x * x - 0.91893853320467274178;   /* log(sqrt(2 pi)) */
}

/* The standard normal quantile: Acklam's rational approximation, then one
 * Halley step on erfc (relative error below 1e-15 in (0, 1)). */
static double norm_quantile(double p)
{
    static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,
                               -2.759285104469687e+02, 1.383577518672690e+02,
                               -3.066479806614716e+01, 2.506628277459239e+00};
    static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02,
                               -1.556989798598866e+02, 6.680131188771972e+01,
                               -1.328068155288572e+01};
    static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01,
                               -2.400758277161838e+00, -2.549732539343734e+00,
                               4.374664141464968e+00, 2.938163982698783e+00};
    static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01,
                               2.445134137142996e+00, 3.754408661907416e+00};
    double q, x;
    if (p <= 0)
        return -INFINITY;
    if (p >= 1)
        return INFINITY;
    if (p < 0.02425) {
        q = sqrt(-2 * log(p));
        x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
            ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
    } else if (p <= 1 - 0.02425) {
        q = p - 0.5;
        double t = q * q;
        x = (((((a[0] * t + a[1]) * t + a[2]) * t + a[3]) * t + a[4]) * t + a[5]) * q /
            (((((b[0] * t + b[1]) * t + b[2]) * t + b[3]) * t + b[4]) * t + 1);
    } else {
        q = sqrt(-2 * log(1 - p));
        x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
            ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
    }
    double e = hp_norm_cdf(x) - p, u = e * 2.50662827463100050242 * exp(x * x / 2);
    return x - u / (1 + x * u / 2);
}

/* Inversion between the CDF values of the bounds; the bounds are taken on
 * the side of the mean where the CDF has precision (below 0). */
double hp_rng_truncnorm(struct hp_rng *r, double mu, double sigma, double lo, double hi)
{
    if (!(sigma > 0))
        return fmin(fmax(mu, lo), hi);
    double a = (lo - mu) / sigma, b = (hi - mu) / sigma;
    int flip = a > 0;
    if (flip) {
        double t = a;
        a = -b;
        b = -t;
    }
    double pa = hp_norm_cdf(a), pb = hp_norm_cdf(b);
    double z;
    if (pb - pa < 1e-300) {
        z = isfinite(a) ? a : b;   /* a sliver far in the tail: its edge */
    } else {
        z = norm_quantile(pa + hp_rng_uniform(r) * (pb - pa));
        if (z < a)
            z = a;
        if (z > b)
            z = b;
    }
    double v = mu + sigma * (flip ? -z : z);
    return fmin(fmax(v, lo), hi);
}

int hp_rng_weighted(struct hp_rng *r, const double *w, int n)
{
    double sum = 0;
    for (int i = 0; i < n; i++)
        sum += w[i];
    double u = hp_rng_uniform(r) * sum;
    for (int i = 0; i < n; i++) {
        if (u < w[i])
            return i;
        u -= w[i];
    }
    for (int i = n - 1; i >= 0; i--)   /* rounding: the last with weight */
        if (w[i] > 0)
            return i;
    return 0;
}

int hp_rng_geometric(struct hp_rng *r, double p)
{
    if (p >= 1)
        return 1;
    double u = 1 - hp_rng_uniform(r);   /* (0, 1] */
    double k = ceil(log(u) / log1p(-p));
    return k < 1 ? 1 : k > 1e9 ? 1000000000 : (int)k;
}

uint64_t hp_hash64(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (; s && *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return splitmix64(&h);
}
