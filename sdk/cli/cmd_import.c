/* cmd_import.c — cubectl import: creates an object from a document that
 * export wrote (POST /api/v1/projects/{p}/{plural}/import), in the
 * current project or the one the document names. The document is read
 * here (YAML or JSON) and sent as JSON. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <cube/util/yaml.h>

#include "action.h"
#include "api.h"
#include "url.h"
#include "yaml_conv.h"

static const char usage[] =
    "Usage: cubectl import -f FILE|- [--name NAME]\n"
    "\n"
    "Creates an object (a pipeline) from a document 'cubectl export' printed,\n"
    "in the current project; the server checks it like any create.\n"
    "\n"
    "Flags:\n"
    "  -f, --filename FILE   the document (YAML or JSON); - reads standard input\n"
    "      --name NAME       create it under this name instead of its own\n"
    "  -o, --output FORMAT   json or yaml: print the created object\n";

struct import {
    const char *file, *name, *output;
    struct buf text;
    cJSON *docs;
};

/* Reads the file and its one document. */
static int read_doc(struct import *im)
{
    char err[512];
    const char *shown = strcmp(im->file, "-") ? im->file : "<stdin>";
    if (buf_read_file(&im->text, im->file))
        return cli_fail("%s: %s", shown, strerror(errno));
    im->docs = cu_yaml_parse_all(buf_str(&im->text), im->text.len, shown, err, sizeof err);
    if (!im->docs)
        return cli_fail("%s", err);
    if (cJSON_GetArraySize(im->docs) != 1 || !cJSON_IsObject(cJSON_GetArrayItem(im->docs, 0)))
        return cli_fail("%s: expected one document (a mapping)", shown);
    return 0;
}

static int post(struct cli *cli, struct import *im, const struct kind *k, const char *project)
{
    struct buf path = {0};
    struct api_result r;
    /* sent as JSON: the file may use any YAML cubectl reads */
    char *body = cJSON_PrintUnformatted(cJSON_GetArrayItem(im->docs, 0));
    if (!body || url_object(&path, k->plural, 0, project, "import", NULL) ||
        (im->name && url_add_query(&path, "name", im->name))) {
        cJSON_free(body);
        buf_free(&path);
        return cli_fail("out of memory");
    }
    int rc = api_call(cli, "POST", buf_str(&path), "application/json", body, &r);
    cJSON_free(body);
    buf_free(&path);
    if (rc)
        return rc;
    const char *made = api_meta(r.json, "name");
    if (!api_ok(&r))
        rc = api_fail(&r);
    else if (im->output)
        rc = action_print(r.json, im->output);
    else
        printf("%s/%s created\n", k->label, made ? made : "?");
    api_result_free(&r);
    return rc;
}

int cmd_import(struct cli *cli, int argc, char **argv)
{
    struct import im = {0};
    const struct cli_flag flags[] = {
        FLAG_STR("filename", 'f', &im.file),
        FLAG_STR("name", 0, &im.name),
        FLAG_STR("output", 'o', &im.output),
        FLAG_END,
    };
    int rc = cli_parse(cli, argc, argv, flags, usage);
    if (rc != CLI_GO)
        return rc;
    if (!im.file || cli->npos)
        return cli_usage_error(cli, "expected -f FILE");
    if (im.output && strcmp(im.output, "json") && strcmp(im.output, "yaml"))
        return cli_usage_error(cli, "-o: json or yaml");
    const cJSON *doc = NULL;
    const struct kind *k = NULL;
    if (!(rc = read_doc(&im)) && !(rc = cli_connect(cli))) {
        doc = cJSON_GetArrayItem(im.docs, 0);
        rc = (k = api_kind_of(cli, doc)) ? 0 : EXIT_FAIL;
    }
    if (!rc && k->cluster)
        rc = cli_fail("%s is a cluster kind: it has no project to import into", k->kind);
    const char *own = rc ? NULL : api_meta(doc, "project");
    if (!rc && own && *own && cli->flag_project && strcmp(own, cli->flag_project))
        rc = cli_fail("the document is in project \"%s\", not \"%s\" given by -p", own,
                      cli->flag_project);
    if (!rc)
        rc = post(cli, &im, k, own && *own ? own : cli_project(cli));
    cJSON_Delete(im.docs);
    buf_free(&im.text);
    return rc;
}
