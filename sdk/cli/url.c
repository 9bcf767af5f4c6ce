/* url.c — see url.h. */
#include "url.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"

static int unreserved(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
           (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' ||
           c == '~';
}

char *url_escape(const char *s, const char *keep)
{
    struct buf b = {0};
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        int rc = (unreserved(c) || (keep && strchr(keep, c)))
                     ? buf_add(&b, s, 1)
                     : buf_printf(&b, "%%%02X", c);
        if (rc) {
            buf_free(&b);
            return NULL;
        }
    }
    return buf_take(&b);
}

int url_add_segment(struct buf *b, const char *seg)
{
    char *e = url_escape(seg, NULL);
    int rc = !e || buf_printf(b, "/%s", e) ? -1 : 0;
    free(e);
    return rc;
}

int url_collection(struct buf *b, const char *plural, int cluster,
                   const char *project)
{
    if (buf_puts(b, "/api/v1"))
        return -1;
    if (!cluster && (buf_puts(b, "/projects") || url_add_segment(b, project)))
        return -1;
    return url_add_segment(b, plural);
}

int url_object(struct buf *b, const char *plural, int cluster,
               const char *project, const char *name, const char *sub)
{
    if (url_collection(b, plural, cluster, project) || url_add_segment(b, name))
        return -1;
    return sub ? url_add_segment(b, sub) : 0;
}

int url_add_query(struct buf *b, const char *key, const char *value)
{
    /* ',' and '!' read better unencoded in selectors and are legal in a
     * query value; '=' and '&' must be encoded. */
    char *e = url_escape(value, ",!");
    int rc = !e || buf_printf(b, "%c%s=%s", strchr(buf_str(b), '?') ? '&' : '?',
                              key, e) ? -1 : 0;
    free(e);
    return rc;
}

int url_list_query(struct buf *b, const struct url_list_opts *o)
{
    char n[32];
    if (o->watch_rv && (url_add_query(b, "watch", "1") ||
                        (*o->watch_rv &&
                         url_add_query(b, "resourceVersion", o->watch_rv))))
        return -1;
    if (o->selector && *o->selector &&
        url_add_query(b, "labelSelector", o->selector))
        return -1;
    snprintf(n, sizeof n, "%ld", o->limit);
    if (o->limit > 0 && url_add_query(b, "limit", n))
        return -1;
    if (o->cont && *o->cont && url_add_query(b, "continue", o->cont))
        return -1;
    return 0;
}
