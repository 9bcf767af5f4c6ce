/* logstore.h — append-only log streams per object, under the data dir:
 * <data>/logs/<project or _cluster>/<kind>/<name>/<stream>.log. Thread-safe.
 * (Project files are files/files.h.) */
#ifndef CUBE_LOGSTORE_H
#define CUBE_LOGSTORE_H

#include <stddef.h>
#include <stdint.h>

#include <cube/cube.h>

struct cube_logstore;

/* Opens the store rooted at data_dir. max_stream_bytes caps one log stream
 * (appends past it return CUBE_ETOOBIG). */
struct cube_logstore *cube_logstore_new(const char *data_dir,
                                        uint64_t max_stream_bytes);
/* Ends every follower (they get END) and frees. */
void cube_logstore_free(struct cube_logstore *ls);

/* Names are checked: kind/project/name/stream must be non-empty, without
 * '/', NUL or a leading '.', at most 253 bytes (CUBE_EINVAL otherwise).
 * project NULL or "" means a cluster-scoped object. */
int cube_logstore_append(struct cube_logstore *ls, const char *kind,
                         const char *project, const char *name,
                         const char *stream, const void *data, size_t len);
/* Appends data as the bytes from `offset` of the stream (the idempotent
 * resume rule of the log_append_at slot): bytes before the stream's size
 * are taken as there already and skipped, the rest appended. CUBE_OK
 * (also when nothing was left to append), CUBE_ECONFLICT (offset past the
 * size: nothing appended), CUBE_ESTATE (closed, and data goes past its
 * end), else as cube_logstore_append. */
int cube_logstore_append_at(struct cube_logstore *ls, const char *kind,
                            const char *project, const char *name,
                            const char *stream, uint64_t offset,
                            const void *data, size_t len);
/* The stream's size and whether it is finished (either may be NULL); a
 * stream finished without a byte is size 0, closed. CUBE_ENOTFOUND when
 * it was never appended to nor closed. */
int cube_logstore_stat(struct cube_logstore *ls, const char *kind,
                       const char *project, const char *name,
                       const char *stream, uint64_t *size, int *closed);
/* Reads up to max bytes from offset into a new buffer (*len bytes, NUL
 * added). CUBE_ENOTFOUND when the stream does not exist. Reading past the
 * end gives 0 bytes. */
char *cube_logstore_read(struct cube_logstore *ls, const char *kind,
                         const char *project, const char *name,
                         const char *stream, uint64_t offset, size_t max,
                         size_t *len, int *rc);
/* Marks the stream finished: followers drain and end; later appends
 * re-open it. */
int cube_logstore_close(struct cube_logstore *ls, const char *kind,
                        const char *project, const char *name,
                        const char *stream);
/* Answers req with the stream from offset (text/plain; charset=utf-8),
 * using the host's streaming response; with follow, keeps going as bytes
 * are appended until the stream is closed or the client leaves. A missing
 * stream answers 404 unless follow is set (then it waits for the first
 * append). */
int cube_logstore_respond(struct cube_logstore *ls, cube_req *req,
                          const char *kind, const char *project,
                          const char *name, const char *stream,
                          uint64_t offset, int follow);
/* Deletes every stream of an object (when it is deleted). */
int cube_logstore_remove_object(struct cube_logstore *ls, const char *kind,
                                const char *project, const char *name);

#endif
