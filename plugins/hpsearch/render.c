/* render.c — a trial's hyper-parameters in its command, args and env:
 *   {{ params.lr }}            a parameter (numbers in their shortest exact
 *                              form, strings as they are, lists and objects
 *                              as JSON; one a trial does not have: "")
 *   {{ params.model._name }}   a nested choice's option, {{ params.model.C }}
 *                              one of its parameters
 *   {{ params }}               every parameter, as JSON
 *   {{ trial.number }}, {{ trial.id }}, {{ experiment.name }}
 * Anything else in {{ }} is refused (at the Experiment's creation: a dry
 * run checks the names against the search space). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpsearch.h"

struct buf {
    char *s;
    size_t n, cap;
};

static int put(struct buf *b, const char *s, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        size_t cap = (b->n + n + 1) * 2;
        char *t = realloc(b->s, cap);
        if (!t)
            return -1;
        b->s = t, b->cap = cap;
    }
    memcpy(b->s + b->n, s, n);
    b->n += n;
    b->s[b->n] = '\0';
    return 0;
}

/* A number in its shortest form that reads back exactly. */
static void number_text(double v, char *out, size_t len)
{
    if (floor(v) == v && fabs(v) < 1e15) {
        snprintf(out, len, "%.0f", v);
        return;
    }
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(out, len, "%.*g", prec, v);
        if (strtod(out, NULL) == v)
            return;
    }
}

static int put_value(struct buf *b, const cJSON *v)
{
    char num[40];
    if (!v || cJSON_IsNull(v))
        return 0;
    if (cJSON_IsString(v))
        return put(b, v->valuestring, strlen(v->valuestring));
    if (cJSON_IsNumber(v)) {
        number_text(v->valuedouble, num, sizeof num);
        return put(b, num, strlen(num));
    }
    if (cJSON_IsBool(v))
        return put(b, cJSON_IsTrue(v) ? "true" : "false", cJSON_IsTrue(v) ? 4 : 5);
    char *j = cJSON_PrintUnformatted(v);
    int rc = j ? put(b, j, strlen(j)) : -1;
    free(j);
    return rc;
}

static int has_top(const struct hp_space *s, const char *name, size_t len)
{
    if (len == strlen(HP_BUDGET_PARAM) && !strncmp(name, HP_BUDGET_PARAM, len))
        return 1;
    for (int i = 0; i < s->n; i++)
        if (s->dims[i].parent < 0 && strlen(s->dims[i].name) == len &&
            !strncmp(s->dims[i].name, name, len))
            return 1;
    return 0;
}

/* One expression (trimmed); params NULL: a dry run. */
static int expr(struct buf *b, const char *x, size_t len, const cJSON *params,
                const struct hp_space *space, const char *experiment, const char *trial_id,
                int trial_n, struct hp_err *e)
{
    char num[24];
    if (len == 12 && !strncmp(x, "trial.number", 12)) {
        snprintf(num, sizeof num, "%d", trial_n);
        return put(b, num, strlen(num));
    }
    if (len == 8 && !strncmp(x, "trial.id", 8))
        return put(b, trial_id, strlen(trial_id));
    if (len == 15 && !strncmp(x, "experiment.name", 15))
        return put(b, experiment, strlen(experiment));
    if (len == 6 && !strncmp(x, "params", 6))
        return params ? put_value(b, params) : 0;
    if (len > 7 && !strncmp(x, "params.", 7)) {
        const char *path = x + 7, *end = x + len;
        const char *dot = memchr(path, '.', (size_t)(end - path));
        size_t first = (size_t)((dot ? dot : end) - path);
        if (!params)
            return has_top(space, path, first) ? 0
                   : hp_fail(e, NULL, "{{ %.*s }}: the search space has no parameter %.*s",
                             (int)len, x, (int)first, path);
        const cJSON *v = params;
        while (v && path < end) {
            dot = memchr(path, '.', (size_t)(end - path));
            size_t seg = (size_t)((dot ? dot : end) - path);
            char key[HP_NAME_MAX + 1];
            snprintf(key, sizeof key, "%.*s", (int)(seg < HP_NAME_MAX ? seg : HP_NAME_MAX), path);
            v = cJSON_GetObjectItemCaseSensitive(v, key);
            path += seg + (dot ? 1 : 0);
        }
        return put_value(b, v);
    }
    return hp_fail(e, NULL, "{{ %.*s }}: unknown (use params.<name>, params, trial.number, "
                   "trial.id or experiment.name)", (int)(len > 80 ? 80 : len), x);
}

char *hs_render(const char *text, const cJSON *params, const struct hp_space *space,
                const char *experiment, const char *trial_id, int trial_n, struct hp_err *e)
{
    struct buf b = {0};
    const char *p = text;
    if (put(&b, "", 0) < 0)
        return NULL;
    while (*p) {
        const char *open = strstr(p, "{{");
        if (!open)
            break;
        const char *close = strstr(open + 2, "}}");
        if (!close) {
            hp_fail(e, NULL, "\"{{\" without \"}}\"");
            free(b.s);
            return NULL;
        }
        const char *x = open + 2, *xe = close;
        while (x < xe && (*x == ' ' || *x == '\t'))
            x++;
        while (xe > x && (xe[-1] == ' ' || xe[-1] == '\t'))
            xe--;
        if (put(&b, p, (size_t)(open - p)) < 0 ||
            expr(&b, x, (size_t)(xe - x), params, space, experiment, trial_id, trial_n, e) < 0) {
            free(b.s);
            return NULL;
        }
        p = close + 2;
    }
    if (put(&b, p, strlen(p)) < 0) {
        free(b.s);
        return NULL;
    }
    return b.s;
}
