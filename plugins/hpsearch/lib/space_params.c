/* space_params.c — configurations as the parameters a trial sees, and
 * back: {"lr": 0.01, "model": {"_name": "svm", "C": 2.5}} (NNI's shape for
 * a nested choice). Parsing checks each value against its dimension, so a
 * user-chosen trial, or a stored one, is refused naming the parameter. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hp.h"

static int nested(const cJSON *option)
{
    return cJSON_IsObject(option) && cJSON_IsString(cJSON_GetObjectItemCaseSensitive(option,
                                                                                   "_name"));
}

static int at_level(const struct hp_dim *d, int parent, int option)
{
    return d->parent == parent && (parent < 0 || d->parent_option == option);
}

static void build_level(const struct hp_space *s, const double *x, int parent, int option,
                        cJSON *obj)
{
    for (int i = 0; i < s->n; i++) {
        const struct hp_dim *d = &s->dims[i];
        if (!at_level(d, parent, option) || isnan(x[i]))
            continue;
        if (d->type != HP_CHOICE) {
            cJSON_AddItemToObject(obj, d->name, cJSON_CreateNumber(x[i]));
            continue;
        }
        int k = (int)x[i];
        const cJSON *opt = d->options[k < 0 ? 0 : k >= d->n_options ? d->n_options - 1 : k];
        if (!nested(opt)) {
            cJSON_AddItemToObject(obj, d->name, cJSON_Duplicate(opt, 1));
            continue;
        }
        cJSON *sub = cJSON_AddObjectToObject(obj, d->name);
        cJSON_AddStringToObject(sub, "_name",
                                cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(opt,
                                                                                    "_name")));
        build_level(s, x, i, k, sub);
    }
}

cJSON *hp_params_build(const struct hp_space *s, const double *x)
{
    cJSON *o = cJSON_CreateObject();
    if (o)
        build_level(s, x, -1, -1, o);
    return o;
}

static int contains(const struct hp_dim *d, double v)
{
    switch (d->type) {
    case HP_RANDINT:
        return floor(v) == v && v >= d->a && v < d->b;
    case HP_UNIFORM:
    case HP_QUNIFORM:
    case HP_LOGUNIFORM:
    case HP_QLOGUNIFORM:
        return v >= d->a && v <= d->b;
    case HP_LOGNORMAL:
        return v > 0;
    case HP_QLOGNORMAL:
        return v >= 0;
    default:
        return 1;
    }
}

static int parse_choice(const struct hp_space *s, int i, const cJSON *v, const char *f,
                        double *x, struct hp_err *e);

static int parse_level(const struct hp_space *s, const cJSON *obj, int parent, int option,
                       const char *prefix, const char *extra, double *x, struct hp_err *e)
{
    char f[1024];
    const cJSON *m;
    cJSON_ArrayForEach(m, obj) {   /* no member the level does not have */
        snprintf(f, sizeof f, "%.500s%s%.200s", prefix, *prefix ? "." : "", m->string);
        if ((parent >= 0 && !strcmp(m->string, "_name")) ||
            (parent < 0 && extra && !strcmp(m->string, extra)))
            continue;
        int found = 0;
        for (int i = 0; i < s->n && !found; i++)
            found = at_level(&s->dims[i], parent, option) && !strcmp(s->dims[i].name, m->string);
        if (!found)
            return hp_fail(e, f, "not a parameter of the search space");
    }
    for (int i = 0; i < s->n; i++) {
        const struct hp_dim *d = &s->dims[i];
        if (!at_level(d, parent, option))
            continue;
        snprintf(f, sizeof f, "%.500s%s%.200s", prefix, *prefix ? "." : "", d->name);
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, d->name);
        if (!v)
            return hp_fail(e, f, "required (a parameter of the search space)");
        if (d->type == HP_CHOICE) {
            if (parse_choice(s, i, v, f, x, e) < 0)
                return -1;
            continue;
        }
        if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
            return hp_fail(e, f, "must be a number (%s)", hp_type_name(d->type));
        if (!contains(d, v->valuedouble))
            return hp_fail(e, f, "%g is outside %s [%g, %g%s", v->valuedouble,
                           hp_type_name(d->type), d->a, d->b,
                           d->type == HP_RANDINT ? ") (an integer)" : "]");
        x[i] = v->valuedouble;
    }
    return 0;
}

static int parse_choice(const struct hp_space *s, int i, const cJSON *v, const char *f,
                        double *x, struct hp_err *e)
{
    const struct hp_dim *d = &s->dims[i];
    const char *name = cJSON_IsObject(v) ? cJSON_GetStringValue(
                                               cJSON_GetObjectItemCaseSensitive(v, "_name"))
                                         : NULL;
    for (int k = 0; k < d->n_options; k++) {
        const cJSON *opt = d->options[k];
        if (nested(opt)) {
            if (!name || strcmp(name, cJSON_GetStringValue(
                                          cJSON_GetObjectItemCaseSensitive(opt, "_name"))))
                continue;
            x[i] = k;
            return parse_level(s, v, i, k, f, NULL, x, e);
        }
        if (cJSON_Compare(v, opt, 1)) {
            x[i] = k;
            return 0;
        }
    }
    return hp_fail(e, f, "not one of the choice's options");
}

int hp_params_parse(const struct hp_space *s, const cJSON *params, const char *extra,
                    double *x, struct hp_err *e)
{
    for (int i = 0; i < s->n; i++)
        x[i] = NAN;
    if (!cJSON_IsObject(params))
        return hp_fail(e, "", "must be an object of parameters");
    return parse_level(s, params, -1, -1, "", extra, x, e);
}
