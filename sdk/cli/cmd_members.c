/* cmd_members.c — cubectl members: who belongs to the current project and
 * with which role (the routes under /api/v1/projects/{p}/members). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cube/util/json.h>

#include "api.h"
#include "table.h"
#include "url.h"

static const char usage[] =
    "Usage: cubectl members [list]\n"
    "       cubectl members add USER --role ROLE\n"
    "       cubectl members set USER --role ROLE\n"
    "       cubectl members remove USER\n"
    "\n"
    "Lists or changes the members of the current project (-p). Roles: creator\n"
    "(members and settings), ops (operates every object), dev (creates objects),\n"
    "viewer (reads). Changing members needs the creator role.\n"
    "\n"
    "Flags:\n"
    "      --role ROLE   creator, ops, dev or viewer\n";

static int print_members(const cJSON *list)
{
    static const char *const head[] = {"USER", "ROLE"};
    struct table t;
    struct buf b = {0};
    if (table_init(&t, 2, head))
        return cli_fail("out of memory");
    const cJSON *m;
    int rc = 0;
    cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(list, "items")) {
        const char *row[] = {cu_str(m, "user"), cu_str(m, "role")};
        rc |= table_add(&t, row);
    }
    if (!rc && !(rc = table_render(&t, 0, &b)))
        fputs(buf_str(&b), stdout);
    buf_free(&b);
    table_free(&t);
    return rc ? cli_fail("out of memory") : 0;
}

/* The members path of the project, with /user when user is given. */
static int members_path(struct cli *cli, const char *user, struct buf *b)
{
    char *p = url_escape(cli_project(cli), NULL), *u = user ? url_escape(user, NULL) : NULL;
    int rc = !p || (user && !u) ||
             buf_printf(b, "/api/v1/projects/%s/members%s%s", p, u ? "/" : "", u ? u : "");
    free(p);
    free(u);
    return rc ? -1 : 0;
}

static int call(struct cli *cli, const char *method, const char *user, const cJSON *body,
                const char *done)
{
    struct buf path = {0};
    char *text = body ? cJSON_PrintUnformatted(body) : NULL;
    struct api_result r;
    int rc = members_path(cli, user, &path) || (body && !text)
                 ? cli_fail("out of memory")
                 : api_call(cli, method, buf_str(&path), text ? "application/json" : NULL,
                            text, &r);
    buf_free(&path);
    cJSON_free(text);
    if (rc)
        return rc;
    if (!api_ok(&r))
        rc = api_fail(&r);
    else if (done)
        printf("%s\n", done);
    else
        rc = print_members(r.json);
    api_result_free(&r);
    return rc;
}

int cmd_members(struct cli *cli, int argc, char **argv)
{
    const char *role = NULL;
    const struct cli_flag flags[] = {FLAG_STR("role", 0, &role), FLAG_END};
    int rc = cli_parse(cli, argc, argv, flags, usage);
    if (rc != CLI_GO)
        return rc;
    const char *sub = cli->npos ? cli->pos[0] : "list";
    int list = !strcmp(sub, "list"), add = !strcmp(sub, "add"), set = !strcmp(sub, "set");
    int remove = !strcmp(sub, "remove");
    if (!list && !add && !set && !remove)
        return cli_usage_error(cli, "unknown members subcommand \"%s\"", sub);
    if (cli->npos != (list ? cli->npos ? 1 : 0 : 2))
        return cli_usage_error(cli, list ? "members list takes no arguments"
                                         : "expected members %s USER", sub);
    if ((add || set) != !!role)
        return cli_usage_error(cli, role ? "--role is for add and set" : "--role is required");
    if ((rc = cli_connect(cli)))
        return rc;
    if (list)
        return call(cli, "GET", NULL, NULL, NULL);
    const char *user = cli->pos[1], *project = cli_project(cli);
    char done[600];
    cJSON *body = cJSON_CreateObject();
    if (add)
        cJSON_AddStringToObject(body, "user", user);
    if (role)
        cJSON_AddStringToObject(body, "role", role);
    snprintf(done, sizeof done, "user %s %s project %s%s%s%s", user,
             add ? "added to" : set ? "changed in" : "removed from", project,
             role ? " (" : "", role ? role : "", role ? ")" : "");
    rc = call(cli, add ? "POST" : set ? "PUT" : "DELETE", add ? NULL : user,
              remove ? NULL : body, done);
    cJSON_Delete(body);
    return rc;
}
