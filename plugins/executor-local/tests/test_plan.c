/* test_plan.c — the supervisor's plan on its command line (plan_codec.c):
 * what cubed encodes is what the supervisor decodes, field by field, and a
 * command line that is not a plan of this build is refused naming the
 * field. No processes. */
#include "xl_test.h"

static int argc_of(char **v)
{
    int n = 0;
    while (v[n])
        n++;
    return n;
}

/* A copy of the vector's pointers: decoding cuts the vector at "--". */
static char **keep_pointers(char **v, int n)
{
    char **copy = malloc(((size_t)n + 1) * sizeof *copy);
    memcpy(copy, v, ((size_t)n + 1) * sizeof *copy);
    return copy;
}

/* Frees an encoded plan through the copy of its pointers. */
static void free_encoded(char **v, char **kept)
{
    xl_strv_free(kept);
    free(v);
}

static void plan_round_trips(void **st)
{
    (void)st;
    static char *argv[] = {"sh", "-c", "echo \"$1\"", "x y", "", NULL};
    static char *env[] = {"A=1", NULL};
    static char *paths[] = {"/bin/sh", "/usr/bin/sh", NULL};
    static const gid_t groups[] = {20001, 20002, 5};
    struct xl_view view = {.nhide = 2, .nbind = 1};
    strcpy(view.hide[0], "/home"), strcpy(view.hide[1], "/srv/projects");
    strcpy(view.bind[0], "/home/cube-alice");
    struct xl_plan p = {.argv = argv, .envp = env, .exec_paths = paths, .workdir = "/w d",
                        .drop = 1, .uid = 20001, .gid = 20001, .groups = groups, .ngroups = 3,
                        .nprocs = 2, .view = &view, .out_fd = 9, .dir_fd = 10,
                        .timeout_s = 3600, .grace_s = 10, .slot = "1a2b-3c-4"};
    strcpy(p.procs[0], "/sys/fs/cgroup/memory/cube/x/cgroup.procs");
    strcpy(p.procs[1], "/sys/fs/cgroup/pids/cube/x/cgroup.procs");
    strcpy(p.oom_file, "/sys/fs/cgroup/memory/cube/x/memory.oom_control");
    char **enc = xl_plan_encode(&p, "/usr/lib/cube/plugins/cube-xl-supervisor");
    assert_non_null(enc);
    int n = argc_of(enc);
    char **kept = keep_pointers(enc, n);
    assert_string_equal(enc[0], "/usr/lib/cube/plugins/cube-xl-supervisor");
    struct xl_plan q;
    struct xl_view w;
    const char *err = NULL;
    char *envq[] = {"B=2", NULL};
    assert_int_equal(xl_plan_decode(n, enc, envq, &q, &w, &err), 0);
    assert_string_equal(q.slot, "1a2b-3c-4");
    assert_string_equal(q.workdir, "/w d");
    assert_int_equal(q.drop, 1);
    assert_int_equal(q.uid, 20001);
    assert_int_equal(q.gid, 20001);
    assert_int_equal(q.ngroups, 3);
    assert_memory_equal(q.groups, groups, sizeof groups);
    assert_int_equal(q.nprocs, 2);
    assert_string_equal(q.procs[1], p.procs[1]);
    assert_string_equal(q.oom_file, p.oom_file);
    assert_string_equal(q.failcnt_file, "");
    assert_ptr_equal(q.view, &w);
    assert_int_equal(w.nhide, 2);
    assert_string_equal(w.hide[1], "/srv/projects");
    assert_int_equal(w.nbind, 1);
    assert_string_equal(w.bind[0], "/home/cube-alice");
    assert_int_equal(q.timeout_s, 3600);
    assert_int_equal(q.grace_s, 10);
    assert_string_equal(q.exec_paths[0], "/bin/sh");
    assert_string_equal(q.exec_paths[1], "/usr/bin/sh");
    assert_null(q.exec_paths[2]);
    for (int i = 0; argv[i]; i++)
        assert_string_equal(q.argv[i], argv[i]);
    assert_null(q.argv[5]);
    assert_ptr_equal(q.envp, envq);
    assert_int_equal(q.out_fd, XL_SUP_FD_OUT);
    assert_int_equal(q.dir_fd, XL_SUP_FD_DIR);
    free((void *)q.groups);
    free_encoded(enc, kept);
}

static void no_view_and_no_groups(void **st)
{
    (void)st;
    static char *argv[] = {"true", NULL};
    static char *paths[] = {"/bin/true", NULL};
    struct xl_plan p = {.argv = argv, .envp = argv + 1, .exec_paths = paths, .workdir = "/",
                        .slot = "a"};
    char **enc = xl_plan_encode(&p, "/x/cube-xl-supervisor");
    int n = argc_of(enc);
    char **kept = keep_pointers(enc, n);
    struct xl_plan q;
    struct xl_view w;
    const char *err = NULL;
    assert_int_equal(xl_plan_decode(n, enc, argv + 1, &q, &w, &err), 0);
    assert_null(q.view);
    assert_int_equal(q.ngroups, 0);
    assert_int_equal(q.nprocs, 0);
    assert_int_equal(q.drop, 0);
    assert_string_equal(q.argv[0], "true");
    free_encoded(enc, kept);
}

/* Decodes a command line given as one string of space-separated words. */
static int decode_words(const char *words, const char **err)
{
    char *copy = strdup(words), *v[64];
    int n = 0;
    for (char *t = strtok(copy, " "); t && n < 63; t = strtok(NULL, " "))
        v[n++] = strcmp(t, "''") == 0 ? "" : t;
    v[n] = NULL;
    struct xl_plan q;
    struct xl_view w;
    int rc = xl_plan_decode(n, v, v + n, &q, &w, err);
    if (rc == 0)
        free((void *)q.groups);
    free(copy);
    return rc;
}

static void bad_plans_name_the_field(void **st)
{
    (void)st;
    /*          tag       slot wd dr uid gid to gr oom fc ng np nh nb ne paths -- argv */
    const char *good = "S --plan-v1 s1 / 1 100 100 0 10 '' '' 0 0 0 0 1 /bin/true -- true";
    const char *err = NULL;
    assert_int_equal(decode_words(good, &err), 0);
    static const char *const cases[][2] = {
        {"S --plan-v0 s1 / 1 100 100 0 10 '' '' 0 0 0 0 1 /bin/true -- true", "another build"},
        {"S", "another build"},
        {"S --plan-v1 S_1 / 1 100 100 0 10 '' '' 0 0 0 0 1 /bin/true -- true", "slot"},
        {"S --plan-v1 s1 / 2 100 100 0 10 '' '' 0 0 0 0 1 /bin/true -- true", "drop"},
        {"S --plan-v1 s1 / 1 -5 100 0 10 '' '' 0 0 0 0 1 /bin/true -- true", "uid"},
        {"S --plan-v1 s1 / 1 100 1x 0 10 '' '' 0 0 0 0 1 /bin/true -- true", "gid"},
        {"S --plan-v1 s1 / 1 100 100 0 10 '' '' 2 7 x 0 0 0 1 /bin/true -- true", "groups"},
        {"S --plan-v1 s1 / 1 100 100 0 10 '' '' 0 9 0 0 1 /bin/true -- true", "cgroup files"},
        {"S --plan-v1 s1 / 1 100 100 0 10 '' '' 0 0 5 0 1 /bin/true -- true", "hidden dirs"},
        {"S --plan-v1 s1 / 1 100 100 0 10 '' '' 0 0 0 0 0 -- true", "exec paths"},
        {"S --plan-v1 s1 / 1 100 100 0 10 '' '' 0 0 0 0 2 /bin/true -- true", "exec paths"},
        {"S --plan-v1 s1 / 1 100 100 0 10 '' '' 0 0 0 0 1 /bin/true --", "argv"},
        {"S --plan-v1 s1 / 1 100 100 0 10 '' '' 0 0 0 0 1 /bin/true true", "exec paths"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        err = NULL;
        if (decode_words(cases[i][0], &err) == 0)
            fail_msg("accepted: %s", cases[i][0]);
        if (!err || !strstr(err, cases[i][1]))
            fail_msg("%s: error \"%s\" does not name %s", cases[i][0], err ? err : "(none)",
                     cases[i][1]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(plan_round_trips),
        cmocka_unit_test(no_view_and_no_groups),
        cmocka_unit_test(bad_plans_name_the_field),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
