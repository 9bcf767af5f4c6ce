/* kinds.c — the Model kind: its schemas and columns (the .json files
 * beside this one, embedded at build time), defaulting and check
 * (spec.c), controller and finalizer (controller.c). */
#include "models.h"
#include "model_spec_schema.h"     /* MODEL_SPEC */
#include "model_status_schema.h"   /* MODEL_STATUS */
#include "model_columns.h"         /* MODEL_COLUMNS */

int mdl_kinds_register(struct mdl *p)
{
    const struct cube_kind_desc kind = {
        .size = sizeof kind, .kind = MDL_KIND, .plural = "models", .singular = "model",
        .scope = CUBE_SCOPE_PROJECT, .group = "Serving", .display_name = "Model",
        .display_plural = "Models", .display_name_zh = "模型", .display_plural_zh = "模型管理",
        .description = "One registered version of a model family: its files (hashed), "
                       "framework, metrics, lineage and stage",
        .spec_schema = MODEL_SPEC, .status_schema = MODEL_STATUS,
        .printer_columns = MODEL_COLUMNS, .defaulting = mdl_defaulting,
        .reconcile = mdl_reconcile, .finalize = mdl_finalize, .resync_seconds = 0,
        .check = mdl_check,
    };
    if (p->host->register_kind(p->self, &kind) != CUBE_OK) {
        p->host->set_error(p->self, "cannot register kind Model (see the log)");
        return -1;
    }
    return 0;
}
