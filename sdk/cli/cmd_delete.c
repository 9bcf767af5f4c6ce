/* cmd_delete.c — cubectl delete: by kind and names, by label selector,
 * or every object named in a file. */
#include <stdio.h>
#include <string.h>

#include "api.h"
#include "manifest.h"

static const char usage[] =
    "Usage: cubectl delete KIND NAME... | KIND/NAME... | KIND -l SEL | KIND --all\n"
    "                      | -f FILE|-\n"
    "\n"
    "Deletes the named objects, those the selector matches (in the current\n"
    "project), or the objects in FILE.\n"
    "\n"
    "Flags:\n"
    "  -f, --filename FILE     delete the objects this file describes\n"
    "  -l, --selector SEL      delete the objects of KIND with these labels\n"
    "      --all               delete every object of KIND (in the project)\n"
    "      --ignore-not-found  an object that does not exist is no error (and\n"
    "                          nothing is printed for it)\n";

struct delete_opts {
    const char *file, *selector;
    int ignore_missing, all;
};

/* After a 403 with --ignore-not-found: whether the object is missing (a
 * server may refuse to delete what it cannot find the owner of). */
static int is_missing(struct cli *cli, const char *path)
{
    struct api_result r;
    if (api_call(cli, "GET", path, NULL, NULL, &r))
        return 0;
    int missing = r.status == 404;
    api_result_free(&r);
    return missing;
}

static int delete_one(struct cli *cli, const struct target *t, int ignore_missing)
{
    struct buf path = {0};
    struct api_result r;
    if (manifest_path(t, NULL, &path)) {
        buf_free(&path);
        return cli_fail("out of memory");
    }
    int rc = api_call(cli, "DELETE", buf_str(&path), NULL, NULL, &r);
    if (rc) {
        buf_free(&path);
        return rc;
    }
    if (api_ok(&r))
        printf("%s/%s deleted\n", t->kind->label, t->name);
    else if (!(ignore_missing && (r.status == 404 ||
                                  (r.status == 403 && is_missing(cli, buf_str(&path))))))
        rc = api_fail(&r);
    buf_free(&path);
    api_result_free(&r);
    fflush(stdout);
    return rc;
}

static int delete_file(struct cli *cli, const char *file, int ignore_missing)
{
    cJSON *objs = manifest_read(file);
    int rc = objs ? cli_connect(cli) : EXIT_FAIL;
    const cJSON *obj;
    const cJSON *todo = rc ? NULL : objs;   /* nothing after a failure */
    cJSON_ArrayForEach(obj, todo) {
        struct target t;
        if (manifest_target(cli, obj, &t) || delete_one(cli, &t, ignore_missing))
            rc = EXIT_FAIL;
    }
    cJSON_Delete(objs);
    return rc;
}

/* -l SEL or --all: lists the kind, then deletes what it found. */
static int delete_matching(struct cli *cli, const struct kind *k, const struct delete_opts *o)
{
    const char *project = k->cluster ? NULL : cli_project(cli);
    cJSON *items = cJSON_CreateArray();
    int rc = items ? api_list(cli, k, project, o->selector, 0, items, NULL)
                   : cli_fail("out of memory");
    if (!rc && cJSON_GetArraySize(items) == 0)
        fprintf(stderr, "No resources found%s%s.\n", project ? " in " : "",
                project ? project : "");
    const cJSON *item, *todo = rc ? NULL : items;   /* nothing after a failure */
    cJSON_ArrayForEach(item, todo) {
        struct target t = {k, project, api_meta(item, "name")};
        if (t.name && delete_one(cli, &t, 1))   /* gone meanwhile is fine */
            rc = EXIT_FAIL;
    }
    cJSON_Delete(items);
    return rc;
}

/* KIND NAME..., KIND/NAME... (each its own kind), KIND -l, KIND --all. */
static int delete_args(struct cli *cli, const struct delete_opts *o)
{
    int rc = cli_connect(cli), slashed = strchr(cli->pos[0], '/') != NULL;
    const struct kind *k = rc || slashed ? NULL : api_kind(cli, cli->pos[0]);
    if (rc || (!slashed && !k))
        return rc ? rc : EXIT_FAIL;
    if (o->selector || o->all)
        return delete_matching(cli, k, o);
    for (int i = slashed ? 0 : 1; i < cli->npos; i++) {
        char split[512];
        const char *name = cli->pos[i], *slash = strchr(name, '/');
        if (slashed) {
            if (!slash || slash == name || !slash[1] || strlen(name) >= sizeof split) {
                rc = cli_usage_error(cli, "\"%s\": expected KIND/NAME", name);
                break;
            }
            memcpy(split, name, (size_t)(slash - name));
            split[slash - name] = '\0';
            name = slash + 1;
            if (!(k = api_kind(cli, split))) {
                rc = EXIT_FAIL;
                continue;
            }
        }
        struct target t = {k, k->cluster ? NULL : cli_project(cli), name};
        if (delete_one(cli, &t, o->ignore_missing))
            rc = EXIT_FAIL;
    }
    return rc;
}

int cmd_delete(struct cli *cli, int argc, char **argv)
{
    struct delete_opts o = {0};
    const struct cli_flag flags[] = {
        FLAG_STR("filename", 'f', &o.file),
        FLAG_STR("selector", 'l', &o.selector),
        FLAG_ON("all", 0, &o.all),
        FLAG_ON("ignore-not-found", 0, &o.ignore_missing),
        FLAG_END,
    };
    int rc = cli_parse(cli, argc, argv, flags, usage);
    if (rc != CLI_GO)
        return rc;
    if (o.file && (cli->npos || o.selector || o.all))
        return cli_usage_error(cli, "give either -f FILE or KIND NAME..., not both");
    if (o.file)
        return delete_file(cli, o.file, o.ignore_missing);
    int matching = o.selector || o.all;
    if (o.selector && o.all)
        return cli_usage_error(cli, "-l and --all exclude each other");
    if (matching && (cli->npos != 1 || strchr(cli->pos[0], '/')))
        return cli_usage_error(cli, "-l and --all take one KIND and no names");
    if (!matching && (cli->npos < 1 || (cli->npos < 2 && !strchr(cli->pos[0], '/'))))
        return cli_usage_error(cli, "expected KIND NAME..., KIND/NAME..., KIND -l SEL "
                               "or -f FILE");
    return delete_args(cli, &o);
}
