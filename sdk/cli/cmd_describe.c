/* cmd_describe.c — cubectl describe: the whole object as YAML, then its
 * events as a table. */
#include <stdio.h>
#include <time.h>

#include "age.h"
#include "api.h"
#include "manifest.h"
#include "table.h"
#include "yaml_conv.h"

static const char usage[] =
    "Usage: cubectl describe KIND NAME\n"
    "\n"
    "Shows the object as YAML, followed by its events.\n";

/* GETs path as JSON into *out (left NULL on a 404 when allow_404).
 * Returns 0, or EXIT_FAIL after printing why. */
static int get_json(struct cli *cli, const char *path, cJSON **out, int allow_404)
{
    struct api_result r;
    *out = NULL;
    int rc = api_call(cli, "GET", path, NULL, NULL, &r);
    if (rc)
        return rc;
    if (api_ok(&r) && cJSON_IsObject(r.json)) {
        *out = r.json;
        r.json = NULL;
    } else if (r.status != 404 || !allow_404) {
        rc = api_ok(&r) ? cli_fail("GET %s: the answer is not an object", path)
                        : api_fail(&r);
    }
    api_result_free(&r);
    return rc;
}

static const char *field(const cJSON *ev, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(ev, key);
    return cJSON_IsString(v) ? v->valuestring : "";
}

static int print_events(const cJSON *items)
{
    static const char *const head[] = {"TYPE", "REASON", "AGE", "USER", "MESSAGE"};
    struct table t;
    struct buf b = {0};
    time_t now = time(NULL);
    if (cJSON_GetArraySize(items) == 0) {
        printf("\nEvents: <none>\n");
        return 0;
    }
    if (table_init(&t, 5, head))
        return cli_fail("out of memory");
    const cJSON *ev;
    int rc = 0;
    cJSON_ArrayForEach(ev, items) {
        const cJSON *m = cJSON_GetObjectItemCaseSensitive(ev, "metadata");
        char age[32];
        age_of(cJSON_GetObjectItemCaseSensitive(m, "created"), now, age, sizeof age);
        const char *row[] = {field(ev, "type"), field(ev, "reason"), age,
                             field(ev, "user"), field(ev, "message")};
        rc |= table_add(&t, row);
    }
    rc |= table_render(&t, 0, &b);
    if (!rc)
        printf("\nEvents:\n%s", buf_str(&b));
    buf_free(&b);
    table_free(&t);
    return rc ? cli_fail("out of memory") : 0;
}

int cmd_describe(struct cli *cli, int argc, char **argv)
{
    char split[512];
    struct target t;
    int rc = cli_parse(cli, argc, argv, NULL, usage);
    if (rc != CLI_GO || (rc = manifest_target_args(cli, &t, split, sizeof split)))
        return rc;
    struct buf path = {0}, yaml = {0};
    cJSON *obj = NULL, *events = NULL;
    if (manifest_path(&t, NULL, &path))
        rc = cli_fail("out of memory");
    if (!rc)
        rc = get_json(cli, buf_str(&path), &obj, 0);
    if (!rc && yaml_emit(obj, 0, &yaml))
        rc = cli_fail("cannot print the object as YAML");
    if (!rc) {
        fputs(buf_str(&yaml), stdout);
        buf_free(&path);
        if (manifest_path(&t, "events", &path))
            rc = cli_fail("out of memory");
    }
    /* an object kind without events answers 404: shown as no events */
    if (!rc && !(rc = get_json(cli, buf_str(&path), &events, 1)))
        rc = print_events(cJSON_GetObjectItemCaseSensitive(events, "items"));
    cJSON_Delete(obj);
    cJSON_Delete(events);
    buf_free(&path);
    buf_free(&yaml);
    return rc;
}
