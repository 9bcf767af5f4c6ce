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
 *
 * What a module may import (since 1.5): the console's runtime SDK, by the
 * bare specifiers "@cube/console-sdk" (the API client, i18n, navigation,
 * the signed-in user and project, the generic resource components and
 * definePage(), which renders a React component inside the console),
 * "react", "react/jsx-runtime", "react-dom", "react-dom/client" (React 18),
 * "antd" (Ant Design 5) and "echarts" (ECharts 5, load it with import()
 * where it is needed: it is large).
 * The console's import map resolves them to its own copies, so a page
 * leaves them out of its bundle and shares the console's React tree. The
 * SDK is versioned apart from this ABI (@cube/console-sdk 1.x; its
 * declaration file is installed with these headers, see the README
 * "Writing a console page"); its names keep working within a major. A
 * module may import nothing else from the console; everything else it
 * uses it brings itself, and files it loads relative to its own URL come
 * from asset_dir.
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

    /* since 1.5 */
    /** Console path pattern the page owns, with every path below it, e.g.
     *  "/p/:project/pipelines" (the page tells its views apart by the path,
     *  e.g. "/p/:project/pipelines/:name/runs/:run"). Segments are 1 to 63
     *  of [A-Za-z0-9._-], or ":name" for a parameter; ":project" is the
     *  current project. At most 128 bytes. Paths the console itself uses
     *  win over a plugin's. NULL: the page is at /x/<plugin>/<id>. Only
     *  with module. */
    const char *route;
    /** The kind (cube_kind_desc.kind) this page is the console page of:
     *  the kind's sidebar entry opens route, links to one of its objects
     *  open route + "/<name>" (instead of the generic kind pages), and the
     *  entry gets no sidebar item of its own. NULL: none. Only with
     *  route. */
    const char *kind;
};

#ifdef __cplusplus
}
#endif

#endif /* CUBE_UI_H */
