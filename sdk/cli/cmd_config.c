/* cmd_config.c — cubectl config: the contexts of the config file (see
 * config.h), as kubectl config shows and edits them. Nothing here talks
 * to a server. */
#include <stdio.h>
#include <string.h>

#include <cube/util/json.h>

#include "buf.h"
#include "cli.h"
#include "table.h"

static const char usage[] =
    "Usage: cubectl config SUBCOMMAND\n"
    "\n"
    "The contexts of the config file: each names a server, a token and a\n"
    "project; commands use the current one (or --context NAME).\n"
    "\n"
    "Subcommands:\n"
    "  get-contexts [NAME]        list the contexts; * marks the current one\n"
    "  current-context            print the current context's name\n"
    "  use-context NAME           make NAME the current context\n"
    "  set-context NAME|--current [-p PROJECT] [-s URL] [--token T]\n"
    "                             create or change a context (an empty value\n"
    "                             removes the setting: -p '' acts in the\n"
    "                             server's default project)\n"
    "  delete-context NAME        remove a context\n"
    "\n"
    "Flags:\n"
    "      --current   set-context: change the current context\n"
    "  -o, --output    get-contexts: name prints only the names\n";

struct config_cmd {
    struct cli *cli;
    cJSON *doc;       /* the file, in the context form */
    int current;      /* --current */
    const char *output;
};

static const char *current_name(const cJSON *doc)
{
    const char *n = cu_str(doc, "current-context");
    return n && *n ? n : NULL;
}

static int save(struct config_cmd *c)
{
    char err[512];
    return config_write_doc(c->cli->config_file, c->doc, err, sizeof err)
               ? cli_fail("%s", err) : 0;
}

static int get_contexts(struct config_cmd *c)
{
    static const char *const head[] = {"CURRENT", "NAME", "SERVER", "PROJECT"};
    const char *only = c->cli->npos > 1 ? c->cli->pos[1] : NULL;
    if (only && !config_find_context(c->doc, only))
        return cli_fail("context \"%s\" not found", only);
    int names = c->output && !strcmp(c->output, "name");
    if (c->output && !names)
        return cli_usage_error(c->cli, "-o: only name is known here");
    struct table t;
    if (table_init(&t, 4, head))
        return cli_fail("out of memory");
    const char *cur = current_name(c->doc);
    const cJSON *ctx;
    int rc = 0;
    cJSON_ArrayForEach(ctx, cJSON_GetObjectItemCaseSensitive(c->doc, "contexts")) {
        const char *name = cu_str(ctx, "name");
        if (!name || (only && strcmp(name, only)))
            continue;
        const char *project = cu_str(ctx, "project");
        const char *row[] = {cur && !strcmp(cur, name) ? "*" : "", name,
                             cu_str(ctx, "server"),
                             project && *project ? project : "(server default)"};
        if (names)
            printf("%s\n", name);
        else
            rc |= table_add(&t, row);
    }
    struct buf b = {0};
    if (!names && !rc && !(rc = table_render(&t, 0, &b)))
        fputs(buf_str(&b), stdout);
    buf_free(&b);
    table_free(&t);
    return rc ? cli_fail("out of memory") : 0;
}

static int current_context(struct config_cmd *c)
{
    const char *cur = current_name(c->doc);
    if (!cur)
        return cli_fail("current-context is not set");
    printf("%s\n", cur);
    return 0;
}

static int use_context(struct config_cmd *c)
{
    const char *name = c->cli->pos[1];
    if (!config_find_context(c->doc, name))
        return cli_fail("no context exists with the name: \"%s\"", name);
    cJSON_DeleteItemFromObjectCaseSensitive(c->doc, "current-context");
    if (!cJSON_AddStringToObject(c->doc, "current-context", name))
        return cli_fail("out of memory");
    int rc = save(c);
    if (!rc)
        printf("Switched to context \"%s\".\n", name);
    return rc;
}

/* Sets (value non-empty) or removes (value "") key of ctx; NULL: kept. */
static int set_opt(cJSON *ctx, const char *key, const char *value)
{
    if (!value)
        return 0;
    cJSON_DeleteItemFromObjectCaseSensitive(ctx, key);
    return *value && !cJSON_AddStringToObject(ctx, key, value) ? -1 : 0;
}

static cJSON *new_context(cJSON *doc, const char *name)
{
    cJSON *list = cJSON_GetObjectItemCaseSensitive(doc, "contexts");
    if (!cJSON_IsArray(list)) {
        cJSON_DeleteItemFromObjectCaseSensitive(doc, "contexts");
        list = cJSON_AddArrayToObject(doc, "contexts");
    }
    cJSON *ctx = list ? cJSON_CreateObject() : NULL;
    if (ctx && cJSON_AddStringToObject(ctx, "name", name))
        cJSON_AddItemToArray(list, ctx);
    else if (ctx)
        ctx = (cJSON_Delete(ctx), NULL);
    return ctx;
}

static int set_context(struct config_cmd *c)
{
    struct cli *cli = c->cli;
    const char *name = cli->npos > 1 ? cli->pos[1] : NULL;
    const char *server = cli->flag_server;
    if (!!name == !!c->current)
        return cli_usage_error(cli, "give a context NAME or --current (one of them)");
    if (c->current && !(name = current_name(c->doc)))
        return cli_fail("no current context is set (see 'cubectl config use-context')");
    if (!config_context_name_ok(name))
        return cli_usage_error(cli, "a context name has 1 to 253 characters, no spaces");
    if (server && *server && strncmp(server, "http://", 7) && strncmp(server, "https://", 8))
        return cli_usage_error(cli, "--server must start with http:// or https://");
    cJSON *ctx = config_find_context(c->doc, name);
    int created = !ctx;
    if (created && !(ctx = new_context(c->doc, name)))
        return cli_fail("out of memory");
    if (set_opt(ctx, "server", server) || set_opt(ctx, "token", cli->flag_token) ||
        set_opt(ctx, "project", cli->flag_project))
        return cli_fail("out of memory");
    int rc = save(c);
    if (!rc)
        printf("Context \"%s\" %s.\n", name, created ? "created" : "modified");
    return rc;
}

static int delete_context(struct config_cmd *c)
{
    const char *name = c->cli->pos[1];
    cJSON *list = cJSON_GetObjectItemCaseSensitive(c->doc, "contexts"), *ctx;
    int i = 0;
    cJSON_ArrayForEach(ctx, list) {
        if (!strcmp(cu_str(ctx, "name") ? cu_str(ctx, "name") : "", name))
            break;
        i++;
    }
    if (!ctx)
        return cli_fail("no context exists with the name: \"%s\"", name);
    const char *cur = current_name(c->doc);
    int was_current = cur && !strcmp(cur, name);
    if (was_current)
        fprintf(stderr, "warning: this removed your current context; use "
                        "'cubectl config use-context' to pick another\n");
    cJSON_DeleteItemFromArray(list, i);
    if (was_current)
        cJSON_DeleteItemFromObjectCaseSensitive(c->doc, "current-context");
    int rc = save(c);
    if (!rc)
        printf("deleted context %s from %s\n", name, c->cli->config_file);
    return rc;
}

struct subcommand {
    const char *name;
    int min_pos, max_pos;   /* positionals after the subcommand's name */
    int (*run)(struct config_cmd *c);
};

static const struct subcommand subcommands[] = {
    {"get-contexts", 0, 1, get_contexts},
    {"current-context", 0, 0, current_context},
    {"use-context", 1, 1, use_context},
    {"use", 1, 1, use_context},
    {"set-context", 0, 1, set_context},
    {"delete-context", 1, 1, delete_context},
};

static int run(struct config_cmd *c, const struct subcommand *s)
{
    char err[512];
    int n = c->cli->npos - 1;
    if (n < s->min_pos || n > s->max_pos)
        return cli_usage_error(c->cli, "config %s: wrong number of arguments", s->name);
    if (!(c->cli->config_file = config_path()))
        return cli_fail("no config file: set HOME or CUBE_CONFIG");
    if (!(c->doc = config_read_doc(c->cli->config_file, err, sizeof err)))
        return cli_fail("%s", err);
    int rc = s->run(c);
    cJSON_Delete(c->doc);
    return rc;
}

int cmd_config(struct cli *cli, int argc, char **argv)
{
    struct config_cmd c = {.cli = cli};
    const struct cli_flag flags[] = {
        FLAG_ON("current", 0, &c.current),
        FLAG_STR("output", 'o', &c.output),
        FLAG_END,
    };
    int rc = cli_parse(cli, argc, argv, flags, usage);
    if (rc != CLI_GO)
        return rc;
    if (cli->npos < 1)
        return cli_usage_error(cli, "expected a subcommand (see 'cubectl config --help')");
    for (size_t i = 0; i < sizeof subcommands / sizeof subcommands[0]; i++)
        if (!strcmp(cli->pos[0], subcommands[i].name))
            return run(&c, &subcommands[i]);
    return cli_usage_error(cli, "unknown config subcommand \"%s\"", cli->pos[0]);
}
