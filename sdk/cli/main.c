/* main.c — cubectl: a kubectl-like client for Cube's resource API. Picks
 * the command (global flags may come before it) and runs it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "cli.h"
#include "commands.h"

/* Whether an unknown word may be an action of a kind: a lower-case word
 * with a positional argument after it ("cubectl poke widget/a"). */
static int maybe_action(int argc, char **argv, int at)
{
    for (const char *c = argv[at]; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '-'))
            return 0;
    for (int i = at + 1; i < argc; i++)
        if (argv[i][0] != '-')
            return 1;
    return 0;
}

/* Index of the command word: the first argument that is neither a global
 * flag nor a global flag's value; argc when there is none. */
static int command_index(int argc, char **argv)
{
    static const char *const with_value[] = {"-s", "--server", "--token", "-p",
                                             "--project", "--context", NULL};
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
        cli_help(asked ? stdout : stderr);
        return asked ? EXIT_OK : EXIT_USAGE;
    }
    const struct command *cmd = cli_find_command(argv[at]);
    if (!strcmp(argv[at], "help")) {
        cli_help(stdout);
        return EXIT_OK;
    }
    if (!cmd && !maybe_action(argc, argv, at)) {
        fprintf(stderr, "error: unknown command \"%s\"\n", argv[at]);
        cli_help(stderr);
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
    struct cli cli = {.cmd = argv[at]};
    int rc = cmd ? cmd->run(&cli, n, rest) : cmd_verb(&cli, n, rest);
    cli_free(&cli);
    curl_global_cleanup();
    free(rest);
    return rc;
}
