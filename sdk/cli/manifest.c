/* manifest.c — see manifest.h. */
#include "manifest.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <cube/util/yaml.h>

#include "api.h"
#include "url.h"
#include "yaml_conv.h"

/* A "...List" object with an items array (kubectl's List convention). */
static const cJSON *list_items(const cJSON *doc)
{
    const cJSON *kind = cJSON_GetObjectItemCaseSensitive(doc, "kind");
    const cJSON *items = cJSON_GetObjectItemCaseSensitive(doc, "items");
    size_t n = cJSON_IsString(kind) ? strlen(kind->valuestring) : 0;
    if (n < 4 || strcmp(kind->valuestring + n - 4, "List") || !cJSON_IsArray(items))
        return NULL;
    return items;
}

/* Moves every object of docs (expanding arrays and lists) into out. */
static int flatten(const char *path, cJSON *docs, cJSON *out)
{
    int i = 0;
    cJSON *doc;
    while ((doc = cJSON_DetachItemFromArray(docs, 0))) {
        i++;
        const cJSON *inner = cJSON_IsArray(doc) ? doc : list_items(doc);
        if (inner) {
            cJSON *copy = cJSON_Duplicate(inner, 1);
            cJSON_Delete(doc);
            if (!copy || flatten(path, copy, out)) {
                cJSON_Delete(copy);
                return -1;
            }
            cJSON_Delete(copy);
            continue;
        }
        if (!cJSON_IsObject(doc)) {
            cJSON_Delete(doc);
            cli_fail("%s: document %d is not a mapping", path, i);
            return -1;
        }
        cJSON_AddItemToArray(out, doc);
    }
    return 0;
}

cJSON *manifest_read(const char *path)
{
    struct buf b = {0};
    char err[512];
    const char *name = strcmp(path, "-") ? path : "<stdin>";
    if (buf_read_file(&b, path)) {
        cli_fail("%s: %s", name, strerror(errno));
        buf_free(&b);
        return NULL;
    }
    cJSON *docs = cu_yaml_parse_all(buf_str(&b), b.len, name, err, sizeof err);
    buf_free(&b);
    if (!docs) {
        cli_fail("%s", err);
        return NULL;
    }
    cJSON *out = cJSON_CreateArray();
    if (!out || flatten(name, docs, out)) {
        cJSON_Delete(out);
        out = NULL;
    } else if (cJSON_GetArraySize(out) == 0) {
        cli_fail("%s: no objects", name);
        cJSON_Delete(out);
        out = NULL;
    }
    cJSON_Delete(docs);
    return out;
}

int manifest_target(struct cli *cli, const cJSON *obj, struct target *t)
{
    t->kind = api_kind_of(cli, obj);
    if (!t->kind)
        return EXIT_FAIL;
    t->name = api_meta(obj, "name");
    if (!t->name || !*t->name)
        return cli_fail("a %s has no metadata.name", t->kind->kind);
    const char *own = api_meta(obj, "project");
    t->project = NULL;
    if (t->kind->cluster)
        return 0;
    if (own && *own && cli->flag_project && strcmp(own, cli->flag_project))
        return cli_fail("%s/%s is in project \"%s\", not \"%s\" given by -p",
                        t->kind->label, t->name, own, cli->flag_project);
    t->project = own && *own ? own : cli_project(cli);
    return 0;
}

int manifest_path(const struct target *t, const char *sub, struct buf *b)
{
    return url_object(b, t->kind->plural, t->kind->cluster, t->project,
                      t->name, sub);
}

int manifest_target_args(struct cli *cli, struct target *t, char *split,
                         size_t splitlen)
{
    const char *kind = cli->npos > 0 ? cli->pos[0] : "";
    const char *name = cli->npos > 1 ? cli->pos[1] : NULL;
    char *slash;
    if (cli->npos == 1 && (slash = strchr(kind, '/')) && strlen(kind) < splitlen) {
        size_t at = (size_t)(slash - kind);
        memcpy(split, kind, strlen(kind) + 1);
        split[at] = '\0';
        kind = split;
        name = split + at + 1;
    }
    if (!name || !*name || !*kind || cli->npos > 2)
        return cli_usage_error(cli, "expected KIND NAME or KIND/NAME");
    int rc = cli_connect(cli);
    if (rc)
        return rc;
    t->kind = api_kind(cli, kind);
    if (!t->kind)
        return EXIT_FAIL;
    t->project = t->kind->cluster ? NULL : cli_project(cli);
    t->name = name;
    return 0;
}
