/* files_bytes.c — a project file's bytes as an HTTP answer (files_http.h):
 * straight from its fd (sendfile where MHD can), with Content-Length, and
 * one byte range on request (RFC 9110 §14). The bytes are a user's, served
 * from the API's origin: they go out as an attachment that browsers neither
 * sniff nor render. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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

static void add_headers(struct MHD_Response *resp, const struct stat *st)
{
    char when[64];
    struct tm tm;
    time_t t = st->st_mtim.tv_sec;
    if (gmtime_r(&t, &tm) && strftime(when, sizeof when, "%a, %d %b %Y %H:%M:%S GMT", &tm))
        MHD_add_response_header(resp, "Last-Modified", when);
    MHD_add_response_header(resp, "Content-Type", "application/octet-stream");
    MHD_add_response_header(resp, "Content-Disposition", "attachment");
    MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(resp, "Content-Security-Policy", "default-src 'none'; sandbox");
    MHD_add_response_header(resp, "Accept-Ranges", "bytes");
    MHD_add_response_header(resp, "Cache-Control", "private, no-cache");
}

int cube_files_answer_bytes(cube_req *req, int fd, const struct stat *st)
{
    uint64_t size = (uint64_t)st->st_size, off = 0, len = size;
    char cr[80];
    int ranged = cube_req_header(req, "If-Range")
                     ? 0 : parse_range(cube_req_header(req, "Range"), size, &off, &len);
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
    add_headers(resp, st);
    if (ranged) {
        snprintf(cr, sizeof cr, "bytes %llu-%llu/%llu", (unsigned long long)off,
                 (unsigned long long)(off + len - 1), (unsigned long long)size);
        MHD_add_response_header(resp, "Content-Range", cr);
    }
    req->resp_bytes = len;
    return cube_http_queue(req, ranged ? 206 : 200, resp);
}
