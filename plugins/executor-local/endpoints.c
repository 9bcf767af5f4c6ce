/* endpoints.c — where a replica of this machine answers (ABI 1.5): on the
 * node's address (the replica document's "address") at each port the host
 * allocated for its Job's spec.ports ("ports"), reported with
 * replica_endpoints from inside start (the host keeps a report made before
 * start returns and applies it once the start is recorded). */
#include "executor_local.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

void xl_report_endpoints(struct xl *x, const char *replica_json, const char *engine_id)
{
    cJSON *doc = cJSON_Parse(replica_json), *eps = cJSON_CreateObject();
    const cJSON *p, *ports = cJSON_GetObjectItemCaseSensitive(doc, "ports");
    const char *addr = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(doc, "address"));
    int v6 = addr && strchr(addr, ':');
    cJSON_ArrayForEach(p, (eps ? ports : NULL)) {
        char hp[128];
        if (!cJSON_IsNumber(p))
            continue;
        snprintf(hp, sizeof hp, v6 ? "[%s]:%d" : "%s:%d", addr ? addr : "127.0.0.1",
                 (int)p->valuedouble);
        cJSON_AddStringToObject(eps, p->string, hp);
    }
    char *text = eps && eps->child ? cJSON_PrintUnformatted(eps) : NULL;
    int rc = text ? x->host->replica_endpoints(x->self, engine_id, text) : CUBE_OK;
    if (rc != CUBE_OK)
        x->host->log(x->self, CUBE_LOG_WARN, "replica_endpoints(%s): %d", engine_id, rc);
    free(text);
    cJSON_Delete(eps);
    cJSON_Delete(doc);
}
