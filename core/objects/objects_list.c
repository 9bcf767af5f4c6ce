/* objects_list.c — list pages: keyset paging by (project, name) behind an
 * opaque continue token, label selectors applied while reading. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctx/ctx.h"
#include "kinds.h"
#include "objects.h"
#include "selector.h"
#include "store/store.h"
#include "watch.h"

#define DEFAULT_LIMIT 500
#define MAX_LIMIT 5000

/* The token is "<project>\n<name>" hex-encoded: opaque to clients, and
 * validated on the way back in. */
static char *encode_token(const char *project, const char *name)
{
    size_t lp = strlen(project), ln = strlen(name);
    char *out = malloc(2 * (lp + ln + 1) + 1);
    if (!out)
        return NULL;
    char *p = out;
    for (const char *s = project; *s; s++)
        p += sprintf(p, "%02x", (unsigned char)*s);
    p += sprintf(p, "0a");
    for (const char *s = name; *s; s++)
        p += sprintf(p, "%02x", (unsigned char)*s);
    return out;
}

static int decode_token(const char *tok, char *project, char *name, size_t len)
{
    size_t n = strlen(tok);
    char raw[600];
    if (n % 2 || n / 2 >= sizeof raw)
        return -1;
    for (size_t i = 0; i < n / 2; i++) {
        unsigned v;
        if (sscanf(tok + 2 * i, "%2x", &v) != 1 || v == 0)
            return -1;
        raw[i] = (char)v;
    }
    raw[n / 2] = '\0';
    char *nl = strchr(raw, '\n');
    if (!nl || strlen(nl + 1) >= len || (size_t)(nl - raw) >= len)
        return -1;
    *nl = '\0';
    memcpy(project, raw, strlen(raw) + 1);      /* lengths checked above */
    memcpy(name, nl + 1, strlen(nl + 1) + 1);
    return 0;
}

struct page {
    const struct cube_selector *sel;
    cJSON *items;
    size_t want, got;
    char last_project[256], last_name[256];     /* last row read */
    char ret_project[256], ret_name[256];       /* last row returned */
    int more;       /* a matching row exists beyond the page */
    int scanned;    /* rows read in this batch */
    int bad;
};

static int take_row(void *cls, const struct cube_store_obj *o)
{
    struct page *pg = cls;
    pg->scanned++;
    snprintf(pg->last_project, sizeof pg->last_project, "%s", o->project);
    snprintf(pg->last_name, sizeof pg->last_name, "%s", o->name);
    cJSON *obj = cJSON_Parse(o->doc);
    if (!obj) {
        pg->bad = 1;
        return 1;
    }
    const cJSON *labels = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(obj, "metadata"), "labels");
    if (pg->sel && !cube_selector_match(pg->sel, labels)) {
        cJSON_Delete(obj);
        return 0;
    }
    if (pg->got == pg->want) {
        pg->more = 1;
        cJSON_Delete(obj);
        return 1;
    }
    cJSON_AddItemToArray(pg->items, obj);
    pg->got++;
    snprintf(pg->ret_project, sizeof pg->ret_project, "%s", o->project);
    snprintf(pg->ret_name, sizeof pg->ret_name, "%s", o->name);
    return 0;
}

static cJSON *list_doc(const struct cube_kind *k, cJSON *items, int64_t rv,
                       const char *cont)
{
    char kind[96], rvs[24];
    snprintf(kind, sizeof kind, "%sList", k->kind);
    snprintf(rvs, sizeof rvs, "%" PRId64, rv);
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "apiVersion", "cube/v1");
    cJSON_AddStringToObject(doc, "kind", kind);
    cJSON_AddItemToObject(doc, "items", items);
    cJSON *meta = cJSON_AddObjectToObject(doc, "metadata");
    cJSON_AddStringToObject(meta, "resourceVersion", rvs);
    if (cont)
        cJSON_AddStringToObject(meta, "continue", cont);
    return doc;
}

int cube_obj_list(struct cube_ctx *ctx, const struct cube_kind *k,
                  const char *project, const struct cube_selector *sel,
                  size_t limit, const char *cont, cJSON **out,
                  struct cube_op_error *e)
{
    struct page pg = {.sel = sel, .want = limit ? limit : DEFAULT_LIMIT};
    char ap[256] = "", an[256] = "";
    if (pg.want > MAX_LIMIT) {
        cube_op_fail(e, 400, "BadRequest", "limit", "limit: at most %d", MAX_LIMIT);
        return -1;
    }
    if (cont && *cont && decode_token(cont, ap, an, sizeof ap) < 0) {
        cube_op_fail(e, 400, "BadRequest", "continue", "continue: not a token this server issued");
        return -1;
    }
    /* Taken before reading: a watch from it may repeat a change the list
     * already shows, but never misses one. */
    int64_t rv = cube_hub_current(ctx->hub);
    pg.items = cJSON_CreateArray();
    /* Cluster kinds live under project ""; NULL lists every project. */
    const char *scope = k->scope == CUBE_SCOPE_CLUSTER ? "" : project;
    int have_cursor = cont && *cont;
    for (;;) {
        size_t batch = pg.want - pg.got + 1;
        pg.scanned = 0;
        int rc = cube_store_list(ctx->store, k->kind, scope,
                                 have_cursor ? ap : NULL, have_cursor ? an : NULL,
                                 batch, take_row, &pg);
        if (rc != CUBE_OK || pg.bad) {
            cJSON_Delete(pg.items);
            cube_op_store_fail(e, rc == CUBE_OK ? CUBE_EIO : rc, k->plural);
            return -1;
        }
        if (pg.more || (size_t)pg.scanned < batch)
            break;
        snprintf(ap, sizeof ap, "%s", pg.last_project);
        snprintf(an, sizeof an, "%s", pg.last_name);
        have_cursor = 1;
    }
    char *token = pg.more ? encode_token(pg.ret_project, pg.ret_name) : NULL;
    *out = list_doc(k, pg.items, rv, token);
    free(token);
    return 0;
}
