/*
 * cube_http.h — descriptors for HTTP routes and streaming responses.
 *
 * Part of the Cube plugin ABI (append-only; see cube_plugin.h). Every
 * descriptor starts with `size`: fill it with `sizeof` of the struct as you
 * compiled it; the host copies it into a zeroed struct of its own size, so
 * fields added in later minors read as zero/NULL for older plugins.
 */
#ifndef CUBE_HTTP_H
#define CUBE_HTTP_H

#include "cube_plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Permission a route needs. The host checks it before the handler runs:
 * an anonymous caller gets 401, a signed-in one without the right 403, and
 * someone who is not a member of the route's {project} 404 (so project
 * names do not leak). Platform administrators pass every check.
 *
 * The project permissions need a `{project}` segment in the route's path
 * and follow Cube's project roles, highest first: creator (members and
 * settings), ops (operates every object), dev (creates objects and manages
 * their own), viewer (reads).
 */
/** Anyone, authenticated or not. */
#define CUBE_PERM_PUBLIC "public"
/** Platform administrators only (since 1.0; until 1.2 the configured admin
 *  bearer token, which still counts as an administrator). */
#define CUBE_PERM_ADMIN "admin"
/** Any signed-in user (since 1.2). */
#define CUBE_PERM_USER "user"
/** Any member of {project}: viewer or above (since 1.2). */
#define CUBE_PERM_PROJECT_VIEW "project:view"
/** Creating things in {project}: dev or above (since 1.2). */
#define CUBE_PERM_PROJECT_EDIT "project:edit"
/** Operating an object of {project} (stop, restart, delete): ops or above,
 *  or a dev who owns the object (metadata.owner) on routes that name one
 *  (kind actions); ops or above elsewhere (since 1.2). */
#define CUBE_PERM_PROJECT_OPERATE "project:operate"
/** Managing {project} itself (members, settings): creator (since 1.2). */
#define CUBE_PERM_PROJECT_MANAGE "project:manage"

/**
 * A route handler. Runs on a host HTTP thread; several may run at once, so
 * the plugin protects its own shared state. It must answer the request with
 * exactly one cube_host.resp_* call before returning CUBE_OK. If it returns
 * an error code without answering, the host answers with the matching HTTP
 * status (CUBE_EINVAL 400, CUBE_EPERM 403, CUBE_ENOTFOUND 404, CUBE_EEXIST
 * 409, CUBE_ETOOBIG 413, CUBE_EUNAVAIL 503, others 500) and a generic
 * message. `req` is valid only during the call.
 */
typedef int (*cube_route_fn)(void *state, cube_req *req);

/** Describes one route; passed to cube_host.register_route. */
struct cube_route_desc {
    /* since 1.0 */
    size_t size;           /**< sizeof(struct cube_route_desc) */
    /** "GET", "POST", "PUT", "PATCH", "DELETE". GET routes also answer HEAD. */
    const char *method;
    /**
     * Path template: literal segments and `{param}` segments, each a whole
     * segment, e.g. "/api/v1/hello/{name}". A final `{param*}` matches the
     * rest of the path (one or more segments). Literal segments win over
     * parameters when both match. Borrowed for the call; the host copies.
     */
    const char *path;
    /** Required permission: one of the CUBE_PERM_* strings above. */
    const char *permission;
    /** Required. Called with the plugin's state. */
    cube_route_fn handler;
    /** One line for the OpenAPI document and logs; may be NULL. */
    const char *summary;
};

/** Returned by a stream's read callback when the stream is finished. */
#define CUBE_STREAM_END (-1L)
/** Returned by a stream's read callback on error: the host aborts the
 *  connection (the client sees a truncated body). */
#define CUBE_STREAM_ERROR (-2L)

/**
 * A streaming response body (Server-Sent Events, log follow, large
 * downloads); passed to cube_host.resp_stream.
 *
 * The host calls `read` on an HTTP thread whenever the client can take more
 * data. It returns the number of bytes written into buf (1..max), 0 when no
 * data is ready yet, CUBE_STREAM_END or CUBE_STREAM_ERROR. After 0, the host
 * parks the connection without holding a thread, and calls read again after
 * cube_host.stream_wake or after `idle_ms` (use that for SSE heart-beats).
 * `close` is always called exactly once, when the stream ends for any reason
 * (end, error, client gone, server shutdown); after it returns the
 * cube_stream handle is invalid and the plugin must not wake it again.
 */
struct cube_stream_desc {
    /* since 1.0 */
    size_t size;      /**< sizeof(struct cube_stream_desc) */
    long (*read)(void *cls, char *buf, size_t max);  /**< required */
    void (*close)(void *cls);                        /**< optional */
    void *cls;        /**< passed to read and close; owned by the plugin */
    /** Call read again after this many ms even without a wake (0: 1000). */
    unsigned idle_ms;
};

#ifdef __cplusplus
}
#endif

#endif /* CUBE_HTTP_H */
