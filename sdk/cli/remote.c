/* remote.c — see remote.h. */
#include "remote.h"

#include <errno.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api.h"
#include "url.h"

#define IDLE_S 60L   /* a transfer silent this long has failed */

int remote_url(struct buf *b, const char *project, const char *path)
{
    if (buf_puts(b, "/api/v1/projects") || url_add_segment(b, project) ||
        buf_puts(b, "/files"))
        return -1;
    if (!*path)
        return 0;
    char *e = url_escape(path, "/");
    int rc = !e || buf_printf(b, "/%s", e) ? -1 : 0;
    free(e);
    return rc;
}

/* GETs path to print the server's error message (a HEAD has no body). */
static int fail_with_message(struct cli *cli, const char *url)
{
    struct api_result r;
    if (api_call(cli, "GET", url, NULL, NULL, &r))
        return EXIT_FAIL;
    int rc = api_ok(&r) ? cli_fail("GET %s: the server changed its answer", url)
                        : api_fail(&r);
    api_result_free(&r);
    return rc;
}

int remote_stat(struct cli *cli, const char *project, const char *path, int missing_ok,
                enum remote_kind *kind)
{
    struct buf url = {0};
    struct http_resp resp;
    char ctype[128];
    if (remote_url(&url, project, path)) {
        buf_free(&url);
        return cli_fail("out of memory");
    }
    int rc = http_head(&cli->http, buf_str(&url), &resp, ctype, sizeof ctype) ? EXIT_FAIL : 0;
    if (!rc && resp.status >= 200 && resp.status <= 299)
        *kind = !strncmp(ctype, "application/json", 16) ? REMOTE_DIR : REMOTE_FILE;
    else if (!rc && resp.status == 404 && missing_ok)
        *kind = REMOTE_MISSING;
    else if (!rc)
        rc = fail_with_message(cli, buf_str(&url));
    http_resp_free(&resp);
    buf_free(&url);
    return rc;
}

int remote_list(struct cli *cli, const char *project, const char *path, cJSON **items)
{
    struct buf url = {0};
    struct api_result r;
    *items = NULL;
    if (remote_url(&url, project, path)) {
        buf_free(&url);
        return cli_fail("out of memory");
    }
    int rc = api_call(cli, "GET", buf_str(&url), NULL, NULL, &r);
    buf_free(&url);
    if (rc)
        return rc;
    cJSON *list = cJSON_GetObjectItemCaseSensitive(r.json, "items");
    if (!api_ok(&r))
        rc = api_fail(&r);
    else if (!cJSON_IsArray(list))
        rc = cli_fail(":%s is not a directory", path);
    else if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r.json, "truncated")))
        rc = cli_fail(":%s holds more entries than the server lists at once", path);
    else
        *items = cJSON_DetachItemViaPointer(r.json, list);
    api_result_free(&r);
    return rc;
}

int remote_put(struct cli *cli, const char *project, const char *path, FILE *f,
               long long size)
{
    struct buf url = {0};
    struct http_resp resp;
    if (remote_url(&url, project, path)) {
        buf_free(&url);
        return cli_fail("out of memory");
    }
    int rc = http_upload(&cli->http, buf_str(&url), f, size, IDLE_S, &resp) ? EXIT_FAIL : 0;
    buf_free(&url);
    if (!rc && ferror(f))
        rc = cli_fail("reading the local file for :%s: %s", path, strerror(errno));
    else if (!rc && (resp.status < 200 || resp.status > 299))
        rc = api_fail_resp(&resp);
    http_resp_free(&resp);
    return rc;
}

static int to_file(void *ud, const char *data, size_t n)
{
    return fwrite(data, 1, n, ud) != n;
}

/* Opens a temp file beside dest: *tmp (malloc'd) names it. */
static FILE *open_temp(const char *dest, char **tmp)
{
    char *copy = strdup(dest), *dir = copy ? dirname(copy) : NULL;
    char *base_copy = strdup(dest), *base = base_copy ? basename(base_copy) : NULL;
    FILE *f = NULL;
    *tmp = NULL;
    if (dir && base && asprintf(tmp, "%s/.%s.cubectl-XXXXXX", dir, base) >= 0) {
        int fd = mkstemp(*tmp);
        mode_t mask = umask(0);
        umask(mask);
        if (fd >= 0 && (fchmod(fd, 0666 & ~mask) < 0 || !(f = fdopen(fd, "wb")))) {
            close(fd);
            unlink(*tmp);
        }
    }
    if (!f) {
        free(*tmp);
        *tmp = NULL;
    }
    free(copy);
    free(base_copy);
    return f;
}

/* Streams url into f; 0, or EXIT_FAIL after printing why. */
static int fetch_into(struct cli *cli, const char *url, const char *path, FILE *f)
{
    struct http_resp resp;
    int rc = http_stream(&cli->http, url, "application/octet-stream, application/json",
                         IDLE_S, to_file, f, &resp) ? EXIT_FAIL : 0;
    if (!rc && (resp.status < 200 || resp.status > 299))
        rc = api_fail_resp(&resp);
    else if (!rc && resp.broken[0])
        rc = cli_fail("downloading :%s broke off: %s", path, resp.broken);
    else if (!rc && ferror(f))
        rc = cli_fail("writing :%s: %s", path, strerror(errno));
    http_resp_free(&resp);
    return rc;
}

int remote_get(struct cli *cli, const char *project, const char *path, const char *dest)
{
    struct buf url = {0};
    if (remote_url(&url, project, path)) {
        buf_free(&url);
        return cli_fail("out of memory");
    }
    int to_stdout = !strcmp(dest, "-");
    char *tmp = NULL;
    FILE *f = to_stdout ? stdout : open_temp(dest, &tmp);
    int rc = f ? fetch_into(cli, buf_str(&url), path, f)
               : cli_fail("cannot write beside %s: %s", dest, strerror(errno));
    buf_free(&url);
    if (to_stdout)
        return rc || fflush(stdout) == 0 ? rc : cli_fail("writing stdout: %s", strerror(errno));
    if (f && fclose(f) != 0 && !rc)
        rc = cli_fail("writing %s: %s", dest, strerror(errno));
    if (!rc && rename(tmp, dest) < 0)
        rc = cli_fail("cannot write %s: %s", dest, strerror(errno));
    if (rc && tmp)
        unlink(tmp);
    free(tmp);
    return rc;
}

int remote_name_ok(const char *name)
{
    return name && *name && name[0] != '.' && !strchr(name, '/');
}
