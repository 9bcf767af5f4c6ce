/* files.h — project files under the data dir: <data>/projects/<project>/<path>,
 * read and written by plugins' file_* slots and the scheduler (files.c) and
 * by the files HTTP API (files_http.c over files_fs.c). Thread-safe. */
#ifndef CUBE_FILES_H
#define CUBE_FILES_H

#include <stddef.h>
#include <stdint.h>

#include <cube/cube.h>

struct cube_files;

/* Project files under data_dir; max_file_bytes caps one file (0: no cap).
 * NULL when out of memory. */
struct cube_files *cube_files_new(const char *data_dir, uint64_t max_file_bytes);
void cube_files_free(struct cube_files *files);

/* Project files. path: relative, "/"-separated, no "..", "." or empty
 * segments, no leading '.', at most 1024 bytes (CUBE_EINVAL). */
/* 1 when path is such a path. */
int cube_files_path_ok(const char *path);
int cube_files_write(struct cube_files *files, const char *project,
                     const char *path, const void *data, size_t len);
char *cube_files_read(struct cube_files *files, const char *project,
                      const char *path, size_t *len, int *rc);
int cube_files_delete(struct cube_files *files, const char *project,
                      const char *path);
/* The absolute path of a project file (for processes that read it, such as
 * an MPI hostfile); NULL for a bad path. New string. */
char *cube_files_path(struct cube_files *files, const char *project, const char *path);
/* JSON array [{"name","size","dir"}] of a directory ("" or NULL: the
 * project root), sorted by name; NULL + *rc on error. */
char *cube_files_list(struct cube_files *files, const char *project,
                      const char *dir, int *rc);

/* -- open files for plugins (ABI 1.5; files_handle.c, resp_file in
 * files_bytes.c). The contracts are cube_host.h's. */
cube_file *cube_slot_file_open(cube_plugin *self, const char *project, const char *path,
                               unsigned flags, int *rc);
int cube_slot_file_size(cube_file *file, uint64_t *size);
int cube_slot_file_pread(cube_file *file, uint64_t offset, void *buf, size_t max,
                         size_t *got);
int cube_slot_file_write_at(cube_file *file, uint64_t offset, const void *data, size_t len);
int cube_slot_file_commit(cube_file *file, const char *expect_sha256, char *sha256_out);
int cube_slot_file_abort(cube_file *file);
void cube_slot_file_close(cube_file *file);
int cube_slot_resp_file(cube_req *req, cube_file *file, const char *content_type);
/* The fd of a handle that reads a published file (READ, or committed), or
 * -1 (borrowed: the handle keeps it). */
int cube_files_handle_fd(const cube_file *file);

#endif
