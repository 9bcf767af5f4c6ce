/* accounts.c — Cube users as OS accounts of their own ("cube-alice", uid
 * from the configured range, made on demand with useradd), their homes
 * (mode 0700) and per-project groups ("cube-p-vision") that own the
 * project's shared directory (root's, group rwx, setgid, sticky: 03770).
 * Every member may create entries there, and only an entry's owner (or
 * root) may remove or rename it, as in /tmp: nobody moves another
 * member's directory aside to put one of their own in its place (the
 * pipeline plugin's pipeline-runs/ lives there). What replicas create is
 * not group-writable (umask 022, supervisor.c). When cubed is not root
 * everything runs as cubed's own user and only the directories are made. */
#include "executor_local.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define OS_NAME_MAX 32   /* useradd's limit */
#define TOOL_BUSY 10     /* useradd/groupadd: cannot lock the files */
#define TOOL_EXISTS 9    /* useradd/groupadd: name already in use */
#define PROJECT_DIR_MODE 03770   /* root:<project group>, setgid, sticky */

void xl_accounts_init(struct xl_accounts *a, const struct xl_conf *conf, int isolate)
{
    a->conf = conf;
    a->isolate = isolate;
    a->cache = isolate ? calloc(1, sizeof *a->cache) : NULL;
    pthread_mutex_init(&a->mu, NULL);
}

void xl_accounts_fini(struct xl_accounts *a)
{
    free(a->cache);
    a->cache = NULL;
    pthread_mutex_destroy(&a->mu);
}

/* FNV-1a, for the suffix of shortened names. */
static uint32_t fnv1a(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

void xl_account_name(const char *prefix, const char *user, char *out, size_t len)
{
    char clean[128];
    size_t n = 0;
    int changed = 0;
    for (const char *p = user; *p && n < sizeof clean - 1; p++) {
        char c = *p >= 'A' && *p <= 'Z' ? (char)(*p - 'A' + 'a') : *p;
        int ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
        changed |= !ok || c != *p;
        clean[n++] = ok ? c : '-';
    }
    clean[n] = '\0';
    size_t room = OS_NAME_MAX - strlen(prefix);
    if (!changed && n <= room) {
        snprintf(out, len, "%s%s", prefix, clean);
        return;
    }
    /* Unique however it was shortened or cleaned: a hash of the real name. */
    snprintf(out, len, "%s%.*s-%08x", prefix, (int)(room - 9), clean, fnv1a(user));
}

/* Runs an account tool (no shell), output captured into out; its exit
 * status, or -1 when it could not run. */
static int run_tool(char *const argv[], char *out, size_t len)
{
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) < 0)
        return -1;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 2);
    char *env[] = {"PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL=C", NULL};
    pid_t pid;
    int rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, env);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    size_t got = 0;
    ssize_t k;
    char rest[256];
    while (rc == 0 && (k = got < len - 1 ? read(fds[0], out + got, len - 1 - got)
                                         : read(fds[0], rest, sizeof rest)) != 0)
        if (k > 0 && got < len - 1)   /* past the buffer: drained, dropped */
            got += (size_t)k;
        else if (k < 0 && errno != EINTR)
            break;
    out[got] = '\0';
    out[strcspn(out, "\n")] = '\0';
    close(fds[0]);
    int st = 0;
    if (rc != 0 || waitpid(pid, &st, 0) < 0)
        return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Runs a tool, retrying while another one holds the password files. */
static int run_tool_retry(char *const argv[], char *out, size_t len)
{
    int rc = -1;
    for (int i = 0; i < 40; i++) {
        if ((rc = run_tool(argv, out, len)) != TOOL_BUSY)
            break;
        nanosleep(&(struct timespec){0, 50 * 1000 * 1000}, NULL);
    }
    return rc;
}

/* The path of an account tool in the usual sbin directories. */
static const char *tool(const char *name, char *buf, size_t len)
{
    static const char *const dirs[] = {"/usr/sbin", "/sbin", "/usr/bin", NULL};
    for (int i = 0; dirs[i]; i++) {
        snprintf(buf, len, "%s/%s", dirs[i], name);
        if (access(buf, X_OK) == 0)
            return buf;
    }
    return NULL;
}

/* getpwnam_r into *pw (buffer buf); 1 found, 0 not, -1 error. */
static int find_user(const char *name, struct passwd *pw, char *buf, size_t len)
{
    struct passwd *res = NULL;
    int e = getpwnam_r(name, pw, buf, len, &res);
    return e ? -1 : res != NULL;
}

/* getgrnam_r into *gr (buffer buf); 1 found, 0 not, -1 error. */
static int find_group(const char *name, struct group *gr, char *buf, size_t len)
{
    struct group *res = NULL;
    int e = getgrnam_r(name, gr, buf, len, &res);
    return e ? -1 : res != NULL;
}

/* Creates the OS account `name` with a uid and own group in range. */
static int add_user(const struct xl_conf *c, const char *name, const char *home,
                    char *msg, size_t len)
{
    char path[64], kmin[48], kmax[48], gmin[48], gmax[48], out[256], grbuf[4096];
    struct group gr;
    if (!tool("useradd", path, sizeof path))
        return snprintf(msg, len, "useradd is missing (apt-get install passwd)"), -1;
    snprintf(kmin, sizeof kmin, "UID_MIN=%u", c->uid_min);
    snprintf(kmax, sizeof kmax, "UID_MAX=%u", c->uid_max);
    snprintf(gmin, sizeof gmin, "GID_MIN=%u", c->uid_min);
    snprintf(gmax, sizeof gmax, "GID_MAX=%u", c->uid_max);
    /* A group of that name left behind by an earlier account is reused. */
    int has_group = find_group(name, &gr, grbuf, sizeof grbuf) == 1;
    char *argv[24];
    int n = 0;
    char *fixed[] = {path, "-K", kmin, "-K", kmax, "-K", gmin, "-K", gmax, "-M", "-l",
                     "-d", (char *)home, "-s", "/usr/sbin/nologin", "-c", "Cube user"};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        argv[n++] = fixed[i];
    if (has_group) {
        argv[n++] = "-g";
        argv[n++] = (char *)name;
    } else {
        argv[n++] = "-U";
    }
    argv[n++] = (char *)name;
    argv[n] = NULL;
    int rc = run_tool_retry(argv, out, sizeof out);
    if (rc != 0 && rc != TOOL_EXISTS)
        return snprintf(msg, len, "useradd %s failed (%d): %s", name, rc, out), -1;
    return 0;
}

/* Looks up (making when missing) the account of user; checks its uid. */
static int ensure_user(struct xl_accounts *a, const char *user, struct xl_account *acct,
                       char *msg, size_t len)
{
    const struct xl_conf *c = a->conf;
    char buf[4096];
    struct passwd pw;
    xl_account_name(c->user_prefix, user, acct->name, sizeof acct->name);
    int found = find_user(acct->name, &pw, buf, sizeof buf);
    if (found == 0 && add_user(c, acct->name, acct->home, msg, len) == 0)
        found = find_user(acct->name, &pw, buf, sizeof buf);
    if (found != 1) {
        if (found == 0 && !*msg)
            snprintf(msg, len, "account %s was not created", acct->name);
        return -1;
    }
    if (pw.pw_uid < c->uid_min || pw.pw_uid > c->uid_max || pw.pw_gid < c->uid_min ||
        pw.pw_gid > c->uid_max)
        return snprintf(msg, len, "account %s exists with uid %u gid %u, outside uid_min.."
                        "uid_max (%u..%u): refusing to use it", acct->name,
                        (unsigned)pw.pw_uid, (unsigned)pw.pw_gid, c->uid_min, c->uid_max), -1;
    acct->uid = pw.pw_uid;
    acct->gid = pw.pw_gid;
    return 0;
}

/* Looks up (making when missing) a project's group and adds the account to
 * it; *gid gets the group id. */
static int ensure_group(struct xl_accounts *a, const char *project, const char *member,
                        gid_t *gid, char *msg, size_t len)
{
    const struct xl_conf *c = a->conf;
    char name[64], path[64], kmin[48], kmax[48], out[256], buf[16384];
    struct group gr;
    xl_account_name(c->group_prefix, project, name, sizeof name);
    int found = find_group(name, &gr, buf, sizeof buf);
    if (found == 0) {
        if (!tool("groupadd", path, sizeof path))
            return snprintf(msg, len, "groupadd is missing (apt-get install passwd)"), -1;
        snprintf(kmin, sizeof kmin, "GID_MIN=%u", c->uid_min);
        snprintf(kmax, sizeof kmax, "GID_MAX=%u", c->uid_max);
        char *argv[] = {path, "-K", kmin, "-K", kmax, name, NULL};
        int rc = run_tool_retry(argv, out, sizeof out);
        if (rc != 0 && rc != TOOL_EXISTS)
            return snprintf(msg, len, "groupadd %s failed (%d): %s", name, rc, out), -1;
        found = find_group(name, &gr, buf, sizeof buf);
    }
    if (found != 1)
        return snprintf(msg, len, "cannot find group %s", name), -1;
    if (gr.gr_gid < c->uid_min || gr.gr_gid > c->uid_max)
        return snprintf(msg, len, "group %s exists with gid %u outside uid_min..uid_max: "
                        "refusing to use it", name, (unsigned)gr.gr_gid), -1;
    *gid = gr.gr_gid;
    for (char **m = gr.gr_mem; m && *m; m++)
        if (strcmp(*m, member) == 0)
            return 0;
    if (!tool("usermod", path, sizeof path))
        return snprintf(msg, len, "usermod is missing (apt-get install passwd)"), -1;
    char *argv[] = {path, "-a", "-G", name, (char *)member, NULL};
    int rc = run_tool_retry(argv, out, sizeof out);
    return rc == 0 ? 0 : (snprintf(msg, len, "usermod -a -G %s %s failed (%d): %s", name,
                                   member, rc, out), -1);
}

/* Makes dir (a real directory, never a symlink) with owner and mode. */
static int own_dir(const char *dir, uid_t uid, gid_t gid, mode_t mode, char *msg, size_t len)
{
    struct stat st;
    if (mkdir(dir, mode & 0777) < 0 && errno != EEXIST)
        return snprintf(msg, len, "cannot create %s: %s", dir, strerror(errno)), -1;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 || fstat(fd, &st) < 0) {
        snprintf(msg, len, "%s is not a directory: %s", dir, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    int rc = 0;
    if ((st.st_uid != uid && uid != (uid_t)-1) || (st.st_gid != gid && gid != (gid_t)-1))
        rc = fchown(fd, uid, gid);
    if (rc == 0 && (st.st_mode & 07777) != mode)
        rc = fchmod(fd, mode);
    if (rc < 0)
        snprintf(msg, len, "cannot set owner/mode of %s: %s", dir, strerror(errno));
    close(fd);
    return rc;
}

/* Home and project dir paths of user in project. */
static int paths(const struct xl_conf *c, const char *user, const char *project,
                 struct xl_account *acct, char *msg, size_t len)
{
    int a = snprintf(acct->home, sizeof acct->home, "%s/%s", c->home_root, user);
    int b = snprintf(acct->project_dir, sizeof acct->project_dir, "%s/%s", c->projects_root,
                     project);
    if (a < 0 || (size_t)a >= sizeof acct->home || b < 0 ||
        (size_t)b >= sizeof acct->project_dir)
        return snprintf(msg, len, "home or project path too long"), -1;
    if (xl_mkdir_p(c->home_root, 0711) < 0 || xl_mkdir_p(c->projects_root, 0750) < 0)
        return snprintf(msg, len, "cannot create %s or %s: %s", c->home_root,
                        c->projects_root, strerror(errno)), -1;
    return 0;
}

/* Without root: cubed's own user, its own directories. */
static int prepare_shared(const struct xl_conf *c, const char *user, const char *project,
                          struct xl_account *acct, char *msg, size_t len)
{
    char buf[4096];
    struct passwd pw, *res = NULL;
    acct->isolated = 0;
    acct->uid = geteuid();
    acct->gid = getegid();
    acct->ngroups = 0;
    getpwuid_r(acct->uid, &pw, buf, sizeof buf, &res);
    snprintf(acct->name, sizeof acct->name, "%s", res ? res->pw_name : "cube");
    if (paths(c, user, project, acct, msg, len) < 0 ||
        own_dir(acct->home, (uid_t)-1, (gid_t)-1, 0700, msg, len) < 0)
        return -1;
    return own_dir(acct->project_dir, (uid_t)-1, (gid_t)-1, 02770, msg, len);
}

/* The account and project group of (user, project), from the cache or
 * the account files (made when missing); *pgid the group's id. */
static int resolve(struct xl_accounts *a, const char *user, const char *project,
                   struct xl_account *acct, gid_t *pgid, char *msg, size_t len)
{
    struct xl_acache_stamp before;
    int stamped = a->cache && xl_acache_stamp_now(&before);
    if (stamped && xl_acache_get(a->cache, &before, user, project, acct, pgid))
        return 0;
    int rc = ensure_user(a, user, acct, msg, len);
    if (rc == 0)
        rc = ensure_group(a, project, acct->name, pgid, msg, len);
    if (rc == 0 && stamped)
        xl_acache_put(a->cache, &before, user, project, acct, *pgid);
    return rc;
}

int xl_account_prepare(struct xl_accounts *a, const char *user, const char *project,
                       struct xl_account *acct, char *msg, size_t len)
{
    memset(acct, 0, sizeof *acct);
    *msg = '\0';
    if (!a->isolate)
        return prepare_shared(a->conf, user, project, acct, msg, len);
    gid_t pgid = 0;
    pthread_mutex_lock(&a->mu);
    int rc = paths(a->conf, user, project, acct, msg, len);
    if (rc == 0)
        rc = resolve(a, user, project, acct, &pgid, msg, len);
    if (rc == 0)
        rc = own_dir(acct->home, acct->uid, acct->gid, 0700, msg, len);
    if (rc == 0)
        rc = own_dir(acct->project_dir, 0, pgid, PROJECT_DIR_MODE, msg, len);
    pthread_mutex_unlock(&a->mu);
    acct->isolated = 1;
    acct->groups[0] = pgid;
    acct->ngroups = 1;
    return rc;
}
