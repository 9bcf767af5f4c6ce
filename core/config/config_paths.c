/* config_paths.c — relative paths of the configuration made absolute at
 * load (config_priv.h): cube.yaml's against its own directory, the
 * environment's and the defaults without a cube.yaml against the working
 * directory. cubed and every plugin then see absolute paths only, whatever
 * directory a task or a plugin later runs in. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config_priv.h"

/* The working directory, malloc'd; NULL with errno set. */
static char *working_dir(void)
{
    for (size_t cap = 256; cap <= (1u << 20); cap *= 2) {
        char *buf = malloc(cap);
        if (!buf)
            return NULL;
        if (getcwd(buf, cap))
            return buf;
        free(buf);
        if (errno != ERANGE)
            return NULL;
    }
    errno = ENAMETOOLONG;
    return NULL;
}

/* a, "/", b (b's first n bytes) without "." segments or repeated slashes;
 * a must be absolute. ".." is kept: a symlink makes it more than text. */
static char *clean_join(const char *a, const char *b, size_t n)
{
    size_t alen = strlen(a);
    char *out = malloc(alen + n + 3), *w = out;
    if (!out)
        return NULL;
    const char *parts[2] = {a, b};
    size_t lens[2] = {alen, n};
    for (int k = 0; k < 2; k++) {
        const char *s = parts[k], *end = s + lens[k];
        while (s < end) {
            const char *seg = s;
            while (s < end && *s != '/')
                s++;
            size_t len = (size_t)(s - seg);
            if (len && !(len == 1 && *seg == '.')) {
                *w++ = '/';
                memcpy(w, seg, len);
                w += len;
            }
            while (s < end && *s == '/')
                s++;
        }
    }
    if (w == out)
        *w++ = '/';
    *w = '\0';
    return out;
}

char *cube_config_base_dir(const char *file)
{
    const char *slash = file ? strrchr(file, '/') : NULL;
    if (slash && file[0] == '/')
        return clean_join("/", file, (size_t)(slash - file));
    char *cwd = working_dir();
    if (!cwd || !slash)
        return cwd;
    char *dir = clean_join(cwd, file, (size_t)(slash - file));
    free(cwd);
    return dir;
}

int cube_config_make_absolute(char **p, const char *base)
{
    if (!*p || !**p || **p == '/')
        return 0;
    char *abs = clean_join(base, *p, strlen(*p));
    if (!abs)
        return -1;
    free(*p);
    *p = abs;
    return 0;
}
