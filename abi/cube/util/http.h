/* cube/util/http.h — where a Job's replica listens (its reported endpoint,
 * ABI 1.5) and a tiny blocking HTTP/1.0 client for a plugin's own
 * upstreams: readiness and status probes, a console's "try it" request
 * (libcube-util; not part of the ABI).
 *
 * Not the host's fetch slot (cube_fetch.h): fetch is for egress, checked
 * against the administrator's allow-list (which admits loopback and
 * private addresses only by an explicit rule for every plugin at once),
 * and it answers through callbacks, while a controller's probe needs the
 * answer in the call. Use this only towards the replicas of Jobs the
 * plugin owns. Blocking: call it from the plugin's own threads, never
 * from a host callback that must not block. Thread-safe (no shared state). */
#ifndef CUBE_UTIL_HTTP_H
#define CUBE_UTIL_HTTP_H

#include <stddef.h>

#include <cjson/cJSON.h>

/* The numeric address and port of the endpoint called port_name of the
 * Job's replica (job is the Job object as the host returned it:
 * status.replicas[replica].endpoints[port_name], names resolved and
 * written numerically into host, hlen bytes with its NUL). 0; 1 when the
 * replica reports no such endpoint (yet); -1 when the endpoint is not
 * "host:port" or its name does not resolve. */
int cu_replica_endpoint(const cJSON *job, int replica, const char *port_name, char *host,
                        size_t hlen, unsigned *port);

/* 1 when host is a numeric loopback address (127.0.0.0/8, ::1). */
int cu_is_loopback(const char *host);

/* Sends `method path` to host:port (numeric; IPv6 without brackets) over
 * HTTP/1.0 with Connection: close, header (one "Name: value" line without
 * CRLF, or NULL) and body (NUL-terminated, sent as application/json with
 * its Content-Length, or NULL for none), and reads the answer until the
 * server closes, all within timeout_ms. Returns the answer's body
 * (malloc'd, NUL-terminated; the caller frees it) with *status set to its
 * HTTP status; NULL when it could not connect, the deadline passed, the
 * answer was not HTTP or its whole answer exceeded max_body bytes. */
char *cu_http_request(const char *method, const char *host, unsigned port, const char *path,
                      const char *header, const char *body, size_t max_body, int timeout_ms,
                      int *status);

#endif
