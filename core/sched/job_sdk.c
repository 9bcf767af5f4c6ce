/* job_sdk.c — see job_sdk.h. `import cube` and `import nni` work in every
 * Job, pipeline task and notebook with nothing installed in them: meson
 * installs sdk/python's packages under <datadir>/cube/python, and a build
 * tree uses the source's sdk/python (cube_build.h names the three paths). */
#include "job_sdk.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cube_build.h"

/* 1 when dir holds the package cube. */
static int has_sdk(const char *dir)
{
    char p[PATH_MAX];
    struct stat st;
    int n = snprintf(p, sizeof p, "%s/cube/__init__.py", dir);
    return n > 0 && (size_t)n < sizeof p && stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* 1 when the running executable lies in the build tree it was built in. */
static int in_build_tree(void)
{
    char exe[PATH_MAX], root[PATH_MAX];
    if (!realpath("/proc/self/exe", exe) || !realpath(CUBE_BUILD_ROOT, root))
        return 0;
    size_t n = strlen(root);
    return strncmp(exe, root, n) == 0 && exe[n] == '/';
}

const char *job_sdk_dir(const struct cube_config *cfg)
{
    if (cfg && cfg->sdk_pythonpath)
        return *cfg->sdk_pythonpath ? cfg->sdk_pythonpath : NULL;
    const char *dir = in_build_tree() ? CUBE_SDK_PYTHON_SOURCE : CUBE_SDK_PYTHON_INSTALLED;
    return has_sdk(dir) ? dir : NULL;
}

/* 1 when the ':'-separated list has dir as one of its entries. */
static int listed(const char *list, const char *dir)
{
    size_t n = strlen(dir);
    for (const char *p = list;; p++) {
        if (strncmp(p, dir, n) == 0 && (p[n] == ':' || p[n] == '\0'))
            return 1;
        if (!(p = strchr(p, ':')))
            return 0;
    }
}

void job_sdk_env(const struct cube_config *cfg, cJSON *env)
{
    const char *dir = job_sdk_dir(cfg);
    if (!dir || !cJSON_IsObject(env))
        return;
    const char *cur = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(env, "PYTHONPATH"));
    if (cur && listed(cur, dir))
        return;
    char *v = NULL;
    if (asprintf(&v, "%s%s%s", cur ? cur : "", cur && *cur ? ":" : "", dir) < 0)
        return;
    cJSON_DeleteItemFromObjectCaseSensitive(env, "PYTHONPATH");
    cJSON_AddStringToObject(env, "PYTHONPATH", v);
    free(v);
}
