/* ui_ext.h — console menu entries and pages registered by plugins
 * (cube_ui.h, ABI 1.4): the registry (ui_ext.c) and its HTTP side
 * (ui_http.c): GET /api/v1/ui/menu and the plugins' assets under
 * /ui/plugins/<plugin>/.
 *
 * Entries are added only while a plugin's init runs, which is before the
 * server answers any request; afterwards the list is read-only, so the
 * handlers read it without a lock. */
#ifndef CUBE_UI_EXT_H
#define CUBE_UI_EXT_H

#include <stddef.h>

#include <cube/cube.h>

struct cube_ctx;

/* One registered entry; every string is owned by the entry. */
struct cube_ui_entry {
    struct cube_plugin *plugin;
    char *id, *group, *label, *label_zh;
    int perm;                      /* CUBE_P_PUBLIC, CUBE_P_USER or CUBE_P_ADMIN */
    char *module;                  /* NULL: a plain link */
    char *asset_dir;               /* canonical absolute path; NULL without module */
    char *link;                    /* NULL when module is set */
    int order;
    char *route, *kind;            /* since 1.5; NULL when not given */
    struct cube_ui_entry *next;
};

/* Checks desc for plugin p and prepends a copy to *list. Relative asset
 * directories are resolved against the directory of p->file (its .so,
 * symlinks followed). Returns CUBE_OK, or CUBE_EINVAL / CUBE_EEXIST /
 * CUBE_ENOMEM with err saying "<field>: <what is wrong>". */
int cube_ui_add(struct cube_ui_entry **list, struct cube_plugin *p,
                const struct cube_ui_desc *desc, char *err, size_t errlen);
/* The asset directory of plugin `name` (the one its entries with a module
 * share), or NULL when it has none. Borrowed from the list. */
const char *cube_ui_asset_dir(const struct cube_ui_entry *list, const char *name);
/* Removes and frees the entries of plugin p (its init failed). */
void cube_ui_drop_plugin(struct cube_ui_entry **list, const struct cube_plugin *p);
/* Frees the whole list. */
void cube_ui_free(struct cube_ui_entry **list);
/* Registers GET /api/v1/ui/menu and GET /ui/plugins/{plugin}/{file*}
 * (ui_http.c). 0 or -1 with a logged reason. */
int cube_ui_routes_register(struct cube_ctx *ctx);

#endif
