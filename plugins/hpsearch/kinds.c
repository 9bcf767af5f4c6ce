/* kinds.c — the Experiment kind: its schema and columns (the .json files
 * beside this one, embedded at build time), its semantic check (spec.c)
 * and its controller (controller.c). */
#include "hpsearch.h"
#include "experiment_spec_schema.h"   /* EXPERIMENT_SPEC */
#include "experiment_columns.h"       /* EXPERIMENT_COLUMNS */

int hs_kinds_register(struct hs *p)
{
    const struct cube_kind_desc kind = {
        .size = sizeof kind, .kind = "Experiment", .plural = "experiments",
        .scope = CUBE_SCOPE_PROJECT, .group = "Training",
        .description = "A hyper-parameter search: trials (Jobs) drawn by a tuner from a search "
                       "space (NNI's format), stopped early by an assessor",
        .spec_schema = EXPERIMENT_SPEC, .printer_columns = EXPERIMENT_COLUMNS,
        .check = hs_spec_check, .reconcile = hs_reconcile, .resync_seconds = 60,
        .display_name = "Experiment", .display_plural = "Experiments",
        .display_name_zh = "超参搜索", .display_plural_zh = "超参搜索", .group_zh = "训练",
    };
    if (p->host->register_kind(p->self, &kind) != CUBE_OK) {
        p->host->set_error(p->self, "cannot register kind Experiment (see the log)");
        return -1;
    }
    return 0;
}
