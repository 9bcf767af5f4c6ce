/* sse.h — an incremental Server-Sent Events parser: bytes go in as the
 * network delivers them, whole events come out. */
#ifndef CUBECTL_SSE_H
#define CUBECTL_SSE_H

#include <stddef.h>

#include "buf.h"

/* Called once per event; data is its data lines joined by '\n'. Return 0
 * to go on, nonzero to stop (sse_feed then returns that value). */
typedef int (*sse_event_fn)(void *ud, const char *event, const char *data);

struct sse {
    struct buf line;      /* the line being read */
    struct buf data;      /* the current event's data */
    char event[64];       /* the current event's type; "" = "message" */
    int has_data;
    int after_cr;         /* last byte was CR: a following LF is no new line */
    sse_event_fn fn;
    void *ud;
};

/* Prepares p to deliver events to fn. */
void sse_init(struct sse *p, sse_event_fn fn, void *ud);
/* Feeds n bytes. Returns 0, the callback's nonzero result, or -1 when out
 * of memory. */
int sse_feed(struct sse *p, const char *bytes, size_t n);
/* Frees the parser's buffers. */
void sse_free(struct sse *p);

#endif
