/* hpsearch_tuners.c — drives the hpsearch plugin's tuners in-process
 * (plugins/hpsearch/lib, no Jobs), for tests/bench/hpsearch.sh:
 *
 *   hpsearch_tuners quality FUNCTION TUNER TRIALS SEEDS [ARGS_JSON]
 *       runs TRIALS sequential trials of FUNCTION (branin | hartmann6,
 *       both minimized) for seeds 0 .. SEEDS-1 and prints
 *       {"best": [per seed], "median": m}
 *   hpsearch_tuners speed FUNCTION TUNER HISTORY REPS [ARGS_JSON]
 *       builds a history of HISTORY random trials with their values and
 *       times REPS suggestions of the next trial; prints {"ms": mean}
 *
 * Built by hpsearch.sh with the library's sources (cc -O2 ... -lcjson -lm). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hp.h"

static const char BRANIN[] = "{\"x1\": {\"_type\": \"uniform\", \"_value\": [-5, 10]},"
                             " \"x2\": {\"_type\": \"uniform\", \"_value\": [0, 15]}}";
static const char HARTMANN6[] =
    "{\"x1\": {\"_type\": \"uniform\", \"_value\": [0, 1]},"
    " \"x2\": {\"_type\": \"uniform\", \"_value\": [0, 1]},"
    " \"x3\": {\"_type\": \"uniform\", \"_value\": [0, 1]},"
    " \"x4\": {\"_type\": \"uniform\", \"_value\": [0, 1]},"
    " \"x5\": {\"_type\": \"uniform\", \"_value\": [0, 1]},"
    " \"x6\": {\"_type\": \"uniform\", \"_value\": [0, 1]}}";

static double branin(const double *x)
{
    double b = 5.1 / (4 * M_PI * M_PI), c = 5 / M_PI, t = 1 / (8 * M_PI);
    double u = x[1] - b * x[0] * x[0] + c * x[0] - 6;
    return u * u + 10 * (1 - t) * cos(x[0]) + 10;
}

static double hartmann6(const double *x)
{
    static const double alpha[4] = {1.0, 1.2, 3.0, 3.2};
    static const double A[4][6] = {{10, 3, 17, 3.5, 1.7, 8},
                                   {0.05, 10, 17, 0.1, 8, 14},
                                   {3, 3.5, 1.7, 10, 17, 8},
                                   {17, 8, 0.05, 10, 0.1, 14}};
    static const double P[4][6] = {{0.1312, 0.1696, 0.5569, 0.0124, 0.8283, 0.5886},
                                   {0.2329, 0.4135, 0.8307, 0.3736, 0.1004, 0.9991},
                                   {0.2348, 0.1451, 0.3522, 0.2883, 0.3047, 0.6650},
                                   {0.4047, 0.8828, 0.8732, 0.5743, 0.1091, 0.0381}};
    double y = 0;
    for (int i = 0; i < 4; i++) {
        double s = 0;
        for (int j = 0; j < 6; j++)
            s += A[i][j] * (x[j] - P[i][j]) * (x[j] - P[i][j]);
        y -= alpha[i] * exp(-s);
    }
    return y;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static struct hp_tuner *make_tuner(const char *name, const char *args, struct hp_space *s,
                                   uint64_t seed)
{
    cJSON *a = args ? cJSON_Parse(args) : cJSON_CreateObject();
    if (!a) {
        fprintf(stderr, "ARGS_JSON is not JSON\n");
        exit(2);
    }
    cJSON_DeleteItemFromObject(a, "seed");
    cJSON_AddNumberToObject(a, "seed", (double)seed);
    struct hp_tuner *t = NULL;
    struct hp_err e;
    if (hp_tuner_new(name, a, s, seed, &t, &e) < 0) {
        fprintf(stderr, "tuner %s: %s: %s\n", name, e.field, e.msg);
        exit(2);
    }
    cJSON_Delete(a);
    return t;
}

int main(int argc, char **argv)
{
    if (argc < 6) {
        fprintf(stderr, "usage: %s quality|speed FUNCTION TUNER N M [ARGS_JSON]\n", argv[0]);
        return 2;
    }
    int hart = !strcmp(argv[2], "hartmann6");
    double (*f)(const double *) = hart ? hartmann6 : branin;
    cJSON *sj = cJSON_Parse(hart ? HARTMANN6 : BRANIN);
    struct hp_space *s;
    struct hp_err e;
    if (hp_space_parse(sj, NULL, &s, &e) < 0)
        return 1;
    int n = atoi(argv[4]), m = atoi(argv[5]), d = s->n;
    const char *args = argc > 6 ? argv[6] : NULL;
    struct hp_obs *h = calloc((size_t)n + 1, sizeof *h);
    double *xs = calloc(((size_t)n + 1) * (size_t)d, sizeof *xs);
    if (!strcmp(argv[1], "quality")) {
        double *best = calloc((size_t)m, sizeof *best);
        printf("{\"best\": [");
        for (int seed = 0; seed < m; seed++) {
            struct hp_tuner *t = make_tuner(argv[3], args, s, (uint64_t)seed);
            best[seed] = INFINITY;
            for (int i = 0; i < n; i++) {
                struct hp_suggestion sg = {.x = xs + (size_t)i * d};
                if (hp_tuner_suggest(t, h, i, i + 1, &sg) != HP_SUGGEST_OK)
                    break;
                double y = f(sg.x);
                h[i] = (struct hp_obs){.n = i + 1, .x = sg.x, .state = HP_DONE, .loss = y,
                                       .last_loss = NAN};
                if (y < best[seed])
                    best[seed] = y;
            }
            printf("%s%.6f", seed ? ", " : "", best[seed]);
            hp_tuner_free(t);
        }
        qsort(best, (size_t)m, sizeof *best, cmp_dbl);
        double med = m % 2 ? best[m / 2] : 0.5 * (best[m / 2 - 1] + best[m / 2]);
        printf("], \"median\": %.6f}\n", med);
        free(best);
    } else {
        struct hp_tuner *r = make_tuner("random", NULL, s, 12345);
        for (int i = 0; i < n; i++) {
            struct hp_suggestion sg = {.x = xs + (size_t)i * d};
            hp_tuner_suggest(r, h, i, i + 1, &sg);
            h[i] = (struct hp_obs){.n = i + 1, .x = sg.x, .state = HP_DONE, .loss = f(sg.x),
                                   .last_loss = NAN};
        }
        hp_tuner_free(r);
        struct hp_tuner *t = make_tuner(argv[3], args, s, 7);
        double x[HP_MAX_DIMS], t0 = now_s();
        for (int k = 0; k < m; k++) {
            struct hp_suggestion sg = {.x = x};
            hp_tuner_suggest(t, h, n, n + 1 + k, &sg);
        }
        printf("{\"ms\": %.6f}\n", (now_s() - t0) * 1000 / m);
        hp_tuner_free(t);
    }
    free(h), free(xs);
    hp_space_free(s);
    cJSON_Delete(sj);
    return 0;
}
