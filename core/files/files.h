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

#endif
