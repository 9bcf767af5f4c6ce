/* http_resp.c — building answers: buffers (gzip when worth it), JSON
 * errors, queued headers, and the CUBE_E* -> HTTP status mapping. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <zlib.h>

#include "http_req.h"
#include "base/log.h"

/* Bodies below this size are sent as they are: compressing them costs more
 * than it saves. */
#define GZIP_MIN_BYTES 512

int cube_status_for(int rc, const char **code)
{
    switch (rc) {
    case CUBE_EINVAL: *code = "BadRequest"; return 400;
    case CUBE_EPERM: *code = "Forbidden"; return 403;
    case CUBE_ENOTFOUND: *code = "NotFound"; return 404;
    case CUBE_EEXIST: *code = "AlreadyExists"; return 409;
    case CUBE_ECONFLICT: *code = "Conflict"; return 409;
    case CUBE_ETOOBIG: *code = "PayloadTooLarge"; return 413;
    case CUBE_EUNAVAIL: *code = "Unavailable"; return 503;
    case CUBE_ETIMEDOUT: *code = "GatewayTimeout"; return 504;
    default: *code = "InternalError"; return 500;
    }
}

static int has_crlf(const char *s)
{
    return strpbrk(s, "\r\n") != NULL;
}

int cube_http_add_header(cube_req *req, const char *name, const char *value)
{
    if (!name || !value || !*name || has_crlf(name) || has_crlf(value) ||
        strchr(name, ':'))
        return CUBE_EINVAL;
    if (req->answered)
        return CUBE_ESTATE;
    struct cube_hdr *h = calloc(1, sizeof *h);
    if (!h || !(h->name = strdup(name)) || !(h->value = strdup(value))) {
        if (h)
            free(h->name);
        free(h);
        return CUBE_ENOMEM;
    }
    h->next = req->resp_headers;
    req->resp_headers = h;
    return CUBE_OK;
}

int cube_http_queue(cube_req *req, int status, struct MHD_Response *resp)
{
    if (!resp)
        return CUBE_ENOMEM;
    MHD_add_response_header(resp, "X-Request-Id", req->id);
    for (struct cube_hdr *h = req->resp_headers; h; h = h->next)
        MHD_add_response_header(resp, h->name, h->value);
    req->answered = 1;
    req->status = status;
    if (req->stream_in && cube_http_body_defer(req, status, resp))
        return CUBE_OK;   /* goes once the rest of the body is read */
    enum MHD_Result ok = MHD_queue_response(req->conn, (unsigned)status, resp);
    MHD_destroy_response(resp);
    return ok == MHD_YES ? CUBE_OK : CUBE_EIO;
}

/* Compresses data as a gzip stream; returns a malloc'd buffer or NULL. */
static void *gzip(const void *data, size_t len, size_t *out_len)
{
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    if (deflateInit2(&zs, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return NULL;
    size_t cap = deflateBound(&zs, (uLong)len);
    unsigned char *out = malloc(cap);
    if (!out) {
        deflateEnd(&zs);
        return NULL;
    }
    zs.next_in = (Bytef *)data;
    zs.avail_in = (uInt)len;
    zs.next_out = out;
    zs.avail_out = (uInt)cap;
    int rc = deflate(&zs, Z_FINISH);
    *out_len = zs.total_out;
    deflateEnd(&zs);
    if (rc != Z_STREAM_END) {
        free(out);
        return NULL;
    }
    return out;
}

int cube_http_answer(cube_req *req, int status, const char *content_type,
                     const void *data, size_t len, int compressible)
{
    if (req->answered)
        return CUBE_ESTATE;
    if (status < 100 || status > 599)
        return CUBE_EINVAL;
    struct MHD_Response *resp = NULL;
    int gzipped = 0;
    if (compressible && req->accept_gzip && len >= GZIP_MIN_BYTES) {
        size_t zlen;
        void *z = gzip(data, len, &zlen);
        if (z) {
            resp = MHD_create_response_from_buffer(zlen, z, MHD_RESPMEM_MUST_FREE);
            if (!resp)
                free(z);
            gzipped = resp != NULL;
            len = zlen;
        }
    }
    if (!resp)
        resp = MHD_create_response_from_buffer(len, (void *)data,
                                               MHD_RESPMEM_MUST_COPY);
    if (!resp)
        return CUBE_ENOMEM;
    if (gzipped)
        MHD_add_response_header(resp, "Content-Encoding", "gzip");
    if (compressible)
        MHD_add_response_header(resp, "Vary", "Accept-Encoding");
    MHD_add_response_header(resp, "Content-Type", content_type);
    req->resp_bytes = len;
    return cube_http_queue(req, status, resp);
}

int cube_http_answer_json(cube_req *req, int status, const char *json)
{
    return cube_http_answer(req, status, "application/json", json, strlen(json), 0);
}

int cube_http_answer_error(cube_req *req, int status, const char *code,
                           const char *message)
{
    return cube_http_answer_error_field(req, status, code, message, NULL);
}

int cube_http_answer_error_field(cube_req *req, int status, const char *code,
                                 const char *message, const char *field)
{
    cJSON *root = cJSON_CreateObject();
    cJSON *err = cJSON_AddObjectToObject(root, "error");
    char *text = NULL;
    if (!err || !cJSON_AddStringToObject(err, "code", code ? code : "Error") ||
        !cJSON_AddStringToObject(err, "message", message ? message : "") ||
        (field && *field && !cJSON_AddStringToObject(err, "field", field)) ||
        !(text = cJSON_PrintUnformatted(root))) {
        cJSON_Delete(root);
        static const char oom[] =
            "{\"error\":{\"code\":\"Unavailable\",\"message\":\"out of memory\"}}";
        return cube_http_answer(req, 503, "application/json", oom,
                                sizeof oom - 1, 0);
    }
    cJSON_Delete(root);
    int rc = cube_http_answer(req, status, "application/json", text,
                              strlen(text), 0);
    free(text);
    return rc;
}
