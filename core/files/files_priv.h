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

/* The running SHA-256 of a pending upload (files_digest.c): a thread of
 * its own hashes the written prefix from the file while writes go on.
 * The handle's writes are bracketed by write_begin and write_end (one
 * writer: the handle's thread); `written` is what the file holds already
 * (a resumed upload), hashed too. NULL when out of memory. */
struct cube_files_digest;
struct cube_files_digest *cube_files_digest_new(int fd, uint64_t written);
void cube_files_digest_write_begin(struct cube_files_digest *d, uint64_t offset);
void cube_files_digest_write_end(struct cube_files_digest *d, uint64_t offset, uint64_t len,
                                 int ok);
/* The SHA-256 of the file's first size bytes (its size) as hex: waits for
 * the thread, then hashes what it had not. The digest goes on from there
 * if more is written. CUBE_OK, CUBE_EIO, CUBE_ENOMEM. */
int cube_files_digest_finish(struct cube_files_digest *d, uint64_t size,
                             char hex[CUBE_SHA256_HEX_SIZE]);
/* Stops the thread and frees d (before the fd is closed); NULL is fine. */
void cube_files_digest_free(struct cube_files_digest *d);

/* Writes all of data to fd, retrying short writes and EINTR (files.c):
 * 0, or -1 with errno set. */
int cube_files_write_all(int fd, const void *data, size_t len);

#endif
