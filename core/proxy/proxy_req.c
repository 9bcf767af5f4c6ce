/* proxy_req.c — one proxied request on its way in: who may pass (the
 * prefix's permission, the kind's owner rule, the login redirect), which
 * upstream the plugin names, and the request head and body sent there.
 * The answer is handled by proxy_resp.c. Runs on the connection's HTTP
 * thread; a request waiting for its upstream is parked (proxy_loop.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "apps.h"
#include "auth/auth.h"
#include "auth/auth_priv.h"
#include "ctx/ctx.h"
#include "http/http_req.h"
#include "base/log.h"
#include "objects/objects.h"
#include "proxy_priv.h"
#include "base/clock.h"
#include "base/text.h"

static void put_header(struct cube_text *b, const char *name, const char *value)
{
    cube_text_puts(b, name);
    cube_text_put(b, ": ", 2);
    cube_text_puts(b, value);
    cube_text_put(b, "\r\n", 2);
}

/* -- who may pass ------------------------------------------------------------ */

static int browser_navigation(cube_req *req)
{
    const char *accept = cube_req_header(req, "Accept");
    return (!strcmp(req->method, "GET") || !strcmp(req->method, "HEAD")) && accept &&
           strstr(accept, "text/html");
}

static void put_query(struct cube_text *b, cube_req *req);

/* The request's raw path and query (the caller frees .p; .oom on failure). */
static struct cube_text request_target(cube_req *req)
{
    struct cube_text target = {0};
    cube_text_puts(&target, req->raw_path);
    put_query(&target, req);
    return target;
}

/* 302 to the console's login page, coming back to this path after (the
 * console writes its own ?next= the same way). */
static void redirect_to_login(cube_req *req)
{
    static const char HEX[] = "0123456789ABCDEF";
    struct cube_text target = request_target(req), loc = {0};
    cube_text_puts(&loc, "/login?next=");
    for (size_t i = 0; !target.oom && i < target.len; i++) {
        unsigned char c = (unsigned char)target.p[i];
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
            strchr("-_.!~*'()", c)) { /* as JavaScript's encodeURIComponent */
            cube_text_put(&loc, (const char *)&c, 1);
        } else {
            char esc[3] = {'%', HEX[c >> 4], HEX[c & 15]};
            cube_text_put(&loc, esc, 3);
        }
    }
    if (target.oom || loc.oom) {
        cube_http_answer_error(req, 503, "Unavailable", "out of memory");
    } else {
        cube_http_add_header(req, "Location", loc.p);
        cube_http_add_header(req, "Cache-Control", "no-store");
        cube_http_answer(req, 302, "text/plain; charset=utf-8", "", 0, 0);
    }
    free(target.p);
    free(loc.p);
}

/* An anonymous browser on the apps origin goes to the console origin. */
static void to_console(cube_req *req)
{
    struct cube_text target = request_target(req);
    if (target.oom)
        cube_http_answer_error(req, 503, "Unavailable", "out of memory");
    else
        cube_apps_to_console(req, target.p);
    free(target.p);
}

/* The owner of the object a kind-ful prefix names; answers 404 when the
 * caller is no member or the object is missing. 1 when found. */
static int object_owner(cube_req *req, const struct proxy_prefix *p, char *owner, size_t len)
{
    const char *project = cube_route_match_param(&req->match, "project");
    const char *name = cube_route_match_param(&req->match, "name");
    if (cube_auth_role(req, project) == CUBE_ROLE_NONE) {
        cube_http_answer_error(req, 404, "NotFound", "project not found");
        return 0;
    }
    struct cube_op_error e;
    if (cube_obj_owner(req->ctx, p->kind, project, name, owner, len, &e) < 0) {
        cube_http_answer_error(req, e.status == 404 ? 404 : 503,
                               e.status == 404 ? "NotFound" : "Unavailable", e.message);
        return 0;
    }
    return 1;
}

/* Runs the checks a route would; answers and returns 0 when refused. */
static int admit(struct proxy_call *call)
{
    cube_req *req = call->req;
    const struct proxy_prefix *p = call->pfx;
    const char *cl = cube_req_header(req, "Content-Length");
    if (cl && strtoull(cl, NULL, 10) > req->ctx->cfg->max_body_bytes) {
        cube_http_answer_error(req, 413, "PayloadTooLarge",
                               "request body exceeds limits.max_body_bytes");
        return 0;
    }
    int cred = proxy_cred_admit(call);   /* an application's API key (ABI 1.5) */
    if (cred)
        return cred > 0;
    if (cube_auth_identify(req) < 0)
        return 0;
    if (p->perm != CUBE_P_PUBLIC && !req->who.via && p->login_redirect &&
        browser_navigation(req)) {
        if (req->http->apps)         /* signed in (or not) at the console origin */
            to_console(req);
        else
            redirect_to_login(req);
        return 0;
    }
    if (p->kind && req->who.via && !object_owner(req, p, call->owner, sizeof call->owner))
        return 0;
    return cube_auth_check_owner(req, p->perm, cube_route_match_param(&req->match, "project"),
                                 call->owner[0] ? call->owner : NULL);
}

/* -- the upstream request head ---------------------------------------------------- */

struct head_ctx {
    struct proxy_call *call;
    struct cube_text *b;
    const char *connection;            /* the caller's Connection header */
    const char *plugin_header;         /* replaced by the plugin's */
    const char *trusted_header;        /* the auth proxy header, a credential */
};

/* The query as the caller sent it: cubed refuses targets with whitespace
 * or control bytes, so it is safe on the upstream's request line. */
static void put_query(struct cube_text *b, cube_req *req)
{
    const char *q = cube_req_query_raw(req);
    if (q) {
        cube_text_put(b, "?", 1);
        cube_text_puts(b, q);
    }
}

static enum MHD_Result add_caller_header(void *cls, enum MHD_ValueKind kind, const char *name,
                                         const char *value)
{
    (void)kind;
    struct head_ctx *h = cls;
    if (!value || proxy_hop_header(name) || proxy_connection_lists(h->connection, name) ||
        !strcasecmp(name, "Authorization") || !strcasecmp(name, "X-CSRF-Token") ||
        !strcasecmp(name, "X-Api-Key") ||
        !strncasecmp(name, "X-Forwarded-", 12) ||
        (h->plugin_header && !strcasecmp(name, h->plugin_header)) ||
        (h->trusted_header && !strcasecmp(name, h->trusted_header)))
        return MHD_YES;
    if (!strcasecmp(name, "Cookie")) {
        size_t cap = strlen(value) + 1;
        char *kept = malloc(cap);
        int n = kept ? proxy_strip_cookie(value, kept, cap) : -1;
        if (n > 0)
            put_header(h->b, "Cookie", kept);
        h->b->oom |= !kept;
        free(kept);
        return MHD_YES;
    }
    put_header(h->b, name, value);
    return MHD_YES;
}

/* 1 when the caller is one of auth.trusted_header.proxies (a front proxy). */
static int from_front_proxy(cube_req *req)
{
    struct cube_auth *a = req->ctx->auth;
    const char *client = cube_req_client(req);
    for (size_t i = 0; a && i < a->n_proxies; i++)
        if (!strcmp(a->proxies[i], client))
            return 1;
    return 0;
}

/* X-Forwarded-*: ours, or a trusted front proxy's extended by ours (a
 * caller's own are never believed). */
static void put_forwarded(struct cube_text *b, cube_req *req)
{
    int front = from_front_proxy(req);
    const char *xff = front ? cube_req_header(req, "X-Forwarded-For") : NULL;
    const char *proto = front ? cube_req_header(req, "X-Forwarded-Proto") : NULL;
    const char *host = front ? cube_req_header(req, "X-Forwarded-Host") : NULL;
    cube_text_puts(b, "X-Forwarded-For: ");
    if (xff) {
        cube_text_puts(b, xff);
        cube_text_put(b, ", ", 2);
    }
    cube_text_puts(b, cube_req_client(req));
    cube_text_put(b, "\r\n", 2);
    put_header(b, "X-Forwarded-Proto", proto ? proto : req->ctx->cfg->tls_cert ? "https" : "http");
    if (!host)
        host = cube_req_header(req, "Host");
    if (host)
        put_header(b, "X-Forwarded-Host", host);
}

/* 1 when the caller asks for a protocol switch (a WebSocket). */
static int wants_upgrade(cube_req *req)
{
    const char *connection = cube_req_header(req, "Connection");
    return cube_req_header(req, "Upgrade") && connection &&
           proxy_connection_lists(connection, "upgrade");
}

/* The request line and headers for the upstream (Cube credentials out,
 * X-Forwarded-* and the plugin's header in); the mirror's copy is the
 * same up to the framing. */
int proxy_build_head(struct proxy_call *call, const struct cube_proxy_upstream *up,
                     struct cube_text *mirror)
{
    cube_req *req = call->req;
    const char *rest = call->rest;
    struct cube_text b = {0};
    struct cube_auth *a = req->ctx->auth;
    struct head_ctx h = {call, &b, cube_req_header(req, "Connection"),
                         up->header_name[0] ? up->header_name : NULL,
                         a && a->trusted_header[0] ? a->trusted_header : NULL};
    cube_text_puts(&b, req->method);
    cube_text_put(&b, " ", 1);
    cube_text_puts(&b, call->pfx->strip_prefix ? (*rest ? rest : "/") : req->raw_path);
    put_query(&b, req);
    cube_text_puts(&b, " HTTP/1.1\r\n");
    MHD_get_connection_values(req->conn, MHD_HEADER_KIND, add_caller_header, &h);
    put_forwarded(&b, req);
    if (up->header_name[0])
        put_header(&b, up->header_name, up->header_value);
    if (mirror)
        cube_text_put(mirror, b.p, b.len);
    if (call->upgrade) {
        put_header(&b, "Connection", "Upgrade");
        put_header(&b, "Upgrade", cube_req_header(req, "Upgrade"));
    }
    const char *cl = cube_req_header(req, "Content-Length");
    const char *te = cube_req_header(req, "Transfer-Encoding");
    if (te && strcasestr(te, "chunked")) {
        call->has_body = call->chunked_up = 1;
        put_header(&b, "Transfer-Encoding", "chunked");
    } else if (cl) {
        call->has_body = strtoull(cl, NULL, 10) > 0;
        put_header(&b, "Content-Length", cl);
    }
    cube_text_put(&b, "\r\n", 2);
    if (b.oom || (mirror && mirror->oom)) {
        free(b.p);
        return -1;
    }
    call->head = b.p;
    call->head_len = b.len;
    return 0;
}

/* -- sending ---------------------------------------------------------------- */

static void answer_502(struct proxy_call *call, const char *why)
{
    cube_log(CUBE_LOG_WARN, "proxy", "%s %s: upstream: %s", call->req->method,
             call->req->path, why);
    char msg[300];
    snprintf(msg, sizeof msg, "the upstream is unreachable: %s", why);
    cube_http_answer_error(call->req, 502, "BadGateway", msg);
}

/* Sends the head on a pooled or new connection; a pooled one that turns
 * out closed is replaced once. 0, or -1 after answering 502. */
int proxy_send_head(struct proxy_call *call, const char *host, unsigned port)
{
    char err[200] = "";
    for (int attempt = 0; attempt < 2; attempt++) {
        call->up = proxy_conn_get(call->px, host, port, err, sizeof err);
        if (!call->up)
            break;
        if (proxy_send_all(call->up->fd, call->head, call->head_len) == 0)
            return 0;
        snprintf(err, sizeof err, "send: %s", strerror(errno));
        int reused = call->up->reused;
        proxy_conn_close(call->px, call->up);
        call->up = NULL;
        if (!reused)
            break;
    }
    answer_502(call, err);
    return -1;
}

/* A request under a prefix at the console origin: never relayed there
 * (its pages would share the API's origin). A GET or HEAD that passes the
 * prefix's checks is handed over to the apps origin (apps.h). */
static void at_console(struct proxy_call *call)
{
    cube_req *req = call->req;
    if (strcmp(req->method, "GET") && strcmp(req->method, "HEAD")) {
        cube_http_answer_error(req, 421, "Misdirected", "proxied servers are served from "
                               "the apps origin (apps_listen, apps_origin), not from the "
                               "console's: open them with a GET here, or call the apps "
                               "origin");
        return;
    }
    if (!admit(call))
        return;
    struct cube_text target = request_target(req);
    if (target.oom)
        cube_http_answer_error(req, 503, "Unavailable", "out of memory");
    else
        cube_apps_handshake(req, call->pfx, call->obj_len, target.p);
    free(target.p);
}

int cube_proxy_begin(cube_req *req)
{
    struct cube_proxies *px = req->ctx->proxies;
    const char *rest;
    int apps = req->http->apps;
    struct proxy_prefix *p = px ? proxy_match(px, req->raw_path, &req->match, &rest) : NULL;
    if (!p)
        return apps ? cube_apps_unmatched(req) : 0;
    req->route_label = p->tmpl;
    struct proxy_call *call = calloc(1, sizeof *call);
    if (!call) {
        cube_http_answer_error(req, 503, "Unavailable", "out of memory");
        return 1;
    }
    call->px = px;
    call->pfx = p;
    call->req = req;
    call->obj_len = (size_t)(rest - req->raw_path);
    call->head_only = !strcmp(req->method, "HEAD");
    call->upgrade = wants_upgrade(req);
    call->rest = rest;
    req->proxy = call;
    if (!apps) {
        at_console(call);
        return 1;
    }
    /* Writes under a proxied prefix skip Cube's X-CSRF-Token check and the
     * API's same-origin check: the upstream's own pages (Jupyter,
     * TensorBoard) cannot know Cube's token, and they carry their own XSRF
     * defence (Jupyter's _xsrf). The credential here is the apps origin's
     * cookie, valid for this object only; a cross-site request does not
     * carry it (SameSite=Lax). */
    req->csrf_exempt = 1;
    if (cube_apps_host_ok(req, p) && admit(call))
        proxy_resolve_run(call);
    return 1;
}

void proxy_audit(struct proxy_call *call)
{
    if (!call->audited)
        cube_apps_audit(call->req, call->pfx, call->owner);
    call->audited = 1;
}

/* Streams one chunk of the caller's body upstream. A refusal (too big,
 * upstream gone) is answered once the caller sent the whole body: MHD
 * does not deliver an answer queued in the middle of a chunked upload. */
static void send_body(struct proxy_call *call, const char *data, size_t len)
{
    cube_req *req = call->req;
    if (call->refused)
        return;
    if (call->body_bytes + len > req->ctx->cfg->max_body_bytes) {
        call->refused = 413;
        return;
    }
    call->body_bytes += len;
    proxy_mirror_body(call, data, len);
    char frame[24];
    int n = call->chunked_up ? snprintf(frame, sizeof frame, "%zx\r\n", len) : 0;
    if ((n && proxy_send_all(call->up->fd, frame, (size_t)n) < 0) ||
        proxy_send_all(call->up->fd, data, len) < 0 ||
        (n && proxy_send_all(call->up->fd, "\r\n", 2) < 0))
        call->refused = 502;
}

int cube_proxy_on_request(cube_req *req, const char *upload, size_t *upload_size)
{
    struct proxy_call *call = req->proxy;
    if (call->held) {   /* resumed from the park: a repeat of the first call */
        if (proxy_resolve_resumed(call) < 0)
            return MHD_NO; /* the caller hung up: close */
        if (!*upload_size || req->answered || call->held)
            return MHD_YES;
    }
    if (*upload_size) {
        size_t n = *upload_size;
        *upload_size = 0;
        send_body(call, upload, n);
        return MHD_YES;
    }
    if (call->refused == 413)
        cube_http_answer_error(req, 413, "PayloadTooLarge",
                               "request body exceeds limits.max_body_bytes");
    if (call->refused == 502)
        answer_502(call, "the upstream stopped reading the request body");
    if (call->refused)
        return MHD_YES;
    if (!call->started && call->chunked_up &&
        proxy_send_all(call->up->fd, "0\r\n\r\n", 5) < 0) {
        answer_502(call, "the upstream stopped reading the request body");
        return MHD_YES;
    }
    if (!call->started)
        proxy_mirror_send(call);   /* the body is whole: the copy may go */
    proxy_resp_try(call);
    return MHD_YES;
}
