/* api.c — see api.h. */
#include "api.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int api_call(struct cli *cli, const char *method, const char *path,
             const char *ctype, const char *body, struct api_result *r)
{
    struct http_resp resp;
    memset(r, 0, sizeof *r);
    if (http_do(&cli->http, method, path, ctype, body, &resp))
        return EXIT_FAIL;
    r->status = resp.status;
    r->text = resp.body;
    if (r->text.len)
        r->json = cJSON_ParseWithLength(r->text.data, r->text.len);
    return 0;
}

int api_ok(const struct api_result *r)
{
    return r->status >= 200 && r->status <= 299;
}

static const char *str_at(const cJSON *obj, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsString(v) && *v->valuestring ? v->valuestring : NULL;
}

int api_fail(const struct api_result *r)
{
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(r->json, "error");
    const char *code = str_at(e, "code"), *msg = str_at(e, "message");
    const char *field = str_at(e, "field");
    if (!msg) {
        /* not our JSON error: a proxy's page, say; show its first line */
        const char *t = buf_str(&r->text);
        int n = (int)strcspn(t, "\r\n");
        fprintf(stderr, "Error from server: HTTP %ld%s%.*s\n", r->status,
                n ? ": " : "", n > 200 ? 200 : n, t);
    } else if (field && strncmp(msg, field, strlen(field))) {
        fprintf(stderr, "Error from server (%s): %s: %s\n",
                code ? code : "Error", field, msg);
    } else {
        fprintf(stderr, "Error from server (%s): %s\n", code ? code : "Error", msg);
    }
    if (r->status == 401)
        fprintf(stderr, "(log in with 'cubectl login URL --token TOKEN', or pass --token)\n");
    return EXIT_FAIL;
}

int api_fail_resp(struct http_resp *resp)
{
    struct api_result r = {.status = resp->status, .text = resp->body};
    r.json = cJSON_ParseWithLength(buf_str(&r.text), r.text.len);
    resp->body = (struct buf){0};
    api_fail(&r);
    api_result_free(&r);
    return EXIT_FAIL;
}

void api_result_free(struct api_result *r)
{
    cJSON_Delete(r->json);
    buf_free(&r->text);
    memset(r, 0, sizeof *r);
}

const char *api_meta(const cJSON *obj, const char *key)
{
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(m, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

int api_kinds(struct cli *cli)
{
    if (cli->have_kinds)
        return 0;
    struct api_result r;
    if (api_call(cli, "GET", "/api/v1/kinds", NULL, NULL, &r))
        return EXIT_FAIL;
    if (r.status == 404) {
        api_result_free(&r);
        return cli_fail("the server at %s has no resource API "
                        "(GET /api/v1/kinds: 404)", cli->http.server);
    }
    if (!api_ok(&r) || !cJSON_IsObject(r.json)) {
        int rc = api_ok(&r) ? cli_fail("GET /api/v1/kinds: the answer is not a "
                                       "KindList") : api_fail(&r);
        api_result_free(&r);
        return rc;
    }
    cJSON *doc = r.json;
    r.json = NULL;
    api_result_free(&r);
    if (kinds_load(doc, &cli->kinds))
        return cli_fail("out of memory");
    cli->have_kinds = 1;
    return 0;
}

const struct kind *api_kind(struct cli *cli, const char *name)
{
    if (api_kinds(cli))
        return NULL;
    const struct kind *k = kinds_find(&cli->kinds, name);
    if (!k)
        cli_fail("the server doesn't have a resource type \"%s\" "
                 "(see 'cubectl kinds')", name);
    return k;
}

const struct kind *api_kind_of(struct cli *cli, const cJSON *obj)
{
    const cJSON *kind = cJSON_GetObjectItemCaseSensitive(obj, "kind");
    if (!cJSON_IsString(kind) || !*kind->valuestring) {
        cli_fail("an object has no kind");
        return NULL;
    }
    return api_kind(cli, kind->valuestring);
}
