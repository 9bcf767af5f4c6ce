/* version.c — version numbers within a model family. The store knows no
 * uniqueness but names', so the plugin keeps what it handed out: a number
 * picked by defaulting (or named by a writer) is held for the object from
 * the check until the object is stored and listed (or for RESV_SECONDS
 * when the write failed), and a second object asking for it is refused
 * (409). Holding and listing happen under p->mu, so two creates that race
 * never get the same number. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models.h"

#define RESV_SECONDS 30.0

static void drop_expired(struct mdl *p)
{
    double now = mdl_clock();
    int j = 0;
    for (int i = 0; i < p->n_resv; i++)
        if (p->resv[i].until > now)
            p->resv[j++] = p->resv[i];
    p->n_resv = j;
}

static struct mdl_resv *find_resv(struct mdl *p, const char *project, const char *object)
{
    for (int i = 0; i < p->n_resv; i++)
        if (!strcmp(p->resv[i].project, project) && !strcmp(p->resv[i].object, object))
            return &p->resv[i];
    return NULL;
}

/* Holds version for object (replacing what it held). 0, or -1 (memory). */
static int hold(struct mdl *p, const char *project, const char *family, const char *object,
                int64_t version)
{
    struct mdl_resv *r = find_resv(p, project, object);
    if (!r) {
        if (p->n_resv == p->cap_resv) {
            int cap = p->cap_resv ? p->cap_resv * 2 : 16;
            struct mdl_resv *n = realloc(p->resv, (size_t)cap * sizeof *n);
            if (!n)
                return -1;
            p->resv = n;
            p->cap_resv = cap;
        }
        r = &p->resv[p->n_resv++];
    }
    snprintf(r->project, sizeof r->project, "%s", project);
    snprintf(r->family, sizeof r->family, "%s", family);
    snprintf(r->object, sizeof r->object, "%s", object);
    r->version = version;
    r->until = mdl_clock() + RESV_SECONDS;
    return 0;
}

/* The family's stored objects (a list's items; caller frees), or NULL. */
static cJSON *family_items(struct mdl *p, const char *project, const char *family)
{
    char sel[128];
    int rc;
    snprintf(sel, sizeof sel, MDL_LABEL "=%s", family);
    cJSON *list = cu_json_take(p->host, p->host->obj_list(p->self, MDL_KIND, project, sel, &rc));
    cJSON *items = list ? cJSON_DetachItemFromObjectCaseSensitive(list, "items") : NULL;
    cJSON_Delete(list);
    return cJSON_IsArray(items) ? items : (cJSON_Delete(items), NULL);
}

static int64_t version_of(const cJSON *obj)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(obj, "spec"), "version");
    return cJSON_IsNumber(v) ? (int64_t)v->valuedouble : 0;
}

int64_t mdl_version_next(struct mdl *p, const char *project, const char *family,
                         const char *object)
{
    pthread_mutex_lock(&p->mu);
    cJSON *items = family_items(p, project, family);
    int64_t max = 0;
    if (!items) {
        pthread_mutex_unlock(&p->mu);
        return -1;
    }
    const cJSON *it;
    cJSON_ArrayForEach(it, items) {
        const char *n = cu_meta(it, "name");
        int64_t v = version_of(it);
        if (n && strcmp(n, object) && v > max)
            max = v;
    }
    cJSON_Delete(items);
    drop_expired(p);
    for (int i = 0; i < p->n_resv; i++) {
        const struct mdl_resv *r = &p->resv[i];
        if (!strcmp(r->project, project) && !strcmp(r->family, family) &&
            strcmp(r->object, object) && r->version > max)
            max = r->version;
    }
    int64_t next = max + 1;
    if (hold(p, project, family, object, next) < 0)
        next = -1;
    pthread_mutex_unlock(&p->mu);
    return next;
}

int mdl_version_claim(struct mdl *p, const char *project, const char *family,
                      const char *object, int64_t version, char *who, size_t len)
{
    *who = 0;
    pthread_mutex_lock(&p->mu);
    cJSON *items = family_items(p, project, family);
    if (!items) {
        pthread_mutex_unlock(&p->mu);
        return -1;
    }
    const cJSON *it;
    cJSON_ArrayForEach(it, items) {
        const char *n = cu_meta(it, "name");
        if (n && strcmp(n, object) && version_of(it) == version) {
            snprintf(who, len, "%s", n);
            break;
        }
    }
    cJSON_Delete(items);
    drop_expired(p);
    for (int i = 0; !*who && i < p->n_resv; i++) {
        const struct mdl_resv *r = &p->resv[i];
        if (!strcmp(r->project, project) && !strcmp(r->family, family) &&
            strcmp(r->object, object) && r->version == version)
            snprintf(who, len, "%s", r->object);
    }
    int rc = *who || hold(p, project, family, object, version) == 0 ? 0 : -1;
    pthread_mutex_unlock(&p->mu);
    return rc;
}

void mdl_version_forget(struct mdl *p, const char *project, const char *object)
{
    pthread_mutex_lock(&p->mu);
    struct mdl_resv *r = find_resv(p, project, object);
    if (r)
        *r = p->resv[--p->n_resv];
    pthread_mutex_unlock(&p->mu);
}
