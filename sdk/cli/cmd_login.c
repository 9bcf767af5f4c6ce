/* cmd_login.c — cubectl login: checks that the server answers, then saves
 * its URL, the token and the project to the config file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "api.h"

static const char usage[] =
    "Usage: cubectl login URL [--token TOKEN] [-p PROJECT]\n"
    "\n"
    "Saves the server URL, token and default project to ~/.config/cube/config\n"
    "(or $CUBE_CONFIG), mode 0600. Without --token the token is read from\n"
    "standard input (not echoed on a terminal); an empty one means none.\n";

/* Reads one line from stdin into out, echo off when stdin is a terminal. */
static int read_token(char *out, size_t outlen)
{
    struct termios old, quiet;
    int tty = isatty(STDIN_FILENO) && tcgetattr(STDIN_FILENO, &old) == 0;
    if (tty) {
        fprintf(stderr, "Token: ");
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
    return rc;
}

int cmd_login(struct cli *cli, int argc, char **argv)
{
    char token[4096], version[64], err[512];
    int rc = cli_parse(cli, argc, argv, NULL, usage);
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
    if (!cli->flag_token && read_token(token, sizeof token))
        return cli_fail("cannot read the token");
    char server[2048];
    snprintf(server, sizeof server, "%s", url);
    for (size_t n = strlen(server); n > 0 && server[n - 1] == '/'; n--)
        server[n - 1] = '\0';   /* paths are appended to it */
    if (config_set(&cli->cfg.server, server) ||
        config_set(&cli->cfg.token, cli->flag_token ? cli->flag_token
                                    : *token ? token : NULL) ||
        config_set(&cli->cfg.project, cli_project(cli)))
        return cli_fail("out of memory");
    if ((rc = check_server(cli, version, sizeof version)))
        return rc;
    if (config_save(cli->config_file, &cli->cfg, err, sizeof err))
        return cli_fail("%s", err);
    printf("Logged in to %s%s%s%s (project %s); saved to %s\n", cli->http.server,
           *version ? " (server " : "", version, *version ? ")" : "",
           cli_project(cli), cli->config_file);
    return EXIT_OK;
}
