/* args.c — see args.h. Written rather than getopt_long so that global and
 * per-command tables combine without building option arrays at run time,
 * and so parse errors come back as text for the usage message. */
#include "args.h"

#include <stdio.h>
#include <string.h>

static const struct cli_flag *find(const struct cli_flag *const *tables,
                                   int ntables, const char *name, size_t len,
                                   char shortc)
{
    for (int t = 0; t < ntables; t++)
        for (const struct cli_flag *f = tables[t]; f->name; f++) {
            if (shortc ? f->shortc == shortc
                       : strlen(f->name) == len && !strncmp(f->name, name, len))
                return f;
        }
    return NULL;
}

/* Handles the flag at argv[*i]; `inline_value` is text after '=' or after a
 * one-letter flag, or NULL. Advances *i past a separate value. */
static int take(const struct cli_flag *f, const char *shown,
                const char *inline_value, int argc, char **argv, int *i,
                char *err, size_t errlen)
{
    if (!f->value && !f->many) {
        if (inline_value) {
            snprintf(err, errlen, "flag %s takes no value", shown);
            return -1;
        }
        *f->on = 1;
        return 0;
    }
    if (!inline_value) {
        if (*i + 1 >= argc) {
            snprintf(err, errlen, "flag %s needs a value", shown);
            return -1;
        }
        inline_value = argv[++*i];
    }
    if (f->value) {
        *f->value = inline_value;
        return 0;
    }
    if (f->many->n == FLAG_LIST_MAX) {
        snprintf(err, errlen, "flag %s given more than %d times", shown, FLAG_LIST_MAX);
        return -1;
    }
    f->many->v[f->many->n++] = inline_value;
    return 0;
}

static int one_flag(const struct cli_flag *const *tables, int ntables,
                    int argc, char **argv, int *i, char *err, size_t errlen)
{
    const char *a = argv[*i];
    const struct cli_flag *f;
    if (a[1] == '-') {
        const char *eq = strchr(a + 2, '=');
        size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
        f = find(tables, ntables, a + 2, len, 0);
        if (!f) {
            snprintf(err, errlen, "unknown flag: --%.*s", (int)len, a + 2);
            return -1;
        }
        return take(f, a, eq ? eq + 1 : NULL, argc, argv, i, err, errlen);
    }
    /* a bundle of one-letter flags: -Aw, -ojson, -l app=x */
    for (const char *p = a + 1; *p; p++) {
        char flag[3] = {'-', *p, 0};
        f = find(tables, ntables, NULL, 0, *p);
        if (!f) {
            snprintf(err, errlen, "unknown shorthand flag: '%c' in %s", *p, a);
            return -1;
        }
        if (f->value || f->many)
            return take(f, flag, p[1] ? p + 1 + (p[1] == '=') : NULL, argc,
                        argv, i, err, errlen);
        *f->on = 1;
    }
    return 0;
}

int args_parse(int argc, char **argv, const struct cli_flag *const *tables,
               int ntables, char **pos, int *npos, char *err, size_t errlen)
{
    int only_positionals = 0;
    *npos = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (only_positionals || a[0] != '-' || !a[1]) {
            pos[(*npos)++] = argv[i];   /* "-" alone means stdin: a value */
        } else if (!strcmp(a, "--")) {
            only_positionals = 1;
        } else if (one_flag(tables, ntables, argc, argv, &i, err, errlen)) {
            return -1;
        }
    }
    return 0;
}
