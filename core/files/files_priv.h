/* files_priv.h — the project files' record, shared by files.c and
 * files_fs.c. Not for other core files. */
#ifndef CUBE_FILES_PRIV_H
#define CUBE_FILES_PRIV_H

#include <stddef.h>
#include <stdint.h>

#include "files.h"

struct cube_files {
    char *projects_dir;        /* <data>/projects */
    uint64_t max_file_bytes;   /* 0: no limit */
};

/* Writes all of data to fd, retrying short writes and EINTR (files.c):
 * 0, or -1 with errno set. */
int cube_files_write_all(int fd, const void *data, size_t len);

#endif
