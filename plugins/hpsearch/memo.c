/* memo.c — the Experiments the controller keeps between passes: their
 * parsed spec and their trials, rebuilt from the store (the Jobs labelled
 * experiment=<name> whose controller is the Experiment, and their metrics)
 * the first time an Experiment is seen, after a restart of cubed too, and
 * whenever one comes back with another uid (deleted and made again). An
 * entry is used under its own lock (a pass, or an action reading it) and
 * freed when forgotten and no longer used. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpsearch.h"

static void exp_free(struct hs_exp *x)
{
    for (int i = 0; i < x->n; i++)
        hs_trial_free(&x->trials[i]);
    free(x->trials);
    hs_spec_free(&x->spec);
    pthread_mutex_destroy(&x->mu);
    free(x);
}

void hs_trial_free(struct hs_trial *t)
{
    cJSON_Delete(t->params);
    free(t->x);
    free(t->curve);
    memset(t, 0, sizeof *t);
}

static int cmp_trial(const void *a, const void *b)
{
    return ((const struct hs_trial *)a)->n - ((const struct hs_trial *)b)->n;
}

struct hs_trial *hs_exp_add(struct hs_exp *x, struct hs_trial *t)
{
    if (x->n == x->cap) {
        int cap = x->cap ? x->cap * 2 : 16;
        struct hs_trial *nt = realloc(x->trials, (size_t)cap * sizeof *nt);
        if (!nt)
            return NULL;
        x->trials = nt, x->cap = cap;
    }
    x->trials[x->n] = *t;
    memset(t, 0, sizeof *t);
    if (x->trials[x->n].n > x->last_n)
        x->last_n = x->trials[x->n].n;
    if (x->n > 0 && x->trials[x->n - 1].n > x->trials[x->n].n) {
        int n = x->trials[x->n].n;
        x->n++;
        qsort(x->trials, (size_t)x->n, sizeof *x->trials, cmp_trial);
        return hs_exp_trial(x, n);
    }
    return &x->trials[x->n++];
}

struct hs_trial *hs_exp_trial(struct hs_exp *x, int n)
{
    int lo = 0, hi = x->n - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (x->trials[mid].n == n)
            return &x->trials[mid];
        if (x->trials[mid].n < n)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return NULL;
}

/* The trials of x from its Jobs, page by page, with their results. */
static int rebuild(struct hs *p, struct hs_exp *x)
{
    char sel[96], *token = NULL;
    int rc = CUBE_OK;
    snprintf(sel, sizeof sel, "experiment=%s", x->name);
    do {
        char *page = p->host->obj_list_page(p->self, "Job", x->project, sel, 500, token, &rc);
        free(token);
        token = NULL;
        cJSON *doc = cu_json_take(p->host, page);
        if (!doc)
            return rc != CUBE_OK ? rc : CUBE_ENOMEM;
        const cJSON *job;
        cJSON_ArrayForEach(job, cJSON_GetObjectItemCaseSensitive(doc, "items")) {
            struct hs_trial t;
            if (hs_trial_from_job(p, x, job, &t) < 0 || hs_exp_trial(x, t.n)) {
                hs_trial_free(&t);
                continue;
            }
            struct hs_trial *in = hs_exp_add(x, &t);
            if (in)
                hs_results_read(p, x, in);
            else
                hs_trial_free(&t);
        }
        const char *next = cu_str(cJSON_GetObjectItemCaseSensitive(doc, "metadata"), "continue");
        token = next && *next ? strdup(next) : NULL;
        cJSON_Delete(doc);
    } while (token);
    return CUBE_OK;
}

static int build(struct hs *p, struct hs_exp *x, const cJSON *obj, struct hp_err *e, int *rc)
{
    struct hs_spec sp;
    if (hs_spec_parse(p, obj, &sp, e) < 0) {
        *rc = CUBE_EINVAL;
        return -1;
    }
    hs_spec_free(&x->spec);
    x->spec = sp;
    x->generation = (int64_t)cu_num(cJSON_GetObjectItemCaseSensitive(obj, "metadata"),
                                    "generation", 0);
    if (x->built)
        return 0;
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(obj, "status");
    x->last_n = (int)cu_num(st, "lastTrial", 0);
    if ((*rc = rebuild(p, x)) != CUBE_OK) {
        for (int i = 0; i < x->n; i++)
            hs_trial_free(&x->trials[i]);
        x->n = 0;
        hp_fail(e, "", "cannot read the experiment's trials (%d)", *rc);
        return -1;
    }
    x->built = 1;
    return 0;
}

struct hs_exp *hs_memo_take(struct hs *p, const cJSON *obj, struct hp_err *e, int *rc)
{
    const char *project = cu_meta(obj, "project"), *name = cu_meta(obj, "name");
    const char *uid = cu_meta(obj, "uid");
    struct hs_exp *x = NULL;
    *rc = CUBE_OK;
    if (!project || !name)
        return NULL;
    pthread_mutex_lock(&p->mu);
    for (int i = 0; i < p->n_exps && !x; i++)
        if (!strcmp(p->exps[i]->project, project) && !strcmp(p->exps[i]->name, name))
            x = p->exps[i];
    if (x && uid && strcmp(x->uid, uid)) {   /* made again: forget the old one */
        pthread_mutex_unlock(&p->mu);
        hs_memo_forget(p, project, name);
        pthread_mutex_lock(&p->mu);
        x = NULL;
    }
    if (!x && (x = calloc(1, sizeof *x))) {
        if (p->n_exps == p->cap_exps) {
            int cap = p->cap_exps ? p->cap_exps * 2 : 16;
            struct hs_exp **t = realloc(p->exps, (size_t)cap * sizeof *t);
            if (!t) {
                free(x);
                pthread_mutex_unlock(&p->mu);
                *rc = CUBE_ENOMEM;
                return NULL;
            }
            p->exps = t, p->cap_exps = cap;
        }
        snprintf(x->project, sizeof x->project, "%s", project);
        snprintf(x->name, sizeof x->name, "%s", name);
        snprintf(x->uid, sizeof x->uid, "%s", uid ? uid : "");
        pthread_mutex_init(&x->mu, NULL);
        x->owner = p;
        p->exps[p->n_exps++] = x;
    }
    if (x)
        x->refs++;
    pthread_mutex_unlock(&p->mu);
    if (!x) {
        *rc = CUBE_ENOMEM;
        return NULL;
    }
    pthread_mutex_lock(&x->mu);
    int64_t gen = (int64_t)cu_num(cJSON_GetObjectItemCaseSensitive(obj, "metadata"),
                                  "generation", 0);
    if ((!x->built || gen != x->generation) && build(p, x, obj, e, rc) < 0) {
        hs_memo_release(x);
        return NULL;
    }
    return x;
}

struct hs_exp *hs_memo_find(struct hs *p, const char *project, const char *name)
{
    struct hs_exp *x = NULL;
    pthread_mutex_lock(&p->mu);
    for (int i = 0; i < p->n_exps && !x; i++)
        if (!strcmp(p->exps[i]->project, project) && !strcmp(p->exps[i]->name, name) &&
            p->exps[i]->built)
            x = p->exps[i];
    if (x)
        x->refs++;
    pthread_mutex_unlock(&p->mu);
    if (x)
        pthread_mutex_lock(&x->mu);
    return x;
}

void hs_memo_release(struct hs_exp *x)
{
    struct hs *p = x->owner;
    pthread_mutex_unlock(&x->mu);
    pthread_mutex_lock(&p->mu);
    int gone = --x->refs == 0 && x->dead;
    pthread_mutex_unlock(&p->mu);
    if (gone)
        exp_free(x);
}

void hs_memo_forget(struct hs *p, const char *project, const char *name)
{
    struct hs_exp *x = NULL;
    pthread_mutex_lock(&p->mu);
    for (int i = 0; i < p->n_exps; i++)
        if (!strcmp(p->exps[i]->project, project ? project : "") &&
            !strcmp(p->exps[i]->name, name)) {
            x = p->exps[i];
            p->exps[i] = p->exps[--p->n_exps];
            break;
        }
    int now = x && x->refs == 0;
    if (x)
        x->dead = 1;
    pthread_mutex_unlock(&p->mu);
    if (now)
        exp_free(x);
}

void hs_memo_fini(struct hs *p)
{
    for (int i = 0; i < p->n_exps; i++)
        exp_free(p->exps[i]);
    free(p->exps);
    p->exps = NULL;
    p->n_exps = p->cap_exps = 0;
}
