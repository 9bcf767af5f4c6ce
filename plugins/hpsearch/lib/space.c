/* space.c — a search space in NNI's format, parsed and checked:
 *   {"lr": {"_type": "loguniform", "_value": [1e-4, 1e-1]},
 *    "model": {"_type": "choice", "_value": [
 *        {"_name": "svm", "C": {"_type": "uniform", "_value": [0.1, 10]}},
 *        {"_name": "tree"}]}}
 * into the flat, depth-first list of dimensions hp.h describes. Every
 * fault names its place ("lr._value", "model._value[0].C._type"). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hp.h"

static const char *const TYPE_NAMES[] = {
    [HP_CHOICE] = "choice", [HP_RANDINT] = "randint", [HP_UNIFORM] = "uniform",
    [HP_QUNIFORM] = "quniform", [HP_LOGUNIFORM] = "loguniform",
    [HP_QLOGUNIFORM] = "qloguniform", [HP_NORMAL] = "normal", [HP_QNORMAL] = "qnormal",
    [HP_LOGNORMAL] = "lognormal", [HP_QLOGNORMAL] = "qlognormal",
};
#define N_TYPES ((int)(sizeof TYPE_NAMES / sizeof TYPE_NAMES[0]))

const char *hp_type_name(enum hp_type t)
{
    return (int)t >= 0 && (int)t < N_TYPES ? TYPE_NAMES[t] : "?";
}

int hp_type_of(const char *name)
{
    for (int i = 0; name && i < N_TYPES; i++)
        if (!strcmp(name, TYPE_NAMES[i]))
            return i;
    return -1;
}

int hp_type_bounded(enum hp_type t)
{
    return t == HP_CHOICE || t == HP_RANDINT || t == HP_UNIFORM || t == HP_QUNIFORM ||
           t == HP_LOGUNIFORM || t == HP_QLOGUNIFORM;
}

int hp_type_log(enum hp_type t)
{
    return t == HP_LOGUNIFORM || t == HP_QLOGUNIFORM || t == HP_LOGNORMAL ||
           t == HP_QLOGNORMAL;
}

struct builder {
    struct hp_space *s;
    int cap;
    const char *reserved;
    struct hp_err *e;
};

/* A new, zeroed dimension at the end of the list, or NULL (e filled). */
static struct hp_dim *add_dim(struct builder *b)
{
    if (b->s->n == HP_MAX_DIMS) {
        hp_fail(b->e, "", "more than %d parameters (nested ones included)", HP_MAX_DIMS);
        return NULL;
    }
    if (b->s->n == b->cap) {
        int cap = b->cap ? b->cap * 2 : 8;
        struct hp_dim *d = realloc(b->s->dims, (size_t)cap * sizeof *d);
        if (!d) {
            hp_fail(b->e, "", "out of memory");
            return NULL;
        }
        b->s->dims = d;
        b->cap = cap;
    }
    struct hp_dim *d = &b->s->dims[b->s->n++];
    memset(d, 0, sizeof *d);
    return d;
}

/* The n numbers of v (an array of exactly n finite numbers). */
static int numbers(const cJSON *v, int n, double *out)
{
    if (cJSON_GetArraySize(v) != n)
        return -1;
    int i = 0;
    const cJSON *x;
    cJSON_ArrayForEach(x, v) {
        if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble))
            return -1;
        out[i++] = x->valuedouble;
    }
    return 0;
}

static int is_integral(double v)
{
    return floor(v) == v && fabs(v) < 9007199254740992.0;
}

static int check_randint(struct hp_dim *d, const cJSON *v, const char *vf, struct hp_err *e)
{
    double n[2];
    if (numbers(v, 1, n) == 0) {       /* NNI's older [upper]: [0, upper) */
        n[1] = n[0];
        n[0] = 0;
    } else if (numbers(v, 2, n) < 0) {
        return hp_fail(e, vf, "randint takes [lower, upper] (integers; upper excluded)");
    }
    if (!is_integral(n[0]) || !is_integral(n[1]))
        return hp_fail(e, vf, "randint bounds must be integers, got [%g, %g]", n[0], n[1]);
    if (n[0] >= n[1])
        return hp_fail(e, vf, "randint's lower bound %g must be below its upper bound %g "
                       "(upper is excluded)", n[0], n[1]);
    d->a = n[0];
    d->b = n[1];
    return 0;
}

static int check_numeric(struct hp_dim *d, const cJSON *v, const char *vf, struct hp_err *e)
{
    enum hp_type t = d->type;
    int quant = t == HP_QUNIFORM || t == HP_QLOGUNIFORM || t == HP_QNORMAL || t == HP_QLOGNORMAL;
    int bounded = hp_type_bounded(t);
    double n[3] = {0, 0, 0};
    if (numbers(v, quant ? 3 : 2, n) < 0)
        return hp_fail(e, vf, "%s takes [%s%s] (finite numbers)", hp_type_name(t),
                       bounded ? "low, high" : "mu, sigma", quant ? ", q" : "");
    if (bounded && n[0] >= n[1])
        return hp_fail(e, vf, "%s's low %g must be below its high %g", hp_type_name(t), n[0],
                       n[1]);
    if (bounded && hp_type_log(t) && n[0] <= 0)
        return hp_fail(e, vf, "%s takes the log of its bounds: low must be positive, got %g",
                       hp_type_name(t), n[0]);
    if (!bounded && n[1] <= 0)
        return hp_fail(e, vf, "%s's sigma must be positive, got %g", hp_type_name(t), n[1]);
    if (quant && n[2] <= 0)
        return hp_fail(e, vf, "%s's q must be positive, got %g", hp_type_name(t), n[2]);
    d->a = n[0];
    d->b = n[1];
    d->q = quant ? n[2] : 0;
    return 0;
}

static int parse_members(struct builder *b, const cJSON *obj, const char *prefix, int parent,
                         int option, int skip_name);

/* A choice's options; nested ones (objects with "_name") add their
 * dimensions after the choice's. */
static int check_choice(struct builder *b, int di, const cJSON *v, const char *vf)
{
    int n = cJSON_GetArraySize(v);
    if (!cJSON_IsArray(v) || n < 1)
        return hp_fail(b->e, vf, "choice takes a non-empty list of options");
    if (n > HP_MAX_OPTIONS)
        return hp_fail(b->e, vf, "choice has %d options, at most %d", n, HP_MAX_OPTIONS);
    const cJSON **opts = calloc((size_t)n, sizeof *opts);
    if (!opts)
        return hp_fail(b->e, vf, "out of memory");
    b->s->dims[di].options = opts;
    b->s->dims[di].n_options = n;
    int i = 0;
    const cJSON *o;
    cJSON_ArrayForEach(o, v) {
        char of[1024];
        snprintf(of, sizeof of, "%.900s[%d]", vf, i);
        opts[i] = o;
        const cJSON *nm = cJSON_GetObjectItemCaseSensitive(o, "_name");
        if (cJSON_IsObject(o) && nm) {   /* a nested space; other objects are values */
            if (!cJSON_IsString(nm) || !*nm->valuestring)
                return hp_fail(b->e, of, "a nested search space needs \"_name\" (a string)");
            for (int k = 0; k < i; k++)
                if (cJSON_IsObject(opts[k]) &&
                    !strcmp(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(opts[k],
                                                                                "_name")),
                            nm->valuestring))
                    return hp_fail(b->e, of, "\"_name\" %s is given twice", nm->valuestring);
            if (parse_members(b, o, of, di, i, 1) < 0)
                return -1;
        }
        i++;
    }
    return 0;
}

static int parse_param(struct builder *b, const char *name, const cJSON *spec, const char *f,
                       int parent, int option)
{
    char tf[1024], vf[1024];
    snprintf(tf, sizeof tf, "%.900s._type", f);
    snprintf(vf, sizeof vf, "%.900s._value", f);
    if (!cJSON_IsObject(spec))
        return hp_fail(b->e, f, "must be an object {\"_type\": ..., \"_value\": [...]}");
    const cJSON *m;
    cJSON_ArrayForEach(m, spec)
        if (strcmp(m->string, "_type") && strcmp(m->string, "_value")) {
            char uf[1024];
            snprintf(uf, sizeof uf, "%.500s.%.400s", f, m->string);
            return hp_fail(b->e, uf, "unknown member (a parameter has _type and _value)");
        }
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(spec, "_type");
    const cJSON *value = cJSON_GetObjectItemCaseSensitive(spec, "_value");
    if (!cJSON_IsString(type))
        return hp_fail(b->e, tf, "required: a string, one of choice, randint, uniform, "
                       "quniform, loguniform, qloguniform, normal, qnormal, lognormal, "
                       "qlognormal");
    int t = hp_type_of(type->valuestring);
    if (t < 0)
        return hp_fail(b->e, tf, "unknown _type \"%.64s\" (known: choice, randint, uniform, "
                       "quniform, loguniform, qloguniform, normal, qnormal, lognormal, "
                       "qlognormal)", type->valuestring);
    if (!cJSON_IsArray(value))
        return hp_fail(b->e, vf, "required: a list");
    struct hp_dim *d = add_dim(b);
    if (!d)
        return -1;
    int di = b->s->n - 1;
    snprintf(d->name, sizeof d->name, "%s", name);
    snprintf(d->field, sizeof d->field, "%.319s", f);
    d->type = (enum hp_type)t;
    d->parent = parent;
    d->parent_option = option;
    if (t == HP_CHOICE)
        return check_choice(b, di, value, vf);
    if (t == HP_RANDINT)
        return check_randint(d, value, vf, b->e);
    return check_numeric(d, value, vf, b->e);
}

static int parse_members(struct builder *b, const cJSON *obj, const char *prefix, int parent,
                         int option, int skip_name)
{
    const cJSON *m;
    cJSON_ArrayForEach(m, obj) {
        char f[1024];
        if (skip_name && !strcmp(m->string, "_name"))
            continue;
        snprintf(f, sizeof f, "%.500s%s%.200s", prefix ? prefix : "", prefix ? "." : "", m->string);
        size_t len = strlen(m->string);
        if (len == 0 || len > HP_NAME_MAX)
            return hp_fail(b->e, f, "parameter names are 1 to %d bytes", HP_NAME_MAX);
        if (m->string[0] == '_')
            return hp_fail(b->e, f, "names starting with '_' are NNI's own (_type, _value, "
                           "_name)");
        if (parent < 0 && b->reserved && !strcmp(m->string, b->reserved))
            return hp_fail(b->e, f, "%s is set by the tuner (the trial's budget); choose "
                           "another name", b->reserved);
        if (parse_param(b, m->string, m, f, parent, option) < 0)
            return -1;
    }
    return 0;
}

int hp_space_parse(const cJSON *json, const char *reserved, struct hp_space **out,
                   struct hp_err *e)
{
    *out = NULL;
    if (!cJSON_IsObject(json))
        return hp_fail(e, "", "must be an object of parameters: {\"lr\": {\"_type\": "
                       "\"uniform\", \"_value\": [0.001, 0.1]}}");
    if (!json->child)
        return hp_fail(e, "", "has no parameters");
    struct hp_space *s = calloc(1, sizeof *s);
    if (!s || !(s->doc = cJSON_Duplicate(json, 1))) {
        free(s);
        return hp_fail(e, "", "out of memory");
    }
    struct builder b = {.s = s, .reserved = reserved, .e = e};
    if (parse_members(&b, s->doc, NULL, -1, -1, 0) < 0) {
        hp_space_free(s);
        return -1;
    }
    *out = s;
    return 0;
}

void hp_space_free(struct hp_space *s)
{
    if (!s)
        return;
    for (int i = 0; i < s->n; i++)
        free(s->dims[i].options);
    free(s->dims);
    cJSON_Delete(s->doc);
    free(s);
}

int hp_dim_active(const struct hp_space *s, const double *x, int d)
{
    for (int p = s->dims[d].parent, o = s->dims[d].parent_option; p >= 0;
         o = s->dims[p].parent_option, p = s->dims[p].parent)
        if (isnan(x[p]) || (int)x[p] != o)
            return 0;
    return 1;
}

int hp_obs_scored(const struct hp_obs *o)
{
    return o->state == HP_DONE && isfinite(o->loss);
}
