/* cmd_action.c — the verbs that run a kind's action: stop, restart, renew
 * (jobs, notebooks, runs), run, backfill, rerun (pipelines and their
 * runs), export, and any other action a kind lists (cubectl ACTION
 * KIND/NAME). Each flag of a verb becomes a field of the body; --field
 * key=value adds any other. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "action.h"
#include "api.h"
#include "fields.h"

/* A verb flag that fills one body field. */
struct verb_opt {
    const char *flag;     /* "grace-period" */
    const char *key;      /* "graceSeconds" */
    int number;           /* sent as a JSON number (checked) */
    int required;
};

struct verb {
    const char *name;          /* the command and the action */
    const char *default_kind;  /* for a bare NAME, or NULL */
    const char *past;          /* "stopped" */
    enum action_show show;
    const char *usage;
    struct verb_opt opts[2];
};

#define COMMON_FLAGS                                                              \
    "  -F, --field KEY=VALUE   another body field (JSON values taken as such,\n" \
    "                          dotted keys nest); may repeat\n"                  \
    "  -o, --output FORMAT     json or yaml: print the server's answer\n"

static const struct verb verbs[] = {
    {"stop", NULL, "stopped", SHOW_MESSAGE,
     "Usage: cubectl stop KIND/NAME [--grace-period SECONDS]\n\n"
     "Stops a job, a notebook or a pipeline run.\n\nFlags:\n"
     "      --grace-period N    jobs: seconds between SIGTERM and SIGKILL\n" COMMON_FLAGS,
     {{"grace-period", "graceSeconds", 1, 0}}},
    {"restart", "notebook", "restarted", SHOW_MESSAGE,
     "Usage: cubectl restart [KIND/]NAME\n\n"
     "Starts a notebook's server again (KIND defaults to notebook).\n\nFlags:\n" COMMON_FLAGS,
     {{NULL, NULL, 0, 0}}},
    {"renew", "notebook", "renewed", SHOW_MESSAGE,
     "Usage: cubectl renew [KIND/]NAME\n\n"
     "Pushes a notebook's expiry out by its spec.expiresAfterSeconds.\n\nFlags:\n" COMMON_FLAGS,
     {{NULL, NULL, 0, 0}}},
    {"run", "pipeline", "started", SHOW_MESSAGE,
     "Usage: cubectl run [KIND/]NAME [--date DATE]\n\n"
     "Runs a pipeline now (KIND defaults to pipeline); prints the new run.\n\nFlags:\n"
     "      --date DATE         the run's executionDate (ISO 8601)\n" COMMON_FLAGS,
     {{"date", "executionDate", 0, 0}}},
    {"rerun", "pipelinerun", "rerun", SHOW_MESSAGE,
     "Usage: cubectl rerun [KIND/]NAME [--from TASK]\n\n"
     "Runs a finished pipeline run's failed tasks again, or TASK and everything\n"
     "downstream of it (KIND defaults to pipelinerun).\n\nFlags:\n"
     "      --from TASK         start again from this task\n" COMMON_FLAGS,
     {{"from", "from", 0, 0}}},
    {"backfill", "pipeline", NULL, SHOW_MESSAGE,
     "Usage: cubectl backfill [KIND/]NAME --start DATE --end DATE\n\n"
     "Makes one run per cron tick of a pipeline's schedule in [start, end].\n\nFlags:\n"
     "      --start DATE        the first day (ISO 8601)\n"
     "      --end DATE          the last day\n" COMMON_FLAGS,
     {{"start", "start", 0, 1}, {"end", "end", 0, 1}}},
    {"export", "pipeline", NULL, SHOW_RAW,
     "Usage: cubectl export [KIND/]NAME [-o yaml|json] > FILE\n\n"
     "Prints a pipeline as a document 'cubectl import -f FILE' takes back.\n\nFlags:\n"
     "  -o, --output FORMAT     yaml (default) or json\n",
     {{NULL, NULL, 0, 0}}},
};
#define N_VERBS (sizeof verbs / sizeof verbs[0])

static const char generic_usage[] =
    "Usage: cubectl ACTION KIND/NAME [--field KEY=VALUE]...\n\n"
    "Runs an action of an object: any action its kind lists (the ACTIONS column\n"
    "of 'cubectl kinds'), e.g. 'cubectl poke widget/a'.\n\nFlags:\n" COMMON_FLAGS;

/* Fills body from the verb's own flags. Returns 0 or a usage error. */
static int opts_body(struct cli *cli, const struct verb *v, const char *const *vals,
                     cJSON *body)
{
    for (int i = 0; i < 2 && v->opts[i].flag; i++) {
        const struct verb_opt *o = &v->opts[i];
        char *end;
        if (!vals[i] && o->required)
            return cli_usage_error(cli, "--%s is required", o->flag);
        if (!vals[i])
            continue;
        double n = o->number ? strtod(vals[i], &end) : 0;
        if (o->number && (end == vals[i] || *end || n < 0))
            return cli_usage_error(cli, "--%s needs a number >= 0", o->flag);
        cJSON_DeleteItemFromObjectCaseSensitive(body, o->key);
        if (!(o->number ? cJSON_AddNumberToObject(body, o->key, n)
                        : cJSON_AddStringToObject(body, o->key, vals[i])))
            return cli_fail("out of memory");
    }
    return 0;
}

/* Checks -o; export (raw) asks the server for JSON with ?format=json. */
static int check_output(struct cli *cli, int raw, const char *output, cJSON *body)
{
    if (!output)
        return 0;
    if (strcmp(output, "json") && strcmp(output, "yaml"))
        return cli_usage_error(cli, "-o: json or yaml");
    if (raw && !strcmp(output, "json") &&
        fields_set_str(body, "format", "json"))
        return cli_fail("out of memory");
    return 0;
}

/* backfill answers {"created": [run names], "existing": n, "ticks": n}. */
static int show_backfill(struct cli *cli, cJSON *ans, const char *output)
{
    if (output)
        return action_print(ans, output);
    const struct kind *run = kinds_find(&cli->kinds, "PipelineRun");
    const cJSON *n;
    cJSON_ArrayForEach(n, cJSON_GetObjectItemCaseSensitive(ans, "created"))
        if (cJSON_IsString(n))
            printf("%s/%s created\n", run ? run->label : "pipelinerun", n->valuestring);
    const cJSON *ex = cJSON_GetObjectItemCaseSensitive(ans, "existing");
    if (cJSON_IsNumber(ex) && ex->valuedouble > 0)
        printf("%.0f run(s) existed already\n", ex->valuedouble);
    return 0;
}

static int run_verb(struct cli *cli, const struct verb *v, const char *action, int argc,
                    char **argv)
{
    const char *vals[2] = {NULL, NULL}, *output = NULL;
    struct flag_list fields = {0};
    struct cli_flag flags[5] = {FLAG_END, FLAG_END, FLAG_END, FLAG_END, FLAG_END};
    int nf = 0;
    for (int i = 0; v && i < 2 && v->opts[i].flag; i++)
        flags[nf++] = (struct cli_flag)FLAG_STR(v->opts[i].flag, 0, &vals[i]);
    if (!v || v->show != SHOW_RAW)
        flags[nf++] = (struct cli_flag)FLAG_LIST("field", 'F', &fields);
    flags[nf++] = (struct cli_flag)FLAG_STR("output", 'o', &output);
    int rc = cli_parse(cli, argc, argv, flags, v ? v->usage : generic_usage);
    if (rc != CLI_GO)
        return rc;
    char err[300], split[512];
    cJSON *body = cJSON_CreateObject(), *ans = NULL;
    struct target t;
    if (!body)
        return cli_fail("out of memory");
    if (fields_add(body, &fields, err, sizeof err))
        rc = cli_usage_error(cli, "%s", err);
    else if (!(rc = v ? opts_body(cli, v, vals, body) : 0) &&
             !(rc = check_output(cli, v && v->show == SHOW_RAW, output, body)))
        rc = action_target(cli, v ? v->default_kind : NULL, &t, split, sizeof split);
    if (!rc) {
        struct action_req a = {action, body, output, v ? v->past : NULL,
                               v ? v->show : SHOW_MESSAGE, !v};
        int custom = v && !strcmp(v->name, "backfill");
        rc = action_run(cli, &t, &a, custom ? &ans : NULL);
        if (!rc && custom)
            rc = show_backfill(cli, ans, output);
    }
    cJSON_Delete(ans);
    cJSON_Delete(body);
    return rc;
}

int cmd_verb(struct cli *cli, int argc, char **argv)
{
    for (size_t i = 0; i < N_VERBS; i++)
        if (!strcmp(cli->cmd, verbs[i].name))
            return run_verb(cli, &verbs[i], verbs[i].name, argc, argv);
    return run_verb(cli, NULL, cli->cmd, argc, argv);
}
