/* client.h — HTTP over libcurl: one connection kept alive across a
 * command's requests, bearer token, gzip, -v request logging. */
#ifndef CUBECTL_CLIENT_H
#define CUBECTL_CLIENT_H

#include <stddef.h>
#include <stdio.h>

#include <curl/curl.h>

#include "buf.h"

struct http_client {
    CURL *curl;
    char *server;        /* base URL, no trailing '/' */
    char *token;         /* NULL: no Authorization header */
    int verbose;
    char errbuf[CURL_ERROR_SIZE];
};

struct http_resp {
    long status;         /* HTTP status; 0 before any response */
    struct buf body;     /* the body (for streams: only a non-2xx body) */
    char broken[CURL_ERROR_SIZE];  /* why a started transfer ended early */
};

/* Called with each piece of a 2xx streamed body; nonzero stops the stream. */
typedef int (*http_chunk_fn)(void *ud, const char *data, size_t n);

/* Prepares c for server (copied, trailing '/' dropped) and token (may be
 * NULL). Returns 0, or -1 when libcurl cannot start. */
int http_client_init(struct http_client *c, const char *server,
                     const char *token, int verbose);
/* Closes the connection and frees c's fields. */
void http_client_cleanup(struct http_client *c);
/* Sends method to server + path (path holds any query) with an optional
 * body of type ctype, and collects the answer into resp, whatever its
 * status. Returns 0, or -1 after printing which URL could not be reached. */
int http_do(struct http_client *c, const char *method, const char *path,
            const char *ctype, const char *body, struct http_resp *resp);
/* GETs server + path and hands a 2xx body to fn as it arrives; a non-2xx
 * body goes to resp->body. idle_s > 0 ends a transfer silent that long
 * (then resp->broken says so). Returns 0 once a response began (also when
 * fn stopped it or it broke off), or -1 after printing which URL could not
 * be reached. */
int http_stream(struct http_client *c, const char *path, const char *accept,
                long idle_s, http_chunk_fn fn, void *ud, struct http_resp *resp);
/* PUTs size bytes read from f (size < 0: unknown, sent chunked) to
 * server + path as application/octet-stream, announced with Expect:
 * 100-continue so that a refusal (413) comes before the body, and collects
 * the answer into resp. No overall time limit; a transfer silent for
 * idle_s ends. Returns 0 once a response came, or -1 after printing why
 * (unreachable, or the transfer broke off). */
int http_upload(struct http_client *c, const char *path, FILE *f, long long size,
                long idle_s, struct http_resp *resp);
/* HEADs server + path: resp gets the status (no body); ctype (len bytes)
 * the Content-Type, "" when none. Returns 0, or -1 after printing why. */
int http_head(struct http_client *c, const char *path, struct http_resp *resp,
              char *ctype, size_t len);
/* Frees resp's body and zeroes it. */
void http_resp_free(struct http_resp *resp);

#endif
