/* main.c — cubectl: a kubectl-like client for Cube's resource API. Picks
 * the command (global flags may come before it) and runs it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "cli.h"

struct command {
    const char *name;
    int (*run)(struct cli *cli, int argc, char **argv);
    const char *summary;
};

static const struct command commands[] = {
    {"login", cmd_login, "save the server URL and token for later commands"},
    {"version", cmd_version, "show the client and server versions"},
    {"projects", cmd_projects, "list the projects"},
    {"kinds", cmd_kinds, "list the kinds the server serves"},
    {"get", cmd_get, "show objects, one or many, or watch them"},
    {"describe", cmd_describe, "show an object in full, with its events"},
    {"apply", cmd_apply, "create or update objects from a file"},
    {"create", cmd_create, "create objects from a file"},
    {"patch", cmd_patch, "change an object with a JSON merge patch"},
    {"delete", cmd_delete, "delete objects by name or from a file"},
    {"logs", cmd_logs, "print (or follow) an object's logs"},
};
#define N_COMMANDS (sizeof commands / sizeof commands[0])

static void help(FILE *f)
{
    fprintf(f, "cubectl controls a Cube server.\n\nUsage: cubectl COMMAND [flags]"
               "\n\nCommands:\n");
    for (size_t i = 0; i < N_COMMANDS; i++)
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\nRun 'cubectl COMMAND --help' for a command's flags.\n");
}

/* Index of the command word: the first argument that is neither a global
 * flag nor a global flag's value; argc when there is none. */
static int command_index(int argc, char **argv)
{
    static const char *const with_value[] = {"-s", "--server", "--token",
                                             "-p", "--project", NULL};
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] != '-')
            return i;
        for (const char *const *w = with_value; *w; w++)
            if (!strcmp(argv[i], *w))
                i++;
    }
    return argc;
}

int main(int argc, char **argv)
{
    int at = command_index(argc, argv);
    if (at == argc) {
        int asked = argc > 1 && (!strcmp(argv[argc - 1], "-h") ||
                                 !strcmp(argv[argc - 1], "--help"));
        help(asked ? stdout : stderr);
        return asked ? EXIT_OK : EXIT_USAGE;
    }
    const struct command *cmd = NULL;
    for (size_t i = 0; i < N_COMMANDS; i++)
        if (!strcmp(argv[at], commands[i].name))
            cmd = &commands[i];
    if (!cmd) {
        fprintf(stderr, "error: unknown command \"%s\"\n", argv[at]);
        help(stderr);
        return EXIT_USAGE;
    }
    /* the command sees the global flags that came before its name too */
    char **rest = calloc((size_t)argc, sizeof *rest);
    int n = 0;
    if (!rest)
        return EXIT_FAIL;
    for (int i = 1; i < argc; i++)
        if (i != at)
            rest[n++] = argv[i];
    rest[n] = NULL;
    if (curl_global_init(CURL_GLOBAL_DEFAULT)) {
        fprintf(stderr, "error: cannot initialise libcurl\n");
        return EXIT_FAIL;
    }
    struct cli cli = {.cmd = cmd->name};
    int rc = cmd->run(&cli, n, rest);
    cli_free(&cli);
    curl_global_cleanup();
    free(rest);
    return rc;
}
