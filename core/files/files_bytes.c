/* files_bytes.c — a file's bytes as an HTTP answer: straight from its fd
 * (sendfile where MHD can), with Content-Length, a strong ETag (304 for a
 * GET or HEAD whose If-None-Match names it) and one byte range on request
 * (RFC 9110 §13, §14). The bytes are often a user's, served from the API's
 * origin: browsers are told neither to sniff nor to run them, and the
 * files API sends them as an attachment. Used by the files API
 * (files_http.h) and by plugins' resp_file slot (files.h). */
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "files.h"
#include "files_http.h"
#include "http/http_req.h"

/* Reads decimal digits at *p into *v. 1 when there were some (and they fit
 * in 63 bits: what MHD takes), else 0. */
static int digits(const char **p, uint64_t *v)
{
    const char *s = *p;
    uint64_t n = 0;
    if (*s < '0' || *s > '9')
        return 0;
    for (; *s >= '0' && *s <= '9'; s++) {
        if (n > (UINT64_MAX / 2 - 9) / 10)
            return 0;
        n = n * 10 + (uint64_t)(*s - '0');
    }
    *v = n;
    *p = s;
    return 1;
}

/* The one range of a Range header against size: 1 with [*off, *off + *len),
 * -1 when it is not satisfiable, 0 when the whole file is to be sent (no
 * header, another unit, several ranges, or one that does not parse, which
 * RFC 9110 says to ignore). */
static int parse_range(const char *h, uint64_t size, uint64_t *off, uint64_t *len)
{
    uint64_t a, b;
    if (!h || strncmp(h, "bytes=", 6) != 0)
        return 0;
    const char *p = h + 6;
    if (*p == '-') { /* the last b bytes */
        p++;
        if (!digits(&p, &b) || *p)
            return 0;
        if (b == 0 || size == 0)
            return -1;
        *off = b >= size ? 0 : size - b;
        *len = size - *off;
        return 1;
    }
    if (!digits(&p, &a) || *p++ != '-')
        return 0;
    int has_end = digits(&p, &b);
    if (*p || (has_end && b < a))
        return 0;
    if (a >= size)
        return -1;
    uint64_t last = has_end && b < size ? b : size - 1;
    *off = a;
    *len = last - a + 1;
    return 1;
}

/* How a file's bytes go out: content type, as an attachment, caching. */
struct answer_how {
    const char *content_type;
    int attachment;
    const char *cache_control;   /* NULL: none */
};

/* The ETag of a file as it is now: a new one whenever it is replaced (a
 * rename brings another inode), written to or touched. */
static void etag_of(const struct stat *st, char out[96])
{
    snprintf(out, 96, "\"%" PRIx64 "-%" PRIx64 "-%" PRIx64 ".%lx\"", (uint64_t)st->st_ino,
             (uint64_t)st->st_size, (uint64_t)st->st_mtim.tv_sec, (long)st->st_mtim.tv_nsec);
}

/* 1 when the If-None-Match list h names etag ("*", or a tag equal to it
 * by the weak comparison: a W/ prefix is ignored). */
static int etag_listed(const char *h, const char *etag)
{
    size_t n = strlen(etag);
    for (const char *p = h; *p;) {
        p += strspn(p, " \t,");
        if (*p == '*')
            return 1;
        if (strncmp(p, "W/", 2) == 0)
            p += 2;
        if (strncmp(p, etag, n) == 0 && (p[n] == '\0' || strchr(" \t,", p[n])))
            return 1;
        p += strcspn(p, ",");
    }
    return 0;
}

static void add_headers(struct MHD_Response *resp, const struct stat *st, const char *etag,
                        const struct answer_how *how)
{
    char when[64];
    struct tm tm;
    time_t t = st->st_mtim.tv_sec;
    if (gmtime_r(&t, &tm) && strftime(when, sizeof when, "%a, %d %b %Y %H:%M:%S GMT", &tm))
        MHD_add_response_header(resp, "Last-Modified", when);
    MHD_add_response_header(resp, "ETag", etag);
    if (how->content_type)
        MHD_add_response_header(resp, "Content-Type", how->content_type);
    if (how->attachment)
        MHD_add_response_header(resp, "Content-Disposition", "attachment");
    MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(resp, "Content-Security-Policy", "default-src 'none'; sandbox");
    MHD_add_response_header(resp, "Accept-Ranges", "bytes");
    if (how->cache_control)
        MHD_add_response_header(resp, "Cache-Control", how->cache_control);
}

/* 1 when the request's Range applies: no If-Range, or one naming etag
 * (strong comparison; a date never matches, so the whole file goes). */
static int range_applies(cube_req *req, const char *etag)
{
    const char *ir = cube_req_header(req, "If-Range");
    return !ir || strcmp(ir, etag) == 0;
}

static int not_modified(cube_req *req, int fd, const struct stat *st, const char *etag,
                        const struct answer_how *how)
{
    close(fd);
    struct MHD_Response *resp =
        MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
    if (!resp)
        return CUBE_ENOMEM;
    struct answer_how bare = {.cache_control = how->cache_control};
    add_headers(resp, st, etag, &bare);
    req->resp_bytes = 0;
    return cube_http_queue(req, 304, resp);
}

static int answer_fd(cube_req *req, int fd, const struct stat *st,
                     const struct answer_how *how)
{
    uint64_t size = (uint64_t)st->st_size, off = 0, len = size;
    char cr[96], etag[96];
    etag_of(st, etag);
    const char *inm = cube_req_header(req, "If-None-Match");
    if (inm && (!strcmp(req->method, "GET") || !strcmp(req->method, "HEAD")) &&
        etag_listed(inm, etag))
        return not_modified(req, fd, st, etag, how);
    int ranged = range_applies(req, etag)
                     ? parse_range(cube_req_header(req, "Range"), size, &off, &len) : 0;
    if (ranged < 0) {
        close(fd);
        snprintf(cr, sizeof cr, "bytes */%llu", (unsigned long long)size);
        cube_http_add_header(req, "Content-Range", cr);
        snprintf(cr, sizeof cr, "the range starts past the end of the file (%llu bytes)",
                 (unsigned long long)size);
        return cube_http_answer_error(req, 416, "RangeNotSatisfiable", cr);
    }
    struct MHD_Response *resp;
    if (len == 0) {
        close(fd);
        resp = MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
    } else if (!(resp = MHD_create_response_from_fd_at_offset64(len, fd, off))) {
        close(fd); /* MHD owns fd only once the response exists */
    }
    if (!resp)
        return CUBE_ENOMEM;
    add_headers(resp, st, etag, how);
    if (ranged) {
        snprintf(cr, sizeof cr, "bytes %llu-%llu/%llu", (unsigned long long)off,
                 (unsigned long long)(off + len - 1), (unsigned long long)size);
        MHD_add_response_header(resp, "Content-Range", cr);
    }
    req->resp_bytes = len;
    return cube_http_queue(req, ranged ? 206 : 200, resp);
}

int cube_files_answer_bytes(cube_req *req, int fd, const struct stat *st)
{
    const struct answer_how how = {"application/octet-stream", 1, "private, no-cache"};
    return answer_fd(req, fd, st, &how);
}

int cube_slot_resp_file(cube_req *req, cube_file *file, const char *content_type)
{
    struct stat st;
    if (!req || (content_type && strpbrk(content_type, "\r\n")))
        return CUBE_EINVAL;
    int src = cube_files_handle_fd(file);
    if (src < 0 || req->answered)
        return CUBE_ESTATE;
    int fd = fcntl(src, F_DUPFD_CLOEXEC, 0);   /* the answer's own: the plugin may close */
    if (fd < 0 || fstat(fd, &st) < 0) {
        if (fd >= 0)
            close(fd);
        return CUBE_EIO;
    }
    const struct answer_how how = {
        content_type ? content_type : "application/octet-stream", 0, NULL};
    return answer_fd(req, fd, &st, &how);
}
