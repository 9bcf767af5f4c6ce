/* http_framing.c — the request head must say one thing about where the
 * body ends, for cubed and for any server a request is relayed to.
 *
 * libmicrohttpd 0.9.75 frames a body by the first Transfer-Encoding or,
 * without one, the first Content-Length, and keeps field names as sent:
 *   - Transfer-Encoding with Content-Length: MHD reads chunks, a front
 *     proxy may read the length; the rest is a second, smuggled request.
 *   - two Content-Lengths: MHD takes the first, others the last.
 *   - "Content-Length : 5": the name has a space, MHD sees no length and
 *     reads the body as the next request.
 *   - a coding other than "chunked": MHD waits for the connection to
 *     close, so the client hears nothing until the timeout.
 * RFC 9112 §6.1 and §6.3 (and §5.1 for the name, §3.2 for Host) require
 * a 400, or a 501 for a coding the server does not implement, and the
 * connection closed. The check runs on the first call for a request, so
 * the answer is queued before MHD reads any body, which makes MHD close
 * the connection after it; the answer also says Connection: close. */
#include <string.h>
#include <strings.h>

#include "http_req.h"

struct head_scan {
    int content_length, transfer_encoding, host;
    const char *te;
    int bad_name;
};

/* RFC 9110 §5.6.2 tchar. */
static int token_char(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c && strchr("!#$%&'*+-.^_`|~", c));
}

static int valid_name(const char *name)
{
    if (!*name)
        return 0;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        if (!token_char(*p))
            return 0;
    return 1;
}

static enum MHD_Result scan_header(void *cls, enum MHD_ValueKind kind, const char *name,
                                   const char *value)
{
    (void)kind;
    struct head_scan *s = cls;
    if (!valid_name(name))
        s->bad_name = 1;
    else if (!strcasecmp(name, "Content-Length"))
        s->content_length++;
    else if (!strcasecmp(name, "Host"))
        s->host++;
    else if (!strcasecmp(name, "Transfer-Encoding") && !s->transfer_encoding++)
        s->te = value ? value : "";
    return MHD_YES;
}

/* Whether the comma-separated list ends with "chunked" and what else it
 * names: 400 when chunked is not last (or comes twice), 501 for any other
 * coding, 0 for "chunked" alone as MHD reads it. */
static int coding_status(const char *te, const char **why)
{
    if (!strcasecmp(te, "chunked"))
        return 0;
    int chunked = 0, last_chunked = 0, other = 0;
    for (const char *p = te; *p;) {
        p += strspn(p, " \t,");
        size_t n = strcspn(p, " \t,;");
        if (!n)
            break;
        last_chunked = n == 7 && !strncasecmp(p, "chunked", 7);
        chunked += last_chunked;
        other += !last_chunked;
        p += n;
        p += strcspn(p, ",");   /* skip parameters */
    }
    if (!last_chunked || chunked > 1) {
        *why = "Transfer-Encoding must end with chunked, once";
        return 400;
    }
    if (other) {
        *why = "only the chunked transfer coding is implemented";
        return 501;
    }
    *why = "Transfer-Encoding: write chunked alone";
    return 400;
}

int cube_http_framing_check(struct MHD_Connection *conn, const char *version,
                            const char **why)
{
    struct head_scan s = {0};
    MHD_get_connection_values(conn, MHD_HEADER_KIND, scan_header, &s);
    int http11 = version && strcmp(version, MHD_HTTP_VERSION_1_0) != 0;
    *why = NULL;
    if (s.bad_name)
        *why = "a header field name is not a token (no spaces before the colon)";
    else if (s.content_length > 1)
        *why = "more than one Content-Length";
    else if (s.transfer_encoding && s.content_length)
        *why = "Content-Length and Transfer-Encoding together";
    else if (s.transfer_encoding > 1)
        *why = "more than one Transfer-Encoding";
    else if (s.transfer_encoding && !http11)
        *why = "Transfer-Encoding in an HTTP/1.0 request";
    else if (s.host > 1 || (http11 && !s.host))
        *why = "an HTTP/1.1 request needs exactly one Host";
    if (*why)
        return 400;
    return s.transfer_encoding ? coding_status(s.te, why) : 0;
}
