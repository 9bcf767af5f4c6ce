/* loader_deps.c — plugin dependencies (cube_plugin_desc.dependencies, ABI
 * 1.5): the form of a requirement, versions compared number by number,
 * and whether a plugin's requirements are met by the plugins around it.
 * loader.c orders init by it; --check-config reports with it. */
#include "loader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEP_NAME_MAX 64

/* Splits "name" or "name>=X.Y[.Z]" into name and version ("" when none).
 * 0, or -1 when the text has another form. */
static int dep_split(const char *req, char name[DEP_NAME_MAX], const char **version)
{
    size_t n = strcspn(req, ">");
    if (n == 0 || n >= DEP_NAME_MAX)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (!((req[i] >= 'a' && req[i] <= 'z') || (req[i] >= '0' && req[i] <= '9') ||
              req[i] == '-'))
            return -1;
    memcpy(name, req, n);
    name[n] = '\0';
    *version = "";
    if (!req[n])
        return 0;
    if (strncmp(req + n, ">=", 2) != 0)
        return -1;
    const char *v = req + n + 2;
    if (*v < '0' || *v > '9')
        return -1;
    for (const char *p = v; *p; p++)
        if (!((*p >= '0' && *p <= '9') || *p == '.') || (*p == '.' && p[1] == '.'))
            return -1;
    if (v[strlen(v) - 1] == '.')
        return -1;
    *version = v;
    return 0;
}

static int digit(char c)
{
    return c >= '0' && c <= '9';
}

int cube_version_cmp(const char *a, const char *b)
{
    a = a ? a : "";
    b = b ? b : "";
    while (digit(*a) || digit(*b)) {
        char *end;
        unsigned long x = 0, y = 0;
        if (digit(*a))
            x = strtoul(a, &end, 10), a = end;
        if (digit(*b))
            y = strtoul(b, &end, 10), b = end;
        if (x != y)
            return x < y ? -1 : 1;
        /* the next number follows a '.'; anything else ends the version */
        a = *a == '.' && digit(a[1]) ? a + 1 : "";
        b = *b == '.' && digit(b[1]) ? b + 1 : "";
    }
    return 0;
}

int cube_deps_check_desc(const struct cube_plugin_desc *d, const char *file, char *err,
                         size_t errlen)
{
    if (!d->dependencies)
        return 0;
    for (size_t i = 0; d->dependencies[i]; i++) {
        char name[DEP_NAME_MAX];
        const char *version;
        if (i >= CUBE_DEPENDENCIES_MAX) {
            snprintf(err, errlen, "%s: dependencies: expected at most %d entries (NULL-"
                     "terminated), found more", file, CUBE_DEPENDENCIES_MAX);
            return -1;
        }
        if (dep_split(d->dependencies[i], name, &version) < 0) {
            snprintf(err, errlen, "%s: dependencies[%zu]: expected \"name\" or "
                     "\"name>=X.Y\", found \"%.80s\"", file, i, d->dependencies[i]);
            return -1;
        }
        if (d->name && strcmp(name, d->name) == 0) {
            snprintf(err, errlen, "%s: dependencies[%zu]: a plugin cannot require itself", file, i);
            return -1;
        }
    }
    return 0;
}

int cube_deps_names(const struct cube_plugin_desc *d, const char *name)
{
    for (size_t i = 0; d->dependencies && d->dependencies[i] && i < CUBE_DEPENDENCIES_MAX; i++) {
        char dep[DEP_NAME_MAX];
        const char *version;
        if (dep_split(d->dependencies[i], dep, &version) == 0 && strcmp(dep, name) == 0)
            return 1;
    }
    return 0;
}

static const struct cube_dep_node *find_node(const struct cube_dep_node *nodes, size_t n,
                                             const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(nodes[i].name, name) == 0)
            return &nodes[i];
    return NULL;
}

int cube_deps_ready(const struct cube_dep_node *nodes, size_t n, size_t i, char *err,
                    size_t errlen)
{
    const struct cube_dep_node *me = &nodes[i];
    int wait = 0;
    for (size_t r = 0; me->dependencies && me->dependencies[r] && r < CUBE_DEPENDENCIES_MAX; r++) {
        char name[DEP_NAME_MAX];
        const char *version;
        if (dep_split(me->dependencies[r], name, &version) < 0)
            continue;   /* refused with the descriptor (cube_deps_check_desc) */
        const struct cube_dep_node *dep = find_node(nodes, n, name);
        if (!dep) {
            snprintf(err, errlen, "plugin %s requires plugin %s, which is not enabled "
                     "(no enabled conf.d entry `plugin: %s`)", me->name, name, name);
            return -1;
        }
        if (dep->failed) {
            snprintf(err, errlen, "plugin %s requires plugin %s, which failed to load",
                     me->name, name);
            return -1;
        }
        if (*version && cube_version_cmp(dep->version, version) < 0) {
            snprintf(err, errlen, "plugin %s requires %s, found %s %s (too old)", me->name,
                     me->dependencies[r], name, dep->version ? dep->version : "without a version");
            return -1;
        }
        wait |= !dep->done;
    }
    return wait;
}

void cube_deps_cycle(const struct cube_dep_node *nodes, size_t n, size_t i, char *err,
                     size_t errlen)
{
    /* follow the first requirement not done until a node repeats */
    size_t path[64], len = 0, at = i;
    for (;;) {
        for (size_t k = 0; k < len; k++)
            if (path[k] == at) {
                int o = snprintf(err, errlen, "plugin %s: the requirements form a cycle: ",
                                 nodes[i].name);
                for (size_t m = k; m < len && o >= 0 && (size_t)o < errlen; m++)
                    o += snprintf(err + o, errlen - (size_t)o, "%s -> ", nodes[path[m]].name);
                if (o >= 0 && (size_t)o < errlen)
                    snprintf(err + o, errlen - (size_t)o, "%s", nodes[at].name);
                return;
            }
        if (len == sizeof path / sizeof *path)
            break;
        path[len++] = at;
        const struct cube_dep_node *me = &nodes[at], *next = NULL;
        for (size_t r = 0; !next && me->dependencies && me->dependencies[r]; r++) {
            char name[DEP_NAME_MAX];
            const char *version;
            const struct cube_dep_node *dep =
                dep_split(me->dependencies[r], name, &version) == 0 ? find_node(nodes, n, name)
                                                                 : NULL;
            if (dep && !dep->done && !dep->failed)
                next = dep;
        }
        if (!next)
            break;
        at = (size_t)(next - nodes);
    }
    snprintf(err, errlen, "plugin %s: waits on a plugin that never loads (a cycle of "
             "requirements)", nodes[i].name);
}
