/* cube_mock_streams.c — the fake host's streamed answers (resp_stream's
 * reads, 1.0) and its ABI 1.5 streamed request bodies and file handles
 * (req_body_stream, file_open .. file_close, resp_file), in memory. See
 * cube_mock.h. Test-only code: global state is fine. */
#include "cube_mock.h"
#include "cube_mock_priv.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <openssl/evp.h>

#define DEFAULT_MAX_BODY ((uint64_t)8 << 20)   /* cubed's limits.max_body_bytes */

/* Bytes under a name: a pending upload, or a file of the plugin's area.
 * store is the project, or "" for the plugin's area. */
struct blob {
    char *store, *path, *data;
    size_t len;
    int writer;   /* a WRITE handle holds it */
    struct blob *next;
};

enum { F_READ, F_PENDING, F_COMMITTED, F_ABORTED };

struct cube_file {
    int state;
    cube_plugin *self;
    char *store, *path;
    struct blob *pending;   /* while F_PENDING */
    char *data;        /* READ and COMMITTED: the file as it was published */
    size_t len;
};

static struct {
    struct blob *pending, *area;
} S;

/* The blob of (store, path) in list, made empty when missing and make. */
static struct blob *find(struct blob **list, const char *store, const char *path, int make)
{
    for (struct blob *b = *list; b; b = b->next)
        if (!strcmp(b->store, store) && !strcmp(b->path, path))
            return b;
    struct blob *b = make ? calloc(1, sizeof *b) : NULL;
    if (b) {
        b->store = strdup(store);
        b->path = strdup(path);
        b->next = *list;
        *list = b;
    }
    return b;
}

static void blob_drop(struct blob **list, struct blob *gone)
{
    for (struct blob **p = list; *p; p = &(*p)->next)
        if (*p == gone) {
            *p = gone->next;
            break;
        }
    free(gone->store);
    free(gone->path);
    free(gone->data);
    free(gone);
}

/* cubed's rule: relative, no empty segment, none starting with '.', <= 1024. */
static int path_ok(const char *p)
{
    if (!p || !*p || strlen(p) > 1024)
        return 0;
    for (const char *seg = p; seg; seg = strchr(seg, '/') ? strchr(seg, '/') + 1 : NULL)
        if (*seg == '/' || *seg == '.' || *seg == '\0')
            return 0;
    return 1;
}

static void sha256_hex(const void *data, size_t len, char hex[CUBE_SHA256_HEX_SIZE])
{
    unsigned char d[32];
    unsigned n = 0;
    EVP_Digest(data, len, d, &n, EVP_sha256(), NULL);
    for (int i = 0; i < 32; i++)
        snprintf(hex + 2 * i, 3, "%02x", d[i]);
}

static void file_close(cube_file *f)
{
    if (!f)
        return;
    if (f->state == F_PENDING)
        f->pending->writer = 0;   /* stays pending for a resume */
    free(f->store);
    free(f->path);
    free(f->data);
    free(f);
}

static int open_read(cube_file *f)
{
    if (*f->store) {
        int rc;
        f->data = mock_host()->file_read(f->self, f->store, f->path, &f->len, &rc);
        return f->data ? CUBE_OK : rc;
    }
    struct blob *b = find(&S.area, "", f->path, 0);
    if (!b)
        return CUBE_ENOTFOUND;
    f->len = b->len;
    f->data = malloc(f->len + 1);
    if (f->data && f->len)
        memcpy(f->data, b->data, f->len);
    return f->data ? CUBE_OK : CUBE_ENOMEM;
}

static int open_write(cube_file *f, unsigned flags)
{
    struct blob *b = find(&S.pending, f->store, f->path, 1);
    if (!b)
        return CUBE_ENOMEM;
    if (b->writer)
        return CUBE_ECONFLICT;
    b->writer = 1;
    if (flags & CUBE_FILE_TRUNCATE)
        b->len = 0;
    f->pending = b;
    f->state = F_PENDING;
    return CUBE_OK;
}

static cube_file *file_open(cube_plugin *self, const char *project, const char *path,
                            unsigned flags, int *rc)
{
    unsigned mode = flags & (CUBE_FILE_READ | CUBE_FILE_WRITE);
    int dummy;
    if (!rc)
        rc = &dummy;
    if ((flags & ~(CUBE_FILE_READ | CUBE_FILE_WRITE | CUBE_FILE_TRUNCATE)) ||
        (mode != CUBE_FILE_READ && mode != CUBE_FILE_WRITE) ||
        ((flags & CUBE_FILE_TRUNCATE) && mode != CUBE_FILE_WRITE) || !path_ok(path) ||
        (project && (!*project || strchr(project, '/') || *project == '.'))) {
        *rc = CUBE_EINVAL;
        return NULL;
    }
    cube_file *f = calloc(1, sizeof *f);
    f->self = self;
    f->store = strdup(project ? project : "");
    f->path = strdup(path);
    *rc = mode == CUBE_FILE_READ ? open_read(f) : open_write(f, flags);
    if (*rc != CUBE_OK) {
        f->state = F_READ;
        file_close(f);
        return NULL;
    }
    return f;
}

/* The bytes a handle reads, or NULL (aborted). */
static const char *bytes_of(const cube_file *f, size_t *len)
{
    if (f->state == F_PENDING) {
        *len = f->pending->len;
        return f->pending->data ? f->pending->data : "";
    }
    *len = f->len;
    return f->state == F_ABORTED ? NULL : f->data ? f->data : "";
}

static int file_size(cube_file *f, uint64_t *size)
{
    size_t len;
    if (!f || !size)
        return CUBE_EINVAL;
    if (!bytes_of(f, &len))
        return CUBE_ESTATE;
    *size = len;
    return CUBE_OK;
}

static int file_pread(cube_file *f, uint64_t off, void *buf, size_t max, size_t *got)
{
    size_t len;
    if (!f || (!buf && max) || !got)
        return CUBE_EINVAL;
    *got = 0;
    const char *b = bytes_of(f, &len);
    if (!b)
        return CUBE_ESTATE;
    if (off < len) {
        *got = len - off < max ? len - (size_t)off : max;
        memcpy(buf, b + off, *got);
    }
    return CUBE_OK;
}

static int file_write_at(cube_file *f, uint64_t off, const void *data, size_t len)
{
    if (!f || (!data && len))
        return CUBE_EINVAL;
    if (f->state != F_PENDING)
        return CUBE_ESTATE;
    if (off > (uint64_t)1 << 40 || len > ((size_t)1 << 40))
        return CUBE_ETOOBIG;   /* memory, not cubed's 2^63: a test's limit */
    struct blob *p = f->pending;
    size_t end = (size_t)off + len;
    if (end > p->len) {
        char *grown = realloc(p->data, end + 1);
        if (!grown)
            return CUBE_ENOMEM;
        memset(grown + p->len, 0, end - p->len);   /* a gap reads as zeros */
        p->data = grown;
        p->len = end;
    }
    if (len)
        memcpy(p->data + off, data, len);
    return CUBE_OK;
}

static int publish(cube_file *f, struct blob *p)
{
    if (*f->store)
        return mock_host()->file_write(f->self, f->store, f->path, p->data ? p->data : "",
                                       p->len);
    struct blob *b = find(&S.area, "", f->path, 1);
    char *copy = b ? malloc(p->len + 1) : NULL;
    if (!copy)
        return CUBE_ENOMEM;
    if (p->len)
        memcpy(copy, p->data, p->len);
    free(b->data);
    b->data = copy;
    b->len = p->len;
    return CUBE_OK;
}

static int file_commit(cube_file *f, const char *expect, char *out)
{
    char hex[CUBE_SHA256_HEX_SIZE];
    if (!f || (expect && *expect && (strlen(expect) != 64 ||
                                     strspn(expect, "0123456789abcdefABCDEF") != 64)))
        return CUBE_EINVAL;
    if (f->state != F_PENDING)
        return CUBE_ESTATE;
    struct blob *p = f->pending;
    sha256_hex(p->data ? p->data : "", p->len, hex);
    if (out)
        memcpy(out, hex, sizeof hex);
    if (expect && *expect && strcasecmp(expect, hex) != 0)
        return CUBE_EDIGEST;
    int rc = publish(f, p);
    if (rc != CUBE_OK)
        return rc;
    f->data = p->data ? p->data : strdup("");
    f->len = p->len;
    p->data = NULL;
    blob_drop(&S.pending, p);
    f->pending = NULL;
    f->state = F_COMMITTED;
    return CUBE_OK;
}

static int file_abort(cube_file *f)
{
    if (!f)
        return CUBE_EINVAL;
    if (f->state != F_PENDING)
        return CUBE_ESTATE;
    blob_drop(&S.pending, f->pending);
    f->pending = NULL;
    f->state = F_ABORTED;
    return CUBE_OK;
}

/* One range "bytes=a-b", "a-", "-n" against len: 1 with [*off, +*n), -1
 * past the end, 0 for none (or several, or one that does not parse). */
static int range_of(const char *h, size_t len, size_t *off, size_t *n)
{
    unsigned long long a, b;
    char c;
    if (!h || strncmp(h, "bytes=", 6) || strchr(h, ','))
        return 0;
    if (sscanf(h + 6, "-%llu%c", &b, &c) == 1)
        return b == 0 || len == 0 ? -1 : (*off = b >= len ? 0 : len - b, *n = len - *off, 1);
    int k = sscanf(h + 6, "%llu-%llu%c", &a, &b, &c);
    if (k < 1 || (k == 2 && b < a) || k == 3)
        return 0;
    if (a >= len)
        return -1;
    *off = (size_t)a;
    *n = (k == 2 && b < len ? (size_t)b : len - 1) - *off + 1;
    return 1;
}

static int resp_file(cube_req *r, cube_file *f, const char *ctype)
{
    const struct cube_host *h = mock_host();
    char etag[24], hex[CUBE_SHA256_HEX_SIZE], cr[96];
    if (!r || (ctype && strpbrk(ctype, "\r\n")))
        return CUBE_EINVAL;
    if (!f || (f->state != F_READ && f->state != F_COMMITTED) || r->out->status)
        return CUBE_ESTATE;
    sha256_hex(f->data ? f->data : "", f->len, hex);
    snprintf(etag, sizeof etag, "\"%.16s\"", hex);
    h->resp_header(r, "ETag", etag);
    h->resp_header(r, "Accept-Ranges", "bytes");
    h->resp_header(r, "X-Content-Type-Options", "nosniff");
    const char *inm = h->req_header(r, "If-None-Match"), *ir = h->req_header(r, "If-Range");
    if (inm && (strstr(inm, etag) || !strcmp(inm, "*")))
        return mock_answer(r, 304, ctype ? ctype : "application/octet-stream", "", 0);
    size_t off = 0, n = f->len;
    int ranged = ir && strcmp(ir, etag) ? 0 : range_of(h->req_header(r, "Range"), f->len,
                                                       &off, &n);
    if (ranged < 0) {
        snprintf(cr, sizeof cr, "bytes */%zu", f->len);
        h->resp_header(r, "Content-Range", cr);
        return h->resp_error(r, 416, "RangeNotSatisfiable", "the range starts past the end");
    }
    if (ranged) {
        snprintf(cr, sizeof cr, "bytes %zu-%zu/%zu", off, off + n - 1, f->len);
        h->resp_header(r, "Content-Range", cr);
    }
    return mock_answer(r, ranged ? 206 : 200, ctype ? ctype : "application/octet-stream",
                       (f->data ? f->data : "") + off, n);
}

static int req_body_stream(cube_req *r, const struct cube_body_desc *d)
{
    if (!d || d->size < offsetof(struct cube_body_desc, end) + sizeof d->end || !d->data ||
        !d->end)
        return CUBE_EINVAL;
    if (!r || !r->streaming || r->body_phase != 1 || r->has_body_desc || r->out->status)
        return CUBE_ESTATE;
    memset(&r->body_desc, 0, sizeof r->body_desc);
    memcpy(&r->body_desc, d, d->size < sizeof r->body_desc ? d->size : sizeof r->body_desc);
    r->has_body_desc = 1;
    return CUBE_OK;
}

static void body_close(cube_req *r, int rc)
{
    struct mock_call c;
    if (!r->body_desc.close)
        return;
    mock_call_begin(&c);
    r->body_desc.close(r->body_desc.cls, rc);
    mock_call_end(&c);
}

/* cubed's status for a callback's code (cube_http.h, cube_route_fn). */
static int status_of(int rc, const char **code)
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

/* Runs data (n bytes at off) or, with n == (size_t)-1, end, in a call
 * frame; an error without an answer is answered as cubed answers it (the
 * frame's message, else a generic one). */
static int body_call(cube_req *r, size_t off, size_t n)
{
    struct mock_call c;
    const char *code;
    mock_call_begin(&c);
    int rc = n == (size_t)-1 ? r->body_desc.end(r->body_desc.cls, r)
                             : r->body_desc.data(r->body_desc.cls, r, r->body + off, n);
    mock_call_end(&c);
    r->out->handler_rc = rc;
    if (rc != CUBE_OK && !r->out->status) {
        int status = status_of(rc, &code);
        mock_host()->resp_error(r, status, code, c.msg[0] ? c.msg : status >= 500
                                ? "the handler failed" : "the request was refused");
    }
    return rc;
}

void mock_body_run(cube_req *r, const struct cube_route_desc *route, size_t chunk,
                   size_t cut_at)
{
    uint64_t limit = route->max_body_bytes ? route->max_body_bytes : DEFAULT_MAX_BODY;
    r->streaming = 1;
    if (r->body_len > limit) {
        mock_host()->resp_error(r, 413, "PayloadTooLarge",
                                "request body exceeds this route's limit");
        return;
    }
    r->body_phase = 1;
    int rc = r->out->handler_rc = route->handler(mock_state(), r);
    r->body_phase = 2;
    if (!r->has_body_desc)
        return;
    if (r->out->status || rc != CUBE_OK) {
        body_close(r, rc != CUBE_OK ? rc : CUBE_ESTATE);
        return;
    }
    size_t stop = cut_at < r->body_len ? cut_at : r->body_len;
    for (size_t sent = 0; sent < stop;) {
        size_t n = chunk && chunk < stop - sent ? chunk : stop - sent;
        rc = body_call(r, sent, n);
        sent += n;
        if (rc != CUBE_OK || r->out->status) {
            body_close(r, rc != CUBE_OK ? rc : CUBE_ESTATE);
            return;
        }
    }
    if (cut_at < r->body_len) {
        body_close(r, CUBE_EIO);   /* the client left: nobody to answer */
        return;
    }
    rc = body_call(r, 0, (size_t)-1);
    body_close(r, rc != CUBE_OK ? rc : r->out->status ? CUBE_OK : CUBE_EINTERNAL);
}

void mock_stream_drain(cube_req *r)
{
    char buf[4096];
    int idle = 0;
    while (idle < 1000) {
        long n = r->stream.read(r->stream.cls, buf, sizeof buf);
        if (n < 0)
            break;
        if (n == 0) {
            idle++;
            cube_mock_run_timers();
            continue;
        }
        struct cube_mock_response *o = r->out;
        o->body = realloc(o->body, o->body_len + (size_t)n + 1);
        memcpy(o->body + o->body_len, buf, (size_t)n);
        o->body_len += (size_t)n;
        o->body[o->body_len] = '\0';
    }
    if (r->stream.close)
        r->stream.close(r->stream.cls);
}

void mock_streams_install(struct cube_host *h)
{
    h->req_body_stream = req_body_stream;
    h->file_open = file_open;
    h->file_size = file_size;
    h->file_pread = file_pread;
    h->file_write_at = file_write_at;
    h->file_commit = file_commit;
    h->file_abort = file_abort;
    h->file_close = file_close;
    h->resp_file = resp_file;
}

void mock_streams_reset(void)
{
    while (S.pending)
        blob_drop(&S.pending, S.pending);
    while (S.area)
        blob_drop(&S.area, S.area);
}
