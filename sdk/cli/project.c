/* project.c — which project a command acts in when none is chosen: the
 * server's default project (GET /api/v1/auth/me answers it as
 * defaultProject), so that a first `cubectl get jobs` after login works. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"

static int member_of(const cJSON *projects, const char *name)
{
    const cJSON *p;
    cJSON_ArrayForEach(p, projects) {
        const char *n = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(p, "name"));
        if (n && !strcmp(n, name))
            return 1;
    }
    return 0;
}

/* The project to use from an auth/me answer: the default project when the
 * caller may act in it (a member, or an administrator), else the caller's
 * first project, else the default project anyway; NULL when none. */
static const char *choose(const cJSON *me)
{
    const char *dp = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(me, "defaultProject"));
    const char *role = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(me, "role"));
    const cJSON *projects = cJSON_GetObjectItemCaseSensitive(me, "projects");
    const char *first = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetArrayItem(projects, 0), "name"));
    int admin = role && !strcmp(role, "admin");
    if (dp && *dp && (admin || member_of(projects, dp)))
        return dp;
    if (first && *first)
        return first;
    return dp && *dp ? dp : NULL;
}

int api_default_project(struct cli *cli, char **out)
{
    struct api_result r;
    *out = NULL;
    if (api_call(cli, "GET", "/api/v1/auth/me", NULL, NULL, &r))
        return EXIT_FAIL;
    int rc = api_ok(&r) && cJSON_IsObject(r.json) ? 0 : EXIT_FAIL;
    const char *name = rc ? NULL : choose(r.json);
    if (name && !(*out = strdup(name)))
        rc = EXIT_FAIL;
    api_result_free(&r);
    return rc;
}

const char *cli_project(struct cli *cli)
{
    if (cli->cfg.project && *cli->cfg.project)
        return cli->cfg.project;
    if (!cli->asked_project && cli->connected) {
        cli->asked_project = 1;
        /* a caller the server does not know gets "default": the request
         * that needs the project then says what is wrong (e.g. 401) */
        api_default_project(cli, &cli->server_project);
    }
    return cli->server_project ? cli->server_project : "default";
}
