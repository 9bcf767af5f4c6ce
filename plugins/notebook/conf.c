/* conf.c — the notebook plugin's `config:` section: its JSON Schema (the
 * core validates types, ranges and unknown keys and names file:line) and
 * reading it into struct nb_conf, with the checks a schema cannot state. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "notebook.h"

#define SECONDS(name, def, min, max, what)                                     \
    "\"" name "\":{\"type\":\"integer\",\"minimum\":" #min ",\"maximum\":" #max \
    ",\"default\":" #def ",\"description\":\"" what "\"}"

const char NB_CONFIG_SCHEMA[] =
    "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{"
    SECONDS("idle_timeout_seconds", 3600, 0, 31536000,
            "Default spec.idleTimeoutSeconds: a server idle this long is stopped (0: never)") ","
    SECONDS("expires_after_seconds", 0, 0, 31536000,
            "Default hard expiry of notebooks without devices (0: none)") ","
    SECONDS("gpu_expires_after_seconds", 259200, 0, 31536000,
            "Default hard expiry of notebooks that hold devices (0: none)") ","
    SECONDS("expiry_warning_seconds", 86400, 0, 31536000,
            "A warning event this long before a notebook expires") ","
    SECONDS("cull_interval_seconds", 60, 1, 86400,
            "How often running servers are asked for their activity") ","
    SECONDS("start_timeout_seconds", 180, 5, 86400,
            "A server that does not answer this long after its Job runs has failed") ","
    "\"ops_access\":{\"type\":\"boolean\",\"default\":false,\"description\":"
    "\"Project ops and creators may open other users' notebooks, running code as their "
    "owner (each such session is an audit event); else only the owner\"},"
    "\"cull_connected\":{\"type\":\"boolean\",\"default\":false,\"description\":"
    "\"Also stop idle servers that still have browser connections\"},"
    "\"jupyter_command\":{\"type\":\"string\",\"maxLength\":255,\"default\":\"\","
    "\"description\":\"Jupyter's executable; empty: jupyter-lab when installed, else jupyter-notebook\"},"
    "\"python\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":255,\"pattern\":\"^/\","
    "\"default\":\"/usr/bin/python3\",\"description\":\"The interpreter that runs the launcher\"},"
    "\"sdk_pythonpath\":{\"type\":\"string\",\"maxLength\":1024,\"default\":\"\",\"pattern\":\"^(/.*)?$\","
    "\"description\":\"Put on PYTHONPATH inside notebooks (the Cube Python SDK); empty: none\"},"
    "\"pool\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":63,\"default\":\"default\","
    "\"description\":\"The pool notebook Jobs run in\"},"
    "\"vscode\":{\"type\":\"object\",\"additionalProperties\":false,\"default\":{},"
    "\"properties\":{"
    "\"enabled\":{\"type\":\"boolean\",\"default\":false,\"description\":"
    "\"Offer ide: vscode (npm's code-server)\"},"
    "\"version\":{\"type\":\"string\",\"maxLength\":32,\"default\":\"4.96.4\","
    "\"description\":\"The code-server version (runs on Node 20)\"},"
    "\"command\":{\"type\":\"string\",\"maxLength\":255,\"default\":\"\","
    "\"description\":\"code-server's executable; empty: found on PATH\"}}}}}";

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
    c->cull_connected = h->config_bool(nb->self, "cull_connected", 0);
    c->vscode_enabled = h->config_bool(nb->self, "vscode.enabled", 0);
    c->jupyter_command = dup_conf(nb, "jupyter_command", "");
    c->python = dup_conf(nb, "python", "/usr/bin/python3");
    c->pythonpath = dup_conf(nb, "sdk_pythonpath", "");
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
    return resolve_jupyter(nb, msg, len);
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
