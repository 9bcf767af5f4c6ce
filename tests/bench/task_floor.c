/* task_floor.c — what running one task of `true` costs at the least, step
 * by step, with nothing of Cube in the way: the floor under
 * tests/bench/pipeline.sh's Cube figure. Each step adds what Cube's
 * executor-local and store must do for a task, the way they must do it:
 *
 *   make        fork, exec /bin/true, wait (make -j2's own work)
 *   account     + the child drops to an unprivileged uid/gid and groups
 *   view        + a private mount namespace: a tmpfs over the closed
 *                 directory, the home bound back in (the executor's view)
 *   cgroup      + the child joins a cgroup (its limits' home)
 *   supervisor  + a supervisor process between: it forks the task, waits,
 *                 and writes the exit to a status file (what survives a
 *                 restart of cubed)
 *   store       the task's Job in SQLite (WAL, synchronous=NORMAL): one
 *               insert and three updates of a 2 KB document, 50 tasks'
 *               writes per transaction (a generous group commit); no
 *               process
 *
 * Tasks run `jobs` at a time (make -j2: 2). For each step: wall time, and
 * the machine's CPU (this process and its children, user + system) per
 * task. Needs root (setuid, mounts, cgroups).
 *
 * Usage: task_floor TASKS JOBS UID GID HIDDEN HOME PROJECT CGROUP_DIRS DB
 *   HIDDEN: a directory others may not enter, HOME and PROJECT directly
 *   below it; CGROUP_DIRS: the cgroups the tasks join, separated by ":" (one
 *   per controller on cgroup v1; "-": the step is skipped);
 *   DB: an SQLite file to create. One line per step:
 *   "step wall_s cpu_ms_per_task latency_ms_p50 p99 max" (the store: only
 *   the first three). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum step { MAKE, ACCOUNT, VIEW, CGROUP, SUPERVISOR, N_STEPS };
static const char *const step_name[N_STEPS] = {"make", "account", "view", "cgroup",
                                               "supervisor"};

struct opts {
    int tasks, jobs;
    uid_t uid;
    gid_t gid;
    const char *hidden, *home, *project, *cgroup, *db;
    char status_path[4096];
};

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static double cpu_s(int who)
{
    struct rusage r;
    getrusage(who, &r);
    return (double)r.ru_utime.tv_sec + (double)r.ru_utime.tv_usec / 1e6 +
           (double)r.ru_stime.tv_sec + (double)r.ru_stime.tv_usec / 1e6;
}

static void die(const char *what)
{
    fprintf(stderr, "task_floor: %s: %s\n", what, strerror(errno));
    _exit(111);
}

/* In the task's child: what the steps up to `s` add, then exec true. */
static void become_task(const struct opts *o, enum step s)
{
    if (s >= VIEW) {
        /* as the executor's view: in a new mount namespace, the home and
         * project dir held open, a tmpfs over the closed directory, both
         * bound back in through their descriptors */
        const char *dirs[2] = {o->home, o->project};
        int fd[2];
        if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL) < 0)
            die("unshare");
        for (int i = 0; i < 2; i++)
            if ((fd[i] = open(dirs[i], O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
                die("open a bound dir");
        if (mount("tmpfs", o->hidden, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=1m") < 0)
            die("tmpfs");
        for (int i = 0; i < 2; i++) {
            char src[64];
            snprintf(src, sizeof src, "/proc/self/fd/%d", fd[i]);
            if (mkdir(dirs[i], 0700) < 0 || mount(src, dirs[i], NULL, MS_BIND | MS_REC, NULL) < 0)
                die("bind");
            close(fd[i]);
        }
    }
    if (s >= CGROUP && o->cgroup[0] != '-') {
        char dirs[4096], pid[32], *save = NULL;
        int n = snprintf(pid, sizeof pid, "%d\n", (int)getpid());
        snprintf(dirs, sizeof dirs, "%s", o->cgroup);
        for (char *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
            char path[4200];
            snprintf(path, sizeof path, "%s/cgroup.procs", d);
            int fd = open(path, O_WRONLY | O_CLOEXEC);
            if (fd < 0 || write(fd, pid, (size_t)n) != n)
                die("cgroup.procs");
            close(fd);
        }
    }
    if (s >= ACCOUNT) {
        gid_t g = o->gid;
        if (setgroups(1, &g) < 0 || setgid(o->gid) < 0 || setuid(o->uid) < 0)
            die("setuid");
    }
    execl("/bin/true", "true", (char *)NULL);
    die("exec");
}

/* The supervisor: forks the task, waits, writes its exit, exits. */
static void supervise(const struct opts *o)
{
    pid_t c = fork();
    if (c < 0)
        die("fork");
    if (c == 0)
        become_task(o, CGROUP);
    int st = 0;
    while (waitpid(c, &st, 0) < 0 && errno == EINTR)
        ;
    char line[64];
    int n = snprintf(line, sizeof line, "exit %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    int fd = open(o->status_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0 || write(fd, line, (size_t)n) != n)
        die("status");
    close(fd);
    _exit(0);
}

static pid_t start(const struct opts *o, enum step s)
{
    pid_t p = fork();
    if (p < 0)
        die("fork");
    if (p == 0) {
        if (s == SUPERVISOR)
            supervise(o);
        become_task(o, s);
    }
    return p;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Runs o->tasks tasks of step s, o->jobs at a time; prints the line: the
 * step, wall s, CPU ms per task, and each task's latency (fork to reaped)
 * in ms at the median, 99th percentile and worst. */
static void run_step(const struct opts *o, enum step s)
{
    pid_t *pid = calloc((size_t)o->jobs, sizeof *pid);
    double *began = calloc((size_t)o->jobs, sizeof *began);
    double *lat = calloc((size_t)o->tasks, sizeof *lat);
    if (!pid || !began || !lat)
        die("calloc");
    double t0 = now_s(), c0 = cpu_s(RUSAGE_SELF) + cpu_s(RUSAGE_CHILDREN);
    int started = 0, running = 0, failed = 0, n_lat = 0;
    while (started < o->tasks || running > 0) {
        for (int k = 0; k < o->jobs && started < o->tasks; k++)
            if (!pid[k]) {
                began[k] = now_s();
                pid[k] = start(o, s);
                started++, running++;
            }
        int st;
        pid_t p = wait(&st);
        for (int k = 0; p > 0 && k < o->jobs; k++)
            if (pid[k] == p) {
                lat[n_lat++] = (now_s() - began[k]) * 1000;
                pid[k] = 0;
                running--;
                failed += !WIFEXITED(st) || WEXITSTATUS(st) != 0;
            }
    }
    double wall = now_s() - t0;
    double cpu = cpu_s(RUSAGE_SELF) + cpu_s(RUSAGE_CHILDREN) - c0;
    if (failed) {
        fprintf(stderr, "task_floor: step %s: %d tasks failed\n", step_name[s], failed);
        exit(1);
    }
    qsort(lat, (size_t)n_lat, sizeof *lat, cmp_double);
    printf("%s %.3f %.3f %.2f %.2f %.2f\n", step_name[s], wall, cpu * 1000 / o->tasks,
           lat[n_lat / 2], lat[n_lat * 99 / 100], lat[n_lat - 1]);
    free(pid), free(began), free(lat);
}

static void sql(sqlite3 *db, const char *q)
{
    char *err = NULL;
    if (sqlite3_exec(db, q, NULL, NULL, &err) != SQLITE_OK) {
        fprintf(stderr, "task_floor: %s: %s\n", q, err ? err : "?");
        exit(1);
    }
}

/* The store step: one insert and three updates of a 2 KB document per
 * task, 50 tasks per transaction. */
static void run_store(const struct opts *o)
{
    sqlite3 *db;
    sqlite3_stmt *ins, *upd;
    if (sqlite3_open(o->db, &db) != SQLITE_OK)
        exit(1);
    sql(db, "PRAGMA journal_mode=WAL");
    sql(db, "PRAGMA synchronous=NORMAL");
    sql(db, "CREATE TABLE objects (kind TEXT, project TEXT, name TEXT, rv INTEGER, doc TEXT,"
            " PRIMARY KEY (kind, project, name))");
    sqlite3_prepare_v2(db, "INSERT INTO objects VALUES ('Job', 'p', ?1, 1, ?2)", -1, &ins,
                       NULL);
    sqlite3_prepare_v2(db, "UPDATE objects SET doc = ?2, rv = rv + 1 WHERE kind = 'Job' AND"
                           " project = 'p' AND name = ?1", -1, &upd, NULL);
    char doc[2048];
    memset(doc, 'x', sizeof doc - 1);
    doc[sizeof doc - 1] = '\0';
    double t0 = now_s(), c0 = cpu_s(RUSAGE_SELF);
    for (int i = 0; i < o->tasks; i++) {
        char name[32];
        snprintf(name, sizeof name, "run-task-%d", i);
        if (i % 50 == 0)
            sql(db, "BEGIN");
        for (int w = 0; w < 4; w++) {
            sqlite3_stmt *st = w ? upd : ins;
            doc[w] = 'a' + (char)w;
            sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
            sqlite3_bind_text(st, 2, doc, -1, SQLITE_TRANSIENT);
            if (sqlite3_step(st) != SQLITE_DONE)
                exit(1);
            sqlite3_reset(st);
        }
        if (i % 50 == 49 || i == o->tasks - 1)
            sql(db, "COMMIT");
    }
    printf("store %.3f %.3f\n", now_s() - t0, (cpu_s(RUSAGE_SELF) - c0) * 1000 / o->tasks);
    sqlite3_finalize(ins);
    sqlite3_finalize(upd);
    sqlite3_close(db);
}

int main(int argc, char **argv)
{
    if (argc != 10) {
        fprintf(stderr, "usage: task_floor TASKS JOBS UID GID HIDDEN HOME PROJECT CGROUP_DIRS "
                        "DB\n");
        return 2;
    }
    struct opts o = {atoi(argv[1]), atoi(argv[2]), (uid_t)atoi(argv[3]), (gid_t)atoi(argv[4]),
                     argv[5], argv[6], argv[7], argv[8], argv[9], ""};
    if (o.tasks <= 0 || o.jobs <= 0) {
        fprintf(stderr, "task_floor: TASKS and JOBS must be positive\n");
        return 2;
    }
    snprintf(o.status_path, sizeof o.status_path, "%s.status", o.db);
    for (int s = 0; s < N_STEPS; s++)
        run_step(&o, (enum step)s);
    run_store(&o);
    return 0;
}
