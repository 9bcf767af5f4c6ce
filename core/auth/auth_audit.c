/* auth_audit.c — an audit event for every request that acts as an
 * identity other than the one who authenticated: the break-glass admin
 * token (admin_token_sha256) acts as the administrator "admin" without
 * being that user's credential, so each such request, whatever its answer,
 * leaves an event on User "admin" (GET /api/v1/users/admin/events, and the
 * platform's events). Written on a worker after the answer: the request
 * does not wait for the store. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth_priv.h"
#include "ctx/ctx.h"
#include "http/http_req.h"
#include "base/log.h"
#include "objects/objects.h"
#include "base/tasks.h"

struct audit_record {
    struct cube_ctx *ctx;
    int status;
    char message[600];
};

static void write_record(void *a, void *b)
{
    (void)b;
    struct audit_record *r = a;
    struct cube_auth *auth = r->ctx->auth;
    cube_obj_record_event(r->ctx, auth->user_kind, NULL, "admin", NULL, "admin-token", "admin",
                          r->status, "Warning", "AdminToken", r->message);
    free(r);
}

void cube_auth_audit_request(cube_req *req)
{
    struct cube_ctx *ctx = req->ctx;
    if (!req->who.resolved || req->who.via != CUBE_VIA_ADMIN_TOKEN || !ctx->auth ||
        !ctx->auth->user_kind || !ctx->store || !ctx->tasks)
        return;
    struct audit_record *r = calloc(1, sizeof *r);
    if (!r) {
        cube_log(CUBE_LOG_WARN, "audit", "out of memory: an admin-token request of %s is "
                 "not recorded", cube_req_client(req));
        return;
    }
    r->ctx = ctx;
    r->status = req->status ? req->status : 499;
    /* the path only: a query may carry secrets */
    snprintf(r->message, sizeof r->message, "%s %.400s answered %d: the break-glass admin "
             "token acted as admin (from %s)", req->method, req->path ? req->path : "",
             r->status, cube_req_client(req));
    if (cube_tasks_submit(ctx->tasks, write_record, r, NULL) < 0)
        write_record(r, NULL);   /* shutting down: write it here */
}
