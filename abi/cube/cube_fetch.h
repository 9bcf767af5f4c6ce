/*
 * cube_fetch.h — outbound HTTP owned by the host (since 1.5).
 *
 * Part of the Cube plugin ABI. A plugin asks the host to fetch a URL with
 * host->fetch and gets its answer through callbacks; the host owns the
 * connections, TLS (peer and host name always verified), the proxy and the
 * egress allow-list of cube.yaml (`egress:`), and no thread waits while a
 * fetch is in flight.
 *
 * Outcomes, in cube_fetch_result.error (the fetch slot itself fails only for
 * a malformed descriptor, out of memory or shutdown):
 *   CUBE_OK        a response arrived, whatever its HTTP status
 *   CUBE_EPERM     the egress allow-list refused the URL, a redirect or the
 *                  address a name resolved to; the message names the rule
 *   CUBE_ETOOBIG   the body passed max_bytes (the fetch was stopped there)
 *   CUBE_ETIMEDOUT timeout_ms passed before the answer was complete
 *   CUBE_EIO       no connection, TLS failure, a broken answer, too many
 *                  redirects
 *   CUBE_ESTATE    the host is shutting down
 *   any other      the code the plugin's chunk callback returned to stop it
 */
#ifndef CUBE_FETCH_H
#define CUBE_FETCH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** max_redirects value: a 3xx answer is delivered as it is. */
#define CUBE_FETCH_NO_REDIRECTS (-1)

/** What a fetch came to, handed to its done callback. Every pointer is
 *  borrowed: valid until done returns (copy what you keep). */
struct cube_fetch_result {
    size_t size;           /**< sizeof(struct cube_fetch_result) */
    int error;             /**< CUBE_OK or a code listed above */
    /** Why, when error is not CUBE_OK ("" otherwise). Never holds request
     *  header values (credentials stay out of messages and logs). */
    const char *message;
    int status;            /**< HTTP status of the final answer; 0: none */
    /** The final answer's header lines, each "Name: value\r\n", as
     *  received (no status line); "" when none. */
    const char *headers;
    /** The body (NUL-terminated for convenience; body_len excludes the
     *  NUL); "" when the fetch had a chunk callback, which got it. */
    const char *body;
    size_t body_len;
    /** The URL the final answer came from (after redirects). */
    const char *url;
};

/** One outbound request. The host copies every field during the fetch
 *  call: nothing here need outlive it except `arg`. */
struct cube_fetch_desc {
    size_t size;           /**< sizeof(struct cube_fetch_desc) */
    /** "GET", "POST", "PUT", "PATCH", "DELETE", "HEAD" ...; NULL: "GET". */
    const char *method;
    /** An absolute http:// or https:// URL. */
    const char *url;
    /** Request headers, each "Name: value", NULL-terminated; may be NULL.
     *  Values are never logged. An Authorization or Cookie header is
     *  dropped when a redirect leaves the original host and port. */
    const char *const *headers;
    /** Request body (copied) and its length; NULL/0: none. */
    const void *body;
    size_t body_len;
    /** The whole fetch, redirects included; 0: 30000; at most 3600000. */
    uint32_t timeout_ms;
    /** Cap on the answer's body in bytes; 0: 8 MiB when buffered, no cap
     *  when streamed through `chunk`. */
    uint64_t max_bytes;
    /** Redirects followed (each re-checked against the allow-list; 303, and
     *  301/302 after a POST, become GET without a body); 0: 5; at most 10;
     *  CUBE_FETCH_NO_REDIRECTS: none. */
    int max_redirects;
    /** Optional: receives the final answer's body in order as it arrives
     *  (never a redirect's), `data` borrowed for the call. Return CUBE_OK to
     *  go on; any other code stops the fetch, and done gets that code. */
    int (*chunk)(void *state, void *arg, const void *data, size_t len);
    /** Required: called exactly once per fetch (unless it is cancelled
     *  first), after the last chunk. */
    void (*done)(void *state, void *arg, const struct cube_fetch_result *res);
    /** Handed to chunk and done, after the plugin's state. */
    void *arg;
    /** A PEM bundle of the CAs to trust for this https fetch instead of
     *  cube.yaml's egress.ca_file (or the system's): a plugin's own
     *  setting, such as a private identity provider's CA. NULL or "": the
     *  platform's. Verification stays on either way. A file that cannot be
     *  read fails the fetch with CUBE_EIO. */
    const char *ca_file;
};

#ifdef __cplusplus
}
#endif

#endif /* CUBE_FETCH_H */
