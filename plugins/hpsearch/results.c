/* results.c — a trial's results, read from its Job's metrics (the
 * job_metrics slot): the intermediate results "<metric>" at steps 1, 2 ...
 * (only the steps not read yet), and, once the Job has ended, the final
 * result "final/<metric>" (the last reported wins). A trial that ended
 * without one is recorded as such, with the names it did report. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpsearch.h"

static int curve_put(struct hs_trial *t, int64_t step, double v)
{
    if (step < 1 || step > 1000000)
        return 0;
    if (step > t->cap_curve) {
        int cap = t->cap_curve ? t->cap_curve : 16;
        while (cap < step)
            cap *= 2;
        double *c = realloc(t->curve, (size_t)cap * sizeof *c);
        if (!c)
            return -1;
        for (int i = t->cap_curve; i < cap; i++)
            c[i] = NAN;
        t->curve = c, t->cap_curve = cap;
    }
    t->curve[step - 1] = v;
    if (step > t->n_curve)
        t->n_curve = (int)step;
    return 0;
}

/* The points of name (NULL: all) after since_step, parsed. */
static cJSON *points(struct hs *p, struct hs_exp *x, struct hs_trial *t, const char *name,
                     int64_t since, int *rc)
{
    char *m = p->host->job_metrics(p->self, x->project, t->job, name, since, rc);
    cJSON *doc = cu_json_take(p->host, m);
    return doc;
}

/* Every name in doc's points (ordered by name: one each) into out. */
static void names_of(const cJSON *doc, char *out, size_t len)
{
    const cJSON *pt, *list = cJSON_GetObjectItemCaseSensitive(doc, "metrics");
    size_t n = 0;
    out[0] = '\0';
    cJSON_ArrayForEach(pt, list) {
        const char *name = cu_str_or(pt, "name", "");
        if (pt != list->child && !strcmp(cu_str_or(pt->prev, "name", ""), name))
            continue;
        int w = snprintf(out + n, len - n, "%s%s", n ? ", " : "", name);
        if (w < 0 || (size_t)w >= len - n)
            break;
        n += (size_t)w;
    }
}

/* The intermediate points of doc (only its metric's when all is set). */
static void take_curve(struct hs_exp *x, struct hs_trial *t, const cJSON *doc, int all)
{
    const cJSON *pt;
    cJSON_ArrayForEach(pt, cJSON_GetObjectItemCaseSensitive(doc, "metrics")) {
        if (all && strcmp(cu_str_or(pt, "name", ""), x->spec.metric))
            continue;
        int64_t step = (int64_t)cu_num(pt, "step", 0);
        curve_put(t, step, cu_num(pt, "value", NAN));
        if (step > t->seen_step)
            t->seen_step = step;
    }
}

int hs_results_read(struct hs *p, struct hs_exp *x, struct hs_trial *t)
{
    int rc = CUBE_OK;
    if (!t->job_ended || t->finals_read) {   /* running: the new intermediate points */
        cJSON *doc = points(p, x, t, x->spec.metric, t->seen_step, &rc);
        take_curve(x, t, doc, 0);
        cJSON_Delete(doc);
        return rc == CUBE_ENOTFOUND ? CUBE_OK : rc;
    }
    /* ended: everything at once (one read): the curve, the final, the names */
    cJSON *doc = points(p, x, t, NULL, -1, &rc);
    if (!doc)
        return rc == CUBE_ENOTFOUND ? CUBE_OK : rc;
    char final[160];
    snprintf(final, sizeof final, HS_FINAL_PREFIX "%s", x->spec.metric);
    take_curve(x, t, doc, 1);
    t->value = NAN;
    const cJSON *pt;
    cJSON_ArrayForEach(pt, cJSON_GetObjectItemCaseSensitive(doc, "metrics"))
        if (!strcmp(cu_str_or(pt, "name", ""), final))
            t->value = cu_num(pt, "value", NAN);   /* the last reported */
    t->finals_read = 1;
    if (t->phase == HS_SUCCEEDED && isnan(t->value) && !*t->message) {
        char names[200];
        names_of(doc, names, sizeof names);
        snprintf(t->message, sizeof t->message, "it reported no %.130s%s%.120s", final,
                 *names ? "; it reported " : "", names);
    }
    cJSON_Delete(doc);
    return CUBE_OK;
}

void hs_results_names(struct hs *p, struct hs_exp *x, struct hs_trial *t, char *out,
                      size_t len)
{
    int rc;
    cJSON *doc = points(p, x, t, NULL, -1, &rc);
    names_of(doc, out, len);
    cJSON_Delete(doc);
}
