/* cmd_account.c — the caller's own credentials: cubectl create token
 * (POST /api/v1/auth/tokens; the secret is printed once) and cubectl
 * passwd (POST /api/v1/auth/password, or as an administrator POST
 * /api/v1/users/{name}/password). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "age.h"
#include "api.h"
#include "prompt.h"
#include "url.h"

#define SECRET_MAX 1100

static const char passwd_usage[] =
    "Usage: cubectl passwd [USER]\n"
    "\n"
    "Changes your password: reads the current one, then the new one (twice on\n"
    "a terminal), from standard input, one a line. With USER (administrators)\n"
    "sets that user's password and ends their sessions; only the new one is\n"
    "read.\n";

int cmd_create_token(struct cli *cli, const char *name, const char *duration)
{
    double secs = 0;
    if (duration && (age_parse_duration(duration, &secs) || secs < 1))
        return cli_usage_error(cli, "--duration: e.g. 3600, 90m, 12h or 30d");
    int rc = cli_connect(cli);
    if (rc)
        return rc;
    cJSON *body = cJSON_CreateObject();
    cJSON_AddStringToObject(body, "name", name);
    if (duration)
        cJSON_AddNumberToObject(body, "expires_in", (double)(long long)secs);
    char *text = cJSON_PrintUnformatted(body);
    cJSON_Delete(body);
    struct api_result r;
    rc = text ? api_call(cli, "POST", "/api/v1/auth/tokens", "application/json", text, &r)
              : cli_fail("out of memory");
    cJSON_free(text);
    if (rc)
        return rc;
    const char *secret = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r.json, "token"));
    const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r.json, "id"));
    const cJSON *exp = cJSON_GetObjectItemCaseSensitive(r.json, "expires");
    if (!api_ok(&r) || !secret) {
        rc = api_ok(&r) ? cli_fail("the server's answer holds no token") : api_fail(&r);
    } else {
        printf("%s\n", secret);   /* alone on stdout: TOKEN=$(cubectl create token x) */
        char when[64] = "?";
        time_t t = cJSON_IsNumber(exp) ? (time_t)exp->valuedouble : 0;
        struct tm tm;
        if (t && gmtime_r(&t, &tm))
            strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
        fprintf(stderr, "token \"%s\" (id %s) expires %s; it is shown only this once\n",
                name, id ? id : "?", when);
    }
    api_result_free(&r);
    return rc;
}

/* Reads the new password; on a terminal twice, and both must agree. */
static int read_new(char *pw, size_t len)
{
    char again[SECRET_MAX];
    if (prompt_secret("New password", pw, len))
        return cli_fail("cannot read the new password");
    if (!*pw)
        return cli_fail("no new password given");
    if (!prompt_is_tty())
        return 0;
    int rc = prompt_secret("New password again", again, sizeof again) || strcmp(pw, again)
                 ? cli_fail("the passwords do not match") : 0;
    memset(again, 0, sizeof again);
    return rc;
}

static int send_password(struct cli *cli, const char *user, const char *current,
                         const char *pw)
{
    struct buf path = {0};
    cJSON *body = cJSON_CreateObject();
    if (!user)
        cJSON_AddStringToObject(body, "current", current);
    cJSON_AddStringToObject(body, "password", pw);
    char *text = cJSON_PrintUnformatted(body);
    cJSON_Delete(body);
    char *u = user ? url_escape(user, NULL) : NULL;
    int rc = !text || (user && !u) ||
                     (user ? buf_printf(&path, "/api/v1/users/%s/password", u)
                           : buf_puts(&path, "/api/v1/auth/password"))
                 ? cli_fail("out of memory") : 0;
    struct api_result r;
    if (!rc)
        rc = api_call(cli, "POST", buf_str(&path), "application/json", text, &r);
    if (text)
        memset(text, 0, strlen(text));
    cJSON_free(text);
    free(u);
    buf_free(&path);
    if (rc)
        return rc;
    if (api_ok(&r))
        printf("password %s\n", user ? "set" : "changed");
    else
        rc = api_fail(&r);
    api_result_free(&r);
    return rc;
}

int cmd_passwd(struct cli *cli, int argc, char **argv)
{
    char current[SECRET_MAX] = "", pw[SECRET_MAX] = "";
    int rc = cli_parse(cli, argc, argv, NULL, passwd_usage);
    if (rc != CLI_GO)
        return rc;
    if (cli->npos > 1)
        return cli_usage_error(cli, "expected at most one USER");
    const char *user = cli->npos ? cli->pos[0] : NULL;
    if ((rc = cli_connect(cli)))
        return rc;
    if (!user && prompt_secret("Current password", current, sizeof current))
        rc = cli_fail("cannot read the current password");
    if (!rc)
        rc = read_new(pw, sizeof pw);
    if (!rc)
        rc = send_password(cli, user, current, pw);
    memset(current, 0, sizeof current);
    memset(pw, 0, sizeof pw);
    return rc;
}
