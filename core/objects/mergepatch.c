/* mergepatch.c — see mergepatch.h. The result starts as a copy of the
 * target and the patch is applied to it in place. Objects with duplicate
 * keys are read the way cJSON looks members up: the first member of a name
 * counts. A patched name keeps only that first member; null deletes all. */
#include "mergepatch.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 64

/* Whether no container nests more than `levels` deep under n (n itself
 * counts as one level when it is an array or object). */
static bool depth_ok(const cJSON *n, int levels)
{
    if (!cJSON_IsArray(n) && !cJSON_IsObject(n))
        return true;
    if (levels <= 0)
        return false;
    for (const cJSON *c = n->child; c; c = c->next)
        if (!depth_ok(c, levels - 1))
            return false;
    return true;
}

static void delete_all(cJSON *obj, const char *key)
{
    cJSON *m;
    while ((m = cJSON_GetObjectItemCaseSensitive(obj, key)) != NULL)
        cJSON_Delete(cJSON_DetachItemViaPointer(obj, m));
}

/* Deletes the members after `keep` that share its name. */
static void delete_later(cJSON *obj, cJSON *keep)
{
    cJSON *m = keep->next;
    while (m) {
        cJSON *next = m->next;
        if (m->string && strcmp(m->string, keep->string) == 0)
            cJSON_Delete(cJSON_DetachItemViaPointer(obj, m));
        m = next;
    }
}

static int merge_object(cJSON *obj, const cJSON *patch, int depth);

/* A fresh value for a name the target lacks or holds as a non-object. */
static cJSON *fresh_value(const cJSON *pm, int depth)
{
    if (!cJSON_IsObject(pm))
        return cJSON_Duplicate(pm, 1);
    cJSON *v = cJSON_CreateObject();
    if (v && merge_object(v, pm, depth + 1)) {
        cJSON_Delete(v);
        return NULL;
    }
    return v;
}

/* obj[pm->string] = MergePatch(obj[pm->string], pm). */
static int set_member(cJSON *obj, const cJSON *pm, int depth)
{
    cJSON *cur = cJSON_GetObjectItemCaseSensitive(obj, pm->string);
    if (cJSON_IsObject(cur) && cJSON_IsObject(pm)) {
        delete_later(obj, cur);
        return merge_object(cur, pm, depth + 1);
    }
    cJSON *v = fresh_value(pm, depth);
    if (!v)
        return -1;
    bool ok = cur ? cJSON_ReplaceItemInObjectCaseSensitive(obj, pm->string, v)
                  : cJSON_AddItemToObject(obj, pm->string, v);
    if (!ok) {
        cJSON_Delete(v);
        return -1;
    }
    delete_later(obj, v);
    return 0;
}

/* Applies an object patch to obj in place; depth counts obj's level. */
static int merge_object(cJSON *obj, const cJSON *patch, int depth)
{
    if (depth > MAX_DEPTH)
        return -1;
    for (const cJSON *pm = patch->child; pm; pm = pm->next) {
        if (!pm->string)
            continue;
        if (cJSON_IsNull(pm))
            delete_all(obj, pm->string);
        else if (set_member(obj, pm, depth))
            return -1;
    }
    return 0;
}

/* A new tree: target with patch applied; NULL on OOM or deep nesting. */
cJSON *cube_merge_patch(const cJSON *target, const cJSON *patch)
{
    if (!depth_ok(target, MAX_DEPTH) || !depth_ok(patch, MAX_DEPTH))
        return NULL;
    if (!patch)
        return target ? cJSON_Duplicate(target, 1) : NULL;
    if (!cJSON_IsObject(patch))
        return cJSON_Duplicate(patch, 1);
    cJSON *out = cJSON_IsObject(target) ? cJSON_Duplicate(target, 1)
                                        : cJSON_CreateObject();
    if (out && merge_object(out, patch, 1)) {
        cJSON_Delete(out);
        return NULL;
    }
    return out;
}

/* ---- equality ------------------------------------------------------------ */

static bool equal_at(const cJSON *a, const cJSON *b, int depth);

/* Whether m is the first member of obj with its name. */
static bool is_first(const cJSON *obj, const cJSON *m)
{
    return cJSON_GetObjectItemCaseSensitive(obj, m->string) == m;
}

/* Whether every name in a is in b with an equal (first) value. */
static bool object_covers(const cJSON *a, const cJSON *b, int depth)
{
    for (const cJSON *m = a->child; m; m = m->next) {
        if (!m->string || !is_first(a, m))
            continue;
        const cJSON *o = cJSON_GetObjectItemCaseSensitive(b, m->string);
        if (!o || !equal_at(m, o, depth + 1))
            return false;
    }
    return true;
}

/* Whether every name in b is also in a (values are compared already). */
static bool names_covered(const cJSON *b, const cJSON *a)
{
    for (const cJSON *m = b->child; m; m = m->next)
        if (m->string && !cJSON_GetObjectItemCaseSensitive(a, m->string))
            return false;
    return true;
}

static bool arrays_equal(const cJSON *a, const cJSON *b, int depth)
{
    const cJSON *x = a->child, *y = b->child;
    for (; x && y; x = x->next, y = y->next)
        if (!equal_at(x, y, depth + 1))
            return false;
    return !x && !y;
}

static bool strings_equal(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

/* Large objects (a run's status.tasks has thousands of members) are
 * compared through their members sorted by name, first ones only: n log n
 * instead of the n^2 lookups of object_covers. */
#define LARGE_OBJECT 16

struct member {
    const char *name;
    size_t pos;
    const cJSON *v;
};

static int member_cmp(const void *x, const void *y)
{
    const struct member *a = x, *b = y;
    int c = strcmp(a->name, b->name);
    return c ? c : a->pos < b->pos ? -1 : a->pos > b->pos;
}

/* The first member of each name, sorted by name, into m (n members). */
static size_t sorted_firsts(const cJSON *obj, struct member *m)
{
    size_t n = 0, kept = 0;
    for (const cJSON *c = obj->child; c; c = c->next)
        if (c->string)
            m[n] = (struct member){c->string, n, c}, n++;
    qsort(m, n, sizeof *m, member_cmp);
    for (size_t i = 0; i < n; i++)
        if (!kept || strcmp(m[kept - 1].name, m[i].name) != 0)
            m[kept++] = m[i];
    return kept;
}

static size_t count_members(const cJSON *obj)
{
    size_t n = 0;
    for (const cJSON *c = obj->child; c; c = c->next)
        n++;
    return n;
}

/* 1 equal, 0 not, -1 small objects (or out of memory): the caller's way. */
static int large_objects_equal(const cJSON *a, const cJSON *b, int depth)
{
    size_t na = count_members(a), nb = count_members(b);
    if (na < LARGE_OBJECT && nb < LARGE_OBJECT)
        return -1;
    struct member *ma = malloc((na + 1) * sizeof *ma), *mb = malloc((nb + 1) * sizeof *mb);
    int eq = -1;
    if (ma && mb) {
        na = sorted_firsts(a, ma);
        nb = sorted_firsts(b, mb);
        eq = na == nb;
        for (size_t i = 0; eq && i < na; i++)
            eq = !strcmp(ma[i].name, mb[i].name) && equal_at(ma[i].v, mb[i].v, depth + 1);
    }
    free(ma);
    free(mb);
    return eq;
}

static bool equal_at(const cJSON *a, const cJSON *b, int depth)
{
    if (a == b)
        return true;
    if (!a || !b || (a->type & 0xff) != (b->type & 0xff))
        return false;
    if (cJSON_IsNumber(a))
        return a->valuedouble == b->valuedouble;
    if (cJSON_IsString(a) || cJSON_IsRaw(a))
        return strings_equal(a->valuestring, b->valuestring);
    if (!cJSON_IsArray(a) && !cJSON_IsObject(a))
        return true;
    if (depth >= MAX_DEPTH)
        return false;
    if (cJSON_IsArray(a))
        return arrays_equal(a, b, depth);
    int big = large_objects_equal(a, b, depth);
    if (big >= 0)
        return big;
    return object_covers(a, b, depth) && names_covered(b, a);
}

/* 1 when a and b are the same JSON (up to 64 levels deep); else 0. */
int cube_json_equal(const cJSON *a, const cJSON *b)
{
    return equal_at(a, b, 0);
}
