/* loader_scan.c — finding plugin files on disk for `cubed --list-plugins`. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "loader.h"
#include "base/fs.h"

static int plugin_name_of(const char *file, char *name, size_t len)
{
    size_t flen = strlen(file);
    if (flen <= 8 || strncmp(file, "cube-", 5) != 0 ||
        strcmp(file + flen - 3, ".so") != 0 || flen - 8 >= len)
        return 0;
    memcpy(name, file + 5, flen - 8);
    name[flen - 8] = '\0';
    return 1;
}

static void add_name(char ***names, size_t *n, const char *name)
{
    for (size_t i = 0; i < *n; i++)
        if ((*names)[i] && strcmp((*names)[i], name) == 0)
            return;
    char **grown = realloc(*names, (*n + 1) * sizeof *grown);
    if (!grown)
        return;
    *names = grown;
    (*names)[(*n)++] = strdup(name);
}

/* Adds the plugin names of cube-<name>.so files in dir and its direct
 * subdirectories (the build tree's plugins/<name>/ layout). */
void cube_loader_scan_dir(const char *dir, char ***names, size_t *n)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *de;
    char name[128];
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        if (plugin_name_of(de->d_name, name, sizeof name)) {
            add_name(names, n, name);
            continue;
        }
        char *sub = cube_path_join(dir, de->d_name);
        DIR *sd = sub ? opendir(sub) : NULL;
        struct dirent *se;
        while (sd && (se = readdir(sd)))
            if (plugin_name_of(se->d_name, name, sizeof name))
                add_name(names, n, name);
        if (sd)
            closedir(sd);
        free(sub);
    }
    closedir(d);
}
