/* action.c — see action.h. */
#include "action.h"

#include <stdio.h>
#include <string.h>

#include "api.h"
#include "buf.h"
#include "json_pretty.h"
#include "url.h"
#include "yaml_conv.h"

int action_target(struct cli *cli, const char *default_kind, struct target *t,
                  char *split, size_t splitlen)
{
    if (cli->npos != 1 || strchr(cli->pos[0], '/') || !default_kind)
        return manifest_target_args(cli, t, split, splitlen);
    int rc = cli_connect(cli);
    if (rc)
        return rc;
    if (!(t->kind = api_kind(cli, default_kind)))
        return EXIT_FAIL;
    t->project = t->kind->cluster ? NULL : cli_project(cli);
    t->name = cli->pos[0];
    return 0;
}

/* Prints why k has no action `action`, with those it has. EXIT_USAGE. */
static int no_such_action(const struct kind *k, const struct action_req *a)
{
    const char *action = a->action;
    struct buf names = {0};
    const cJSON *it;
    cJSON_ArrayForEach(it, k->actions) {
        const char *n = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, "name"));
        if (n)
            buf_printf(&names, "%s%s", names.len ? ", " : "", n);
    }
    if (a->generic)   /* the word was no command either */
        fprintf(stderr, "error: unknown command \"%s\", and %s has no action of that "
                "name (%s%s)\nRun 'cubectl --help' for the commands.\n", action,
                k->label, names.len ? "its actions: " : "it has none", buf_str(&names));
    else
        fprintf(stderr, "error: %s has no action \"%s\" (%s%s)\n", k->label, action,
                names.len ? "its actions: " : "it has none", buf_str(&names));
    buf_free(&names);
    return EXIT_USAGE;
}

/* The request path: the object's /action, with a GET's fields as query. */
static int build_path(const struct target *t, const struct action_req *a, int get,
                      struct buf *path)
{
    if (manifest_path(t, a->action, path))
        return -1;
    const cJSON *f, *query = get ? a->body : NULL;
    cJSON_ArrayForEach(f, query) {
        char *v = cJSON_IsString(f) ? NULL : cJSON_PrintUnformatted(f);
        int rc = url_add_query(path, f->string, v ? v : cJSON_GetStringValue(f));
        cJSON_free(v);
        if (rc)
            return -1;
    }
    return 0;
}

/* The label of obj's kind as the server names it ("pipelinerun"). */
static const char *label_of(struct cli *cli, const cJSON *obj)
{
    const char *kind = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(obj, "kind"));
    const struct kind *k = kind ? kinds_find(&cli->kinds, kind) : NULL;
    return k ? k->label : NULL;
}

int action_print(const cJSON *doc, const char *output)
{
    struct buf b = {0};
    int rc = !strcmp(output, "json") ? json_pretty(doc, &b) : yaml_emit(doc, 0, &b);
    if (!rc)
        fputs(buf_str(&b), stdout);
    buf_free(&b);
    return rc ? cli_fail("cannot print the answer") : 0;
}

static int show(struct cli *cli, const struct target *t, const struct action_req *a,
                const struct api_result *r)
{
    const cJSON *doc = r->json;
    const char *name = api_meta(doc, "name"), *label = label_of(cli, doc);
    if (a->show == SHOW_RAW || !doc) {
        fwrite(buf_str(&r->text), 1, r->text.len, stdout);
        if (r->text.len && r->text.data[r->text.len - 1] != '\n')
            putchar('\n');
        return 0;
    }
    if (a->output)
        return action_print(doc, a->output);
    if (name && label && !strcmp(label, t->kind->label) && !strcmp(name, t->name)) {
        if (a->past)
            printf("%s/%s %s\n", label, name, a->past);
        else
            printf("%s/%s: %s done\n", label, name, a->action);
    } else if (name && label) {
        printf("%s/%s created\n", label, name);
    } else {
        char *text = cJSON_PrintUnformatted(doc);
        printf("%s\n", text ? text : "");
        cJSON_free(text);
    }
    return 0;
}

int action_run(struct cli *cli, const struct target *t, const struct action_req *a,
               cJSON **answer)
{
    const cJSON *desc = kinds_action(t->kind, a->action);
    if (!desc)
        return no_such_action(t->kind, a);
    const char *method = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(desc, "method"));
    int get = method && !strcmp(method, "GET");
    struct buf path = {0};
    char *body = !get && a->body && a->body->child ? cJSON_PrintUnformatted(a->body) : NULL;
    struct api_result r;
    int rc = build_path(t, a, get, &path) ? cli_fail("out of memory")
             : api_call(cli, get ? "GET" : "POST", buf_str(&path),
                        body ? "application/json" : NULL, body, &r);
    buf_free(&path);
    cJSON_free(body);
    if (rc)
        return rc;
    if (r.status >= 300 && r.status <= 399)   /* open: where to go */
        rc = (printf("%s\n", buf_str(&r.text)), 0);
    else if (!api_ok(&r))
        rc = api_fail(&r);
    else if (answer)
        rc = (*answer = r.json, r.json = NULL, 0);
    else
        rc = show(cli, t, a, &r);
    api_result_free(&r);
    fflush(stdout);
    return rc;
}
