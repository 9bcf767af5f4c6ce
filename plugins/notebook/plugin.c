/* plugin.c — the notebook plugin's entry: configuration, the Notebook kind
 * and its actions, the proxy prefixes and the culling timer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "notebook.h"
/* Embedded at build time from the .json files beside this one: */
#include "config_schema.h"            /* NB_CONFIG_SCHEMA: config.schema.json */
#include "notebook_spec_schema.h"     /* NB_SPEC_SCHEMA: notebook.spec.schema.json */
#include "notebook_status_schema.h"   /* NB_STATUS_SCHEMA: notebook.status.schema.json */
#include "notebook_columns.h"         /* NB_COLUMNS: notebook.columns.json */

static int register_kind(struct nb *nb)
{
    const struct cube_kind_desc d = {
        .size = sizeof d, .kind = NB_KIND, .plural = "notebooks", .scope = CUBE_SCOPE_PROJECT,
        .group = "Development", .display_name = "Notebook", .display_plural = "Notebooks",
        .display_name_zh = "Notebook", .display_plural_zh = "Notebook",
        .description = "A Jupyter or VS Code server in the browser, stopped when idle",
        .spec_schema = NB_SPEC_SCHEMA, .status_schema = NB_STATUS_SCHEMA,
        .printer_columns = NB_COLUMNS, .defaulting = nb_defaulting,
        .validate = nb_validate, .reconcile = nb_reconcile, .resync_seconds = 300};
    return nb->host->register_kind(nb->self, &d) == CUBE_OK ? 0 : -1;
}

/* The console page (ui/page.js beside the .so, from ui/src): the
 * Notebook kind's page at /p/:project/notebooks. Without it (a build
 * without the console) the API works on, so a refusal only warns. */
static void register_page(struct nb *nb)
{
    const struct cube_ui_desc page = {
        .size = sizeof page, .id = "notebooks", .group = "Development",
        .label = "Notebooks", .label_zh = "Notebook", .permission = CUBE_PERM_USER,
        .module = "page.js", .order = 10, .route = "/p/:project/notebooks",
        .kind = NB_KIND,
    };
    if (nb->host->register_ui(nb->self, &page) != CUBE_OK)
        nb->host->log(nb->self, CUBE_LOG_WARN, "console page not registered (see above)");
}

static void nb_free(struct nb *nb)
{
    nb_conf_free(&nb->conf);
    free(nb);
}

static int nb_init(const struct cube_host *host, cube_plugin *self, void **state)
{
    char msg[512];
    struct nb *nb = calloc(1, sizeof *nb);
    if (!nb) {
        host->set_error(self, "out of memory");
        return CUBE_ENOMEM;
    }
    nb->host = host;
    nb->self = self;
    *state = nb;
    if (nb_conf_load(nb, msg, sizeof msg) < 0) {
        host->set_error(self, "config: %s", msg);
        goto fail;
    }
    if (nb_table_init(&nb->table, host->data_dir(self), msg, sizeof msg) < 0) {
        host->set_error(self, "%s", msg);
        goto fail;
    }
    nb_table_load(&nb->table);
    if (register_kind(nb) < 0 || nb_register_actions(nb) < 0 || nb_register_proxy(nb) < 0) {
        host->set_error(self, "cannot register the Notebook kind, its actions or the proxy "
                        "(see above)");
        nb_table_fini(&nb->table);
        goto fail;
    }
    register_page(nb);
    nb->cull_timer = host->timer_add(self, (uint64_t)nb->conf.cull_interval_ms,
                                     (uint64_t)nb->conf.cull_interval_ms, nb_cull, NULL);
    host->log(self, CUBE_LOG_INFO, "Jupyter: %s; VS Code: %s; idle timeout %lld s",
              nb->jupyter, nb->conf.vscode_enabled ? "enabled" : "disabled",
              (long long)nb->conf.idle_timeout);
    return CUBE_OK;
fail:
    nb_free(nb);
    *state = NULL;
    return CUBE_EINVAL;
}

static void nb_fini(void *state)
{
    struct nb *nb = state;
    nb_table_fini(&nb->table);
    nb_free(nb);
}

CUBE_PLUGIN_DEFINE(notebook,
    .name = "notebook",
    .version = "1.0.0",
    .vendor = "Cube",
    .license = "Apache-2.0",
    .description = "Notebooks: Jupyter and VS Code servers as Jobs, proxied, culled when idle",
    .config_schema = NB_CONFIG_SCHEMA,
    .init = nb_init,
    .fini = nb_fini)
