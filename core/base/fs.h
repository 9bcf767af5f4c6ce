/* fs.h — directories, paths and reading a file whole. */
#ifndef CUBE_FS_H
#define CUBE_FS_H

#include <stddef.h>

/* Creates `path` and missing parents with `mode`; 0 or -1 (errno set). */
int cube_mkdir_p(const char *path, unsigned mode);
/* Returns malloc'd "a/b" (no doubled slash); NULL on OOM. */
char *cube_path_join(const char *a, const char *b);
/* Reads a whole file (at most max bytes) into a malloc'd NUL-terminated
 * buffer. Returns NULL with errno set (EFBIG when larger than max). */
char *cube_read_file(const char *path, size_t max, size_t *len);

/* 1 when s can name one entry of a directory the data dir holds (a kind,
 * project, object or stream): not empty, no '/', not starting with '.' (no
 * hidden file, no "." or ".."), at most 253 bytes. */
int cube_fs_name_ok(const char *s);

#endif
