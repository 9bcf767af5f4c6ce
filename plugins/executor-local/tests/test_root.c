/* test_root.c — executor-local where it needs root (skipped, exit 77,
 * otherwise): replicas run as OS accounts of their own ("cxq-<user>",
 * uids 29500-29999) that cannot read each other's homes, share a project
 * directory through the project group, are OOM-killed at their memory
 * limit and throttled to their CPU limit by cgroups (kept for reuse, but
 * not after an OOM kill), and can run inside bubblewrap. The plugin's directories lie in a 0700 directory, as under
 * cubed's data dir, so the private mount view is exercised too. Accounts
 * and groups made here are removed at the end. */
#include "xl_test.h"

#include <grp.h>
#include <pwd.h>
#include <sys/wait.h>

#define PREFIX "cxq-"

static char root[256];
static char *config;
static void *state;

static int group_setup(void **st)
{
    (void)st;
    assert_true(snprintf(root, sizeof root, "%s", xt_tmpdir("root", 0700)) < (int)sizeof root);
    config = xt_config(root, "\"uid_min\":29500,\"uid_max\":29999,\"user_prefix\":\"" PREFIX
                             "\",\"group_prefix\":\"" PREFIX "p-\"");
    return 0;
}

static int group_teardown(void **st)
{
    (void)st;
    static const char *const users[] = {"alice", "bob", "root", "mallory", NULL};
    for (int i = 0; users[i]; i++)
        xt_sh("userdel -f " PREFIX "%s >/dev/null 2>&1", users[i]);
    xt_sh("groupdel " PREFIX "p-lab >/dev/null 2>&1; groupdel " PREFIX "mallory "
          ">/dev/null 2>&1");
    xt_sh("rm -rf '%s'", root);
    free(config);
    return 0;
}

static int setup(void **st)
{
    (void)st;
    return cube_mock_init(cube_plugin_executor_local(), config, &state);
}

static int teardown(void **st)
{
    (void)st;
    cube_mock_reset(cube_plugin_executor_local(), state);
    state = NULL;
    return 0;
}

/* Runs command for user in project "lab" to its end; returns its log
 * (malloc()ed) and the exit through *e. */
static char *run_to_end(const char *user, const char *name, const char *command,
                        const char *extra, const struct cube_mock_exit **e)
{
    char id[XL_ID_LEN];
    char *doc = xt_replica(user, "lab", name, command, extra);
    xt_start(state, doc, id, sizeof id);
    free(doc);
    *e = xt_wait_exit(id, 20000);
    return xt_log(state, "lab", name);
}

static void replicas_run_as_their_own_account(void **st)
{
    (void)st;
    const struct cube_mock_exit *e;
    char *log = run_to_end("alice", "r-id", "[\"sh\",\"-c\",\"id -u; id -g; id -G\"]", "", &e);
    assert_int_equal(e->exit_code, 0);
    struct passwd *pw = getpwnam(PREFIX "alice");
    struct group *gr = getgrnam(PREFIX "p-lab");
    assert_non_null(pw);
    assert_non_null(gr);
    unsigned uid = 0, gid = 0;
    assert_int_equal(sscanf(log, "%u\n%u\n", &uid, &gid), 2);
    print_message("alice runs as uid %u gid %u; id -u/-g/-G said:\n%s", uid, gid, log);
    assert_int_equal(uid, pw->pw_uid);
    assert_true(uid >= 29500 && uid <= 29999);
    assert_int_equal(gid, pw->pw_gid);
    char want[32];
    snprintf(want, sizeof want, " %u\n", (unsigned)gr->gr_gid);
    assert_non_null(strstr(log, want));   /* the project group, nothing else */
    assert_null(strstr(log, " 0\n"));
    /* The home: the account's, 0700; the project dir: root's and the
     * group's, setgid and sticky (03770). */
    struct stat sh, sp;
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/home/alice", root);
    assert_int_equal(stat(path, &sh), 0);
    assert_int_equal(sh.st_uid, pw->pw_uid);
    assert_int_equal(sh.st_mode & 07777, 0700);
    snprintf(path, sizeof path, "%s/projects/lab", root);
    assert_int_equal(stat(path, &sp), 0);
    assert_int_equal(sp.st_gid, gr->gr_gid);
    assert_int_equal(sp.st_uid, 0);
    assert_int_equal(sp.st_mode & 07777, 03770);
    free(log);
    /* A Cube user named "root" is just another account. */
    log = run_to_end("root", "r-root", "[\"id\",\"-u\"]", "", &e);
    assert_true(atoi(log) >= 29500);
    free(log);
}

static void users_cannot_read_each_others_homes(void **st)
{
    (void)st;
    const struct cube_mock_exit *e;
    char *log = run_to_end("alice", "r-secret", "[\"sh\",\"-c\",\"echo s3cret > $HOME/secret;"
                           " touch $CUBE_PROJECT_DIR/from-alice; cat $HOME/secret\"]", "", &e);
    assert_int_equal(e->exit_code, 0);
    assert_string_equal(log, "s3cret\n");
    free(log);
    char *cmd = xt_fmt("[\"sh\",\"-c\",\"cat %s/home/alice/secret; echo rc=$?; "
                       "ls %s/home/alice; ls -l $CUBE_PROJECT_DIR/from-alice; "
                       "touch $CUBE_PROJECT_DIR/from-bob && echo shared-ok; "
                       "echo evil >> $CUBE_PROJECT_DIR/from-alice || echo append-refused; "
                       "mv $CUBE_PROJECT_DIR/from-alice $CUBE_PROJECT_DIR/x || "
                       "echo rename-refused\"]", root, root);
    log = run_to_end("bob", "r-peek", cmd, "", &e);
    print_message("bob: %s", log);
    assert_null(strstr(log, "s3cret"));
    assert_non_null(strstr(log, "rc=1"));
    assert_non_null(strstr(log, "-rw-r--r--"));     /* umask 022: readable, not writable */
    assert_non_null(strstr(log, PREFIX "p-lab"));   /* the project group owns alice's file */
    assert_non_null(strstr(log, "shared-ok"));      /* and bob may create files there too, */
    assert_non_null(strstr(log, "append-refused")); /* not change alice's, */
    assert_non_null(strstr(log, "rename-refused")); /* nor move them (sticky) */
    free(cmd);
    free(log);
}

/* With the plugin's directories open to others (no mount view), the home
 * modes alone keep users apart. */
static void homes_are_private_by_their_mode(void **st)
{
    (void)st;
    cube_mock_reset(cube_plugin_executor_local(), state);
    char open_root[256];
    assert_true(snprintf(open_root, sizeof open_root, "%s/open", root) < (int)sizeof open_root);
    assert_int_equal(xl_mkdir_p(open_root, 0755), 0);
    chmod(root, 0711);
    char *extra = xt_fmt("\"uid_min\":29500,\"uid_max\":29999,\"user_prefix\":\"" PREFIX
                         "\",\"group_prefix\":\"" PREFIX "p-\",\"projects_root\":\"%s/pr\","
                         "\"home_root\":\"%s/home\",\"run_dir\":\"%s/run\"", open_root,
                         open_root, open_root);
    char *cfg = xt_fmt("{\"poll_ms\":10,%s}", extra);
    assert_int_equal(cube_mock_init(cube_plugin_executor_local(), cfg, &state), CUBE_OK);
    chmod(open_root, 0755);
    const struct cube_mock_exit *e;
    char *log = run_to_end("alice", "r-open", "[\"sh\",\"-c\",\"echo s3cret > $HOME/secret\"]",
                           "", &e);
    free(log);
    char *cmd = xt_fmt("[\"sh\",\"-c\",\"ls -ld %s/home/alice; cat %s/home/alice/secret\"]",
                       open_root, open_root);
    log = run_to_end("bob", "r-open-peek", cmd, "", &e);
    print_message("bob: %s", log);
    assert_int_not_equal(e->exit_code, 0);
    assert_non_null(strstr(log, "drwx------"));
    assert_non_null(strstr(log, "Permission denied"));
    assert_null(strstr(log, "s3cret"));
    chmod(root, 0700);
    free(cmd), free(log), free(cfg), free(extra);
}

static void out_of_memory_is_reported(void **st)
{
    (void)st;
    if (((struct xl *)state)->cgroups.version == 0)
        skip();
    const struct cube_mock_exit *e;
    char *log = run_to_end("alice", "r-oom", "[\"/usr/bin/perl\",\"-e\",\"my $x = 'a' x "
                           "(256 * 1024 * 1024); print qq(survived\\n)\"]",
                           "\"limits\":{\"memoryBytes\":33554432}", &e);
    print_message("OOM: %s %d %s\n", e->reason, e->exit_code, e->message);
    assert_string_equal(e->reason, CUBE_EXIT_OOM);
    assert_null(strstr(log, "survived"));
    free(log);
    /* The same program with room enough completes. */
    log = run_to_end("alice", "r-room", "[\"/usr/bin/perl\",\"-e\",\"my $x = 'a' x "
                     "(8 * 1024 * 1024); print qq(survived\\n)\"]",
                     "\"limits\":{\"memoryBytes\":268435456}", &e);
    assert_string_equal(e->reason, CUBE_EXIT_COMPLETED);
    assert_non_null(strstr(log, "survived"));
    free(log);
}

/* The memory cgroup dir of the one running replica ("" when none). */
static void running_memory_cgroup(char *out, size_t len)
{
    struct xl *x = state;
    pthread_mutex_lock(&x->mu);
    snprintf(out, len, "%s", x->runs ? x->runs->cg.dir[XL_CG_MEMORY] : "");
    pthread_mutex_unlock(&x->mu);
}

/* Runs timers (the tick cleans up reported ends) until n cgroups are kept;
 * fails after 2 s. */
static void wait_kept(int n)
{
    struct xl *x = state;
    int have = -1;
    for (long long end = xt_now_ms() + 2000; xt_now_ms() < end; xt_sleep_ms(5)) {
        cube_mock_run_timers();
        pthread_mutex_lock(&x->cgpool.mu);
        have = x->cgpool.n;
        pthread_mutex_unlock(&x->cgpool.mu);
        if (have == n)
            return;
    }
    fail_msg("%d cgroups kept for reuse, not %d", have, n);
}

/* A replica's cgroup is kept after its end and taken, as it is, by the
 * next replica with the same limits; one with an OOM kill recorded is
 * removed, so the next replica with those limits is not reported as
 * killed for memory. */
static void cgroups_are_reused_but_not_after_an_oom_kill(void **st)
{
    (void)st;
    struct xl *x = state;
    if (x->cgroups.version != 1)
        skip();   /* the checks read v1 paths */
    const char *lim = "\"limits\":{\"memoryBytes\":33554432}";
    const struct cube_mock_exit *e;
    free(run_to_end("alice", "r-pool-a", "[\"true\"]", lim, &e));
    wait_kept(1);
    char kept[PATH_MAX], used[PATH_MAX];
    snprintf(kept, sizeof kept, "%s", x->cgpool.v[0].dir[XL_CG_MEMORY]);
    char id[XL_ID_LEN];
    char *doc = xt_replica("alice", "lab", "r-pool-b", "[\"sleep\",\"0.3\"]", lim);
    xt_start(state, doc, id, sizeof id);
    free(doc);
    running_memory_cgroup(used, sizeof used);
    if (strcmp(used, kept) != 0)
        fail_msg("the second replica got cgroup %s, not the kept %s", used, kept);
    assert_int_equal(x->cgpool.n, 0);
    assert_int_equal(xt_wait_exit(id, 5000)->exit_code, 0);
    wait_kept(1);
    /* An OOM kill in it: the group goes, the next replica gets a new one. */
    free(run_to_end("alice", "r-pool-oom", "[\"/usr/bin/perl\",\"-e\",\"my $x = 'a' x "
                    "(256 * 1024 * 1024)\"]", lim, &e));
    assert_string_equal(e->reason, CUBE_EXIT_OOM);
    struct stat sb;
    for (long long end = xt_now_ms() + 2000; xt_now_ms() < end && stat(kept, &sb) == 0;
         xt_sleep_ms(5))
        cube_mock_run_timers();   /* the tick cleans up */
    if (stat(kept, &sb) == 0)
        fail_msg("the cgroup %s of an OOM-killed replica was kept", kept);
    wait_kept(0);
    free(run_to_end("alice", "r-pool-c", "[\"sh\",\"-c\",\"kill -9 $$\"]", lim, &e));
    assert_string_equal(e->reason, CUBE_EXIT_COMPLETED);   /* SIGKILL, but no OOM */
}

/* Kept cgroups a dead cubed left behind go at start-up; those of a live
 * cubed, and one a run directory names (its replica has not joined it
 * yet), stay. */
static void kept_cgroups_of_a_dead_cubed_are_swept(void **st)
{
    (void)st;
    struct xl *x = state;
    if (x->cgroups.version == 0)
        skip();
    const char *parent = x->cgroups.parent[x->cgroups.version == 1 ? XL_CG_PIDS : 0];
    pid_t dead = fork();
    if (dead == 0)
        _exit(0);
    waitpid(dead, NULL, 0);
    char stale[PATH_MAX], named[PATH_MAX], live[PATH_MAX], run[PATH_MAX + 64];
    snprintf(stale, sizeof stale, "%s/1-%lx-0", parent, (long)dead);
    snprintf(named, sizeof named, "%s/1-%lx-1", parent, (long)dead);
    snprintf(live, sizeof live, "%s/1-%lx-2", parent, (long)getppid());
    const char *dirs[] = {stale, named, live};
    for (int i = 0; i < 3; i++)
        assert_int_equal(mkdir(dirs[i], 0755), 0);
    snprintf(run, sizeof run, "%s/run/1-%lx-1", root, (long)dead);
    assert_int_equal(mkdir(run, 0700), 0);
    xt_sh("printf '{\"cgroup\":{\"version\":%d,\"dirs\":[\"%s\"]},\"log\":{\"kind\":\"Job\","
          "\"project\":\"lab\",\"name\":\"r-named\",\"stream\":\"replica-0\"}}' >'%s/meta.json'",
          x->cgroups.version, named, run);
    cube_mock_reset(cube_plugin_executor_local(), state);
    assert_int_equal(cube_mock_init(cube_plugin_executor_local(), config, &state), CUBE_OK);
    struct stat sb;
    if (stat(stale, &sb) == 0)
        fail_msg("the empty cgroup %s of a dead cubed was not removed", stale);
    if (stat(named, &sb) < 0)
        fail_msg("the cgroup %s a run directory names was removed", named);
    if (stat(live, &sb) < 0)
        fail_msg("the cgroup %s of a live cubed was removed", live);
    rmdir(named);
    rmdir(live);
    xt_sh("rm -rf '%s'", run);
}

/* User CPU seconds of the children from a `times` output's second line. */
static double child_user_seconds(const char *log)
{
    const char *nl = strchr(log, '\n');
    unsigned m = 0;
    double s = -1;
    if (!nl || sscanf(nl + 1, "%um%lfs", &m, &s) != 2)
        fail_msg("cannot read `times` output: %s", log);
    return m * 60 + s;
}

/* The cpu.stat of the one running replica's cgroup, or "". */
static const char *running_cpu_stat(void)
{
    static char buf[1024];
    struct xl *x = state;
    buf[0] = '\0';
    pthread_mutex_lock(&x->mu);
    const struct xl_run *r = x->runs;
    char path[PATH_MAX + 16];
    if (r)
        snprintf(path, sizeof path, "%.4000s/cpu.stat",
                 r->cg.version == 1 ? r->cg.dir[XL_CG_CPU] : r->cg.dir[0]);
    pthread_mutex_unlock(&x->mu);
    if (r && xl_read_file(path, buf, sizeof buf) < 0)
        buf[0] = '\0';
    return buf;
}

/* A busy loop under a 0.05 CPU quota: its CPU time stays near 0.05 s per
 * second, and the cgroup counts the throttling. The quota is small so that
 * even on a loaded machine (where the loop gets only a share of a core)
 * the loop still reaches it within each period. */
static void cpu_limit_throttles(void **st)
{
    (void)st;
    if (((struct xl *)state)->cgroups.version == 0)
        skip();
    char id[XL_ID_LEN];
    char *doc = xt_replica("alice", "lab", "r-cpu", "[\"sh\",\"-c\",\"timeout 1 sh -c "
                           "'while :; do :; done'; times; sleep 30\"]",
                           "\"limits\":{\"cpuMillis\":50}");
    xt_start(state, doc, id, sizeof id);
    free(doc);
    char *log = NULL;
    for (long long end = xt_now_ms() + 15000; xt_now_ms() < end; xt_sleep_ms(20)) {
        cube_mock_run_timers();
        free(log);
        log = xt_log(state, "lab", "r-cpu");
        if (strchr(log, '\n') && strchr(strchr(log, '\n') + 1, '\n'))
            break;
    }
    double used = child_user_seconds(log);
    const char *stat = running_cpu_stat();
    const char *thr = strstr(stat, "nr_throttled ");
    print_message("busy loop for 1 s at 0.05 CPU: %.2f s of CPU; cpu.stat: %s\n", used, stat);
    assert_non_null(thr);
    assert_true(atol(thr + 13) > 0);
    assert_true(used > 0.005 && used < 0.15);
    free(log);
    assert_int_equal(cube_mock_executor()->stop(state, id, 0), CUBE_OK);
    assert_string_equal(xt_wait_exit(id, 5000)->reason, CUBE_EXIT_STOPPED);
}

/* The second replica of a (user, project) is resolved from the cache; an
 * account an administrator replaced meanwhile (userdel, useradd with
 * another uid: /etc/passwd changes) is looked up again, so the next
 * replica runs as the uid the account has now. */
static void a_replaced_account_is_looked_up_again(void **st)
{
    (void)st;
    const struct cube_mock_exit *e;
    char *log = run_to_end("bob", "r-bob1", "[\"id\",\"-u\"]", "", &e);
    unsigned first = (unsigned)atoi(log);
    free(log);
    assert_true(first >= 29500 && first <= 29999);
    log = run_to_end("bob", "r-bob2", "[\"id\",\"-u\"]", "", &e);
    assert_int_equal((unsigned)atoi(log), first);
    free(log);
    unsigned other = first == 29990 ? 29991 : 29990;
    assert_int_equal(xt_sh("userdel " PREFIX "bob && useradd -M -l -K GID_MIN=29500 "
                           "-K GID_MAX=29999 -u %u -U "
                           PREFIX "bob && usermod -a -G " PREFIX "p-lab " PREFIX "bob",
                           other), 0);
    log = run_to_end("bob", "r-bob3", "[\"id\",\"-u\"]", "", &e);
    print_message("bob ran as %u, then as %s", first, log);
    assert_int_equal(e->exit_code, 0);
    assert_int_equal((unsigned)atoi(log), other);
    free(log);
}

static void account_outside_the_range_is_refused(void **st)
{
    (void)st;
    assert_int_equal(xt_sh("useradd -M -l -u 1999 -U " PREFIX "mallory"), 0);
    char id[XL_ID_LEN], msg[512];
    char *doc = xt_replica("mallory", "lab", "r-mallory", "[\"true\"]", "");
    assert_int_equal(cube_mock_executor()->start(state, doc, id, sizeof id, msg, sizeof msg),
                     CUBE_EIO);
    assert_non_null(strstr(msg, "outside uid_min"));
    free(doc);
}

/* The pids.max of the pids cgroup of the running replica, or of the
 * replicas' parent (parent nonzero); "" when there is none. */
static const char *pids_max_of(int parent)
{
    static char buf[64];
    struct xl *x = state;
    char path[PATH_MAX + 16];
    int c = x->cgroups.version == 2 ? 0 : XL_CG_PIDS;
    pthread_mutex_lock(&x->mu);
    snprintf(path, sizeof path, "%s/pids.max",
             parent ? x->cgroups.parent[c] : x->runs ? x->runs->cg.dir[c] : "");
    pthread_mutex_unlock(&x->mu);
    if (xl_read_file(path, buf, sizeof buf) < 0)
        buf[0] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
    return buf;
}

/* Without pids settings: a replica gets 4096 pids, all of them together
 * half of the kernel's pid_max (or threads-max): pids.max of their parent. */
static void pids_are_limited_per_replica_and_in_total(void **st)
{
    (void)st;
    if (((struct xl *)state)->cgroups.version == 0 || !*pids_max_of(1))
        skip();
    char id[XL_ID_LEN], want[32];
    FILE *f = fopen("/proc/sys/kernel/pid_max", "r");
    FILE *t = fopen("/proc/sys/kernel/threads-max", "r");
    long pid_max = -1, threads_max = -1;
    assert_true(f && t && fscanf(f, "%ld", &pid_max) == 1 &&
                fscanf(t, "%ld", &threads_max) == 1);
    fclose(f), fclose(t);
    long long total = (long long)xl_pids_total_auto(pid_max, threads_max);
    snprintf(want, sizeof want, "%lld", total);
    assert_string_equal(pids_max_of(1), want);
    assert_true(total < pid_max && XL_PIDS_MAX_DEFAULT < total);
    char *doc = xt_replica("alice", "lab", "r-pids", "[\"sleep\",\"30\"]", "");
    xt_start(state, doc, id, sizeof id);
    free(doc);
    assert_string_equal(pids_max_of(0), "4096");
    print_message("pid_max %ld: all replicas %lld pids, each 4096\n", pid_max, total);
    assert_int_equal(cube_mock_executor()->stop(state, id, 0), CUBE_OK);
    xt_wait_exit(id, 5000);
}

/* Forks until it cannot (at most 200), says how many, then holds them. */
#define FORKER "[\"/usr/bin/perl\",\"-e\",\"$|=1; my $n=0; for (1..200) { my $p=fork; " \
    "last unless defined $p; if (!$p) { sleep 20; exit 0 } $n++ } print qq(forked $n\\n); " \
    "sleep 30\"]"

/* The number of "forked N" in the log of Job name, waiting for it (10 s). */
static long forked(const char *name)
{
    for (long long end = xt_now_ms() + 10000; xt_now_ms() < end; xt_sleep_ms(20)) {
        cube_mock_run_timers();
        char *log = xt_log(state, "lab", name);
        const char *at = strstr(log, "forked ");
        long n = at ? atol(at + 7) : -1;
        free(log);
        if (n >= 0)
            return n;
    }
    fail_msg("%s never said how many it forked", name);
    return -1;
}

/* Two fork bombs, bounded (200 forks each, children end in 20 s): the
 * first is stopped by its own limit, the second by what the first left of
 * the total. Under a parent cgroup of this test's own. */
static void fork_bombs_stop_at_the_limits(void **st)
{
    (void)st;
    if (((struct xl *)state)->cgroups.version == 0 || !*pids_max_of(1))
        skip();
    cube_mock_reset(cube_plugin_executor_local(), state);
    char *cfg = xt_fmt("%.*s,\"cgroup_parent\":\"/cxq-pids-%ld\",\"pids_max\":48,"
                       "\"pids_max_total\":80}", (int)strlen(config) - 1, config,
                       (long)getpid());
    assert_int_equal(cube_mock_init(cube_plugin_executor_local(), cfg, &state), CUBE_OK);
    assert_string_equal(pids_max_of(1), "80");
    char a[XL_ID_LEN], b[XL_ID_LEN], parents[XL_CG_NCTL][PATH_MAX];
    char *doc = xt_replica("alice", "lab", "r-bomb-a", FORKER, "");
    xt_start(state, doc, a, sizeof a);
    free(doc);
    long na = forked("r-bomb-a");
    doc = xt_replica("bob", "lab", "r-bomb-b", FORKER, "");
    xt_start(state, doc, b, sizeof b);
    free(doc);
    long nb = forked("r-bomb-b");
    print_message("forked %ld (limit 48 each) and %ld (80 in all)\n", na, nb);
    assert_true(na > 0 && na <= 47);          /* perl itself is the 48th */
    assert_true(nb > 0 && na + nb + 2 <= 80); /* the total stopped the second */
    assert_true(nb < 47);
    assert_int_equal(cube_mock_executor()->stop(state, a, 0), CUBE_OK);
    assert_int_equal(cube_mock_executor()->stop(state, b, 0), CUBE_OK);
    xt_wait_exit(a, 5000);
    xt_wait_exit(b, 5000);
    memcpy(parents, ((struct xl *)state)->cgroups.parent, sizeof parents);
    cube_mock_reset(cube_plugin_executor_local(), state);   /* kept groups removed */
    for (int i = 0; i < XL_CG_NCTL; i++)
        if (*parents[i])
            rmdir(parents[i]);
    assert_int_equal(cube_mock_init(cube_plugin_executor_local(), config, &state), CUBE_OK);
    free(cfg);
}

/* The number on the last line of text. */
static long last_number(const char *text)
{
    size_t n = strlen(text);
    while (n && text[n - 1] == '\n')
        n--;
    while (n && text[n - 1] != '\n')
        n--;
    return atol(text + n);
}

/* bubblewrap: the system read-only, home writable, /tmp private; with
 * pins (ABI 1.5) only the pinned device nodes and mounts. */
static void bubblewrap_sandbox(void **st)
{
    (void)st;
    if (access("/usr/bin/bwrap", X_OK) != 0 &&
        xt_sh("apt-get install -y bubblewrap >/dev/null 2>&1") != 0 &&
        xt_sh("apt-get update >/dev/null 2>&1 && apt-get install -y bubblewrap "
              ">/dev/null 2>&1") != 0) {
        print_message("bubblewrap cannot be installed: skipped\n");
        skip();
    }
    cube_mock_reset(cube_plugin_executor_local(), state);
    char *cfg = xt_config(root, "\"uid_min\":29500,\"uid_max\":29999,\"user_prefix\":\""
                                PREFIX "\",\"group_prefix\":\"" PREFIX "p-\","
                                "\"sandbox\":\"bubblewrap\"");
    assert_int_equal(cube_mock_init(cube_plugin_executor_local(), cfg, &state), CUBE_OK);
    xt_sh("touch /tmp/xl-outside-marker");
    const struct cube_mock_exit *e;
    char *log = run_to_end("alice", "r-bwrap", "[\"sh\",\"-c\",\"touch /usr/xl-probe 2>/dev/null"
                           " && echo sys-writable || echo sys-readonly; echo hi > $HOME/f && "
                           "cat $HOME/f; echo t > /tmp/x; ls /tmp; id -u\"]", "", &e);
    print_message("bwrap: %s", log);
    assert_int_equal(e->exit_code, 0);
    assert_non_null(strstr(log, "sys-readonly"));
    assert_non_null(strstr(log, "hi\n"));
    assert_null(strstr(log, "xl-outside-marker"));
    assert_non_null(strstr(log, "\nx\n"));
    assert_true(last_number(log) >= 29500);
    unlink("/tmp/xl-outside-marker");
    free(log);
    /* ABI 1.5 pins: of /dev only what every process has and the pinned
     * node (the machine's /dev/null shown as /dev/sim0), plus a mount */
    log = run_to_end("alice", "r-pinned", "[\"sh\",\"-c\",\"ls /dev; echo x > /dev/sim0 && "
                     "echo sim-writable\"]",
                     "\"deviceNodes\":[{\"path\":\"/dev/sim0\",\"hostPath\":\"/dev/null\"}],"
                     "\"mounts\":[]", &e);
    print_message("pinned: %s", log);
    assert_int_equal(e->exit_code, 0);
    assert_non_null(strstr(log, "\nsim0\n"));
    assert_non_null(strstr(log, "\nnull\n"));
    assert_non_null(strstr(log, "\nshm\n"));
    assert_non_null(strstr(log, "sim-writable"));
    assert_null(strstr(log, "kmsg"));
    assert_null(strstr(log, "loop"));
    free(log);
    log = run_to_end("alice", "r-mount", "[\"sh\",\"-c\",\"ls /tmp/xl-etc/hostname && "
                     "touch /tmp/xl-etc/x 2>/dev/null || echo mount-readonly\"]",
                     "\"deviceNodes\":[],\"mounts\":[{\"hostPath\":\"/etc\",\"containerPath\":"
                     "\"/tmp/xl-etc\"}]", &e);
    assert_int_equal(e->exit_code, 0);
    assert_non_null(strstr(log, "/tmp/xl-etc/hostname"));
    assert_non_null(strstr(log, "mount-readonly"));
    free(log);
    free(cfg);
}

int main(void)
{
    if (geteuid() != 0) {
        printf("skipped: these tests need root (accounts, cgroups)\n");
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(replicas_run_as_their_own_account, setup, teardown),
        cmocka_unit_test_setup_teardown(users_cannot_read_each_others_homes, setup, teardown),
        cmocka_unit_test_setup_teardown(homes_are_private_by_their_mode, setup, teardown),
        cmocka_unit_test_setup_teardown(out_of_memory_is_reported, setup, teardown),
        cmocka_unit_test_setup_teardown(cgroups_are_reused_but_not_after_an_oom_kill, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(kept_cgroups_of_a_dead_cubed_are_swept, setup, teardown),
        cmocka_unit_test_setup_teardown(cpu_limit_throttles, setup, teardown),
        cmocka_unit_test_setup_teardown(pids_are_limited_per_replica_and_in_total, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(fork_bombs_stop_at_the_limits, setup, teardown),
        cmocka_unit_test_setup_teardown(a_replaced_account_is_looked_up_again, setup, teardown),
        cmocka_unit_test_setup_teardown(account_outside_the_range_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(bubblewrap_sandbox, setup, teardown),
    };
    return cmocka_run_group_tests_name("executor-local (root: accounts, cgroups, sandbox)",
                                       tests, group_setup, group_teardown);
}
