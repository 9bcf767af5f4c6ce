/* files_fs_list.c — a project directory's listing for the files HTTP API
 * (files_fs.h): its files and directories, by name. */
#include "files_fs.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct entry {
    char *name;
    struct stat st;
};

static int entry_cmp(const void *a, const void *b)
{
    return strcmp(((const struct entry *)a)->name, ((const struct entry *)b)->name);
}

cJSON *cube_ffs_entry(const char *name, const struct stat *st)
{
    char when[32];
    struct tm tm;
    time_t t = st->st_mtim.tv_sec;
    if (!gmtime_r(&t, &tm) || !strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm))
        when[0] = '\0';
    int dir = S_ISDIR(st->st_mode);
    cJSON *o = cJSON_CreateObject();
    if (!o || !cJSON_AddStringToObject(o, "name", name) ||
        !cJSON_AddNumberToObject(o, "size", dir ? 0.0 : (double)st->st_size) ||
        !cJSON_AddBoolToObject(o, "dir", dir) ||
        !cJSON_AddStringToObject(o, "modified", when)) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* Reads up to max entries of d into *out (*n of them). 0, or -1 (OOM). */
static int collect(DIR *d, size_t max, struct entry **out, size_t *n, int *truncated)
{
    size_t cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue; /* ".", "..", temp files: never a project file's name */
        struct entry it = {0};
        if (fstatat(dirfd(d), e->d_name, &it.st, AT_SYMLINK_NOFOLLOW) < 0 ||
            (!S_ISREG(it.st.st_mode) && !S_ISDIR(it.st.st_mode)))
            continue; /* gone meanwhile, or a symlink, FIFO, socket... */
        if (*n == max) {
            *truncated = 1;
            break;
        }
        if (*n == cap) {
            size_t ncap = cap ? cap * 2 : 32;
            struct entry *grown = realloc(*out, ncap * sizeof **out);
            if (!grown)
                return -1;
            *out = grown;
            cap = ncap;
        }
        if (!(it.name = strdup(e->d_name)))
            return -1;
        (*out)[(*n)++] = it;
    }
    return 0;
}

cJSON *cube_ffs_list(int fd, size_t max, int *truncated)
{
    *truncated = 0;
    DIR *d = fdopendir(fd);
    if (!d) {
        close(fd);
        return NULL;
    }
    struct entry *ents = NULL;
    size_t n = 0;
    cJSON *arr = NULL;
    if (collect(d, max, &ents, &n, truncated) == 0 && (arr = cJSON_CreateArray())) {
        if (n)
            qsort(ents, n, sizeof *ents, entry_cmp);
        for (size_t i = 0; arr && i < n; i++) {
            cJSON *o = cube_ffs_entry(ents[i].name, &ents[i].st);
            if (!o) {
                cJSON_Delete(arr);
                arr = NULL;
            } else {
                cJSON_AddItemToArray(arr, o);
            }
        }
    }
    for (size_t i = 0; i < n; i++)
        free(ents[i].name);
    free(ents);
    closedir(d);
    return arr;
}
