/* test_slurm_units.c — executor-slurm's pure parts: Slurm hostlists, shell
 * quoting, `scontrol -o` fields, node documents (GRES to devices, features
 * to labels, drain/down to schedulable:false), config errors and defaults,
 * and running a command (cmd.c's vfork-style spawn: output, exit status,
 * environment, deadline, a program not found, the caller's signal mask),
 * and the group list's links when a group is pushed at the head while the
 * poll thread had the lock released. */
#include <signal.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "slurm.h"

static const char LINE_GPU[] =
    "NodeName=gpu01 Arch=x86_64 CoresPerSocket=8  CPUAlloc=0 CPUEfctv=16 CPUTot=16 "
    "AvailableFeatures=ib,a ActiveFeatures=ib,a Gres=gpu:h200:8(S:0-1),nic:2 "
    "NodeAddr=10.0.0.5 NodeHostName=gpu01 OS=Linux 6.1 #1 SMP RealMemory=65536 "
    "State=MIXED Partitions=gpu,cube Reason=none here";
static const char LINE_DRAIN[] =
    "NodeName=n3 CPUTot=2 ActiveFeatures=(null) Gres=(null) NodeAddr=10.1.1.13 "
    "RealMemory=2048 State=IDLE+DRAIN Partitions=cube Reason=disk check [root@2026-12-02T10:18:45]";

static void conf_default(struct sl_conf *c)
{
    char err[256];
    assert_int_equal(sl_conf_load(c, "{\"partitions\":[{\"name\":\"cube\",\"pool\":\"slurm\"}],"
                                     "\"accounts\":{\"alice\":\"c-alice\"},"
                                     "\"account_prefix\":\"cs-\"}",
                                  "/var/lib/cube", err, sizeof err), CUBE_OK);
}

static void test_hostlist(void **st)
{
    (void)st;
    char *n[16] = {0};
    int k = sl_hostlist_expand("n[1-3,5],gpu-01,r[08-10]x", n, 16);
    assert_int_equal(k, 8);
    assert_string_equal(n[0], "n1");
    assert_string_equal(n[3], "n5");
    assert_string_equal(n[4], "gpu-01");
    assert_string_equal(n[5], "r08x");
    assert_string_equal(n[7], "r10x");
    for (int i = 0; i < 16; i++)
        free(n[i]);
    char *m[4] = {0};
    assert_int_equal(sl_hostlist_expand("n[3-1]", m, 4), -1);
    assert_int_equal(sl_hostlist_expand("n[1-9]", m, 4), -1);   /* more than max */
    for (int i = 0; i < 4; i++)
        free(m[i]);
}

static void test_quote_and_fields(void **st)
{
    (void)st;
    char b[64] = "";
    assert_int_equal(sl_shquote(b, sizeof b, "it's"), 0);
    assert_string_equal(b, "'it'\\''s'");
    char tiny[4] = "";
    assert_int_equal(sl_shquote(tiny, sizeof tiny, "long"), -1);
    char v[128];
    sl_kv_field(LINE_DRAIN, "State", v, sizeof v);
    assert_string_equal(v, "IDLE+DRAIN");
    sl_kv_field(LINE_DRAIN, "Reason", v, sizeof v);
    assert_string_equal(v, "disk check [root@2026-12-02T10:18:45]");
    sl_kv_field(LINE_DRAIN, "Missing", v, sizeof v);
    assert_string_equal(v, "");
}

static void test_node_gpu(void **st)
{
    (void)st;
    struct sl_conf c;
    struct sl_node n;
    conf_default(&c);
    assert_true(c.backlog == 0.25);   /* the default */
    c.backlog = 0;
    cJSON *d = sl_node_doc(&c, LINE_GPU, "slurm", &n);
    assert_non_null(d);
    assert_string_equal(n.name, "gpu01");
    assert_true(n.schedulable);
    assert_string_equal(cJSON_GetObjectItem(d, "address")->valuestring, "10.0.0.5");
    const cJSON *cap = cJSON_GetObjectItem(d, "capacity");
    assert_string_equal(cJSON_GetObjectItem(cap, "cpu")->valuestring, "16");
    assert_string_equal(cJSON_GetObjectItem(cap, "memory")->valuestring, "65536Mi");
    const cJSON *devs = cJSON_GetObjectItem(d, "devices");
    assert_int_equal(cJSON_GetArraySize(devs), 8);   /* nic has no mapping */
    const cJSON *d0 = cJSON_GetArrayItem(devs, 0);
    assert_string_equal(cJSON_GetObjectItem(d0, "resource")->valuestring, "nvidia.com/gpu");
    assert_string_equal(cJSON_GetObjectItem(d0, "model")->valuestring, "H200");
    const cJSON *labels = cJSON_GetObjectItem(d, "labels");
    assert_string_equal(cJSON_GetObjectItem(labels, "slurm.cube.dev/ib")->valuestring, "true");
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(d, "schedulable")));
    cJSON_Delete(d);
    /* cube mode's backlog and slurm mode's overcommit scale cpu and
     * memory, never the devices */
    c.backlog = 0.25;
    d = sl_node_doc(&c, LINE_GPU, "slurm", &n);
    cap = cJSON_GetObjectItem(d, "capacity");
    assert_string_equal(cJSON_GetObjectItem(cap, "cpu")->valuestring, "20");
    assert_string_equal(cJSON_GetObjectItem(cap, "memory")->valuestring, "81920Mi");
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(d, "devices")), 8);
    cJSON_Delete(d);
    c.mode = SL_MODE_SLURM, c.overcommit = 2;
    d = sl_node_doc(&c, LINE_GPU, "slurm", &n);
    cap = cJSON_GetObjectItem(d, "capacity");
    assert_string_equal(cJSON_GetObjectItem(cap, "cpu")->valuestring, "32");
    cJSON_Delete(d);
    sl_conf_free(&c);
}

static void test_node_drain(void **st)
{
    (void)st;
    struct sl_conf c;
    struct sl_node n;
    conf_default(&c);
    cJSON *d = sl_node_doc(&c, LINE_DRAIN, "slurm", &n);
    assert_non_null(d);
    assert_false(n.schedulable);
    assert_true(cJSON_IsFalse(cJSON_GetObjectItem(d, "schedulable")));
    assert_string_equal(cJSON_GetObjectItem(d, "message")->valuestring,
                        "Slurm node state IDLE+DRAIN: disk check");
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(d, "devices")), 0);
    cJSON_Delete(d);
    assert_null(sl_node_doc(&c, "NodeName=Bad_Name CPUTot=1", "slurm", &n));
    sl_conf_free(&c);
}

static void test_conf(void **st)
{
    (void)st;
    struct sl_conf c;
    char err[256], acct[64];
    conf_default(&c);
    assert_int_equal(sl_conf_account(&c, "alice", acct, sizeof acct), 0);
    assert_string_equal(acct, "c-alice");
    assert_int_equal(sl_conf_account(&c, "bob", acct, sizeof acct), 0);
    assert_string_equal(acct, "cs-bob");
    assert_int_equal(sl_conf_account(&c, "plugin:x", acct, sizeof acct), -1);
    assert_string_equal(sl_conf_part_of_pool(&c, "slurm")->name, "cube");
    sl_conf_free(&c);
    assert_int_equal(sl_conf_load(&c, "{\"partitions\":[{\"name\":\"a\",\"pool\":\"Bad Pool\"}]}",
                                  "/d", err, sizeof err), CUBE_EINVAL);
    assert_non_null(strstr(err, "partitions[0].pool"));
    assert_int_equal(sl_conf_load(&c, "{\"partitions\":[{\"name\":\"a\"}],"
                                     "\"accounts\":{\"eve\":\"root\"}}", "/d", err, sizeof err),
                     CUBE_EINVAL);
    assert_non_null(strstr(err, "accounts.eve"));
    assert_int_equal(sl_conf_load(&c, "{\"partitions\":[]}", "/d", err, sizeof err), CUBE_EINVAL);
    assert_int_equal(sl_conf_load(&c, "{\"partitions\":[{\"name\":\"a\"}],\"spool_dir\":\"rel\"}",
                                  "/d", err, sizeof err), CUBE_EINVAL);
    assert_non_null(strstr(err, "spool_dir"));
    /* squeue never more often than the poll; 8 submitters by default */
    assert_int_equal(sl_conf_load(&c, "{\"partitions\":[{\"name\":\"a\"}],\"poll_ms\":300,"
                                     "\"squeue_ms\":100}", "/d", err, sizeof err), CUBE_OK);
    assert_int_equal(c.squeue_ms, 300);
    assert_int_equal(c.submit_threads, 8);
    sl_conf_free(&c);
}

static void test_cmd(void **st)
{
    (void)st;
    struct sl_conf c;
    struct sl_cmd_out o;
    char why[128];
    conf_default(&c);
    c.cmd_timeout_ms = 5000;
    /* the caller's signal mask, not the all-blocked one of the clone */
    sigset_t m, old;
    sigemptyset(&m);
    sigaddset(&m, SIGUSR2);
    pthread_sigmask(SIG_BLOCK, &m, &old);
    char *a1[] = {"sh", "-c", "echo out $LANG $HOME; echo err >&2; exit 3", NULL};
    assert_int_equal(sl_cmd(&c, a1, (uid_t)-1, 0, NULL, &o), CUBE_OK);
    assert_int_equal(o.status, 3);
    assert_string_equal(o.out, "out C /\n");
    assert_string_equal(o.err, "err\n");
    sl_cmd_free(&o);
    char *a0[] = {"grep", "-E", "^SigBlk", "/proc/self/status", NULL};
    assert_int_equal(sl_cmd(&c, a0, (uid_t)-1, 0, NULL, &o), CUBE_OK);
    assert_int_equal(o.status, 0);
    assert_non_null(strstr(o.out, "SigBlk:\t0000000000000800\n"));   /* SIGUSR2 only */
    sl_cmd_free(&o);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    char *a2[] = {"no-such-slurm-command", NULL};
    assert_int_equal(sl_cmd(&c, a2, (uid_t)-1, 0, NULL, &o), CUBE_OK);
    assert_int_equal(o.status, 127);
    sl_cmd_why(&o, why, sizeof why);
    assert_string_equal(why, "cannot run the Slurm command");
    sl_cmd_free(&o);
    c.cmd_timeout_ms = 200;
    char *a3[] = {"sleep", "5", NULL};
    assert_int_equal(sl_cmd(&c, a3, (uid_t)-1, 0, NULL, &o), CUBE_OK);
    assert_int_equal(o.status, -1);
    assert_true(o.timed_out);
    sl_cmd_free(&o);
    sl_conf_free(&c);
}

/* The poll thread takes A (the head) off the list after its round, in
 * which A's end let a new Job in: that Job's group N was pushed at the
 * head meanwhile. Unlinking through the link taken before the round
 * (&s->groups, which now points to N) lost N: its Job then waited in
 * "the engine's queue" for ever. */
static void test_group_link(void **st)
{
    (void)st;
    struct sl s;
    struct sl_group a, b, n;
    memset(&s, 0, sizeof s);
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    memset(&n, 0, sizeof n);
    a.next = &b;
    s.groups = &a;
    struct sl_group **pp = &s.groups;          /* the link to A, before the round */
    n.next = s.groups;                         /* pushed at the head meanwhile */
    s.groups = &n;
    pp = sl_group_link(&s, &a, pp);
    assert_ptr_equal(*pp, &a);
    *pp = a.next;                              /* A done: off the list */
    assert_ptr_equal(s.groups, &n);
    assert_ptr_equal(n.next, &b);
    assert_null(b.next);
    /* a link that still points to the group is kept; a group not on the
     * list gets the list's end */
    pp = &n.next;
    assert_ptr_equal(sl_group_link(&s, &b, pp), pp);
    struct sl_group **end = sl_group_link(&s, &a, &s.groups);
    assert_null(*end);
    assert_ptr_equal(end, &b.next);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hostlist),     cmocka_unit_test(test_quote_and_fields),
        cmocka_unit_test(test_node_gpu),     cmocka_unit_test(test_node_drain),
        cmocka_unit_test(test_conf),         cmocka_unit_test(test_cmd),
        cmocka_unit_test(test_group_link),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
