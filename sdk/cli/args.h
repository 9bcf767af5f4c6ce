/* args.h — command-line flags: --name VALUE, --name=VALUE, -x VALUE, -xVALUE,
 * boolean -x/--name, "--" ending flags; flags may follow positionals. */
#ifndef CUBECTL_ARGS_H
#define CUBECTL_ARGS_H

#include <stddef.h>

#define FLAG_LIST_MAX 64

/* The values of a flag that may be given many times (--field a=1 --field
 * b=2), in order; they point into argv. */
struct flag_list {
    const char *v[FLAG_LIST_MAX];
    int n;
};

struct cli_flag {
    const char *name;     /* long name without "--"; NULL ends a table */
    char shortc;          /* one-letter form, or 0 */
    const char **value;   /* value flag: receives its argument */
    int *on;              /* boolean flag: set to 1 */
    struct flag_list *many;  /* repeatable value flag: each value appended */
};

/* Table entries: a value flag, a boolean flag, a repeatable value flag,
 * and the end of a table. */
#define FLAG_STR(name, c, p) {(name), (c), (p), NULL, NULL}
#define FLAG_ON(name, c, p) {(name), (c), NULL, (p), NULL}
#define FLAG_LIST(name, c, p) {(name), (c), NULL, NULL, (p)}
#define FLAG_END {NULL, 0, NULL, NULL, NULL}

/* Parses argv[0..argc) against the flag tables (each ended by a NULL
 * name), storing positionals in pos (argc slots) and their count in
 * *npos. Returns 0, or -1 after writing the problem into err. */
int args_parse(int argc, char **argv, const struct cli_flag *const *tables,
               int ntables, char **pos, int *npos, char *err, size_t errlen);

#endif
