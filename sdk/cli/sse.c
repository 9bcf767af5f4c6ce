/* sse.c — see sse.h. Follows the WHATWG event-stream rules that matter
 * here: CR, LF or CRLF end lines; ':' lines are comments (keep-alives);
 * "field: value" loses one space; a blank line ends an event. */
#include "sse.h"

#include <stdio.h>
#include <string.h>

void sse_init(struct sse *p, sse_event_fn fn, void *ud)
{
    memset(p, 0, sizeof *p);
    p->fn = fn;
    p->ud = ud;
}

static int dispatch(struct sse *p)
{
    int rc = 0;
    if (p->has_data)
        rc = p->fn(p->ud, p->event[0] ? p->event : "message", buf_str(&p->data));
    p->data.len = 0;
    if (p->data.data)
        p->data.data[0] = '\0';
    p->event[0] = '\0';
    p->has_data = 0;
    return rc;
}

static int field(struct sse *p, const char *line)
{
    const char *colon = strchr(line, ':');
    size_t nlen = colon ? (size_t)(colon - line) : strlen(line);
    const char *value = colon ? colon + 1 : "";
    if (*value == ' ')
        value++;
    if (nlen == 5 && !strncmp(line, "event", 5)) {
        snprintf(p->event, sizeof p->event, "%s", value);
    } else if (nlen == 4 && !strncmp(line, "data", 4)) {
        if ((p->has_data && buf_puts(&p->data, "\n")) || buf_puts(&p->data, value))
            return -1;
        p->has_data = 1;
    }
    return 0;   /* id:, retry: and unknown fields are not needed */
}

/* Length of the leading run of bytes that end no line. */
static size_t strcspn_n(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && s[i] != '\n' && s[i] != '\r')
        i++;
    return i;
}

static int end_line(struct sse *p)
{
    const char *line = buf_str(&p->line);
    int rc;
    if (!*line)
        rc = dispatch(p);
    else if (*line == ':')
        rc = 0;
    else
        rc = field(p, line);
    p->line.len = 0;
    if (p->line.data)
        p->line.data[0] = '\0';
    return rc;
}

int sse_feed(struct sse *p, const char *bytes, size_t n)
{
    size_t i = 0;
    while (i < n) {
        size_t run = strcspn_n(bytes + i, n - i);
        if (run) {
            if (buf_add(&p->line, bytes + i, run))
                return -1;
            p->after_cr = 0;
            i += run;
            continue;
        }
        char c = bytes[i++];
        int was_cr = p->after_cr;
        p->after_cr = c == '\r';
        if (c == '\n' && was_cr)
            continue;
        int rc = end_line(p);
        if (rc)
            return rc;
    }
    return 0;
}

void sse_free(struct sse *p)
{
    buf_free(&p->line);
    buf_free(&p->data);
}
