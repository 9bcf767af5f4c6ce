/* fs.c — directories, paths and reading a file whole (see fs.h). */
#include "fs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int cube_mkdir_p(const char *path, unsigned mode)
{
    char *copy = strdup(path);
    if (!copy)
        return -1;
    for (char *p = copy + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(copy, mode) < 0 && errno != EEXIST) {
            free(copy);
            return -1;
        }
        *p = '/';
    }
    int rc = mkdir(copy, mode);
    free(copy);
    if (rc < 0 && errno != EEXIST)
        return -1;
    return 0;
}

char *cube_path_join(const char *a, const char *b)
{
    size_t la = strlen(a);
    while (la > 1 && a[la - 1] == '/')
        la--;
    while (*b == '/')
        b++;
    char *out = NULL;
    if (asprintf(&out, "%.*s/%s", (int)la, a, b) < 0)
        return NULL;
    return out;
}

char *cube_read_file(const char *path, size_t max, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    struct stat st;
    char *buf = NULL;
    if (fstat(fd, &st) < 0)
        goto fail;
    if ((size_t)st.st_size > max) {
        errno = EFBIG;
        goto fail;
    }
    buf = malloc((size_t)st.st_size + 1);
    if (!buf)
        goto fail;
    size_t got = 0;
    while (got < (size_t)st.st_size) {
        ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            goto fail;
        got += (size_t)n;
    }
    buf[got] = '\0';
    if (len)
        *len = got;
    close(fd);
    return buf;
fail:
    free(buf);
    close(fd);
    return NULL;
}

int cube_fs_name_ok(const char *s)
{
    if (!s || !*s || s[0] == '.' || strchr(s, '/'))
        return 0;
    return strnlen(s, 253 + 1) <= 253;
}
