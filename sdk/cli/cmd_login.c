/* cmd_login.c — cubectl login: checks that the server answers, then saves
 * its URL, the token and the project to the config file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "api.h"
#include "args.h"

static const char usage[] =
    "Usage: cubectl login URL [--token TOKEN | --username NAME] [-p PROJECT]\n"
    "\n"
    "Saves the server URL, token and default project to ~/.config/cube/config\n"
    "(or $CUBE_CONFIG), mode 0600. With --username the password is read from\n"
    "standard input (not echoed on a terminal) and exchanged for an API token\n"
    "valid 30 days. Otherwise, without --token, the token is read from standard\n"
    "input; an empty one means none.\n";

static const char *flag_username;
static const struct cli_flag login_flags[] = {
    {"username", 'u', &flag_username, NULL}, {NULL, 0, NULL, NULL}};

/* Reads one line from stdin into out, echo off when stdin is a terminal. */
static int read_secret(const char *prompt, char *out, size_t outlen)
{
    struct termios old, quiet;
    int tty = isatty(STDIN_FILENO) && tcgetattr(STDIN_FILENO, &old) == 0;
    if (tty) {
        fprintf(stderr, "%s: ", prompt);
        quiet = old;
        quiet.c_lflag &= ~(tcflag_t)ECHO;
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet);
    }
    char *got = fgets(out, (int)outlen, stdin);
    if (tty) {
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &old);
        fputc('\n', stderr);
    }
    if (!got) {
        out[0] = '\0';
        return ferror(stdin) ? -1 : 0;
    }
    out[strcspn(out, "\r\n")] = '\0';
    return 0;
}

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

int cmd_login(struct cli *cli, int argc, char **argv)
{
    char token[4096], version[64], err[512];
    int rc = cli_parse(cli, argc, argv, login_flags, usage);
    if (rc != CLI_GO)
        return rc;
    if (cli->npos != 1)
        return cli_usage_error(cli, "expected the server URL");
    const char *url = cli->pos[0];
    if (strncmp(url, "http://", 7) && strncmp(url, "https://", 8))
        return cli_usage_error(cli, "the URL must start with http:// or https://");
    if ((rc = cli_load_config(cli)))
        return rc;
    if (!cli->config_file)
        return cli_fail("no config file: set HOME or CUBE_CONFIG");
    if (flag_username && cli->flag_token)
        return cli_usage_error(cli, "--token and --username exclude each other");
    if (!cli->flag_token && read_secret(flag_username ? "Password" : "Token", token,
                                        sizeof token))
        return cli_fail("cannot read the %s", flag_username ? "password" : "token");
    char server[2048];
    snprintf(server, sizeof server, "%s", url);
    for (size_t n = strlen(server); n > 0 && server[n - 1] == '/'; n--)
        server[n - 1] = '\0';   /* paths are appended to it */
    if (config_set(&cli->cfg.server, server) ||
        config_set(&cli->cfg.token, cli->flag_token ? cli->flag_token
                                    : *token ? token : NULL) ||
        config_set(&cli->cfg.project, cli_project(cli)))
        return cli_fail("out of memory");
    if (flag_username) {
        char password[1100];
        snprintf(password, sizeof password, "%s", token);
        rc = password_login(cli, password, token, sizeof token);
        memset(password, 0, sizeof password);
        if (rc || config_set(&cli->cfg.token, token))
            return rc ? rc : cli_fail("out of memory");
    }
    if ((rc = check_server(cli, version, sizeof version)))
        return rc;
    if (config_save(cli->config_file, &cli->cfg, err, sizeof err))
        return cli_fail("%s", err);
    printf("Logged in to %s%s%s%s (project %s); saved to %s\n", cli->http.server,
           *version ? " (server " : "", version, *version ? ")" : "",
           cli_project(cli), cli->config_file);
    return EXIT_OK;
}
