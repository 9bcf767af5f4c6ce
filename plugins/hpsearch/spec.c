/* spec.c — an Experiment's spec beyond its JSON Schema: the search space
 * (lib/space.c), the tuner and the assessor with their arguments, the
 * {{ params.x }} in the trial's command, args and env, and the name's
 * length; a bad one is a 422 naming the field. What was drawn from the
 * search space, by which tuner, for which objective, cannot change once
 * the Experiment exists. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpsearch.h"

static int prefixed(struct hp_err *e, const char *prefix)
{
    char f[sizeof e->field];
    snprintf(f, sizeof f, "%s%s%.280s", prefix, *e->field ? "." : "", e->field);
    memcpy(e->field, f, sizeof f);
    return -1;
}

/* args without NNI's optimize_mode, which must agree with the objective. */
static cJSON *tuner_args(const cJSON *args, int maximize, struct hp_err *e, int *bad)
{
    *bad = 0;
    if (!args)
        return NULL;
    cJSON *a = cJSON_Duplicate(args, 1);
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(a, "optimize_mode");
    if (m) {
        const char *v = cJSON_GetStringValue(m);
        if (!v || (strcmp(v, "maximize") && strcmp(v, "minimize")) ||
            (strcmp(v, "maximize") == 0) != maximize) {
            hp_fail(e, "args.optimize_mode", "must match spec.objective.direction (%s)",
                    maximize ? "maximize" : "minimize");
            *bad = 1;
        }
        cJSON_DeleteItemFromObjectCaseSensitive(a, "optimize_mode");
    }
    return a;
}

/* Every {{ }} of the trial's command, args and env names a parameter. */
static int check_templates(const cJSON *trial, const struct hp_space *s, struct hp_err *e)
{
    static const char *const LISTS[] = {"command", "args"};
    for (int l = 0; l < 2; l++) {
        int i = 0;
        const cJSON *v;
        cJSON_ArrayForEach(v, cJSON_GetObjectItemCaseSensitive(trial, LISTS[l])) {
            char *out = cJSON_IsString(v) ? hs_render(v->valuestring, NULL, s, "", "", 0, e)
                                          : NULL;
            if (cJSON_IsString(v) && !out) {
                char f[64];
                snprintf(f, sizeof f, "spec.trial.%s[%d]", LISTS[l], i);
                return hp_fail(e, f, "%.400s", e->msg);
            }
            free(out);
            i++;
        }
    }
    const cJSON *v;
    cJSON_ArrayForEach(v, cJSON_GetObjectItemCaseSensitive(trial, "env")) {
        char *out = cJSON_IsString(v) ? hs_render(v->valuestring, NULL, s, "", "", 0, e) : NULL;
        if (cJSON_IsString(v) && !out) {
            char f[200];
            snprintf(f, sizeof f, "spec.trial.env.%.150s", v->string);
            return hp_fail(e, f, "%.400s", e->msg);
        }
        free(out);
        if (!strncmp(v->string, "CUBE_TRIAL_", 11) || !strcmp(v->string, "CUBE_EXPERIMENT")) {
            char f[200];
            snprintf(f, sizeof f, "spec.trial.env.%.150s", v->string);
            return hp_fail(e, f, "set by the search itself (the trial's parameters and ids)");
        }
    }
    return 0;
}

static int parse_parts(struct hs *p, const cJSON *obj, const cJSON *spec, struct hs_spec *sp,
                       struct hp_err *e)
{
    const cJSON *obj_ = cJSON_GetObjectItemCaseSensitive(spec, "objective");
    const cJSON *tuner = cJSON_GetObjectItemCaseSensitive(spec, "tuner");
    const cJSON *assessor = cJSON_GetObjectItemCaseSensitive(spec, "assessor");
    snprintf(sp->metric, sizeof sp->metric, "%s", cu_str_or(obj_, "metric", "default"));
    sp->maximize = strcmp(cu_str_or(obj_, "direction", "maximize"), "minimize") != 0;
    const char *tname = cu_str_or(tuner, "name", "tpe");
    sp->budgeted = hp_tuner_budgeted(tname);
    if (hp_space_parse(cJSON_GetObjectItemCaseSensitive(spec, "searchSpace"),
                       sp->budgeted ? HP_BUDGET_PARAM : NULL, &sp->space, e) < 0)
        return prefixed(e, "spec.searchSpace");
    int bad;
    cJSON *args = tuner_args(cJSON_GetObjectItemCaseSensitive(tuner, "args"), sp->maximize, e,
                             &bad);
    const char *uid = cu_meta(obj, "uid");
    int rc = bad ? -1 : hp_tuner_new(tname, args, sp->space,
                                     hp_hash64(uid ? uid : cu_meta(obj, "name")), &sp->tuner, e);
    cJSON_Delete(args);
    if (rc < 0)
        return prefixed(e, *e->field && strncmp(e->field, "args", 4) && strcmp(e->field, "name")
                               ? "spec.searchSpace" : "spec.tuner");
    if (assessor && hp_assessor_new(cu_str(assessor, "name"),
                                    cJSON_GetObjectItemCaseSensitive(assessor, "args"),
                                    sp->maximize, &sp->assessor, e) < 0)
        return prefixed(e, "spec.assessor");
    (void)p;
    return 0;
}

int hs_spec_parse(struct hs *p, const cJSON *obj, struct hs_spec *sp, struct hp_err *e)
{
    memset(sp, 0, sizeof *sp);
    const cJSON *spec = cJSON_GetObjectItemCaseSensitive(obj, "spec");
    const char *name = cu_meta(obj, "name");
    if (name && strlen(name) > HS_NAME_MAX)
        return hp_fail(e, "metadata.name", "at most %d characters: its trials' Jobs are named "
                       "<name>-<n>", HS_NAME_MAX);
    if (parse_parts(p, obj, spec, sp, e) < 0)
        goto fail;
    sp->concurrency = (int)cu_num(spec, "trialConcurrency", 1);
    sp->max_trials = (int64_t)cu_num(spec, "maxTrials", 10);
    sp->max_duration = (int64_t)cu_num(spec, "maxDurationSeconds", 0);
    sp->max_failed = (int64_t)cu_num(spec, "maxFailedTrials", -1);
    if (p && sp->max_trials > p->max_trials) {
        hp_fail(e, "spec.maxTrials", "at most %lld (the hpsearch plugin's max_trials)",
                (long long)p->max_trials);
        goto fail;
    }
    if (p && sp->concurrency > p->max_concurrency) {
        hp_fail(e, "spec.trialConcurrency", "at most %lld (the hpsearch plugin's "
                "max_concurrency)", (long long)p->max_concurrency);
        goto fail;
    }
    const cJSON *trial = cJSON_GetObjectItemCaseSensitive(spec, "trial");
    if (check_templates(trial, sp->space, e) < 0)
        goto fail;
    if (!(sp->trial = cJSON_Duplicate(trial, 1))) {
        hp_fail(e, "", "out of memory");
        goto fail;
    }
    return 0;
fail:
    hs_spec_free(sp);
    return -1;
}

void hs_spec_free(struct hs_spec *sp)
{
    hp_tuner_free(sp->tuner);
    hp_assessor_free(sp->assessor);
    hp_space_free(sp->space);
    cJSON_Delete(sp->trial);
    memset(sp, 0, sizeof *sp);
}

/* What the trials were drawn from, by whom, for what. */
static const char *const FROZEN[] = {"searchSpace", "objective", "tuner"};

int hs_spec_check(void *state, const char *object_json, const char *old_json)
{
    struct hs *p = state;
    cJSON *obj = cJSON_Parse(object_json), *old = old_json ? cJSON_Parse(old_json) : NULL;
    struct hs_spec sp;
    struct hp_err e = {.field = "", .msg = ""};
    int rc = CUBE_OK;
    if (!obj) {
        p->host->set_error(p->self, "out of memory");
        return CUBE_ENOMEM;
    }
    if (hs_spec_parse(p, obj, &sp, &e) < 0) {
        p->host->set_error_field(p->self, e.field, "%s%s%s", e.field, *e.field ? ": " : "",
                                 e.msg);
        rc = CUBE_EINVAL;
    } else {
        hs_spec_free(&sp);
    }
    const cJSON *spec = cJSON_GetObjectItemCaseSensitive(obj, "spec");
    const cJSON *was = cJSON_GetObjectItemCaseSensitive(old, "spec");
    for (size_t i = 0; rc == CUBE_OK && old && i < sizeof FROZEN / sizeof FROZEN[0]; i++) {
        const cJSON *a = cJSON_GetObjectItemCaseSensitive(spec, FROZEN[i]);
        const cJSON *b = cJSON_GetObjectItemCaseSensitive(was, FROZEN[i]);
        if ((a || b) && !(a && b && cJSON_Compare(a, b, 1))) {
            char f[64];
            snprintf(f, sizeof f, "spec.%s", FROZEN[i]);
            p->host->set_error_field(p->self, f, "%s: cannot change once the experiment "
                                     "exists (its trials were drawn with it); create another "
                                     "experiment", f);
            rc = CUBE_EINVAL;
        }
    }
    cJSON_Delete(obj);
    cJSON_Delete(old);
    return rc;
}
