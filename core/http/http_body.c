/* http_body.c — streamed request bodies (ABI 1.5 stream_body routes). The
 * route's handler runs as soon as the head is in and has passed the
 * permission check; the body then reaches the plugin's struct
 * cube_body_desc in the chunks MHD reads, never gathered here, so memory
 * stays flat whatever the body's size.
 *
 * MHD takes an answer only at the head (it then never reads the body and
 * closes the connection after the answer) or once the body is all in. So
 * when the body is stopped halfway (past the route's limit, or a data
 * callback refused or answered), the answer waits (cube_http_body_defer)
 * while the rest is read and dropped, at most limits.max_body_bytes of it;
 * past that the connection is closed without an answer. The plugin's
 * close runs exactly once, as soon as no data or end call can follow.
 * Each callback runs in a call frame (base/callerr.h): an error it
 * returns without answering is answered with what it passed to set_error
 * or set_error_field, else with the status's generic message. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth/auth.h"
#include "base/callerr.h"
#include "ctx/ctx.h"
#include "http_req.h"

enum body_phase {
    PHASE_HEAD,   /* the handler runs: answers go out at once */
    PHASE_BODY,   /* chunks go to desc.data; answers wait */
    PHASE_DRAIN,  /* stopped: the rest is dropped; the answer waits */
    PHASE_END,    /* desc.end runs: answers go out at once */
};

struct cube_body {
    const struct cube_route_entry *route;
    struct cube_body_desc desc;
    int wanted;                  /* req_body_stream took desc */
    int closed;                  /* desc.close ran, or never will */
    enum body_phase phase;
    uint64_t limit;              /* the route's max_body_bytes (or limits') */
    uint64_t received;           /* bytes handed to desc.data */
    uint64_t dropped, drop_max;  /* read and dropped after a stop */
    struct MHD_Response *later;  /* the answer waiting for the body's end */
    int later_status;
};

static void close_once(struct cube_body *b, int rc)
{
    if (b->closed)
        return;
    b->closed = 1;
    if (!b->wanted || !b->desc.close)
        return;
    struct cube_callerr ce;
    cube_callerr_begin(&ce, b->route->plugin);
    b->desc.close(b->desc.cls, rc);
    cube_callerr_end(&ce);
}

/* Answers rc from a callback that did not answer: with the message its
 * frame holds, or the status's generic one. */
static void refuse(cube_req *req, const struct cube_body *b, int rc,
                   const struct cube_callerr *ce)
{
    const char *code;
    if (rc == CUBE_OK || !ce->msg[0]) {
        cube_http_unanswered(req, b->route, rc);
        return;
    }
    int status = cube_status_for(rc, &code);
    cube_http_answer_error_field(req, status, code, ce->msg, ce->field);
}

static void answer_too_big(cube_req *req, const struct cube_body *b)
{
    char msg[160];
    snprintf(msg, sizeof msg, "request body exceeds this route's limit of %llu bytes",
             (unsigned long long)b->limit);
    cube_http_answer_error(req, 413, "PayloadTooLarge", msg);
}

void cube_http_body_begin(cube_req *req, const struct cube_route_entry *route)
{
    req->route = route;
    req->route_label = route->path;
    if (!cube_auth_route(req, route))
        return;   /* 401/403/404 at the head: no body byte was read */
    struct cube_body *b = calloc(1, sizeof *b);
    if (!b || (!req->body && !(req->body = calloc(1, 1)))) {
        free(b);
        cube_http_answer_error(req, 503, "Unavailable", "out of memory");
        return;
    }
    uint64_t cap = req->ctx->cfg->max_body_bytes;
    b->route = route;
    b->limit = route->max_body_bytes ? route->max_body_bytes : cap;
    b->drop_max = cap;
    req->stream_in = b;
    const char *cl = cube_req_header(req, "Content-Length");
    if (cl && strtoull(cl, NULL, 10) > b->limit) {
        answer_too_big(req, b);
        return;
    }
    int rc = route->handler(route->plugin->state, req);
    b->phase = PHASE_BODY;
    if (req->answered) {
        close_once(b, rc != CUBE_OK ? rc : CUBE_ESTATE);
        return;
    }
    if (!b->wanted || rc != CUBE_OK) {
        close_once(b, rc);
        cube_http_unanswered(req, route, rc);
    }
}

/* Stops the body: no more data or end; the answer for rc (unless the
 * plugin made one; ce: its callback's frame, or NULL) waits for the rest
 * to be dropped. */
static void stop(cube_req *req, struct cube_body *b, int rc, const struct cube_callerr *ce)
{
    b->phase = PHASE_DRAIN;
    if (!req->answered) {
        if (!ce)
            answer_too_big(req, b);
        else
            refuse(req, b, rc, ce);
    }
    close_once(b, rc);
}

static enum MHD_Result chunk(cube_req *req, struct cube_body *b, const char *data, size_t n)
{
    if (b->phase == PHASE_BODY) {
        if (n > b->limit - b->received) {
            stop(req, b, CUBE_ETOOBIG, NULL);
        } else {
            b->received += n;
            struct cube_callerr ce;
            cube_callerr_begin(&ce, b->route->plugin);
            int rc = b->desc.data(b->desc.cls, req, data, n);
            cube_callerr_end(&ce);
            if (rc == CUBE_OK && !req->answered)
                return MHD_YES;
            stop(req, b, rc == CUBE_OK ? CUBE_ESTATE : rc, &ce);
            return MHD_YES;
        }
    }
    if (b->phase != PHASE_DRAIN)
        return MHD_YES;
    b->dropped += n;
    return b->dropped > b->drop_max ? MHD_NO : MHD_YES;
}

/* The whole body is in: end answers, or the answer that waited goes (none
 * could be made: the connection closes). */
static enum MHD_Result finish(cube_req *req, struct cube_body *b)
{
    if (b->phase == PHASE_DRAIN) {
        struct MHD_Response *resp = b->later;
        b->later = NULL;
        enum MHD_Result ok = resp ? MHD_queue_response(req->conn, (unsigned)b->later_status,
                                                       resp) : MHD_NO;
        if (resp)
            MHD_destroy_response(resp);
        return ok;
    }
    if (b->phase != PHASE_BODY)
        return MHD_YES;
    b->phase = PHASE_END;
    struct cube_callerr ce;
    cube_callerr_begin(&ce, b->route->plugin);
    int rc = b->desc.end(b->desc.cls, req);
    cube_callerr_end(&ce);
    int answered = req->answered;
    if (!answered)
        refuse(req, b, rc, &ce);
    close_once(b, rc != CUBE_OK ? rc : answered ? CUBE_OK : CUBE_EINTERNAL);
    return MHD_YES;
}

enum MHD_Result cube_http_body_step(cube_req *req, const char *upload, size_t *upload_size)
{
    struct cube_body *b = req->stream_in;
    size_t n = *upload_size;
    *upload_size = 0;
    return n ? chunk(req, b, upload, n) : finish(req, b);
}

int cube_http_body_defer(cube_req *req, int status, struct MHD_Response *resp)
{
    struct cube_body *b = req->stream_in;
    if (!b || (b->phase != PHASE_BODY && b->phase != PHASE_DRAIN) || b->later)
        return 0;
    b->later = resp;
    b->later_status = status;
    return 1;
}

void cube_http_body_done(cube_req *req, enum MHD_RequestTerminationCode toe)
{
    struct cube_body *b = req->stream_in;
    if (!b)
        return;
    /* still open here: the client left, or the server stops, mid-body */
    close_once(b, toe == MHD_REQUEST_TERMINATED_DAEMON_SHUTDOWN ? CUBE_ESTATE : CUBE_EIO);
    if (b->later)
        MHD_destroy_response(b->later);
    free(b);
    req->stream_in = NULL;
}

int cube_slot_req_body_stream(cube_req *req, const struct cube_body_desc *desc)
{
    struct cube_body_desc d = {0};
    if (!desc || desc->size < offsetof(struct cube_body_desc, end) + sizeof desc->end)
        return CUBE_EINVAL;
    memcpy(&d, desc, desc->size < sizeof d ? desc->size : sizeof d);
    if (!d.data || !d.end)
        return CUBE_EINVAL;
    struct cube_body *b = req ? req->stream_in : NULL;
    if (!b || b->phase != PHASE_HEAD || b->wanted || req->answered)
        return CUBE_ESTATE;
    b->desc = d;
    b->wanted = 1;
    return CUBE_OK;
}
