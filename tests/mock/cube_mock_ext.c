/* cube_mock_ext.c — the fake host's ABI 1.4 slots: reverse-proxied
 * prefixes and console entries are recorded for the test to inspect. */
#include "cube_mock.h"
#include "cube_mock_priv.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define MAX_EXT 16

static struct {
    struct cube_proxy_desc proxies[MAX_EXT];
    int n_proxies;
    struct cube_ui_desc uis[MAX_EXT];
    int n_uis;
} S;

static int register_proxy(cube_plugin *self, const struct cube_proxy_desc *d)
{
    (void)self;
    if (mock_after_init())
        return CUBE_ESTATE;
    if (!d || d->size < offsetof(struct cube_proxy_desc, resolve) + sizeof d->resolve ||
        !d->prefix || d->prefix[0] != '/' || !d->permission || !d->resolve)
        return CUBE_EINVAL;
    for (int i = 0; i < S.n_proxies; i++)
        if (strcmp(S.proxies[i].prefix, d->prefix) == 0)
            return CUBE_EEXIST;
    if (S.n_proxies == MAX_EXT)
        return CUBE_ENOMEM;
    struct cube_proxy_desc *c = &S.proxies[S.n_proxies++];
    memset(c, 0, sizeof *c);
    memcpy(c, d, d->size < sizeof *c ? d->size : sizeof *c);
    c->prefix = mock_strdup(d->prefix);
    c->permission = mock_strdup(d->permission);
    c->kind = mock_strdup(d->kind);
    return CUBE_OK;
}

/* The host's menu permissions: who sees an entry (cube_ui.h). */
static int ui_permission(const char *p)
{
    return p && (!strcmp(p, CUBE_PERM_PUBLIC) || !strcmp(p, CUBE_PERM_USER) ||
                 !strcmp(p, CUBE_PERM_ADMIN));
}

/* As the host: a module is a relative path without "..", a link a console
 * path; one of them is needed. (The host also checks the file exists.) */
static int ui_target(const struct cube_ui_desc *d)
{
    if (d->module)
        return d->module[0] && d->module[0] != '/' && !strstr(d->module, "..");
    return d->link && d->link[0] == '/' && d->link[1] != '/';
}

static int register_ui(cube_plugin *self, const struct cube_ui_desc *d)
{
    (void)self;
    if (mock_after_init())
        return CUBE_ESTATE;
    if (!d || d->size < offsetof(struct cube_ui_desc, order) || !mock_dns_label(d->id) ||
        !d->label || !d->group || !ui_permission(d->permission) || !ui_target(d))
        return CUBE_EINVAL;
    for (int i = 0; i < S.n_uis; i++)
        if (strcmp(S.uis[i].id, d->id) == 0)
            return CUBE_EEXIST;
    if (S.n_uis == MAX_EXT)
        return CUBE_ENOMEM;
    struct cube_ui_desc *c = &S.uis[S.n_uis++];
    memset(c, 0, sizeof *c);
    memcpy(c, d, d->size < sizeof *c ? d->size : sizeof *c);
    c->id = mock_strdup(d->id);
    c->group = mock_strdup(d->group);
    c->label = mock_strdup(d->label);
    c->label_zh = mock_strdup(d->label_zh);
    c->permission = mock_strdup(d->permission);
    c->module = mock_strdup(d->module);
    c->asset_dir = mock_strdup(d->asset_dir);
    c->link = mock_strdup(d->link);
    return CUBE_OK;
}

const struct cube_proxy_desc *cube_mock_proxy(int i)
{
    return i >= 0 && i < S.n_proxies ? &S.proxies[i] : NULL;
}

const struct cube_ui_desc *cube_mock_ui(int i)
{
    return i >= 0 && i < S.n_uis ? &S.uis[i] : NULL;
}

void mock_ext_install(struct cube_host *h)
{
    h->register_proxy = register_proxy;
    h->register_ui = register_ui;
}

void mock_ext_reset(void)
{
    for (int i = 0; i < S.n_proxies; i++) {
        free((char *)S.proxies[i].prefix);
        free((char *)S.proxies[i].permission);
        free((char *)S.proxies[i].kind);
    }
    for (int i = 0; i < S.n_uis; i++) {
        struct cube_ui_desc *c = &S.uis[i];
        free((char *)c->id);
        free((char *)c->group);
        free((char *)c->label);
        free((char *)c->label_zh);
        free((char *)c->permission);
        free((char *)c->module);
        free((char *)c->asset_dir);
        free((char *)c->link);
    }
    memset(&S, 0, sizeof S);
}
