/* commands.c — see commands.h. */
#include "commands.h"

#include <string.h>

const struct command cli_commands[] = {
    {"login", cmd_login, "save the server URL and token as a context"},
    {"config", cmd_config, "list, switch and edit contexts (server, token, project)"},
    {"version", cmd_version, "show the client and server versions"},
    {"projects", cmd_projects, "list the projects"},
    {"kinds", cmd_kinds, "list the kinds the server serves, and their actions"},
    {"get", cmd_get, "show objects, one or many, or watch them"},
    {"describe", cmd_describe, "show an object in full, with its events"},
    {"apply", cmd_apply, "create or update objects from a file"},
    {"create", cmd_create, "create objects from a file, or an API token"},
    {"patch", cmd_patch, "change an object with a JSON merge patch"},
    {"delete", cmd_delete, "delete objects by name, selector or file"},
    {"wait", cmd_wait, "wait until objects have a field's value, or are gone"},
    {"logs", cmd_logs, "print (or follow) an object's or a task's logs"},
    {"metrics", cmd_metrics, "show a job's metrics (loss, accuracy ...), or push points"},
    {"cp", cmd_cp, "copy files to or from the project's files (:PATH)"},
    {"ls", cmd_ls, "list the project's files"},
    {"stop", cmd_verb, "stop a job, a notebook or a pipeline run"},
    {"restart", cmd_verb, "start a notebook's server again"},
    {"renew", cmd_verb, "push a notebook's expiry out"},
    {"run", cmd_verb, "run a pipeline now"},
    {"rerun", cmd_verb, "run a pipeline run's failed tasks again"},
    {"backfill", cmd_verb, "run a pipeline once per schedule tick in a past range"},
    {"export", cmd_verb, "print a pipeline as a file import takes back"},
    {"import", cmd_import, "create a pipeline from an exported file"},
    {"members", cmd_members, "list or change the project's members"},
    {"passwd", cmd_passwd, "change your password (or, as admin, a user's)"},
    {"completion", cmd_completion, "print the shell completion script (bash, zsh)"},
};
const size_t cli_n_commands = sizeof cli_commands / sizeof cli_commands[0];

const struct command *cli_find_command(const char *name)
{
    for (size_t i = 0; i < cli_n_commands; i++)
        if (!strcmp(name, cli_commands[i].name))
            return &cli_commands[i];
    return NULL;
}

void cli_help(FILE *f)
{
    fprintf(f, "cubectl controls a Cube server.\n\nUsage: cubectl COMMAND [flags]"
               "\n\nCommands:\n");
    for (size_t i = 0; i < cli_n_commands; i++)
        fprintf(f, "  %-11s %s\n", cli_commands[i].name, cli_commands[i].summary);
    fprintf(f, "  %-11s %s\n", "ACTION", "any other action of a kind: cubectl ACTION "
               "KIND/NAME [--field k=v]");
    fprintf(f, "\nNot yet: 'top' (resource use) comes with the monitoring feature.\n"
               "\nThe project is -p, else the context's, else the server's default project.\n"
               "Run 'cubectl COMMAND --help' for a command's flags.\n");
}
