/* cmd_wait.c — cubectl wait: until a field of each object has a value
 * (--for=jsonpath=...), or the objects are gone (--for=delete), polling
 * twice a second up to --timeout. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "age.h"
#include "api.h"
#include "jsonpath.h"
#include "manifest.h"

#define POLL_MS 500

static const char usage[] =
    "Usage: cubectl wait KIND/NAME... | KIND NAME... --for=CONDITION [--timeout 30s]\n"
    "\n"
    "Waits until every object meets the condition:\n"
    "  --for=jsonpath='{.status.phase}'=Succeeded   the field has that value\n"
    "  --for=jsonpath='{.status.url}'               the field is set (not empty)\n"
    "  --for=delete                                 the object is gone\n"
    "Cube's kinds report a phase rather than status.conditions, so\n"
    "--for=condition=... is refused: wait on the field instead.\n"
    "\n"
    "Flags:\n"
    "      --for CONDITION   what to wait for (required)\n"
    "      --timeout D       give up after this long (30s, 5m, 1h; 0: check once;\n"
    "                        default 30s)\n";

struct cond {
    int gone;            /* --for=delete */
    char path[512];      /* jsonpath */
    const char *want;    /* value, or NULL for "set" */
};

static int parse_for(struct cli *cli, const char *f, struct cond *c)
{
    if (!f)
        return cli_usage_error(cli, "--for is required (jsonpath=... or delete)");
    if (!strcmp(f, "delete"))
        return c->gone = 1, 0;
    if (!strncmp(f, "condition=", 10))
        return cli_usage_error(cli, "--for=condition: Cube's kinds have no status.conditions;"
                               " wait on a field, e.g. --for=jsonpath='{.status.phase}'=Ready");
    if (strncmp(f, "jsonpath=", 9))
        return cli_usage_error(cli, "--for: jsonpath=PATH[=VALUE] or delete");
    const char *p = f + 9;
    /* the path ends at its closing brace, or (without braces) at '=' */
    const char *end = *p == '{' ? strchr(p, '}') : p + strcspn(p, "=");
    if (!end || end == p)
        return cli_usage_error(cli, "--for=jsonpath: expected '{.field}' or .field");
    end += *p == '{';
    if ((size_t)(end - p) >= sizeof c->path)
        return cli_usage_error(cli, "--for=jsonpath: the path is too long");
    memcpy(c->path, p, (size_t)(end - p));
    c->path[end - p] = '\0';
    if (*end && *end != '=')
        return cli_usage_error(cli, "--for=jsonpath: expected =VALUE after the path");
    c->want = *end ? end + 1 : NULL;
    return 0;
}

/* 1 when obj meets c. */
static int met(const struct cond *c, const cJSON *obj)
{
    const cJSON *v = jsonpath_get(obj, c->path);
    if (!c->want)
        return v && !cJSON_IsNull(v) && !cJSON_IsFalse(v) &&
               !(cJSON_IsString(v) && !*v->valuestring);
    char *cell = v ? jsonpath_cell(v) : NULL;
    int ok = cell && !strcmp(cell, c->want);
    free(cell);
    return ok;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Polls one object until c holds or the deadline passes. */
static int wait_one(struct cli *cli, const struct target *t, const struct cond *c,
                    double deadline)
{
    struct buf path = {0};
    if (manifest_path(t, NULL, &path))
        return cli_fail("out of memory");
    int rc = -1;
    while (rc < 0) {
        struct api_result r;
        if (api_call(cli, "GET", buf_str(&path), NULL, NULL, &r)) {
            rc = EXIT_FAIL;
            break;
        }
        if (c->gone && r.status == 404)
            rc = 0;
        else if (!api_ok(&r))
            rc = api_fail(&r);
        else if (!c->gone && met(c, r.json))
            rc = 0;
        api_result_free(&r);
        if (rc >= 0)
            break;
        if (now_s() >= deadline)
            rc = cli_fail("timed out waiting for the condition on %s/%s", t->kind->label,
                          t->name);
        else
            nanosleep(&(struct timespec){0, POLL_MS * 1000000L}, NULL);
    }
    if (!rc)
        printf("%s/%s condition met\n", t->kind->label, t->name);
    fflush(stdout);
    buf_free(&path);
    return rc;
}

/* KIND/NAME... or KIND NAME... into targets (names point into pos). */
static int wait_all(struct cli *cli, const struct cond *c, double deadline)
{
    int slashed = strchr(cli->pos[0], '/') != NULL, rc = cli_connect(cli);
    const struct kind *k = rc || slashed ? NULL : api_kind(cli, cli->pos[0]);
    if (rc || (!slashed && !k))
        return rc ? rc : EXIT_FAIL;
    for (int i = slashed ? 0 : 1; !rc && i < cli->npos; i++) {
        char kind[256];
        const char *name = cli->pos[i], *slash = strchr(name, '/');
        if (slashed) {
            if (!slash || slash == name || !slash[1] || (size_t)(slash - name) >= sizeof kind)
                return cli_usage_error(cli, "\"%s\": expected KIND/NAME", name);
            snprintf(kind, sizeof kind, "%.*s", (int)(slash - name), name);
            if (!(k = api_kind(cli, kind)))
                return EXIT_FAIL;
            name = slash + 1;
        }
        struct target t = {k, k->cluster ? NULL : cli_project(cli), name};
        rc = wait_one(cli, &t, c, deadline);
    }
    return rc;
}

int cmd_wait(struct cli *cli, int argc, char **argv)
{
    const char *f = NULL, *timeout = NULL;
    const struct cli_flag flags[] = {
        FLAG_STR("for", 0, &f),
        FLAG_STR("timeout", 0, &timeout),
        FLAG_END,
    };
    struct cond c = {0};
    double secs = 30;
    int rc = cli_parse(cli, argc, argv, flags, usage);
    if (rc != CLI_GO || (rc = parse_for(cli, f, &c)))
        return rc;
    if (timeout && age_parse_duration(timeout, &secs))
        return cli_usage_error(cli, "--timeout: e.g. 30s, 5m or 1h");
    if (cli->npos < 1 || (cli->npos < 2 && !strchr(cli->pos[0], '/')))
        return cli_usage_error(cli, "expected KIND/NAME... or KIND NAME...");
    return wait_all(cli, &c, now_s() + secs);
}
