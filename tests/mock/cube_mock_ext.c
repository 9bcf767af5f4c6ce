/* cube_mock_ext.c — the fake host's ABI 1.4 slots: reverse-proxied
 * prefixes and console entries are recorded for the test to inspect.
 * Prefixes follow the host's rules (first segment a literal other than
 * api/ui, no trailing '/', a CUBE_PERM_* permission, {project} for project
 * permissions, a registered kind, overlapping prefixes CUBE_EEXIST) but
 * for the host's core routes, which the mock does not have. */
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

/* The n-th '/'-separated segment of a template (length in *len), or NULL. */
static const char *segment(const char *t, int n, size_t *len)
{
    for (const char *s = t + 1; *s || n == 0;) {
        size_t l = strcspn(s, "/");
        if (n-- == 0) {
            *len = l;
            return l ? s : NULL;
        }
        s += l;
        if (*s == '/')
            s++;
        else
            break;
    }
    return NULL;
}

/* As the host: some path lies under both templates ({x} matches anything). */
static int prefixes_overlap(const char *a, const char *b)
{
    for (int i = 0;; i++) {
        size_t la, lb;
        const char *sa = segment(a, i, &la), *sb = segment(b, i, &lb);
        if (!sa || !sb)
            return 1;
        if (sa[0] != '{' && sb[0] != '{' && (la != lb || strncmp(sa, sb, la)))
            return 0;
    }
}

/* The host's rules for a prefix, without the core-route check. */
static int prefix_ok(const char *p)
{
    size_t len;
    const char *first = p && p[0] == '/' ? segment(p, 0, &len) : NULL;
    return first && first[0] != '{' && p[strlen(p) - 1] != '/' &&
           !(len == 3 && !strncmp(first, "api", 3)) && !(len == 2 && !strncmp(first, "ui", 2)) &&
           !(len == 5 && !strncmp(first, "_cube", 5));
}

/* A CUBE_PERM_* value; 2 for the project ones (they need {project}). */
static int perm_kind(const char *perm)
{
    static const char *const plain[] = {CUBE_PERM_PUBLIC, CUBE_PERM_USER, CUBE_PERM_ADMIN};
    static const char *const project[] = {CUBE_PERM_PROJECT_VIEW, CUBE_PERM_PROJECT_EDIT,
                                          CUBE_PERM_PROJECT_OPERATE, CUBE_PERM_PROJECT_MANAGE};
    for (size_t i = 0; perm && i < 3; i++)
        if (!strcmp(perm, plain[i]))
            return 1;
    for (size_t i = 0; perm && i < 4; i++)
        if (!strcmp(perm, project[i]))
            return 2;
    return 0;
}

static int register_proxy(cube_plugin *self, const struct cube_proxy_desc *d)
{
    (void)self;
    if (mock_after_init())
        return CUBE_ESTATE;
    if (!d || d->size < offsetof(struct cube_proxy_desc, resolve) + sizeof d->resolve ||
        !prefix_ok(d->prefix) || !perm_kind(d->permission) || !d->resolve ||
        (perm_kind(d->permission) == 2 && !strstr(d->prefix, "/{project}")) ||
        (d->kind && (!cube_mock_kind(d->kind) || !strstr(d->prefix, "/{name}"))))
        return CUBE_EINVAL;
    for (int i = 0; i < S.n_proxies; i++)
        if (prefixes_overlap(S.proxies[i].prefix, d->prefix))
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
