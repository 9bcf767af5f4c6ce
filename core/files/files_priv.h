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

/* The directories the store makes (files.c). */
#define CUBE_FILES_DIR_MODE 0750

/* Opens the directory dir (made with its parents when create): the fd, or
 * -1 with *rc (CUBE_ENOTFOUND, CUBE_EPERM for a symlink, CUBE_EIO). */
int cube_files_open_dir(const char *dir, int create, int *rc);
/* As cube_files_open_dir for <data>/projects/<project>; CUBE_EINVAL for a
 * bad project name. */
int cube_files_open_project(struct cube_files *files, const char *project, int create,
                            int *rc);
/* Walks path (a writable copy, cut at each '/') down from the directory
 * fd `root` (taken over: closed), one segment at a time with O_NOFOLLOW,
 * making missing directories when create. Returns the fd of the directory
 * holding the last segment, with *last pointing at it, or -1 with *rc. */
int cube_files_walk_from(int root, char *path, int create, char **last, int *rc);
/* The CUBE_E code for a failed open or stat of name in dirfd (errno err):
 * CUBE_EPERM for a symlink, CUBE_ENOTFOUND, CUBE_EEXIST ... */
int cube_files_seg_error(int dirfd, const char *name, int err, int writing);

/* Writes all of data to fd, retrying short writes and EINTR (files.c):
 * 0, or -1 with errno set. */
int cube_files_write_all(int fd, const void *data, size_t len);

#endif
