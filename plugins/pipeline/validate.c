/* validate.c — what the schemas cannot say about templates and pipelines:
 * argument schemas that parse, unique task names, upstreams that exist,
 * no cycles, templates that exist, args that fit the template's schema,
 * a schedule and time zone that parse, no task mounts. Every error names
 * its field. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "cron.h"
#include "pipeline.h"

/* Nonzero when a template declares arguments. */
static int has_args(const cJSON *schema)
{
    return cJSON_IsObject(schema) && schema->child;
}

/* Splits a library message "--arg: why" into field suffix and message. */
static void arg_error(const char *base, const char *err, char *field, size_t flen,
                      char *msg, size_t mlen)
{
    const char *colon = strstr(err, ": ");
    if (!strncmp(err, "--", 2) && colon && !memchr(err, ' ', (size_t)(colon - err))) {
        snprintf(field, flen, "%s.%.*s", base, (int)(colon - err), err);
        snprintf(msg, mlen, "%s", colon + 2);
    } else {
        snprintf(field, flen, "%s", base);
        snprintf(msg, mlen, "%s", err);
    }
}

int pl_template_check(const cJSON *spec, char *field, size_t flen, char *msg, size_t mlen)
{
    char err[PL_ERR];
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(spec, "args");
    if (!has_args(args))
        return 0;
    if (pl_args_check_schema(args, err, sizeof err) < 0)
        return pl_fail(field, flen, msg, mlen, "args", "%s", err);
    const cJSON *ex = cJSON_GetObjectItemCaseSensitive(spec, "example");
    if (cJSON_IsObject(ex)) {
        cJSON *copy = cJSON_Duplicate(ex, 1);
        int rc = pl_args_validate(args, copy, err, sizeof err);
        cJSON_Delete(copy);
        if (rc < 0) {
            arg_error("example", err, field, flen, msg, mlen);
            return -1;
        }
    }
    return 0;
}

cJSON *pl_template_find(struct pl *p, const char *project, const char *name)
{
    int rc;
    char *t = p->host->obj_get(p->self, "ProjectJobTemplate", project, name, &rc);
    if (!t)
        t = p->host->obj_get(p->self, "JobTemplate", NULL, name, &rc);
    return cu_json_take(p->host, t);
}

/* Task names sorted, for lookups by name. */
struct name_ix {
    const char *name;
    int i;
};

static int ix_cmp(const void *a, const void *b)
{
    return strcmp(((const struct name_ix *)a)->name, ((const struct name_ix *)b)->name);
}

/* A sorted index of the task names (n entries), or NULL. */
static struct name_ix *ix_build(const cJSON *tasks, int n)
{
    struct name_ix *ix = calloc((size_t)n + 1, sizeof *ix);
    int i = 0;
    const cJSON *t;
    if (!ix)
        return NULL;
    cJSON_ArrayForEach(t, tasks) {
        const char *name = cu_str(t, "name");
        ix[i] = (struct name_ix){name ? name : "", i};
        i++;
    }
    qsort(ix, (size_t)n, sizeof *ix, ix_cmp);
    return ix;
}

/* Index of the task named name, or -1. */
static int ix_find(const struct name_ix *ix, int n, const char *name)
{
    struct name_ix key = {name, 0};
    const struct name_ix *hit = bsearch(&key, ix, (size_t)n, sizeof *ix, ix_cmp);
    return hit ? hit->i : -1;
}

/* Kahn's algorithm over edges upstream -> task. */
static int topo(const cJSON **items, const struct name_ix *ix, int n, int *order,
                const char **cyclic)
{
    int *indeg = calloc((size_t)n, sizeof *indeg), *first = calloc((size_t)n, sizeof *first);
    int edges = 0, head = 0, tail = 0, rc = -1;
    const cJSON *u;
    for (int i = 0; i < n; i++)
        edges += cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(items[i], "upstream"));
    int *next = calloc((size_t)edges + 1, sizeof *next), *to = calloc((size_t)edges + 1, sizeof *to);
    if (!indeg || !first || !next || !to)
        goto out;
    for (int i = 0; i < n; i++)
        first[i] = -1;
    int e = 0;
    /* backwards, so each list (built by prepending) runs in task order */
    for (int i = n - 1; i >= 0; i--)
        cJSON_ArrayForEach(u, cJSON_GetObjectItemCaseSensitive(items[i], "upstream")) {
            int from = cJSON_IsString(u) ? ix_find(ix, n, u->valuestring) : -1;
            if (from < 0)
                continue;
            to[e] = i, next[e] = first[from], first[from] = e++;
            indeg[i]++;
        }
    for (int i = 0; i < n; i++)
        if (!indeg[i])
            order[tail++] = i;
    while (head < tail)
        for (int k = first[order[head++]]; k >= 0; k = next[k])
            if (--indeg[to[k]] == 0)
                order[tail++] = to[k];
    *cyclic = NULL;
    for (int i = 0; i < n && tail < n; i++)
        if (indeg[i] > 0 && !*cyclic)
            *cyclic = cu_str(items[i], "name");
    rc = tail == n ? 0 : -1;
out:
    free(indeg), free(first), free(next), free(to);
    return rc;
}

int pl_topo_order(const cJSON *tasks, int *order, int n, const char **cyclic)
{
    const cJSON **items = calloc((size_t)n + 1, sizeof *items), *t;
    struct name_ix *ix = ix_build(tasks, n);
    int i = 0, rc = -1;
    *cyclic = NULL;
    if (items && ix) {
        cJSON_ArrayForEach(t, tasks)
            items[i++] = t;
        rc = topo(items, ix, n, order, cyclic);
    }
    free(items), free(ix);
    return rc;
}

/* Names unique, upstreams known, no self or repeated upstream. */
static int check_names(const cJSON *tasks, char *field, size_t flen, char *msg, size_t mlen)
{
    int n = cJSON_GetArraySize(tasks), i = 0, rc = 0;
    struct name_ix *ix = ix_build(tasks, n);
    const cJSON *t, *u;
    char f[96];
    if (!ix)
        return pl_fail(field, flen, msg, mlen, "spec.tasks", "out of memory");
    for (int k = 1; k < n; k++)
        if (!strcmp(ix[k].name, ix[k - 1].name)) {
            int later = ix[k].i > ix[k - 1].i ? ix[k].i : ix[k - 1].i;
            snprintf(f, sizeof f, "spec.tasks[%d].name", later);
            rc = pl_fail(field, flen, msg, mlen, f, "\"%s\" is used by another task",
                         ix[k].name);
            goto out;
        }
    cJSON_ArrayForEach(t, tasks) {
        const char *name = cu_str(t, "name");
        int j = 0;
        cJSON_ArrayForEach(u, cJSON_GetObjectItemCaseSensitive(t, "upstream")) {
            snprintf(f, sizeof f, "spec.tasks[%d].upstream[%d]", i, j++);
            if (!strcmp(u->valuestring, name))
                rc = pl_fail(field, flen, msg, mlen, f, "a task cannot depend on itself");
            else if (ix_find(ix, n, u->valuestring) < 0)
                rc = pl_fail(field, flen, msg, mlen, f, "no task is named \"%s\"",
                             u->valuestring);
            if (rc < 0)
                goto out;
        }
        i++;
    }
out:
    free(ix);
    return rc;
}

/* Index of the task named name, or -1 (linear: error paths only). */
static int task_index(const cJSON *tasks, const char *name)
{
    int i = 0;
    const cJSON *t;
    cJSON_ArrayForEach(t, tasks) {
        if (!strcmp(cu_str(t, "name") ? cu_str(t, "name") : "", name))
            return i;
        i++;
    }
    return -1;
}

/* A task's template and args; no mounts (its Job would refuse them: no
 * executor mounts volumes yet). */
static int check_task(struct pl *p, const char *project, const cJSON *t, int i, char *field,
                      size_t flen, char *msg, size_t mlen)
{
    char f[96], err[PL_ERR];
    const char *tname = cu_str(t, "template");
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(t, "args");
    const cJSON *cmd = cJSON_GetObjectItemCaseSensitive(t, "command");
    if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(t, "mounts")) > 0) {
        snprintf(f, sizeof f, "spec.tasks[%d].mounts", i);
        return pl_fail(field, flen, msg, mlen, f, "not supported: no executor of this Cube "
                       "mounts volumes yet (tasks share the run's directory, CUBE_RUN_DIR)");
    }
    if (!tname) {
        snprintf(f, sizeof f, "spec.tasks[%d].template", i);
        if (cJSON_GetArraySize(cmd) == 0)
            return pl_fail(field, flen, msg, mlen, f, "a task needs a template or a command");
        if (cJSON_IsObject(args) && args->child) {
            snprintf(f, sizeof f, "spec.tasks[%d].args", i);
            return pl_fail(field, flen, msg, mlen, f, "args need a template that declares them");
        }
        return 0;
    }
    cJSON *tmpl = pl_template_find(p, project, tname);
    if (!tmpl) {
        snprintf(f, sizeof f, "spec.tasks[%d].template", i);
        return pl_fail(field, flen, msg, mlen, f, "no job template \"%s\" in this project or "
                       "the catalog", tname);
    }
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(tmpl, "spec"), "args");
    int rc = 0;
    snprintf(f, sizeof f, "spec.tasks[%d].args", i);
    if (has_args(schema)) {
        cJSON *copy = cJSON_IsObject(args) ? cJSON_Duplicate(args, 1) : cJSON_CreateObject();
        if (pl_args_validate(schema, copy, err, sizeof err) < 0) {
            arg_error(f, err, field, flen, msg, mlen);
            rc = -1;
        }
        cJSON_Delete(copy);
    } else if (cJSON_IsObject(args) && args->child) {
        rc = pl_fail(field, flen, msg, mlen, f, "template \"%s\" declares no args", tname);
    }
    cJSON_Delete(tmpl);
    return rc;
}

/* schedule, timezone, startTime. */
static int check_schedule(const cJSON *spec, char *field, size_t flen, char *msg, size_t mlen)
{
    char err[PL_ERR];
    const char *sched = cu_str(spec, "schedule"), *tz = cu_str(spec, "timezone");
    const char *start = cu_str(spec, "startTime");
    if (sched && strcmp(sched, "once") != 0) {
        pl_cron *c = pl_cron_parse(sched, err, sizeof err);
        if (!c)
            return pl_fail(field, flen, msg, mlen, "spec.schedule", "%s", err);
        pl_cron_free(c);
    }
    if (tz && strcmp(tz, "UTC") != 0) {
        pl_tz *z = pl_tz_load(tz, err, sizeof err);
        if (!z)
            return pl_fail(field, flen, msg, mlen, "spec.timezone", "%s", err);
        pl_tz_free(z);
    }
    if (start && pl_time_parse(start) < 0)
        return pl_fail(field, flen, msg, mlen, "spec.startTime",
                       "\"%s\" is not an ISO 8601 date or date-time", start);
    return 0;
}

int pl_pipeline_check(struct pl *p, const cJSON *obj, char *field, size_t flen, char *msg,
                      size_t mlen)
{
    const cJSON *spec = cJSON_GetObjectItemCaseSensitive(obj, "spec");
    const cJSON *tasks = cJSON_GetObjectItemCaseSensitive(spec, "tasks"), *t;
    const char *project = cu_meta(obj, "project");
    int n = cJSON_GetArraySize(tasks), i = 0;
    if (check_names(tasks, field, flen, msg, mlen) < 0)
        return -1;
    int *order = calloc((size_t)n + 1, sizeof *order);
    const char *cyclic = NULL;
    int rc = order ? pl_topo_order(tasks, order, n, &cyclic) : -1;
    free(order);
    if (rc < 0 && cyclic) {
        char f[96];
        snprintf(f, sizeof f, "spec.tasks[%d].upstream", task_index(tasks, cyclic));
        return pl_fail(field, flen, msg, mlen, f, "task \"%s\" is on a dependency cycle",
                       cyclic);
    }
    if (rc < 0)
        return pl_fail(field, flen, msg, mlen, "spec.tasks", "out of memory");
    cJSON_ArrayForEach(t, tasks)
        if (check_task(p, project, t, i++, field, flen, msg, mlen) < 0)
            return -1;
    return check_schedule(spec, field, flen, msg, mlen);
}
