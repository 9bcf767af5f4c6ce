/* files_fs.h — the project files tree as the files HTTP API (files_http.c)
 * reads and writes it, under <data>/projects/<project>/.
 *
 * Paths are checked as the plugins' file_* slots check them (files.c:
 * relative, no empty, "." or ".." segments, none starting with '.'), and
 * walked from the project directory one segment at a time with openat()
 * and O_NOFOLLOW, so no symlink is ever followed.
 *
 * cubed may run as root; it does not lend that to callers. An entry that a
 * member's job made (owned by another uid than cubed's) is used only as far
 * as its mode lets a project member who does not own it: its group bits
 * when it has the project directory's group, else its others' bits
 * (directories passed need x, listed r+x, written into w+x; files read r;
 * in a sticky directory only what cubed owns is replaced or deleted). A
 * file cubed owns that has other names (hard links) is not read: another
 * name may be outside the project.
 *
 * What this API writes is mode 0664 (directories 02775), never with exec
 * or set-id bits, in the project directory's group, so that members' jobs
 * (executor-local: the project's group) read it. A write goes to a hidden
 * temp file in the target's directory, renamed over the target.
 *
 * Results are CUBE_OK or: CUBE_EINVAL (a bad path or project name),
 * CUBE_ENOTFOUND, CUBE_EPERM (a symlink, not a regular file, the mode
 * refuses), CUBE_ECONFLICT (a file where a directory is needed or the
 * other way round, a directory not empty), CUBE_ETOOBIG (over the files
 * limit), CUBE_EUNAVAIL (no space left), CUBE_ENOMEM, CUBE_EIO; all but
 * CUBE_OK fill `why` with a sentence naming the entry. */
#ifndef CUBE_FILES_FS_H
#define CUBE_FILES_FS_H

#include <stddef.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

struct cube_files;

/* Opens path ("" for the project directory) to read: on CUBE_OK *fd (the
 * caller closes it) is a regular file or a directory, as *st says. A
 * project without a directory yet gives CUBE_ENOTFOUND for "". */
int cube_ffs_open(struct cube_files *files, const char *project, const char *path,
                  int *fd, struct stat *st, char *why, size_t why_len);

/* The entries of the directory fd (taken over: closed) as a new JSON
 * array of cube_ffs_entry objects sorted by name, at most max of them
 * (*truncated set when there were more); hidden names, symlinks and other
 * non-files are left out. NULL when out of memory. */
cJSON *cube_ffs_list(int fd, size_t max, int *truncated);

/* {"name","size","dir","modified"} for an entry (a new object, or NULL):
 * size 0 for a directory, modified as "YYYY-MM-DDTHH:MM:SSZ" (UTC). */
cJSON *cube_ffs_entry(const char *name, const struct stat *st);

/* Writes (replaces) the file at path with len bytes of data, making
 * missing parent directories. *created: whether it did not exist before;
 * *st: the new file's. */
int cube_ffs_write(struct cube_files *files, const char *project, const char *path,
                   const void *data, size_t len, int *created, struct stat *st,
                   char *why, size_t why_len);

/* Deletes the file (or the empty directory, or the symlink itself) at
 * path; *st: what it was. */
int cube_ffs_delete(struct cube_files *files, const char *project, const char *path,
                    struct stat *st, char *why, size_t why_len);

#endif
