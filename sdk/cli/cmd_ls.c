/* cmd_ls.c — cubectl ls: a directory of the project's files on the server
 * (remote.h), or one file's entry. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cube/util/json.h>

#include "remote.h"
#include "table.h"

static const char usage[] =
    "Usage: cubectl ls [:PATH] [-o table|name|json]\n"
    "\n"
    "Lists a directory of the project's files on the server (default: the\n"
    "project's directory), or one file. Directories end with '/'.\n"
    "\n"
    "Flags:\n"
    "  -o, --output FORMAT  table (NAME, SIZE, MODIFIED), name (one per line)\n"
    "                       or json (the server's entries)\n";

static int print_items(const cJSON *items, const char *fmt)
{
    if (!strcmp(fmt, "json")) {
        char *text = cJSON_Print(items);
        if (!text)
            return cli_fail("out of memory");
        puts(text);
        free(text);
        return 0;
    }
    static const char *const headers[] = {"NAME", "SIZE", "MODIFIED"};
    struct table t;
    struct buf out = {0};
    const cJSON *it;
    int bad = table_init(&t, 3, headers);
    cJSON_ArrayForEach(it, items) {
        int dir = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(it, "dir"));
        char name[1100], size[32] = "-";
        snprintf(name, sizeof name, "%s%s", cu_str_or(it, "name", ""), dir ? "/" : "");
        if (!dir)
            snprintf(size, sizeof size, "%.0f",
                     cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(it, "size")));
        const char *row[] = {name, size, cu_str_or(it, "modified", "")};
        if (!strcmp(fmt, "name"))
            puts(name);
        else if (!bad)
            bad = table_add(&t, row);
    }
    if (strcmp(fmt, "name") && !bad && cJSON_GetArraySize(items) &&
        !(bad = table_render(&t, 0, &out)))
        fputs(buf_str(&out), stdout);
    table_free(&t);
    buf_free(&out);
    return bad ? cli_fail("out of memory") : 0;
}

/* The entry of the file path: its parent's listing, kept to that name. */
static int file_entry(struct cli *cli, const char *project, char *path, cJSON **items)
{
    char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    if (slash)
        *slash = '\0';
    int rc = remote_list(cli, project, slash ? path : "", items);
    if (slash)
        *slash = '/';
    for (cJSON *it = rc ? NULL : (*items)->child, *next; it; it = next) {
        next = it->next;
        if (strcmp(cu_str_or(it, "name", ""), name))
            cJSON_Delete(cJSON_DetachItemViaPointer(*items, it));
    }
    return rc;
}

int cmd_ls(struct cli *cli, int argc, char **argv)
{
    const char *fmt = "table";
    const struct cli_flag flags[] = {FLAG_STR("output", 'o', &fmt), FLAG_END};
    int rc = cli_parse(cli, argc, argv, flags, usage);
    if (rc != CLI_GO)
        return rc;
    if (cli->npos > 1)
        return cli_usage_error(cli, "expected at most one path");
    if (strcmp(fmt, "table") && strcmp(fmt, "name") && strcmp(fmt, "json"))
        return cli_usage_error(cli, "-o: expected table, name or json");
    const char *arg = cli->npos ? cli->pos[0] : ":";
    arg += arg[0] == ':';
    while (*arg == '/')
        arg++;
    char *path = strdup(arg);
    size_t n = path ? strlen(path) : 0;
    while (n && path[n - 1] == '/')
        path[--n] = '\0';
    if (!path)
        return cli_fail("out of memory");
    enum remote_kind k;
    cJSON *items = NULL;
    if (!(rc = cli_connect(cli))) {
        const char *project = cli_project(cli);
        rc = remote_stat(cli, project, path, 0, &k);
        if (!rc)
            rc = k == REMOTE_DIR ? remote_list(cli, project, path, &items)
                                 : file_entry(cli, project, path, &items);
    }
    if (!rc)
        rc = print_items(items, fmt);
    cJSON_Delete(items);
    free(path);
    return rc;
}
