/* util.c — time, answers and the permission rule of the models plugin. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "models.h"

void mdl_now(char *out, size_t len)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(out, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

double mdl_clock(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int mdl_answer(struct mdl *p, cube_req *req, int status, const char *msg)
{
    const char *code = status == 400 ? "BadRequest" : status == 403 ? "Forbidden"
                       : status == 404 ? "NotFound" : status == 409 ? "Conflict"
                       : status == 413 ? "TooLarge" : status == 422 ? "Invalid"
                       : status == 416 ? "RangeNotSatisfiable" : "Unavailable";
    return p->host->resp_error(req, status, code, msg);
}

int mdl_answer_json(struct mdl *p, cube_req *req, int status, const cJSON *o)
{
    char *text = cJSON_PrintUnformatted(o);
    int rc = text ? p->host->resp_json(req, status, text)
                  : mdl_answer(p, req, 503, "out of memory");
    free(text);
    return rc;
}

int mdl_may_operate(struct mdl *p, cube_req *req, const cJSON *obj)
{
    const char *role = p->host->req_project_role(req, cu_meta(obj, "project"));
    const char *user = p->host->req_user(req), *owner = cu_meta(obj, "owner");
    if (role && (!strcmp(role, "admin") || !strcmp(role, "creator") || !strcmp(role, "ops")))
        return 1;
    return role && !strcmp(role, "dev") && user && owner && !strcmp(user, owner);
}

cJSON *mdl_request_model(struct mdl *p, cube_req *req)
{
    int rc;
    const char *project = p->host->req_param(req, "project"), *name = p->host->req_param(req,
                                                                                          "name");
    cJSON *obj = cu_json_take(p->host, p->host->obj_get(p->self, MDL_KIND, project, name, &rc));
    if (!obj) {
        char msg[400];
        snprintf(msg, sizeof msg, "models/%.200s: %s", name,
                 rc == CUBE_ENOTFOUND ? "not found" : "cannot be read now");
        mdl_answer(p, req, rc == CUBE_ENOTFOUND ? 404 : 503, msg);
    }
    return obj;
}
