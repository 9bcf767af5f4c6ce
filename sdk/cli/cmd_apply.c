/* cmd_apply.c — cubectl apply (create or update each object in a file)
 * and cubectl create (create only). */
#include <stdio.h>
#include <string.h>

#include "api.h"
#include "manifest.h"
#include "url.h"

static const char apply_usage[] =
    "Usage: cubectl apply -f FILE|-\n"
    "\n"
    "Creates each object in FILE (YAML documents separated by ---, or JSON)\n"
    "that does not exist yet and updates the others, printing\n"
    "\"kind/name created|configured|unchanged\".\n"
    "\n"
    "Flags:\n"
    "  -f, --filename FILE   the objects; - reads standard input\n";
static const char create_usage[] =
    "Usage: cubectl create -f FILE|-\n"
    "       cubectl create token NAME [--duration 30d]\n"
    "\n"
    "Creates each object in FILE; one that exists already is an error.\n"
    "'create token' makes an API token for yourself and prints it, once: keep\n"
    "it (its id and expiry go to stderr; revoke it in the console).\n"
    "\n"
    "Flags:\n"
    "  -f, --filename FILE   the objects; - reads standard input\n"
    "      --duration D      create token: how long it lasts (90s, 12h, 30d;\n"
    "                        default the server's, 30 days)\n";

static const cJSON *member(const cJSON *obj, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(obj, key);
}

/* Equal, where a missing member counts as an empty object. */
static int same_or_empty(const cJSON *a, const cJSON *b)
{
    if (!a || !b) {
        const cJSON *other = a ? a : b;
        return !other || (cJSON_IsObject(other) && !other->child);
    }
    return cJSON_Compare(a, b, 1);
}

/* Whether applying want onto live would change nothing we manage: the
 * spec, the labels, and the annotations the file sets (the server may add
 * annotations of its own). */
static int unchanged(const cJSON *want, const cJSON *live)
{
    const cJSON *wm = member(want, "metadata"), *lm = member(live, "metadata");
    const cJSON *la = member(lm, "annotations"), *a;
    if (!same_or_empty(member(want, "spec"), member(live, "spec")) ||
        !same_or_empty(member(wm, "labels"), member(lm, "labels")))
        return 0;
    cJSON_ArrayForEach(a, member(wm, "annotations"))
        if (!cJSON_Compare(a, member(la, a->string), 1))
            return 0;
    return 1;
}

static void report(const struct target *t, const char *what)
{
    printf("%s/%s %s\n", t->kind->label, t->name, what);
    fflush(stdout);
}

/* Sends obj with method to path. Returns 0 and the answer in r, or
 * EXIT_FAIL. */
static int send_obj(struct cli *cli, const char *method, const char *path,
                    const cJSON *obj, struct api_result *r)
{
    char *body = cJSON_PrintUnformatted(obj);
    if (!body)
        return cli_fail("out of memory");
    int rc = api_call(cli, method, path, "application/json", body, r);
    cJSON_free(body);
    return rc;
}

/* GETs t's object: 0 with *live (NULL when 404), or EXIT_FAIL. */
static int fetch(struct cli *cli, const char *path, cJSON **live)
{
    struct api_result r;
    *live = NULL;
    int rc = api_call(cli, "GET", path, NULL, NULL, &r);
    if (rc)
        return rc;
    if (api_ok(&r) && cJSON_IsObject(r.json)) {
        *live = r.json;
        r.json = NULL;
    } else if (r.status != 404) {
        rc = api_ok(&r) ? cli_fail("GET %s: the answer is not an object", path)
                        : api_fail(&r);
    }
    api_result_free(&r);
    return rc;
}

/* PUTs want over live with live's resourceVersion; on 409 (someone wrote
 * in between) fetches again and retries once. */
static int update(struct cli *cli, const struct target *t, const char *path,
                  const cJSON *want, cJSON *live, int retries)
{
    if (unchanged(want, live)) {
        report(t, "unchanged");
        return 0;
    }
    cJSON *body = cJSON_Duplicate(want, 1);
    cJSON *meta = body ? cJSON_GetObjectItemCaseSensitive(body, "metadata") : NULL;
    const char *rv = api_meta(live, "resourceVersion");
    if (!meta) {
        cJSON_Delete(body);
        return cli_fail("out of memory");
    }
    cJSON_DeleteItemFromObjectCaseSensitive(meta, "resourceVersion");
    if (rv)
        cJSON_AddStringToObject(meta, "resourceVersion", rv);
    struct api_result r;
    int rc = send_obj(cli, "PUT", path, body, &r);
    cJSON_Delete(body);
    if (rc)
        return rc;
    if (api_ok(&r)) {
        /* the server may fill defaults: unchanged if it ends up the same */
        report(t, r.json && unchanged(r.json, live) ? "unchanged" : "configured");
    } else if (r.status == 409 && retries > 0) {
        cJSON *fresh;
        rc = fetch(cli, path, &fresh);
        if (!rc && !fresh)
            rc = cli_fail("%s/%s was deleted while being updated", t->kind->label,
                          t->name);
        else if (!rc)
            rc = update(cli, t, path, want, fresh, retries - 1);
        cJSON_Delete(fresh);
    } else {
        rc = api_fail(&r);
    }
    api_result_free(&r);
    return rc;
}

/* POSTs obj to its collection. *exists is set on 409 when wanted. */
static int create_obj(struct cli *cli, const struct target *t, const cJSON *obj,
                      int *exists)
{
    struct buf path = {0};
    struct api_result r;
    if (url_collection(&path, t->kind->plural, t->kind->cluster, t->project)) {
        buf_free(&path);
        return cli_fail("out of memory");
    }
    int rc = send_obj(cli, "POST", buf_str(&path), obj, &r);
    buf_free(&path);
    if (rc)
        return rc;
    if (api_ok(&r))
        report(t, "created");
    else if (r.status == 409 && exists)
        *exists = 1;
    else
        rc = api_fail(&r);
    api_result_free(&r);
    return rc;
}

static int apply_one(struct cli *cli, const cJSON *obj)
{
    struct target t;
    struct buf path = {0};
    cJSON *live = NULL;
    int exists = 0;
    int rc = manifest_target(cli, obj, &t);
    if (!rc && manifest_path(&t, NULL, &path))
        rc = cli_fail("out of memory");
    if (!rc)
        rc = fetch(cli, buf_str(&path), &live);
    if (!rc && !live)
        rc = create_obj(cli, &t, obj, &exists);
    if (!rc && exists)   /* created by someone else since our GET */
        rc = fetch(cli, buf_str(&path), &live);
    if (!rc && live)
        rc = update(cli, &t, buf_str(&path), obj, live, 1);
    cJSON_Delete(live);
    buf_free(&path);
    return rc;
}

static int create_one(struct cli *cli, const cJSON *obj)
{
    struct target t;
    int rc = manifest_target(cli, obj, &t);
    return rc ? rc : create_obj(cli, &t, obj, NULL);
}

/* Reads the file and runs each_obj on every object, carrying on past
 * failures. */
static int run_file(struct cli *cli, const char *file,
                    int (*each_obj)(struct cli *, const cJSON *))
{
    cJSON *objs = manifest_read(file);
    if (!objs)
        return EXIT_FAIL;
    int rc = cli_connect(cli);
    if (!rc) {
        const cJSON *obj;
        cJSON_ArrayForEach(obj, objs)
            if (each_obj(cli, obj))
                rc = EXIT_FAIL;
    }
    cJSON_Delete(objs);
    return rc;
}

int cmd_apply(struct cli *cli, int argc, char **argv)
{
    const char *file = NULL;
    const struct cli_flag flags[] = {FLAG_STR("filename", 'f', &file), FLAG_END};
    int rc = cli_parse(cli, argc, argv, flags, apply_usage);
    if (rc != CLI_GO)
        return rc;
    if (!file || cli->npos)
        return cli_usage_error(cli, "expected -f FILE (and no other arguments)");
    return run_file(cli, file, apply_one);
}

int cmd_create(struct cli *cli, int argc, char **argv)
{
    const char *file = NULL, *duration = NULL;
    const struct cli_flag flags[] = {
        FLAG_STR("filename", 'f', &file),
        FLAG_STR("duration", 0, &duration),
        FLAG_END,
    };
    int rc = cli_parse(cli, argc, argv, flags, create_usage);
    if (rc != CLI_GO)
        return rc;
    if (cli->npos >= 1 && !strcmp(cli->pos[0], "token")) {
        if (cli->npos != 2 || file)
            return cli_usage_error(cli, "expected: create token NAME [--duration D]");
        return cmd_create_token(cli, cli->pos[1], duration);
    }
    if (duration)
        return cli_usage_error(cli, "--duration is for create token");
    if (!file || cli->npos)
        return cli_usage_error(cli, "expected -f FILE (and no other arguments)");
    return run_file(cli, file, create_one);
}
