/* tuner_hyperband.c — Hyperband (Li et al. 2018). With max resource R and
 * eta, s_max = floor(log_eta R) and B = (s_max + 1) R; bracket s (s_max
 * down to 0) starts n = ceil(B / R * eta^s / (s + 1)) configurations at
 * r = R eta^-s and runs successive halving: rung i has floor(n eta^-i)
 * configurations at r eta^i, the best of rung i - 1 (by loss, once all of
 * it has ended). Each trial gets its rung's budget as TRIAL_BUDGET; a
 * promoted configuration is a new trial with the parameters of its parent.
 *
 * Brackets run side by side: when a rung waits for its trials, the next
 * bracket's trials go on, so trialConcurrency stays busy; WAIT only when
 * every unfinished bracket waits, DONE when all brackets are complete.
 * Everything is read from the history (each trial's bracket, rung and
 * parent), so a restart resumes where it was. A rung i > 0 promotes only
 * trials with a result: when fewer than its size have one, it is smaller.
 * bohb (tuner_bohb.c) is this with TPE drawing the new configurations. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tuner_internal.h"

int hp_hyperband_plan(double R, double eta, struct hp_rung rungs[][HP_HB_MAX_BRACKETS])
{
    if (!(R >= 1) || !(eta > 1))
        return -1;
    int s_max = 0;
    while (pow(eta, s_max + 1) <= R * (1 + 1e-9))
        if (++s_max >= HP_HB_MAX_BRACKETS - 1)
            return -1;
    for (int s = s_max; s >= 0; s--) {
        double n = ceil((s_max + 1.0) / (s + 1.0) * pow(eta, s) - 1e-9);
        double r = R * pow(eta, -s);
        for (int i = 0; i <= s; i++) {
            rungs[s][i].n = (long long)floor(n * pow(eta, -i) + 1e-9);
            rungs[s][i].r = r * pow(eta, i);
        }
    }
    return s_max;
}

int hp_hb_read(const cJSON *args, struct hp_hb *hb, struct hp_err *e)
{
    if (hp_arg_num(args, "R", 81, 1, 1e9, &hb->R, e) < 0 ||
        hp_arg_num(args, "eta", 3, 1.01, 1000, &hb->eta, e) < 0)
        return -1;
    hb->s_max = hp_hyperband_plan(hb->R, hb->eta, hb->plan);
    if (hb->s_max < 0)
        return hp_fail(e, "args.eta", "R = %g and eta = %g make more than %d brackets", hb->R,
                       hb->eta, HP_HB_MAX_BRACKETS - 1);
    return 0;
}

static int cmp_loss(const void *a, const void *b)
{
    const struct hp_obs *x = *(const struct hp_obs *const *)a;
    const struct hp_obs *y = *(const struct hp_obs *const *)b;
    if (x->loss != y->loss)
        return x->loss < y->loss ? -1 : 1;
    return x->n - y->n;
}

/* The trials of bracket s, rung i into out; returns the count, and in
 * *running how many have not ended. */
static int rung_trials(const struct hp_obs *h, int nh, int s, int i, const struct hp_obs **out,
                       int *running)
{
    int k = 0;
    *running = 0;
    for (int j = 0; j < nh; j++)
        if (!h[j].foreign && h[j].bracket == s && h[j].rung == i) {
            out[k++] = &h[j];
            *running += h[j].state == HP_RUNNING;
        }
    return k;
}

/* Bracket s: a suggestion (OK), WAIT, or DONE when it is complete. */
static int bracket_next(const struct hp_hb *hb, const struct hp_obs *h, int nh, int s,
                        const struct hp_obs **a, const struct hp_obs **b,
                        struct hp_suggestion *out, int *fresh)
{
    int running, na = rung_trials(h, nh, s, 0, a, &running);
    long long size = hb->plan[s][0].n;
    if (na < size) {
        *fresh = 1;
        out->bracket = s, out->rung = 0, out->budget = hb->plan[s][0].r;
        return HP_SUGGEST_OK;
    }
    for (int i = 1; i <= s; i++) {
        if (running)
            return HP_SUGGEST_WAIT;   /* rung i - 1 is still running */
        int scored = 0;
        for (int j = 0; j < na; j++)
            if (hp_obs_scored(a[j]))
                a[scored++] = a[j];
        qsort(a, (size_t)scored, sizeof *a, cmp_loss);
        size = hb->plan[s][i].n < scored ? hb->plan[s][i].n : scored;
        int nb = rung_trials(h, nh, s, i, b, &running);
        for (long long j = 0; j < size; j++) {
            int has = 0;
            for (int k = 0; k < nb && !has; k++)
                has = b[k]->parent == a[j]->n;
            if (has)
                continue;
            out->bracket = s, out->rung = i, out->parent = a[j]->n;
            out->budget = hb->plan[s][i].r;
            return HP_SUGGEST_OK;
        }
        const struct hp_obs **t = a;   /* rung i becomes the previous one */
        a = b, b = t, na = nb;
    }
    return running ? HP_SUGGEST_WAIT : HP_SUGGEST_DONE;
}

int hp_hb_suggest(const struct hp_hb *hb, const struct hp_space *s, const struct hp_obs *h,
                  int nh, struct hp_rng *r, struct hp_suggestion *out,
                  void (*fresh_config)(const void *ctx, const struct hp_obs *h, int nh,
                                       struct hp_rng *r, double *x),
                  const void *ctx)
{
    const struct hp_obs **a = malloc((size_t)(nh + 1) * sizeof *a);
    const struct hp_obs **b = malloc((size_t)(nh + 1) * sizeof *b);
    int rc = HP_SUGGEST_DONE, fresh = 0;
    if (!a || !b) {
        free(a), free(b);
        return HP_SUGGEST_WAIT;
    }
    for (int br = hb->s_max; br >= 0; br--) {
        int got = bracket_next(hb, h, nh, br, a, b, out, &fresh);
        if (got == HP_SUGGEST_OK) {
            rc = HP_SUGGEST_OK;
            break;
        }
        if (got == HP_SUGGEST_WAIT)
            rc = HP_SUGGEST_WAIT;
    }
    if (rc == HP_SUGGEST_OK && fresh) {
        fresh_config(ctx, h, nh, r, out->x);
    } else if (rc == HP_SUGGEST_OK) {
        for (int j = 0; j < nh; j++)
            if (h[j].n == out->parent)
                memcpy(out->x, h[j].x, (size_t)s->n * sizeof *out->x);
    }
    free(a), free(b);
    return rc;
}

long long hp_hb_total(const struct hp_hb *hb)
{
    long long t = 0;
    for (int s = 0; s <= hb->s_max; s++)
        for (int i = 0; i <= s; i++)
            t += hb->plan[s][i].n;
    return t;
}

/* -- hyperband: new configurations at random ---------------------------------- */

static const char *const HB_ARGS[] = {"R", "eta", NULL};

static int hb_init(struct hp_tuner *t, const cJSON *args, struct hp_err *e)
{
    struct hp_hb *hb = calloc(1, sizeof *hb);
    if (!hb)
        return hp_fail(e, "", "out of memory");
    t->impl = hb;
    return hp_hb_read(args, hb, e);
}

static void random_config(const void *ctx, const struct hp_obs *h, int nh, struct hp_rng *r,
                          double *x)
{
    (void)h, (void)nh;
    hp_space_sample(ctx, r, x);
}

static int hb_suggest(struct hp_tuner *t, const struct hp_obs *h, int nh, int n,
                      struct hp_rng *r, struct hp_suggestion *out)
{
    (void)n;
    return hp_hb_suggest(t->impl, t->space, h, nh, r, out, random_config, t->space);
}

static long long hb_total(const struct hp_tuner *t)
{
    return hp_hb_total(t->impl);
}

const struct hp_tuner_ops hp_tuner_hyperband = {
    .name = "hyperband", .args = HB_ARGS, .init = hb_init, .suggest = hb_suggest,
    .total = hb_total,
};
