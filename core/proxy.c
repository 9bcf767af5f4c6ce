/* proxy.c — reverse-proxied prefixes registered by plugins (ABI 1.4).
 * Placeholder registration until the relay lands: refuses every prefix. */
#include "host_priv.h"

static int register_proxy(cube_plugin *self, const struct cube_proxy_desc *desc)
{
    (void)self;
    (void)desc;
    return CUBE_EINVAL;
}

void cube_host_table_init_1_4_proxy(struct cube_host *h)
{
    h->register_proxy = register_proxy;
}
