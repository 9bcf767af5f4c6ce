/* ui_ext.c — console menu entries and pages registered by plugins (ABI 1.4).
 * Placeholder registration until the menu lands: refuses every entry. */
#include "host_priv.h"

static int register_ui(cube_plugin *self, const struct cube_ui_desc *desc)
{
    (void)self;
    (void)desc;
    return CUBE_EINVAL;
}

void cube_host_table_init_1_4_ui(struct cube_host *h)
{
    h->register_ui = register_ui;
}
