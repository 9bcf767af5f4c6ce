/* files_http.h — the project files HTTP API: its routes (files_http.c) and
 * the answer carrying a file's bytes (files_bytes.c). */
#ifndef CUBE_FILES_HTTP_H
#define CUBE_FILES_HTTP_H

#include <sys/stat.h>

#include <cube/cube.h>

struct cube_ctx;

/* Registers GET/PUT/DELETE /api/v1/projects/{project}/files[/{path*}].
 * 0, or -1 after logging why. */
int cube_files_routes_register(struct cube_ctx *ctx);

/* Answers with the regular file fd (taken over; st its stat) as an
 * application/octet-stream attachment: 200 with all of it, or 206 with the
 * one range a `Range: bytes=...` header asks for (416 when it starts past
 * the end; several ranges, or an If-Range that is not the ETag, get the
 * whole file); 304 for a GET or HEAD whose If-None-Match names the ETag.
 * Served from the fd, never read into memory (files_bytes.c). 0 or a
 * CUBE_E code. */
int cube_files_answer_bytes(cube_req *req, int fd, const struct stat *st);

#endif
