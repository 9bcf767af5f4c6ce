/* job.c — the Job a notebook runs as. Its command is the Python launcher
 * installed beside the plugin (cube-notebook-launcher.py, found by
 * nb_conf_load): it makes the server's secret itself, reports it to cubed
 * with the Job's CUBE_TOKEN, and execs Jupyter or code-server on the port
 * the host allocated for the Job's spec.ports "http" (CUBE_PORT_HTTP), on
 * 127.0.0.1, or on every address of its node with allow_remote. The
 * secret thus never appears in the Job's spec, the command line or a log. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <cube/util/json.h>

#include "notebook.h"

void nb_base_url(const char *project, const char *name, char *out, size_t len)
{
    snprintf(out, len, "/notebook/%s/%s/", project, name);
}

void nb_proxied_url(const char *ide, const char *project, const char *name, char *out,
                    size_t len)
{
    if (ide && !strcmp(ide, "vscode"))
        snprintf(out, len, "/vscode/%s/%s/", project, name);
    else
        nb_base_url(project, name, out, len);
}

void nb_job_name(const char *name, unsigned gen, char *out, size_t len)
{
    snprintf(out, len, "%s-nb%u", name, gen);
}

/* metadata: name, project, labels, the owner's annotation, ownerReferences
 * (the controller reference makes the host give the Job the notebook's
 * owner, whom it runs as). */
static cJSON *job_meta(const cJSON *nbmeta, const char *job_name)
{
    cJSON *m = cJSON_CreateObject(), *refs, *ref;
    cJSON_AddStringToObject(m, "name", job_name);
    cJSON_AddStringToObject(m, "project", cu_str(nbmeta, "project"));
    cJSON_AddStringToObject(cJSON_AddObjectToObject(m, "labels"), "cube.dev/notebook",
                            cu_str(nbmeta, "name"));
    const char *owner = cu_str(nbmeta, "owner");   /* informative: the host decides */
    if (owner)
        cJSON_AddStringToObject(cJSON_AddObjectToObject(m, "annotations"), "cube.dev/user",
                                owner);
    refs = cJSON_AddArrayToObject(m, "ownerReferences");
    cJSON_AddItemToArray(refs, ref = cJSON_CreateObject());
    cJSON_AddStringToObject(ref, "kind", NB_KIND);
    cJSON_AddStringToObject(ref, "name", cu_str(nbmeta, "name"));
    cJSON_AddStringToObject(ref, "uid", cu_str(nbmeta, "uid") ? cu_str(nbmeta, "uid") : "");
    cJSON_AddBoolToObject(ref, "controller", 1);
    return m;
}

/* The executable the launcher runs for an IDE. */
static const char *ide_exe(const struct nb *nb, const char *ide)
{
    if (strcmp(ide, "vscode"))
        return nb->jupyter;
    return *nb->conf.vscode_command ? nb->conf.vscode_command : "/usr/local/bin/code-server";
}

static void add_command(const struct nb *nb, cJSON *spec, const char *ide,
                        const char *project, const char *name, unsigned gen)
{
    char base[256], genbuf[12];
    nb_base_url(project, name, base, sizeof base);
    snprintf(genbuf, sizeof genbuf, "%u", gen);
    /* where the server listens: loopback, unless cubed may reach it elsewhere */
    const char *bind = nb->conf.allow_remote ? "0.0.0.0" : "127.0.0.1";
    /* -I -S: the launcher needs only os and socket; start it fast */
    const char *argv[] = {nb->conf.python, "-I", "-S", "--", nb->launcher, ide, ide_exe(nb, ide),
                          bind, base, project, name, genbuf};
    cJSON *cmd = cJSON_AddArrayToObject(spec, "command");
    for (size_t i = 0; i < sizeof argv / sizeof argv[0]; i++)
        cJSON_AddItemToArray(cmd, cJSON_CreateString(argv[i]));
}

char *nb_job_json(const struct nb *nb, const char *notebook_json, const char *job_name,
                  unsigned gen)
{
    cJSON *n = cJSON_Parse(notebook_json);
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(n, "metadata");
    const cJSON *nspec = cJSON_GetObjectItemCaseSensitive(n, "spec");
    const char *project = cu_str(meta, "project"), *name = cu_str(meta, "name");
    const char *ide = cu_str(nspec, "ide") ? cu_str(nspec, "ide") : "jupyter";
    if (!project || !name) {
        cJSON_Delete(n);
        return NULL;
    }
    cJSON *job = cJSON_CreateObject(), *spec, *env;
    cJSON_AddStringToObject(job, "kind", "Job");
    cJSON_AddItemToObject(job, "metadata", job_meta(meta, job_name));
    spec = cJSON_AddObjectToObject(job, "spec");
    add_command(nb, spec, ide, project, name, gen);
    cJSON *port = cJSON_CreateObject();   /* the host allocates it, the executor says where */
    cJSON_AddStringToObject(port, "name", NB_PORT_NAME);
    cJSON_AddStringToObject(port, "protocol", "http");
    cJSON_AddItemToArray(cJSON_AddArrayToObject(spec, "ports"), port);
    static const char *const COPY[] = {"resources", "accelerator", "image", "pool"};
    for (size_t i = 0; i < sizeof COPY / sizeof COPY[0]; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(nspec, COPY[i]);
        if (v)
            cJSON_AddItemToObject(spec, COPY[i], cJSON_Duplicate(v, 1));
    }
    if (!cJSON_GetObjectItemCaseSensitive(spec, "pool"))
        cJSON_AddStringToObject(spec, "pool", nb->conf.pool);
    env = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(nspec, "env"), 1);
    if (!env)
        env = cJSON_CreateObject();
    if (*nb->conf.pythonpath && !cJSON_GetObjectItemCaseSensitive(env, "PYTHONPATH"))
        cJSON_AddStringToObject(env, "PYTHONPATH", nb->conf.pythonpath);
    cJSON_AddStringToObject(env, "CUBE_NOTEBOOK", name);
    cJSON_AddItemToObject(spec, "env", env);
    char *text = cJSON_PrintUnformatted(job);
    cJSON_Delete(job);
    cJSON_Delete(n);
    return text;
}
