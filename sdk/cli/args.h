/* args.h — command-line flags: --name VALUE, --name=VALUE, -x VALUE, -xVALUE,
 * boolean -x/--name, "--" ending flags; flags may follow positionals. */
#ifndef CUBECTL_ARGS_H
#define CUBECTL_ARGS_H

#include <stddef.h>

struct cli_flag {
    const char *name;     /* long name without "--"; NULL ends a table */
    char shortc;          /* one-letter form, or 0 */
    const char **value;   /* value flag: receives its argument */
    int *on;              /* boolean flag: set to 1 */
};

/* Parses argv[0..argc) against the flag tables (each ended by a NULL
 * name), storing positionals in pos (argc slots) and their count in
 * *npos. Returns 0, or -1 after writing the problem into err. */
int args_parse(int argc, char **argv, const struct cli_flag *const *tables,
               int ntables, char **pos, int *npos, char *err, size_t errlen);

#endif
