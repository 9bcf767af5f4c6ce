/* cmd_patch.c — cubectl patch: a JSON merge patch (RFC 7396) on one
 * object. */
#include <stdio.h>
#include <string.h>

#include <cube/util/yaml.h>

#include "api.h"
#include "manifest.h"
#include "yaml_conv.h"

static const char usage[] =
    "Usage: cubectl patch KIND NAME --merge PATCH\n"
    "\n"
    "Applies a JSON merge patch, e.g. --merge '{\"spec\":{\"size\":3}}'\n"
    "(YAML flow syntax works too); null removes a key.\n"
    "\n"
    "Flags:\n"
    "      --merge PATCH   the patch, a JSON object\n";

/* Parses the patch locally so a typo is a usage error, not a 400. */
static char *patch_body(struct cli *cli, const char *text, int *rc)
{
    char err[256];
    cJSON *docs = cu_yaml_parse_all(text, strlen(text), "--merge", err, sizeof err);
    const cJSON *doc = cJSON_GetArrayItem(docs, 0);
    char *body = NULL;
    if (!docs)
        *rc = cli_usage_error(cli, "%s", err);
    else if (cJSON_GetArraySize(docs) != 1 || !cJSON_IsObject(doc))
        *rc = cli_usage_error(cli, "--merge needs one JSON object");
    else if (!(body = cJSON_PrintUnformatted(doc)))
        *rc = cli_fail("out of memory");
    cJSON_Delete(docs);
    return body;
}

int cmd_patch(struct cli *cli, int argc, char **argv)
{
    const char *merge = NULL;
    const struct cli_flag flags[] = {
        FLAG_STR("merge", 0, &merge),
        FLAG_END,
    };
    int rc = cli_parse(cli, argc, argv, flags, usage);
    if (rc != CLI_GO)
        return rc;
    if (cli->npos != 2 || !merge)
        return cli_usage_error(cli, "expected KIND NAME --merge PATCH");
    char *body = patch_body(cli, merge, &rc);
    if (!body)
        return rc;
    const struct kind *k = (rc = cli_connect(cli)) ? NULL : api_kind(cli, cli->pos[0]);
    struct target t = {k, k && !k->cluster ? cli_project(cli) : NULL, cli->pos[1]};
    struct buf path = {0};
    struct api_result r;
    if (!k || manifest_path(&t, NULL, &path) ||
        api_call(cli, "PATCH", buf_str(&path), "application/merge-patch+json",
                 body, &r)) {
        rc = EXIT_FAIL;
    } else {
        if (api_ok(&r))
            printf("%s/%s patched\n", k->label, t.name);
        else
            rc = api_fail(&r);
        api_result_free(&r);
    }
    cJSON_free(body);
    buf_free(&path);
    return rc;
}
