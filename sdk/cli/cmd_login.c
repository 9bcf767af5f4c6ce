/* cmd_login.c — cubectl login: checks that the server answers, then saves
 * its URL, the token and the project to the config file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api.h"
#include "args.h"
#include "prompt.h"

static const char usage[] =
    "Usage: cubectl login URL [--token TOKEN | --username NAME] [-p PROJECT]\n"
    "                         [--context NAME]\n"
    "\n"
    "Saves the server URL, token and project as a context in ~/.config/cube/config\n"
    "(or $CUBE_CONFIG), mode 0600, and makes it the current context. The context\n"
    "is --context NAME, else the one already pointing at URL, else URL's host:port;\n"
    "its project is -p, else the one it had, else the server's default project.\n"
    "With --username the password is read from standard input (not echoed on a\n"
    "terminal) and exchanged for an API token valid 30 days. Otherwise, without\n"
    "--token, the token is read from standard input; an empty one means none.\n";

static const char *flag_username;
static const struct cli_flag login_flags[] = {
    FLAG_STR("username", 'u', &flag_username), FLAG_END};

/* Exchanges user name and password for an API token (into token). */
static int password_login(struct cli *cli, const char *password, char *token, size_t len)
{
    struct api_result r;
    char host[256] = "host";
    gethostname(host, sizeof host - 1);
    cJSON *body = cJSON_CreateObject(), *t;
    cJSON_AddStringToObject(body, "username", flag_username);
    cJSON_AddStringToObject(body, "password", password);
    t = cJSON_AddObjectToObject(body, "token");
    char name[300];
    snprintf(name, sizeof name, "cubectl@%s", host);
    cJSON_AddStringToObject(t, "name", name);
    cJSON_AddNumberToObject(t, "expires_in", 30 * 86400);
    char *text = cJSON_PrintUnformatted(body);
    cJSON_Delete(body);
    if (http_client_init(&cli->http, cli->cfg.server, NULL, cli->verbose)) {
        free(text);
        return cli_fail("cannot start the HTTP client");
    }
    cli->connected = 1;
    int rc = api_call(cli, "POST", "/api/v1/auth/login", "application/json", text, &r);
    free(text);
    if (rc)
        return rc;
    const char *got = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(r.json, "token"), "token"));
    rc = api_ok(&r) && got ? 0 : api_fail(&r);
    if (!rc)
        snprintf(token, len, "%s", got);
    api_result_free(&r);
    http_client_cleanup(&cli->http);
    cli->connected = 0;
    return rc;
}

/* Asks the server its version with the new settings: proves the URL is
 * right before it is saved. Returns 0 and the version, or EXIT_FAIL. */
static int check_server(struct cli *cli, char *version, size_t len)
{
    struct api_result r;
    if (http_client_init(&cli->http, cli->cfg.server, cli->cfg.token, cli->verbose))
        return cli_fail("cannot start the HTTP client");
    cli->connected = 1;
    if (api_call(cli, "GET", "/api/v1/version", NULL, NULL, &r))
        return EXIT_FAIL;
    int rc = 0;
    if (r.status == 401 || r.status == 403 || r.status >= 500) {
        rc = api_fail(&r);
    } else {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(r.json, "version");
        snprintf(version, len, "%s", api_ok(&r) && cJSON_IsString(v) ? v->valuestring : "");
    }
    api_result_free(&r);
    /* The version is public: a token is proved by who it names. */
    if (!rc && cli->cfg.token && !api_call(cli, "GET", "/api/v1/auth/me", NULL, NULL, &r)) {
        if (!api_ok(&r))
            rc = api_fail(&r);
        api_result_free(&r);
    }
    return rc;
}

/* The context a login to server is saved as: --context, else one that
 * already points at server (the current one first), else server's
 * host[:port]. Also copies that context's project, when it has one, into
 * *project (malloc'd). Returns 0, or EXIT_FAIL after printing why. */
static int pick_context(struct cli *cli, const char *server, char *name, size_t len,
                        char **project)
{
    char err[512];
    cJSON *doc = config_read_doc(cli->config_file, err, sizeof err);
    if (!doc)
        return cli_fail("%s", err);
    const cJSON *found = cli->flag_context ? config_find_context(doc, cli->flag_context)
                                           : NULL, *c;
    const cJSON *cur = config_find_context(doc, cJSON_GetStringValue(
        cJSON_GetObjectItemCaseSensitive(doc, "current-context")));
    const char *cs = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(cur, "server"));
    if (!cli->flag_context && cs && !strcmp(cs, server))
        found = cur;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(doc, "contexts")) {
        const char *s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c, "server"));
        if (!found && !cli->flag_context && s && !strcmp(s, server))
            found = c;
    }
    const char *host = strstr(server, "://") + 3;
    if (cli->flag_context)
        snprintf(name, len, "%s", cli->flag_context);
    else if (found)
        snprintf(name, len, "%s", cJSON_GetStringValue(
            cJSON_GetObjectItemCaseSensitive(found, "name")));
    else
        snprintf(name, len, "%.*s", (int)strcspn(host, "/?#"), host);
    const char *p = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(found, "project"));
    int rc = p && *p && config_set(project, p) ? cli_fail("out of memory") : 0;
    cJSON_Delete(doc);
    return rc;
}

/* The project the new context acts in: -p, $CUBE_PROJECT, the context's
 * own, else the server's choice (NULL when it names none). */
static int pick_project(struct cli *cli, char **kept)
{
    const char *env = getenv("CUBE_PROJECT");
    const char *chosen = cli->flag_project ? cli->flag_project : env && *env ? env : *kept;
    if (!chosen) {   /* the server names none: resolved on each use */
        api_default_project(cli, &cli->server_project);
        cli->asked_project = 1;
    }
    if (config_set(&cli->cfg.project, chosen ? chosen : cli->server_project))
        return cli_fail("out of memory");
    return 0;
}

/* Reads the token (or, with --username, the password traded for one). */
static int get_token(struct cli *cli, char *token, size_t len)
{
    if (!cli->flag_token && prompt_secret(flag_username ? "Password" : "Token", token, len))
        return cli_fail("cannot read the %s", flag_username ? "password" : "token");
    if (config_set(&cli->cfg.token, cli->flag_token ? cli->flag_token
                                    : *token ? token : NULL))
        return cli_fail("out of memory");
    if (!flag_username)
        return 0;
    char password[1100];
    snprintf(password, sizeof password, "%s", token);
    int rc = password_login(cli, password, token, len);
    memset(password, 0, sizeof password);
    if (rc || config_set(&cli->cfg.token, token))
        return rc ? rc : cli_fail("out of memory");
    return 0;
}

int cmd_login(struct cli *cli, int argc, char **argv)
{
    char token[4096] = "", version[64], err[512], server[2048], context[256];
    char *kept = NULL;
    int rc = cli_parse(cli, argc, argv, login_flags, usage);
    if (rc != CLI_GO)
        return rc;
    if (cli->npos != 1)
        return cli_usage_error(cli, "expected the server URL");
    const char *url = cli->pos[0];
    if (strncmp(url, "http://", 7) && strncmp(url, "https://", 8))
        return cli_usage_error(cli, "the URL must start with http:// or https://");
    if (flag_username && cli->flag_token)
        return cli_usage_error(cli, "--token and --username exclude each other");
    if (cli->flag_context && !config_context_name_ok(cli->flag_context))
        return cli_usage_error(cli, "--context: 1 to 253 characters, no spaces");
    cli->config_file = config_path();
    if (!cli->config_file)
        return cli_fail("no config file: set HOME or CUBE_CONFIG");
    snprintf(server, sizeof server, "%s", url);
    for (size_t n = strlen(server); n > 0 && server[n - 1] == '/'; n--)
        server[n - 1] = '\0';   /* paths are appended to it */
    if ((rc = pick_context(cli, server, context, sizeof context, &kept)) ||
        (rc = config_set(&cli->cfg.server, server) ? cli_fail("out of memory") : 0) ||
        (rc = config_set(&cli->cfg.context, context) ? cli_fail("out of memory") : 0) ||
        (rc = get_token(cli, token, sizeof token)) ||
        (rc = check_server(cli, version, sizeof version)) || (rc = pick_project(cli, &kept))) {
        free(kept);
        return rc;
    }
    free(kept);
    if (config_save(cli->config_file, &cli->cfg, err, sizeof err))
        return cli_fail("%s", err);
    printf("Logged in to %s%s%s%s (context %s, project %s); saved to %s\n", cli->http.server,
           *version ? " (server " : "", version, *version ? ")" : "", context,
           cli_project(cli), cli->config_file);
    return EXIT_OK;
}
