/* cli.c — see cli.h: flag parsing shared by all commands and the order in
 * which settings override each other. */
#include "cli.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char global_help[] =
    "\nGlobal flags:\n"
    "  -s, --server URL     the Cube server (default: from 'cubectl login')\n"
    "      --token TOKEN    bearer token sent as Authorization\n"
    "  -p, --project NAME   project to act in (default: the context's, else the\n"
    "                       server's default project)\n"
    "      --context NAME   the config context to use (default: the current one)\n"
    "  -v, --verbose        log each request to stderr\n"
    "  -h, --help           show this help\n";

int cli_parse(struct cli *cli, int argc, char **argv,
              const struct cli_flag *flags, const char *usage)
{
    const struct cli_flag globals[] = {
        FLAG_STR("server", 's', &cli->flag_server),
        FLAG_STR("token", 0, &cli->flag_token),
        FLAG_STR("project", 'p', &cli->flag_project),
        FLAG_STR("context", 0, &cli->flag_context),
        FLAG_ON("verbose", 'v', &cli->verbose),
        FLAG_ON("help", 'h', &cli->help),
        FLAG_END,
    };
    const struct cli_flag *tables[] = {globals, flags};
    char err[256];
    free(cli->pos);
    cli->pos = calloc((size_t)argc + 1, sizeof *cli->pos);
    if (!cli->pos)
        return cli_fail("out of memory");
    if (args_parse(argc, argv, tables, flags ? 2 : 1, cli->pos, &cli->npos,
                   err, sizeof err))
        return cli_usage_error(cli, "%s", err);
    if (cli->help) {
        fputs(usage, stdout);
        fputs(global_help, stdout);
        return EXIT_OK;
    }
    return CLI_GO;
}

int cli_usage_error(const struct cli *cli, const char *fmt, ...)
{
    va_list ap;
    fputs("error: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nSee 'cubectl %s --help' for usage.\n", cli->cmd);
    return EXIT_USAGE;
}

int cli_fail(const char *fmt, ...)
{
    va_list ap;
    fputs("error: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return EXIT_FAIL;
}

int cli_load_config(struct cli *cli)
{
    char err[512];
    config_free(&cli->cfg);
    free(cli->config_file);
    cli->config_file = config_path();
    if (!cli->config_file && cli->flag_context)
        return cli_fail("--context: no config file (set HOME or CUBE_CONFIG)");
    if (cli->config_file &&
        config_load(cli->config_file, cli->flag_context, &cli->cfg, err, sizeof err))
        return cli_fail("%s", err);
    if (config_apply_env(&cli->cfg) ||
        (cli->flag_server && config_set(&cli->cfg.server, cli->flag_server)) ||
        (cli->flag_token && config_set(&cli->cfg.token, cli->flag_token)) ||
        (cli->flag_project && config_set(&cli->cfg.project, cli->flag_project)))
        return cli_fail("out of memory");
    return 0;
}

int cli_connect(struct cli *cli)
{
    int rc = cli_load_config(cli);
    if (rc)
        return rc;
    if (!cli->cfg.server || !*cli->cfg.server)
        return cli_fail("no server set: run 'cubectl login URL', set CUBE_API "
                        "or pass --server URL");
    if (http_client_init(&cli->http, cli->cfg.server, cli->cfg.token,
                         cli->verbose))
        return cli_fail("cannot start the HTTP client");
    cli->connected = 1;
    return 0;
}

void cli_free(struct cli *cli)
{
    if (cli->connected)
        http_client_cleanup(&cli->http);
    if (cli->have_kinds)
        kinds_free(&cli->kinds);
    config_free(&cli->cfg);
    free(cli->config_file);
    free(cli->pos);
    free(cli->server_project);
}
