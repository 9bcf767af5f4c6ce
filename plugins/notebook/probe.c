/* probe.c — a server's status page (Jupyter's /api/status, code-server's
 * /healthz) through libcube-util's blocking client (cube/util/http.h: not
 * the host's egress fetch, see there why), and time parsing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>
#include <cube/util/http.h>
#include <cube/util/json.h>

#include "notebook.h"

#define MAX_BODY (256 * 1024)
#define PROBE_MS 2000

time_t nb_parse_time(const char *s)
{
    struct tm tm = {0};
    if (!s || sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                     &tm.tm_hour, &tm.tm_min, &tm.tm_sec) != 6)
        return -1;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    return timegm(&tm);
}

void nb_format_time(time_t t, char *out, size_t len)
{
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(out, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* Jupyter's /api/status: last_activity and connections. */
static int probe_jupyter(const struct nb_entry *e, const char *project, const char *name,
                         time_t *last, int *connections)
{
    char path[512], hdr[NB_TOKEN_LEN + 32];
    nb_base_url(project, name, path, sizeof path - 16);
    strcat(path, "api/status");
    snprintf(hdr, sizeof hdr, "Authorization: token %s", e->token);
    int status = 0;
    char *body = cu_http_request("GET", e->host, e->port, path, hdr, NULL, MAX_BODY, PROBE_MS, &status);
    cJSON *doc = status == 200 ? cJSON_Parse(body) : NULL;
    free(body);
    if (!doc)
        return 0;
    *last = nb_parse_time(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(doc, "last_activity")));
    *connections = (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(doc, "connections"));
    if (*connections < 0)
        *connections = 0;
    cJSON_Delete(doc);
    return 1;
}

/* code-server's /healthz: lastHeartbeat (ms since the epoch), updated
 * while a browser is connected and working. */
static int probe_vscode(const struct nb_entry *e, time_t *last, int *connections)
{
    int status = 0;
    char *body = cu_http_request("GET", e->host, e->port, "/healthz", NULL, NULL, MAX_BODY, PROBE_MS,
                                 &status);
    cJSON *doc = status == 200 ? cJSON_Parse(body) : NULL;
    free(body);
    if (!doc)
        return 0;
    double hb = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(doc, "lastHeartbeat"));
    *last = hb > 0 ? (time_t)(hb / 1000) : 0;
    *connections = 0;
    cJSON_Delete(doc);
    return 1;
}

int nb_probe(const struct nb_entry *e, const char *project, const char *name, time_t *last,
             int *connections)
{
    *last = 0;
    *connections = 0;
    if (!*e->token || !*e->host || !e->port)
        return 0;
    return !strcmp(e->ide, "vscode") ? probe_vscode(e, last, connections)
                                     : probe_jupyter(e, project, name, last, connections);
}
