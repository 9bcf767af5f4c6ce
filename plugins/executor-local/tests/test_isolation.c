/* test_isolation.c — executor-local's isolation of a replica, without
 * processes or root: account names, cgroup paths and limits (on a fake
 * cgroup tree), mount views and bubblewrap's command line. */
#include <cjson/cJSON.h>

#include "xl_test.h"

static char root[256];

static int make_root(void **st)
{
    (void)st;
    assert_true(snprintf(root, sizeof root, "%s", xt_tmpdir("isolation", 0755)) <
                (int)sizeof root);
    return 0;
}

static int drop_root(void **st)
{
    (void)st;
    xt_sh("rm -rf '%s'", root);
    return 0;
}

static void account_names_are_unique_and_short(void **st)
{
    (void)st;
    char a[64], b[64], c[64];
    xl_account_name("cube-", "alice", a, sizeof a);
    assert_string_equal(a, "cube-alice");
    xl_account_name("cube-", "a-very-long-user-name-that-goes-on-and-on-x", b, sizeof b);
    xl_account_name("cube-", "a-very-long-user-name-that-goes-on-and-on-y", c, sizeof c);
    assert_true(strlen(b) <= 32);
    assert_true(strlen(c) <= 32);
    assert_string_not_equal(b, c);
    assert_int_equal(strncmp(b, "cube-a-very-long", 16), 0);
    xl_account_name("cube-", "A.b", a, sizeof a);   /* cleaned: gets a hash too */
    xl_account_name("cube-", "a-b", b, sizeof b);
    assert_string_not_equal(a, b);
    assert_string_equal(b, "cube-a-b");
}

/* Reads root/rel into buf, stripped of the trailing newline. */
static const char *file_at(const char *dir, const char *name)
{
    static char buf[256];
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (xl_read_file(path, buf, sizeof buf) < 0)
        return "(missing)";
    buf[strcspn(buf, "\n")] = '\0';
    return buf;
}

static void cgroup_v1_paths_and_limits(void **st)
{
    (void)st;
    char *mi = xt_fmt(
        "30 25 0:26 / %s/memory rw,nosuid - cgroup cgroup rw,memory\n"
        "31 25 0:27 / %s/cpu\\040x rw,nosuid - cgroup cgroup rw,cpu,cpuacct\n"
        "32 25 0:28 /ns %s/pids rw,nosuid - cgroup cgroup rw,pids\n"
        "33 25 0:29 / %s/unified rw - cgroup2 cgroup2 rw\n", root, root, root, root);
    const char *self = "8:pids:/ns/svc\n4:memory:/a/b\n2:cpu,cpuacct:/\n0::/\n";
    char path[PATH_MAX], note[1024];
    snprintf(path, sizeof path, "%s/unified", root);
    mkdir(path, 0755);
    assert_int_equal(xl_write_file(strcat(path, "/cgroup.controllers"), "hugetlb\n"), 0);
    struct xl_cgroups cg;
    assert_int_equal(xl_cgroups_detect(&cg, XL_CG_AUTO, "", mi, self, note, sizeof note), 0);
    assert_int_equal(cg.version, 1);
    assert_non_null(strstr(note, "v2 unusable"));
    char want[PATH_MAX];
    snprintf(want, sizeof want, "%s/memory/a/b/executor-local", root);
    assert_string_equal(cg.parent[XL_CG_MEMORY], want);
    snprintf(want, sizeof want, "%s/cpu x/executor-local", root);
    assert_string_equal(cg.parent[XL_CG_CPU], want);
    snprintf(want, sizeof want, "%s/pids/svc/executor-local", root);   /* ns root stripped */
    assert_string_equal(cg.parent[XL_CG_PIDS], want);

    struct xl_cgroup g;
    char msg[256];
    assert_int_equal(xl_cgroup_create(&cg, "s1", 32 << 20, 200, 100, &g, msg, sizeof msg),
                     CUBE_OK);
    assert_string_equal(file_at(g.dir[XL_CG_MEMORY], "memory.limit_in_bytes"), "33554432");
    assert_string_equal(file_at(g.dir[XL_CG_CPU], "cpu.cfs_quota_us"), "20000");
    assert_string_equal(file_at(g.dir[XL_CG_CPU], "cpu.cfs_period_us"), "100000");
    assert_string_equal(file_at(g.dir[XL_CG_PIDS], "pids.max"), "100");
    char procs[XL_CG_NCTL][PATH_MAX], oom[PATH_MAX], fc[PATH_MAX];
    assert_int_equal(xl_cgroup_procs_files(&g, procs), 3);
    snprintf(want, sizeof want, "%s/memory/a/b/executor-local/s1/cgroup.procs", root);
    assert_string_equal(procs[0], want);
    xl_cgroup_oom_files(&g, oom, fc, sizeof oom);
    assert_non_null(strstr(oom, "/s1/memory.oom_control"));
    assert_non_null(strstr(fc, "/s1/memory.failcnt"));
    /* All replicas together: the pids hierarchy's parent. */
    assert_int_equal(xl_cgroups_limit_pids(&cg, 16384, note, sizeof note), 0);
    assert_string_equal(file_at(cg.parent[XL_CG_PIDS], "pids.max"), "16384");
    assert_string_equal(file_at(cg.parent[XL_CG_MEMORY], "pids.max"), "(missing)");
    cg.parent[XL_CG_PIDS][0] = '\0';   /* no pids hierarchy: said, nothing written */
    assert_int_equal(xl_cgroups_limit_pids(&cg, 16384, note, sizeof note), -1);
    assert_non_null(strstr(note, "no pids controller"));
    /* An explicit parent, and v1 forced. */
    assert_int_equal(xl_cgroups_detect(&cg, XL_CG_V1, "/cube", mi, self, note, sizeof note), 0);
    snprintf(want, sizeof want, "%s/memory/cube", root);
    assert_string_equal(cg.parent[XL_CG_MEMORY], want);
    /* v2 forced but unusable: an error; off: none. */
    assert_int_equal(xl_cgroups_detect(&cg, XL_CG_V2, "", mi, self, note, sizeof note), -1);
    assert_non_null(strstr(note, "no memory/cpu"));
    assert_int_equal(xl_cgroups_detect(&cg, XL_CG_OFF, "", mi, self, note, sizeof note), 0);
    assert_int_equal(cg.version, 0);
    free(mi);
}

static void cgroup_v2_paths_and_limits(void **st)
{
    (void)st;
    char dir[PATH_MAX], file[PATH_MAX + 32], note[1024], msg[256], want[PATH_MAX];
    snprintf(dir, sizeof dir, "%s/cg2/system.slice/executor-local", root);
    assert_int_equal(xl_mkdir_p(dir, 0755), 0);
    const char *levels[] = {"cg2", "cg2/system.slice", "cg2/system.slice/executor-local"};
    for (int i = 0; i < 3; i++) {
        snprintf(file, sizeof file, "%s/%s/cgroup.controllers", root, levels[i]);
        assert_int_equal(xl_write_file(file, "cpuset cpu io memory pids\n"), 0);
    }
    char *mi = xt_fmt("40 25 0:30 / %s/cg2 rw - cgroup2 cgroup2 rw,nsdelegate\n", root);
    struct xl_cgroups cg;
    assert_int_equal(xl_cgroups_detect(&cg, XL_CG_AUTO, "", mi,
                                       "0::/system.slice/cubed.service\n", note, sizeof note), 0);
    assert_int_equal(cg.version, 2);
    assert_string_equal(cg.parent[0], dir);   /* a sibling of cubed's own group */
    snprintf(file, sizeof file, "%s/cg2", root);
    assert_string_equal(file_at(file, "cgroup.subtree_control"), "+memory +cpu +pids");
    assert_string_equal(file_at(dir, "cgroup.subtree_control"), "+memory +cpu +pids");
    struct xl_cgroup g;
    assert_int_equal(xl_cgroup_create(&cg, "s2", 32 << 20, 200, 64, &g, msg, sizeof msg),
                     CUBE_OK);
    assert_true(snprintf(want, sizeof want, "%s/s2", dir) < (int)sizeof want);
    assert_string_equal(g.dir[0], want);
    assert_string_equal(file_at(g.dir[0], "memory.max"), "33554432");
    assert_string_equal(file_at(g.dir[0], "cpu.max"), "20000 100000");
    assert_string_equal(file_at(g.dir[0], "pids.max"), "64");
    assert_string_equal(file_at(g.dir[0], "memory.oom.group"), "1");
    char procs[XL_CG_NCTL][PATH_MAX], oom[PATH_MAX], fc[PATH_MAX];
    assert_int_equal(xl_cgroup_procs_files(&g, procs), 1);
    xl_cgroup_oom_files(&g, oom, fc, sizeof oom);
    assert_non_null(strstr(oom, "/s2/memory.events"));
    assert_string_equal(fc, "");
    /* Without limits no limit files are written. */
    assert_int_equal(xl_cgroup_create(&cg, "s3", 0, 0, 0, &g, msg, sizeof msg), CUBE_OK);
    assert_string_equal(file_at(g.dir[0], "memory.max"), "(missing)");
    /* All replicas together: the parent's own pids.max. */
    assert_int_equal(xl_cgroups_limit_pids(&cg, 1000, note, sizeof note), 0);
    assert_string_equal(file_at(dir, "pids.max"), "1000");
    assert_non_null(strstr(note, "at most 1000 processes"));
    free(mi);
}

/* The total of all replicas' processes: half of pid_max or threads-max,
 * whichever is lower, never below 64; an unknown value is left out. */
static void pids_total_is_below_the_kernels_limits(void **st)
{
    (void)st;
    assert_int_equal(xl_pids_total_auto(32768, 192725), 16384);
    assert_int_equal(xl_pids_total_auto(4194304, 10000), 5000);
    assert_int_equal(xl_pids_total_auto(-1, -1), 16384);
    assert_int_equal(xl_pids_total_auto(100, -1), 64);
}

static void view_hides_closed_directories(void **st)
{
    (void)st;
    char base[512], home[PATH_MAX], proj[PATH_MAX], other[PATH_MAX], msg[256];
    snprintf(base, sizeof base, "%s/view", root);
    snprintf(home, sizeof home, "%s/data/plugins/x/home/alice", base);
    snprintf(proj, sizeof proj, "%s/data/projects/p", base);
    snprintf(other, sizeof other, "%s/closed/work", base);
    assert_int_equal(xl_mkdir_p(home, 0755), 0);
    assert_int_equal(xl_mkdir_p(proj, 0755), 0);
    assert_int_equal(xl_mkdir_p(other, 0755), 0);
    chmod(home, 0700);
    struct xl_view v;
    /* Everything open: no view needed. */
    assert_int_equal(xl_view_plan(&v, home, proj, home, msg, sizeof msg), 0);
    assert_int_equal(v.nhide, 0);
    /* The data dir closed (as the core makes it): hidden, own dirs bound. */
    char data[1024];
    snprintf(data, sizeof data, "%s/data", base);
    chmod(data, 0700);
    char sub[PATH_MAX];
    assert_true(snprintf(sub, sizeof sub, "%s/sub", home) < (int)sizeof sub);
    assert_int_equal(xl_view_plan(&v, home, proj, sub, msg, sizeof msg), 0);
    assert_int_equal(v.nhide, 1);
    assert_string_equal(v.hide[0], data);
    assert_int_equal(v.nbind, 2);
    assert_string_equal(v.bind[0], home);
    assert_string_equal(v.bind[1], proj);
    /* A workdir elsewhere under a closed directory is bound too. */
    assert_true(snprintf(sub, sizeof sub, "%s/closed", base) < (int)sizeof sub);
    chmod(sub, 0700);
    assert_int_equal(xl_view_plan(&v, home, proj, other, msg, sizeof msg), 0);
    assert_int_equal(v.nhide, 2);
    assert_int_equal(v.nbind, 3);
    assert_string_equal(v.bind[2], other);
    chmod(sub, 0755);
    chmod(data, 0755);
}

static void bubblewrap_command_line(void **st)
{
    (void)st;
    char *argv[] = {"python3", "train.py", NULL};
    char msg[256];
    struct xl_pins legacy = {0};
    char **a = xl_bwrap_argv("/usr/bin/bwrap", "/h/alice", "/p/vision", "/h/alice/w", &legacy,
                             argv, msg, sizeof msg);
    assert_non_null(a);
    char line[2048] = "";
    for (char **p = a; *p; p++)
        snprintf(line + strlen(line), sizeof line - strlen(line), "%s ", *p);
    assert_non_null(strstr(line, "/usr/bin/bwrap --ro-bind / / "));
    assert_non_null(strstr(line, "--dev-bind /dev /dev "));   /* nodes unknown: as before */
    assert_non_null(strstr(line, "--tmpfs /tmp "));
    assert_non_null(strstr(line, "--bind /h/alice /h/alice "));
    assert_non_null(strstr(line, "--bind /p/vision /p/vision "));
    assert_null(strstr(line, "--bind /h/alice/w"));   /* inside the home already */
    assert_non_null(strstr(line, "--chdir /h/alice/w -- python3 train.py "));
    xl_strv_free(a);
    a = xl_bwrap_argv("/usr/bin/bwrap", "/h/alice", "/p/vision", "/srv/code", &legacy, argv,
                      msg, sizeof msg);
    line[0] = '\0';
    for (char **p = a; *p; p++)
        snprintf(line + strlen(line), sizeof line - strlen(line), "%s ", *p);
    assert_non_null(strstr(line, "--bind /srv/code /srv/code "));
    xl_strv_free(a);
}

/* Pinned device nodes and mounts: a fresh /dev with exactly those nodes,
 * the mounts bound (read-only unless said); a node or mount this machine
 * lacks fails the start, naming it; bad documents are refused. */
static void bubblewrap_shows_only_pinned_devices(void **st)
{
    (void)st;
    char *argv[] = {"ls", "/dev", NULL}, msg[256], line[2048] = "";
    struct xl_pins p;
    cJSON *doc = cJSON_Parse(
        "{\"deviceNodes\":[{\"path\":\"/dev/sim0\",\"hostPath\":\"/dev/null\"},"
        "{\"path\":\"/dev/zero\"}],\"mounts\":[{\"hostPath\":\"/etc\",\"containerPath\":"
        "\"/opt/etc\"},{\"hostPath\":\"/var\",\"containerPath\":\"/opt/var\","
        "\"readOnly\":false}]}");
    assert_int_equal(xl_pins_parse(&p, doc, msg, sizeof msg), CUBE_OK);
    cJSON_Delete(doc);
    assert_true(p.known);
    char **a = xl_bwrap_argv("/usr/bin/bwrap", "/h/a", "/p/v", "/h/a", &p, argv, msg,
                             sizeof msg);
    assert_non_null(a);
    for (char **q = a; *q; q++)
        snprintf(line + strlen(line), sizeof line - strlen(line), "%s ", *q);
    assert_non_null(strstr(line, "--ro-bind / / --dev /dev --bind /dev/shm /dev/shm "
                                 "--dev-bind /dev/null /dev/sim0 --dev-bind /dev/zero /dev/zero "));
    assert_null(strstr(line, "--dev-bind /dev /dev"));
    assert_non_null(strstr(line, "--ro-bind /etc /opt/etc --bind /var /opt/var --unshare-ipc"));
    xl_strv_free(a);
    free(p.nodes[0].host);
    p.nodes[0].host = strdup("/nonexistent/nvidia9");
    assert_null(xl_bwrap_argv("/usr/bin/bwrap", "/h/a", "/p/v", "/h/a", &p, argv, msg,
                              sizeof msg));
    assert_string_equal(msg, "device node /nonexistent/nvidia9: not a device on this node");
    free(p.nodes[0].host);
    p.nodes[0].host = strdup("/etc/passwd");   /* a file is no device */
    assert_null(xl_bwrap_argv("/usr/bin/bwrap", "/h/a", "/p/v", "/h/a", &p, argv, msg,
                              sizeof msg));
    xl_pins_free(&p);
    static const char *const bad[] = {
        "{\"deviceNodes\":[{\"path\":\"/etc/x\"}]}",
        "{\"deviceNodes\":[{\"path\":\"/dev/../etc\"}]}",
        "{\"deviceNodes\":{}}",
        "{\"mounts\":[{\"hostPath\":\"/a\",\"containerPath\":\"/proc/x\"}]}",
        "{\"mounts\":[{\"hostPath\":\"a\",\"containerPath\":\"/b\"}]}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        doc = cJSON_Parse(bad[i]);
        assert_int_equal(xl_pins_parse(&p, doc, msg, sizeof msg), CUBE_EINVAL);
        xl_pins_free(&p);
        cJSON_Delete(doc);
    }
    doc = cJSON_Parse("{\"mounts\":[]}");   /* no "deviceNodes": unknown */
    assert_int_equal(xl_pins_parse(&p, doc, msg, sizeof msg), CUBE_OK);
    assert_false(p.known);
    xl_pins_free(&p);
    cJSON_Delete(doc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(account_names_are_unique_and_short),
        cmocka_unit_test(cgroup_v1_paths_and_limits),
        cmocka_unit_test(cgroup_v2_paths_and_limits),
        cmocka_unit_test(pids_total_is_below_the_kernels_limits),
        cmocka_unit_test(view_hides_closed_directories),
        cmocka_unit_test(bubblewrap_command_line),
        cmocka_unit_test(bubblewrap_shows_only_pinned_devices),
    };
    return cmocka_run_group_tests_name("executor-local isolation (no processes)", tests,
                                       make_root, drop_root);
}
