/*
 * cube_ui.h — console menu entries and pages from plugins (since ABI 1.4).
 *
 * Part of the Cube plugin ABI (append-only; see cube_plugin.h). Kinds get
 * generic list, detail and form pages in the console without any of this;
 * a plugin registers a cube_ui_desc when it wants a menu entry of its own,
 * and optionally a page of its own.
 *
 * A page is an ES module the plugin ships in its asset directory. The host
 * serves that directory at /ui/plugins/<plugin>/ (read-only, no listing,
 * no path escapes), and GET /api/v1/ui/menu tells the console which
 * entries the caller may see. When the user opens the entry, the console
 * loads the module with a dynamic import() and calls its export
 *
 *     export function mount(element, context) -> optional unmount function
 *
 * with `element` an empty <div> in the page's content area and `context`
 * {api(path, init) -> Promise<Response> (the console's authenticated
 * fetch), t(key) and lang ("en" | "zh"), navigate(path), user, project}.
 * The module brings its own code; it must not assume the console's
 * libraries are loaded.
 */
#ifndef CUBE_UI_H
#define CUBE_UI_H

#include "cube_plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One console menu entry, with or without a page; passed to
 *  cube_host.register_ui (since 1.4). Copied by the host. */
struct cube_ui_desc {
    /* since 1.4 */
    size_t size;          /**< sizeof(struct cube_ui_desc) */
    /** DNS label, unique within the plugin. The page's console route is
     *  /x/<plugin>/<id>. */
    const char *id;
    /** Menu group the entry sits under, e.g. "Training"; the same names
     *  kinds use in cube_kind_desc.group. */
    const char *group;
    const char *label;    /**< English label; required */
    const char *label_zh; /**< 中文 label; NULL: the English one */
    /** Who sees the entry: CUBE_PERM_PUBLIC, CUBE_PERM_USER or
     *  CUBE_PERM_ADMIN (cube_http.h). The plugin's routes still check
     *  their own permissions. */
    const char *permission;
    /** ES module file relative to asset_dir, e.g. "page.js". NULL: the
     *  entry is a plain link to `link`. */
    const char *module;
    /** Directory holding the module and whatever it loads: absolute, or
     *  relative to the directory of the plugin's .so. NULL: "ui". */
    const char *asset_dir;
    /** Console path the entry opens when there is no module, e.g.
     *  "/kinds/pipelines". Ignored when module is set. */
    const char *link;
    /** Position within the group, lowest first. */
    int order;
};

#ifdef __cplusplus
}
#endif

#endif /* CUBE_UI_H */
