/*
 * cube_http.h — descriptors for HTTP routes and streaming responses, and
 * (since 1.5) streamed request bodies and the file handles they are
 * written into.
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
    /* since 1.5 */
    /**
     * Nonzero: the route streams its request body (see struct
     * cube_body_desc). The host checks the permission, then the declared
     * Content-Length against max_body_bytes (413 past it), and calls
     * `handler` as soon as the request's head is in, before a single body
     * byte is read: the handler looks at the head (params, query,
     * headers, req_user) and either answers at once (the body is then
     * never read and the connection closes after the answer) or calls
     * cube_host.req_body_stream to receive the body in chunks as they
     * arrive. The host never gathers such a body: req_body gives "", and
     * no JSON check is made.
     */
    int stream_body;
    /**
     * For stream_body routes, the most body bytes the route takes: a
     * larger Content-Length is answered 413 before the handler runs, and
     * a chunked body that grows past it is stopped there (413; no byte
     * past the limit reaches the plugin). 0 means limits.max_body_bytes,
     * the server's cap on buffered bodies (8 MiB by default);
     * UINT64_MAX means no limit. Must be 0 when stream_body is 0
     * (register_route: CUBE_EINVAL).
     */
    uint64_t max_body_bytes;
    /* since 1.5 (appended) */
    /**
     * Optional, with permission CUBE_PERM_PROJECT_OPERATE and a `{name}`
     * path parameter: the kind (e.g. "Model") of the project object that
     * {name} names. The host then applies the generic API's rule for
     * operating on an object: the project's ops and up pass, and so does a
     * dev who is the object's metadata.owner; a member who may view the
     * project is answered 404 when the object does not exist. Without it a
     * project:operate route admits ops and up only. Borrowed for the call;
     * the host copies. An unknown kind is answered 404 at request time.
     */
    const char *owner_kind;
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

/* ------------------------------------------------------------------ */
/* since 1.5: streamed request bodies and files                        */
/* ------------------------------------------------------------------ */

/**
 * Receives a streamed request body; passed to cube_host.req_body_stream by
 * the handler of a stream_body route, which the host copies (fill `size`).
 *
 * Callbacks run on the request's HTTP thread, one at a time and in order;
 * they may call any slot, take `req` for the request accessors and resp_*
 * (valid until close), and may block on the disk (file_write_at) but should
 * not wait on the network: the connection's thread waits with them.
 * Errors follow the one rule of the 1.5 callbacks (cube_host.h, "One error
 * channel"): a return code, explained with set_error or set_error_field,
 * which the host then answers with the code's status and that message and
 * field; or an answer the callback makes itself.
 */
struct cube_body_desc {
    /* since 1.5 */
    size_t size;      /**< sizeof(struct cube_body_desc) */
    /**
     * Required. The next `len` (>= 1) bytes of the body, borrowed for the
     * call. Return CUBE_OK for more. Returning an error, or answering
     * (resp_*), stops the body: no further data or end call; the host
     * reads the rest of the body and drops it (at most
     * limits.max_body_bytes more, else it closes the connection without an
     * answer), then sends the callback's answer, or for an error without
     * one the status a handler's code gives (see cube_route_fn) with the
     * callback's set_error message.
     */
    int (*data)(void *cls, cube_req *req, const char *data, size_t len);
    /**
     * Required. The whole body is in (every byte went through data). Answer
     * the request here with exactly one resp_* call (resp_file included)
     * and return CUBE_OK, or return an error code as a handler does.
     */
    int (*end)(void *cls, cube_req *req);
    /**
     * Optional. Called exactly once, after the last data or end call, when
     * the host is done with cls: release it here (file_close, or file_abort
     * to drop what was written). `rc` is CUBE_OK when end ran and returned
     * CUBE_OK; else why the body stopped: CUBE_ETOOBIG (past the route's
     * max_body_bytes; the host answers 413), CUBE_EIO (the client went away
     * or the connection broke before the body was in), CUBE_ESTATE (the
     * request was answered before the body was read, or the server is
     * shutting down), or the code data, end or the handler returned. No
     * request is passed: it may be gone.
     */
    void (*close)(void *cls, int rc);
    void *cls;        /**< passed to the callbacks; owned by the plugin */
};

/** An open file of the host's file store (see cube_host.file_open). Owned
 *  by the plugin from file_open until file_close, which frees it. A handle
 *  is used by one thread at a time. */
typedef struct cube_file cube_file;

/** file_open flags: exactly one of READ and WRITE; TRUNCATE with WRITE. */
/** Read the published file (file_pread, resp_file). */
#define CUBE_FILE_READ 0x1u
/** Write the path's pending upload (file_write_at, then file_commit or
 *  file_abort); made empty when there is none, resumed when there is. */
#define CUBE_FILE_WRITE 0x2u
/** With CUBE_FILE_WRITE: start the pending upload over, empty. */
#define CUBE_FILE_TRUNCATE 0x4u
/** Bytes of a SHA-256 in hex with its NUL (file_commit). */
#define CUBE_SHA256_HEX_SIZE 65

#ifdef __cplusplus
}
#endif

#endif /* CUBE_HTTP_H */
