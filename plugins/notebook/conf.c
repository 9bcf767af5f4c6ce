/* conf.c — the notebook plugin's `config:` section, read into struct
 * nb_conf with the checks its JSON Schema (config.schema.json: the core
 * validates types, ranges and unknown keys and names file:line) cannot
 * state, and the programs it names or ships (Jupyter, the launcher). */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "notebook.h"

static char *dup_conf(struct nb *nb, const char *path, const char *def)
{
    const char *v = nb->host->config_string(nb->self, path, def);
    return strdup(v ? v : def);
}

/* The first of the names that is an executable on PATH or absolute. */
static int find_exec(const char *name, char *out, size_t len)
{
    if (strchr(name, '/')) {
        size_t n = strlen(name);
        if (n >= len)
            return -1;
        memcpy(out, name, n + 1);
        return access(name, X_OK) == 0 ? 0 : -1;
    }
    const char *dirs[] = {"/usr/local/bin", "/usr/bin", "/bin"};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        snprintf(out, len, "%s/%s", dirs[i], name);
        if (access(out, X_OK) == 0)
            return 0;
    }
    return -1;
}

/* Jupyter: the configured command, else JupyterLab, else the notebook. */
static int resolve_jupyter(struct nb *nb, char *msg, size_t len)
{
    const char *want = nb->conf.jupyter_command;
    if (*want) {
        if (find_exec(want, nb->jupyter, sizeof nb->jupyter) < 0)
            return snprintf(msg, len, "jupyter_command: %s is not an executable", want), -1;
        return 0;
    }
    if (find_exec("jupyter-lab", nb->jupyter, sizeof nb->jupyter) == 0 ||
        find_exec("jupyter-notebook", nb->jupyter, sizeof nb->jupyter) == 0)
        return 0;
    /* Not fatal: notebooks fail with a message until Jupyter is installed. */
    snprintf(nb->jupyter, sizeof nb->jupyter, "jupyter-notebook");
    nb->host->log(nb->self, CUBE_LOG_WARN, "neither jupyter-lab nor jupyter-notebook is "
                  "installed: Jupyter notebooks will fail to start");
    return 0;
}

/* The launcher a notebook's Job runs, cube-notebook-launcher.py beside
 * this plugin's .so (installed with it, copied next to it in the build
 * tree; the .so's real path counts, so a plugin dir of symlinks works):
 * an absolute path, readable, else an error naming where it was looked for. */
static int find_launcher(struct nb *nb, char *msg, size_t len)
{
    Dl_info info;
    char so[sizeof nb->launcher], near[sizeof nb->launcher];
    if (!dladdr((void *)find_launcher, &info) || !info.dli_fname ||
        !realpath(info.dli_fname, so))
        snprintf(so, sizeof so, "./plugin");
    const char *slash = strrchr(so, '/');
    snprintf(near, sizeof near, "%.*s/" NB_LAUNCHER, (int)(slash - so), so);
    if (!realpath(near, nb->launcher) || access(nb->launcher, R_OK) != 0)
        return snprintf(msg, len, "the notebook launcher %s is missing or unreadable: "
                        "install it beside the plugin", near), -1;
    return 0;
}

#ifndef NB_SDK_INSTALLED
#define NB_SDK_INSTALLED "/usr/local/share/cube/python"
#define NB_SDK_SOURCE ""
#define NB_BUILD_ROOT ""
#endif

/* sdk_pythonpath "auto": the Python SDK meson installs, or the source's
 * sdk/python while this .so runs from the build tree it was built in;
 * "" when that directory holds no cube/__init__.py (a malloc'd string). */
static char *sdk_auto(void)
{
    Dl_info info;
    char so[PATH_MAX], root[PATH_MAX], probe[PATH_MAX];
    const char *dir = NB_SDK_INSTALLED;
    if (*NB_BUILD_ROOT && dladdr((void *)sdk_auto, &info) && info.dli_fname &&
        realpath(info.dli_fname, so) && realpath(NB_BUILD_ROOT, root) &&
        !strncmp(so, root, strlen(root)) && so[strlen(root)] == '/')
        dir = NB_SDK_SOURCE;
    snprintf(probe, sizeof probe, "%s/cube/__init__.py", dir);
    return strdup(access(probe, R_OK) == 0 ? dir : "");
}

int nb_conf_load(struct nb *nb, char *msg, size_t len)
{
    const struct cube_host *h = nb->host;
    struct nb_conf *c = &nb->conf;
    c->idle_timeout = h->config_int(nb->self, "idle_timeout_seconds", 3600);
    c->expires_after = h->config_int(nb->self, "expires_after_seconds", 0);
    c->gpu_expires_after = h->config_int(nb->self, "gpu_expires_after_seconds", 259200);
    c->expiry_warning = h->config_int(nb->self, "expiry_warning_seconds", 86400);
    c->cull_interval_ms = 1000 * h->config_int(nb->self, "cull_interval_seconds", 60);
    c->start_timeout = h->config_int(nb->self, "start_timeout_seconds", 180);
    c->ops_access = h->config_bool(nb->self, "ops_access", 0);
    c->allow_remote = h->config_bool(nb->self, "allow_remote", 0);
    c->cull_connected = h->config_bool(nb->self, "cull_connected", 0);
    c->vscode_enabled = h->config_bool(nb->self, "vscode.enabled", 0);
    c->jupyter_command = dup_conf(nb, "jupyter_command", "");
    c->python = dup_conf(nb, "python", "/usr/bin/python3");
    c->pythonpath = dup_conf(nb, "sdk_pythonpath", "auto");
    if (c->pythonpath && !strcmp(c->pythonpath, "auto")) {
        free(c->pythonpath);
        c->pythonpath = sdk_auto();
    }
    c->pool = dup_conf(nb, "pool", "default");
    c->vscode_version = dup_conf(nb, "vscode.version", "4.96.4");
    c->vscode_command = dup_conf(nb, "vscode.command", "");
    if (!c->jupyter_command || !c->python || !c->pythonpath || !c->pool ||
        !c->vscode_version || !c->vscode_command)
        return snprintf(msg, len, "out of memory"), -1;
    if (c->python[0] != '/')
        return snprintf(msg, len, "python: must be an absolute path (got %s)", c->python), -1;
    if (*c->pythonpath && c->pythonpath[0] != '/')
        return snprintf(msg, len, "sdk_pythonpath: must be an absolute path"), -1;
    return find_launcher(nb, msg, len) < 0 ? -1 : resolve_jupyter(nb, msg, len);
}

void nb_conf_free(struct nb_conf *c)
{
    free(c->jupyter_command);
    free(c->python);
    free(c->pythonpath);
    free(c->pool);
    free(c->vscode_version);
    free(c->vscode_command);
}
