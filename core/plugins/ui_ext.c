/* ui_ext.c — console menu entries and pages registered by plugins
 * (ABI 1.4): the register_ui slot and the registry behind it. Every
 * refusal names the descriptor field at fault. */
#include "ui_ext.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "auth/auth.h"
#include "ctx/ctx.h"
#include "host_slots.h"
#include "http/http_req.h"
#include "base/log.h"
#include "base/names.h"
#include "base/fs.h"

/* Longest group, label or link accepted, in bytes. */
#define UI_TEXT_MAX 128

/* A required (or optional, when NULL is fine) display string: non-empty,
 * at most UI_TEXT_MAX bytes, no control characters. */
static int check_text(const char *field, const char *v, int required, char *err,
                      size_t errlen)
{
    if (!v) {
        if (required)
            snprintf(err, errlen, "%s: required", field);
        return required ? -1 : 0;
    }
    size_t len = strlen(v);
    if (len == 0 || len > UI_TEXT_MAX) {
        snprintf(err, errlen, "%s: must be 1 to %d bytes, found %zu", field,
                 UI_TEXT_MAX, len);
        return -1;
    }
    for (const unsigned char *c = (const unsigned char *)v; *c; c++)
        if (*c < 0x20 || *c == 0x7f) {
            snprintf(err, errlen, "%s: contains a control character", field);
            return -1;
        }
    return 0;
}

static int check_module(const char *module, char *err, size_t errlen)
{
    const char *dot = strrchr(module, '.');
    if (!cube_http_safe_relative(module) || strlen(module) > PATH_MAX / 2) {
        snprintf(err, errlen, "module: '%s' must be a relative path without '..', "
                 "'.', empty or hidden segments", module);
        return -1;
    }
    if (!dot || (strcmp(dot, ".js") != 0 && strcmp(dot, ".mjs") != 0)) {
        snprintf(err, errlen, "module: '%s' must name a .js or .mjs file", module);
        return -1;
    }
    return 0;
}

/* A console route (since 1.5): "/seg/:param/...", no empty segment. */
static int check_route(const char *route, char *err, size_t errlen)
{
    if (check_text("route", route, 1, err, errlen) < 0)
        return -1;
    const char *p = route;
    while (*p == '/') {
        const char *seg = ++p;
        if (*p == ':')
            p++;
        while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
               (*p >= '0' && *p <= '9') || *p == '-' || *p == '_' || *p == '.')
            p++;
        size_t len = (size_t)(p - seg) - (*seg == ':');
        if (len == 0 || len > 63 || (*p && *p != '/')) {
            snprintf(err, errlen, "route: '%s' must be '/'-separated segments of "
                     "[A-Za-z0-9._-] or ':name' parameters", route);
            return -1;
        }
    }
    if (*p || route[0] != '/') {
        snprintf(err, errlen, "route: '%s' must start with '/'", route);
        return -1;
    }
    return 0;
}

/* route and kind (since 1.5): a route needs a module, a kind a route. */
static int check_page_route(const struct cube_ui_desc *d, char *err, size_t errlen)
{
    if (d->route && !d->module) {
        snprintf(err, errlen, "route: only for an entry with a module");
        return -1;
    }
    if (d->route && check_route(d->route, err, errlen) < 0)
        return -1;
    if (d->kind && !d->route) {
        snprintf(err, errlen, "kind: only for an entry with a route");
        return -1;
    }
    return d->kind ? check_text("kind", d->kind, 1, err, errlen) : 0;
}

/* The directory holding the plugin's .so (symlinks followed), malloc'd. */
static char *plugin_file_dir(const struct cube_plugin *p)
{
    char *real = realpath(p->file, NULL);
    char *path = real ? real : strdup(p->file);
    if (!path)
        return NULL;
    char *slash = strrchr(path, '/');
    if (!slash) {
        free(path);
        return strdup(".");
    }
    slash[slash == path ? 1 : 0] = '\0';
    return path;
}

/* Resolves asset_dir (absolute, or relative to the .so's directory) to a
 * canonical existing directory holding a readable module file. */
static char *resolve_assets(const struct cube_plugin *p, const char *dir,
                            const char *module, char *err, size_t errlen)
{
    char *joined = NULL, *canon = NULL, *file = NULL;
    if (dir[0] == '/') {
        joined = strdup(dir);
    } else if (p->file) {
        char *base = plugin_file_dir(p);
        joined = base ? cube_path_join(base, dir) : NULL;
        free(base);
    } else {
        snprintf(err, errlen, "asset_dir: '%s' is relative, but the plugin has no "
                 "file to be relative to; give an absolute path", dir);
        return NULL;
    }
    struct stat st;
    if (!joined) {
        snprintf(err, errlen, "out of memory");
    } else if (!(canon = realpath(joined, NULL)) || stat(canon, &st) < 0 ||
               !S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "asset_dir: %s: %s", joined,
                 canon ? "not a directory" : strerror(errno));
    } else if (!(file = cube_path_join(canon, module)) || access(file, R_OK) < 0 ||
               stat(file, &st) < 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "module: %s is not a readable file", file ? file : module);
    } else {
        free(joined);
        free(file);
        return canon;
    }
    free(joined);
    free(canon);
    free(file);
    return NULL;
}

static void entry_free(struct cube_ui_entry *e)
{
    if (!e)
        return;
    free(e->id);
    free(e->group);
    free(e->label);
    free(e->label_zh);
    free(e->module);
    free(e->asset_dir);
    free(e->link);
    free(e->route);
    free(e->kind);
    free(e);
}

/* Checks the fields that need no file system or registry. */
static int check_fields(const struct cube_ui_desc *d, int *perm, char *err,
                        size_t errlen)
{
    char why[160];
    if (!d->id || cube_name_check(d->id, why, sizeof why) < 0) {
        snprintf(err, errlen, "id: %s", d->id ? why : "required, a DNS label");
        return -1;
    }
    if (check_text("group", d->group, 1, err, errlen) < 0 ||
        check_text("label", d->label, 1, err, errlen) < 0 ||
        check_text("label_zh", d->label_zh, 0, err, errlen) < 0)
        return -1;
    *perm = cube_perm_parse(d->permission, 0);
    if (*perm != CUBE_P_PUBLIC && *perm != CUBE_P_USER && *perm != CUBE_P_ADMIN) {
        snprintf(err, errlen, "permission: '%s' is not one of \"public\", \"user\", "
                 "\"admin\"", d->permission ? d->permission : "(null)");
        return -1;
    }
    if (check_page_route(d, err, errlen) < 0)
        return -1;
    if (d->module)
        return check_module(d->module, err, errlen);
    if (!d->link) {
        snprintf(err, errlen, "link: required when module is NULL");
        return -1;
    }
    if (check_text("link", d->link, 1, err, errlen) < 0)
        return -1;
    if (d->link[0] != '/' || d->link[1] == '/' || strchr(d->link, '\\')) {
        snprintf(err, errlen, "link: '%s' must be a console path starting with one '/'",
                 d->link);
        return -1;
    }
    return 0;
}

/* The asset directory the plugin's earlier entries chose, if any. */
static const char *plugin_assets(const struct cube_ui_entry *list,
                                 const struct cube_plugin *p)
{
    for (; list; list = list->next)
        if (list->plugin == p && list->asset_dir)
            return list->asset_dir;
    return NULL;
}

static int check_unique(const struct cube_ui_entry *list, const struct cube_plugin *p,
                        const char *id, char *err, size_t errlen)
{
    for (; list; list = list->next)
        if (list->plugin == p && strcmp(list->id, id) == 0) {
            snprintf(err, errlen, "id: '%s' is already registered by this plugin", id);
            return -1;
        }
    return 0;
}

static struct cube_ui_entry *entry_copy(const struct cube_ui_desc *d)
{
    struct cube_ui_entry *e = calloc(1, sizeof *e);
    if (!e)
        return NULL;
    e->id = strdup(d->id);
    e->group = strdup(d->group);
    e->label = strdup(d->label);
    e->label_zh = d->label_zh ? strdup(d->label_zh) : NULL;
    e->module = d->module ? strdup(d->module) : NULL;
    e->link = d->module ? NULL : strdup(d->link);
    e->order = d->order;
    e->route = d->route ? strdup(d->route) : NULL;
    e->kind = d->kind ? strdup(d->kind) : NULL;
    if (!e->id || !e->group || !e->label || (d->label_zh && !e->label_zh) ||
        (d->module && !e->module) || (!d->module && !e->link) ||
        (d->route && !e->route) || (d->kind && !e->kind)) {
        entry_free(e);
        return NULL;
    }
    return e;
}

int cube_ui_add(struct cube_ui_entry **list, struct cube_plugin *p,
                const struct cube_ui_desc *in, char *err, size_t errlen)
{
    struct cube_ui_desc d = {0};
    size_t min = offsetof(struct cube_ui_desc, order) + sizeof d.order;
    if (!in || in->size < min) {
        snprintf(err, errlen, "size: %zu is smaller than ABI 1.4's %zu",
                 in ? in->size : 0, min);
        return CUBE_EINVAL;
    }
    memcpy(&d, in, in->size < sizeof d ? in->size : sizeof d);
    int perm;
    if (check_fields(&d, &perm, err, errlen) < 0)
        return CUBE_EINVAL;
    if (check_unique(*list, p, d.id, err, errlen) < 0)
        return CUBE_EEXIST;
    char *assets = NULL;
    if (d.module) {
        assets = resolve_assets(p, d.asset_dir ? d.asset_dir : "ui", d.module, err, errlen);
        if (!assets)
            return CUBE_EINVAL;
        const char *earlier = plugin_assets(*list, p);
        if (earlier && strcmp(earlier, assets) != 0) {
            snprintf(err, errlen, "asset_dir: %s differs from %s, which an earlier "
                     "entry of this plugin chose (one directory per plugin)",
                     assets, earlier);
            free(assets);
            return CUBE_EINVAL;
        }
    }
    struct cube_ui_entry *e = entry_copy(&d);
    if (!e) {
        free(assets);
        snprintf(err, errlen, "out of memory");
        return CUBE_ENOMEM;
    }
    e->plugin = p;
    e->perm = perm;
    e->asset_dir = assets;
    e->next = *list;
    *list = e;
    return CUBE_OK;
}

const char *cube_ui_asset_dir(const struct cube_ui_entry *list, const char *name)
{
    for (; list; list = list->next)
        if (list->asset_dir && strcmp(list->plugin->name, name) == 0)
            return list->asset_dir;
    return NULL;
}

void cube_ui_drop_plugin(struct cube_ui_entry **list, const struct cube_plugin *p)
{
    while (*list) {
        struct cube_ui_entry *e = *list;
        if (e->plugin == p) {
            *list = e->next;
            entry_free(e);
        } else {
            list = &e->next;
        }
    }
}

void cube_ui_free(struct cube_ui_entry **list)
{
    while (*list) {
        struct cube_ui_entry *e = *list;
        *list = e->next;
        entry_free(e);
    }
}

int cube_slot_register_ui(cube_plugin *self, const struct cube_ui_desc *desc)
{
    char err[PATH_MAX + 256];
    if (!self->in_init) {
        cube_log(CUBE_LOG_ERROR, self->log_component,
                 "register_ui: only allowed during init");
        return CUBE_ESTATE;
    }
    int rc = cube_ui_add(&self->ctx->ui, self, desc, err, sizeof err);
    if (rc != CUBE_OK)
        cube_log(CUBE_LOG_ERROR, self->log_component, "register_ui: %s", err);
    return rc;
}
