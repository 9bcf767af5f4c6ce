/* ui_http.c — the HTTP side of plugins' console entries: the menu the
 * caller may see, and each plugin's asset directory served read-only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth/auth.h"
#include "ctx/ctx.h"
#include "http/http_req.h"
#include "ui_ext.h"

static int visible(const struct cube_ui_entry *e, int admin)
{
    return e->perm != CUBE_P_ADMIN || admin;
}

/* Menu order: group, then order, then plugin and id (stable output). */
static int entry_cmp(const void *a, const void *b)
{
    const struct cube_ui_entry *x = *(const struct cube_ui_entry *const *)a;
    const struct cube_ui_entry *y = *(const struct cube_ui_entry *const *)b;
    int c = strcmp(x->group, y->group);
    if (c)
        return c;
    if (x->order != y->order)
        return x->order < y->order ? -1 : 1;
    c = strcmp(x->plugin->name, y->plugin->name);
    return c ? c : strcmp(x->id, y->id);
}

static cJSON *entry_json(const struct cube_ui_entry *e)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "plugin", e->plugin->name);
    cJSON_AddStringToObject(o, "id", e->id);
    cJSON_AddStringToObject(o, "group", e->group);
    cJSON_AddStringToObject(o, "label", e->label);
    cJSON_AddStringToObject(o, "label_zh", e->label_zh ? e->label_zh : e->label);
    cJSON_AddNumberToObject(o, "order", e->order);
    if (!e->module) {
        cJSON_AddStringToObject(o, "path", e->link);
        return o;
    }
    char *path = NULL, *url = NULL;
    if (e->route) {
        cJSON_AddStringToObject(o, "path", e->route);
        cJSON_AddStringToObject(o, "route", e->route);
        if (e->kind)
            cJSON_AddStringToObject(o, "kind", e->kind);
    } else if (asprintf(&path, "/x/%s/%s", e->plugin->name, e->id) >= 0) {
        cJSON_AddStringToObject(o, "path", path);
    }
    if (asprintf(&url, "/ui/plugins/%s/%s", e->plugin->name, e->module) >= 0)
        cJSON_AddStringToObject(o, "module_url", url);
    free(path);
    free(url);
    return o;
}

/* GET /api/v1/ui/menu: {"items":[...]} in menu order; admin-only entries
 * only for administrators. */
static int ui_menu(void *state, cube_req *req)
{
    struct cube_ctx *ctx = state;
    int admin = cube_auth_who(req)->admin;
    size_t n = 0;
    for (const struct cube_ui_entry *e = ctx->ui; e; e = e->next)
        n += (size_t)visible(e, admin);
    const struct cube_ui_entry **v = calloc(n ? n : 1, sizeof *v);
    if (!v)
        return CUBE_ENOMEM;
    n = 0;
    for (const struct cube_ui_entry *e = ctx->ui; e; e = e->next)
        if (visible(e, admin))
            v[n++] = e;
    qsort(v, n, sizeof *v, entry_cmp);
    cJSON *root = cJSON_CreateObject();
    cJSON *items = cJSON_AddArrayToObject(root, "items");
    for (size_t i = 0; i < n; i++)
        cJSON_AddItemToArray(items, entry_json(v[i]));
    free(v);
    char *text = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    if (!text)
        return CUBE_ENOMEM;
    int rc = cube_http_answer(req, 200, "application/json", text, strlen(text), 1);
    free(text);
    return rc;
}

/* GET /ui/plugins/{plugin}/{file*}: a file of the plugin's asset
 * directory; no listing, nothing outside it. */
static int ui_asset(void *state, cube_req *req)
{
    struct cube_ctx *ctx = state;
    const char *plugin = cube_route_match_param(&req->match, "plugin");
    const char *file = cube_route_match_param(&req->match, "file");
    const char *dir = plugin ? cube_ui_asset_dir(ctx->ui, plugin) : NULL;
    if (!dir)
        return cube_http_answer_error(req, 404, "NotFound",
                                      "no console assets for this plugin");
    if (!file || !cube_http_safe_relative(file))
        return cube_http_answer_error_field(req, 400, "BadRequest",
                                            "a relative path without '..', '.', empty "
                                            "or hidden segments", "file");
    int rc = cube_http_send_file(req, dir, file, 0);
    if (rc < 0)
        return CUBE_ENOMEM;
    if (rc == 0)
        return cube_http_answer_error(req, 404, "NotFound", "no such file");
    return CUBE_OK;
}

int cube_ui_routes_register(struct cube_ctx *ctx)
{
    /* Assets are public, like the console's own bundle in web_root: they
     * are code shipped with the plugin, not data, and a module must load
     * before the console knows whether the session is still valid. What
     * the page shows comes from API routes that check their own
     * permissions, and the menu (user) tells who may see which entry. */
    const struct cube_route_desc routes[] = {
        {sizeof routes[0], "GET", "/api/v1/ui/menu", CUBE_PERM_USER, ui_menu,
         "Console menu entries of plugins that the caller may see", 0, 0, NULL},
        {sizeof routes[0], "GET", "/ui/plugins/{plugin}/{file*}", CUBE_PERM_PUBLIC,
         ui_asset, "A file of a plugin's console assets (ES modules and what they load)", 0, 0, NULL},
    };
    return cube_ctx_add_core_routes(ctx, routes, sizeof routes / sizeof routes[0], "ui");
}
