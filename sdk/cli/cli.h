/* cli.h — what every cubectl command shares: global flags, the effective
 * settings, the HTTP client, the kinds, and the commands themselves. */
#ifndef CUBECTL_CLI_H
#define CUBECTL_CLI_H

#include "args.h"
#include "client.h"
#include "config.h"
#include "kinds.h"

#define CLI_GO (-1)   /* cli_parse: carry on with the command */

enum { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_USAGE = 2 };

struct cli {
    const char *cmd;            /* the command's name, for messages */
    const char *flag_server, *flag_token, *flag_project, *flag_context;
    int verbose, help;
    char **pos;                 /* positional arguments */
    int npos;
    char *config_file;          /* NULL when there is no HOME */
    struct cli_config cfg;      /* file, then environment, then flags */
    struct http_client http;
    int connected;
    struct kind_list kinds;
    int have_kinds;
    char *server_project;       /* the server's choice (cli_project), or NULL */
    int asked_project;          /* server_project was asked for */
};

/* Parses the command's argv (after its name) with the global flags and
 * flags (a NULL-name-terminated table). Returns CLI_GO to run, EXIT_OK
 * after printing usage for --help, or EXIT_USAGE after a usage error. */
int cli_parse(struct cli *cli, int argc, char **argv,
              const struct cli_flag *flags, const char *usage);
/* Prints "error: ..." and a pointer to --help. Returns EXIT_USAGE. */
int cli_usage_error(const struct cli *cli, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Prints "error: ..." to stderr. Returns EXIT_FAIL. */
int cli_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Reads the config file, the environment and the flags into cli->cfg.
 * Returns 0, or EXIT_FAIL after printing why. */
int cli_load_config(struct cli *cli);
/* cli_load_config, then opens the HTTP client on the configured server.
 * Returns 0, or EXIT_FAIL after printing why (e.g. no server set). */
int cli_connect(struct cli *cli);
/* The project commands act in: -p, $CUBE_PROJECT, the context's project,
 * else the server's choice for the caller (asked once, see
 * api_default_project), else "default". */
const char *cli_project(struct cli *cli);
/* Frees everything cli holds. */
void cli_free(struct cli *cli);

/* The commands: each takes the arguments after its name and returns the
 * process's exit status (0, 1 on failure, 2 on a usage error). */
int cmd_login(struct cli *cli, int argc, char **argv);
int cmd_version(struct cli *cli, int argc, char **argv);
int cmd_projects(struct cli *cli, int argc, char **argv);
int cmd_kinds(struct cli *cli, int argc, char **argv);
int cmd_get(struct cli *cli, int argc, char **argv);
int cmd_apply(struct cli *cli, int argc, char **argv);
int cmd_create(struct cli *cli, int argc, char **argv);
int cmd_delete(struct cli *cli, int argc, char **argv);
int cmd_describe(struct cli *cli, int argc, char **argv);
int cmd_logs(struct cli *cli, int argc, char **argv);
int cmd_metrics(struct cli *cli, int argc, char **argv);
int cmd_patch(struct cli *cli, int argc, char **argv);
int cmd_config(struct cli *cli, int argc, char **argv);
int cmd_import(struct cli *cli, int argc, char **argv);
int cmd_wait(struct cli *cli, int argc, char **argv);
int cmd_members(struct cli *cli, int argc, char **argv);
int cmd_passwd(struct cli *cli, int argc, char **argv);
int cmd_completion(struct cli *cli, int argc, char **argv);
int cmd_cp(struct cli *cli, int argc, char **argv);
int cmd_ls(struct cli *cli, int argc, char **argv);
/* create token NAME (cmd_account.c), reached through cubectl create. */
int cmd_create_token(struct cli *cli, const char *name, const char *duration);
/* stop, restart, renew, run, rerun, backfill, export, and any other
 * action (cli->cmd names it): cmd_action.c. */
int cmd_verb(struct cli *cli, int argc, char **argv);

#endif
