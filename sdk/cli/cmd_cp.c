/* cmd_cp.c — cubectl cp: files between this machine and the project's
 * files on the server (remote.h), a directory with what it holds. */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <dirent.h>

#include "remote.h"

static const char usage[] =
    "Usage: cubectl cp LOCAL :PATH      upload a file, or a directory with what it holds\n"
    "       cubectl cp :PATH LOCAL      download a file, or a directory with what it holds\n"
    "\n"
    "Copies between here and the project's files on the server (its shared\n"
    "directory, which jobs see as $CUBE_PROJECT_DIR). A path on the server\n"
    "starts with ':' and is relative to the project's directory (':' alone is\n"
    "that directory); a local path starting with ':' is written './:...'. '-' as\n"
    "LOCAL is standard input or output, for one file.\n"
    "\n"
    "As cp -r does: when the destination is an existing directory (or ends with\n"
    "'/'), the source goes into it under its own name; otherwise the source\n"
    "becomes the destination. Existing files are replaced. Names starting with\n"
    "'.', symbolic links and empty directories are not uploaded (a note on\n"
    "stderr names each). The first failure stops the copy (exit 1).\n"
    "\n"
    "Examples:\n"
    "  cubectl cp train.csv :data/         # :data/train.csv\n"
    "  cubectl cp ./src :code              # :code/... (or :code/src/... if :code exists)\n"
    "  cubectl cp :pipeline-runs/r1/results ./results\n"
    "  cubectl cp :data/train.csv - | head\n";

struct cp {
    struct cli *cli;
    const char *project;
};

static void note(const char *what, const char *why)
{
    fprintf(stderr, "note: %s not copied: %s\n", what, why);
}

/* a + "/" + b (b alone when a is ""); malloc'd, NULL when out of memory. */
static char *join(const char *a, const char *b)
{
    char *out = NULL;
    size_t n = strlen(a);
    int slash = n && a[n - 1] != '/';
    return asprintf(&out, "%s%s%s", a, slash ? "/" : "", b) < 0 ? NULL : out;
}

/* ":x/y/" as "x/y" (malloc'd): leading '/' dropped (paths are relative to
 * the project's directory anyway); *as_dir when it ended with '/' or is
 * the project's directory. */
static char *remote_arg(const char *arg, int *as_dir)
{
    const char *p = arg + 1;
    while (*p == '/')
        p++;
    size_t n = strlen(p);
    *as_dir = n == 0 || p[n - 1] == '/';
    while (n && p[n - 1] == '/')
        n--;
    return strndup(p, n);
}

/* The last segment of a local or remote path (malloc'd). */
static char *last_segment(const char *path)
{
    char *copy = strdup(path), *out = copy ? strdup(basename(copy)) : NULL;
    free(copy);
    return out;
}

/* -- up ------------------------------------------------------------------ */

static int put_file(struct cp *c, const char *local, const char *remote)
{
    FILE *f = strcmp(local, "-") ? fopen(local, "rb") : stdin;
    struct stat st;
    if (!f)
        return cli_fail("cannot read %s: %s", local, strerror(errno));
    long long size = f != stdin && fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode)
                         ? (long long)st.st_size : -1;
    int rc = remote_put(c->cli, c->project, remote, f, size);
    if (f != stdin)
        fclose(f);
    return rc;
}

static int put_dir(struct cp *c, const char *local, const char *remote, int *copied);

/* One entry of a local directory being uploaded; symbolic links are not
 * followed. *copied counts the files written. */
static int put_entry(struct cp *c, const char *dir, const char *rdir, const char *name,
                     int *copied)
{
    char *local = join(dir, name), *remote = join(rdir, name);
    struct stat st;
    int rc = 0;
    if (!local || !remote)
        rc = cli_fail("out of memory");
    else if (name[0] == '.')
        note(local, "names starting with '.' are not project files");
    else if (lstat(local, &st) < 0)
        rc = cli_fail("cannot read %s: %s", local, strerror(errno));
    else if (S_ISLNK(st.st_mode))
        note(local, "a symbolic link");
    else if (S_ISDIR(st.st_mode))
        rc = put_dir(c, local, remote, copied);
    else if (!S_ISREG(st.st_mode))
        note(local, "not a regular file");
    else if (!(rc = put_file(c, local, remote)))
        (*copied)++;
    free(local);
    free(remote);
    return rc;
}

static int put_dir(struct cp *c, const char *local, const char *remote, int *copied)
{
    struct dirent **names;
    int n = scandir(local, &names, NULL, alphasort), rc = 0, before = *copied;
    if (n < 0)
        return cli_fail("cannot read the directory %s: %s", local, strerror(errno));
    for (int i = 0; i < n; i++) {
        const char *name = names[i]->d_name;
        if (!rc && strcmp(name, ".") && strcmp(name, ".."))
            rc = put_entry(c, local, remote, name, copied);
        free(names[i]);
    }
    free(names);
    if (!rc && *copied == before)
        note(local, "an empty directory (the server makes directories for files only)");
    return rc;
}

/* Where LOCAL goes: into :PATH under its own name when that is a
 * directory (or written as one), else :PATH itself. *target malloc'd. */
static int upload_target(struct cp *c, const char *local, const char *rpath, int as_dir,
                         int local_dir, char **target)
{
    enum remote_kind k = REMOTE_DIR;
    int rc = as_dir ? 0 : remote_stat(c->cli, c->project, rpath, 1, &k);
    if (rc)
        return rc;
    if (k == REMOTE_FILE && local_dir)
        return cli_fail(":%s is a file, not a directory", rpath);
    if (k != REMOTE_DIR)
        return (*target = strdup(rpath)) ? 0 : cli_fail("out of memory");
    if (!strcmp(local, "-"))
        return cli_usage_error(c->cli, "standard input needs a file name: :DIR/NAME");
    char *base = last_segment(local);
    if (!base)
        return cli_fail("out of memory");
    if (!strcmp(base, ".") || !strcmp(base, "..") || !strcmp(base, "/"))
        *target = strdup(rpath); /* "cp -r . :x/" copies what . holds */
    else if (base[0] == '.')
        rc = cli_fail("%s: names starting with '.' are not project files", local);
    else
        *target = join(rpath, base);
    free(base);
    return rc || *target ? rc : cli_fail("out of memory");
}

static int upload(struct cp *c, const char *local, const char *arg)
{
    int as_dir, rc;
    struct stat st;
    char *rpath = remote_arg(arg, &as_dir), *target = NULL;
    int from_stdin = !strcmp(local, "-");
    if (!rpath)
        return cli_fail("out of memory");
    if (!from_stdin && stat(local, &st) < 0)
        rc = cli_fail("cannot read %s: %s", local, strerror(errno));
    else if (!from_stdin && !S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode))
        rc = cli_fail("%s is neither a file nor a directory", local);
    else
        rc = upload_target(c, local, rpath, as_dir, !from_stdin && S_ISDIR(st.st_mode),
                           &target);
    int copied = 0;
    if (!rc)
        rc = !from_stdin && S_ISDIR(st.st_mode) ? put_dir(c, local, target, &copied)
                                                : put_file(c, local, target);
    free(target);
    free(rpath);
    return rc;
}

/* -- down ---------------------------------------------------------------- */

static int get_dir(struct cp *c, const char *remote, const char *local)
{
    struct stat st;
    if (lstat(local, &st) == 0) {
        if (!S_ISDIR(st.st_mode))   /* a symbolic link too: not followed */
            return cli_fail("%s exists and is not a directory", local);
    } else if (mkdir(local, 0777) < 0) {
        return cli_fail("cannot make %s: %s", local, strerror(errno));
    }
    cJSON *items, *it;
    int rc = remote_list(c->cli, c->project, remote, &items);
    cJSON_ArrayForEach(it, items) {
        const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, "name"));
        if (!remote_name_ok(name)) {
            rc = cli_fail("the server listed a bad name in :%s", remote);
            break;
        }
        char *r = join(remote, name), *l = join(local, name);
        if (!r || !l)
            rc = cli_fail("out of memory");
        else if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(it, "dir")))
            rc = get_dir(c, r, l);
        else
            rc = remote_get(c->cli, c->project, r, l);
        free(r);
        free(l);
        if (rc)
            break;
    }
    cJSON_Delete(items);
    return rc;
}

/* Where :PATH goes: into LOCAL under its own name (the project's name for
 * the project's directory) when LOCAL is an existing directory, else
 * LOCAL itself. malloc'd. */
static char *download_target(struct cp *c, const char *rpath, const char *local,
                             int local_dir)
{
    if (!local_dir)
        return strdup(local);
    char *base = *rpath ? last_segment(rpath) : strdup(c->project);
    char *target = base ? join(local, base) : NULL;
    free(base);
    return target;
}

static int download(struct cp *c, const char *arg, const char *local)
{
    int as_dir;
    enum remote_kind k;
    struct stat st;
    char *rpath = remote_arg(arg, &as_dir), *target = NULL;
    if (!rpath)
        return cli_fail("out of memory");
    size_t n = strlen(local);
    int local_dir = stat(local, &st) == 0 && S_ISDIR(st.st_mode);
    int rc = remote_stat(c->cli, c->project, rpath, 0, &k);
    if (!rc && as_dir && *rpath && k == REMOTE_FILE)
        rc = cli_fail(":%s is a file, not a directory", rpath);
    else if (!rc && !strcmp(local, "-"))
        rc = k == REMOTE_DIR
                 ? cli_fail(":%s is a directory: it cannot go to standard output", rpath)
                 : remote_get(c->cli, c->project, rpath, "-");
    else if (!rc && !local_dir && n && local[n - 1] == '/')
        rc = cli_fail("%s is not a directory", local);
    else if (!rc && !(target = download_target(c, rpath, local, local_dir)))
        rc = cli_fail("out of memory");
    else if (!rc)
        rc = k == REMOTE_DIR ? get_dir(c, rpath, target)
                             : remote_get(c->cli, c->project, rpath, target);
    free(target);
    free(rpath);
    return rc;
}

int cmd_cp(struct cli *cli, int argc, char **argv)
{
    int rc = cli_parse(cli, argc, argv, NULL, usage);
    if (rc != CLI_GO)
        return rc;
    if (cli->npos != 2)
        return cli_usage_error(cli, "expected a source and a destination");
    const char *src = cli->pos[0], *dst = cli->pos[1];
    int remote_src = src[0] == ':', remote_dst = dst[0] == ':';
    if (remote_src == remote_dst)
        return cli_usage_error(cli, remote_src
                               ? "both paths are the server's: one must be local"
                               : "one of the paths must be the project's, as :PATH");
    if ((rc = cli_connect(cli)))
        return rc;
    struct cp c = {cli, cli_project(cli)};
    return remote_src ? download(&c, src, dst) : upload(&c, src, dst);
}
