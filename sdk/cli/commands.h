/* commands.h — cubectl's command table: the words main() dispatches on,
 * what `cubectl help` lists and what shell completion offers. */
#ifndef CUBECTL_COMMANDS_H
#define CUBECTL_COMMANDS_H

#include <stddef.h>
#include <stdio.h>

#include "cli.h"

struct command {
    const char *name;
    int (*run)(struct cli *cli, int argc, char **argv);
    const char *summary;
};

extern const struct command cli_commands[];
extern const size_t cli_n_commands;

/* The command named name, or NULL. */
const struct command *cli_find_command(const char *name);
/* Prints `cubectl help` to f. */
void cli_help(FILE *f);

#endif
