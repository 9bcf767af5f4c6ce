/* test_job_ports.c — the ports of distributed Jobs (core/sched/job_ports.c): no
 * port is ever held by two live Jobs of one node, a retry takes fresh ports
 * and gives back the old ones, a used-up range fails cleanly, a restart
 * takes back what running Jobs' statuses record; the named ports of
 * spec.ports (ABI 1.5), one per replica and name, beside the mode's; on a
 * node at a loopback address, a port something on this machine listens on
 * is never handed out. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sched/jobs.h"
#include "base/strmap.h"

static struct cube_sched S;
/* a node elsewhere: its ports are not probed on this machine (which may use
 * them for its own connections) */
static struct sched_node NODE = {.name = "n0", .address = "10.0.0.7", .port_min = 40000,
                                 .port_max = 40003};

static int setup(void **st)
{
    (void)st;
    memset(&S, 0, sizeof S);
    pthread_mutex_init(&S.mu, NULL);
    S.nodes = cube_strmap_new();
    S.ports = cube_strmap_new();
    cube_strmap_put(S.nodes, "n0", &NODE, NULL);
    return 0;
}

static int teardown(void **st)
{
    (void)st;
    cube_strmap_free(S.nodes, NULL);
    cube_strmap_free(S.ports, free);
    pthread_mutex_destroy(&S.mu);
    return 0;
}

/* A Job of mode with n replicas on n0, its status as admission left it. */
static cJSON *job(const char *mode, int n, cJSON **status)
{
    cJSON *j = cJSON_CreateObject(), *spec = cJSON_AddObjectToObject(j, "spec");
    cJSON_AddStringToObject(spec, "distributed", mode);
    cJSON_AddNumberToObject(spec, "replicas", n);
    *status = cJSON_AddObjectToObject(j, "status");
    cJSON *reps = cJSON_AddArrayToObject(*status, "replicas");
    for (int i = 0; i < n; i++) {
        cJSON *r = cJSON_CreateObject();
        cJSON_AddStringToObject(r, "node", "n0");
        cJSON_AddItemToArray(reps, r);
    }
    return j;
}

static int master(const cJSON *status)
{
    return (int)cJSON_GetNumberValue(cJSON_GetObjectItem(cJSON_GetObjectItem(status, "ports"),
                                                         "master"));
}

static void live_jobs_never_share_a_port(void **st)
{
    (void)st;
    cJSON *sa, *sb, *a = job("pytorch", 2, &sa), *b = job("pytorch", 2, &sb);
    assert_int_equal(job_ports_assign(&S, "p/a", a, sa), 0);
    assert_int_equal(job_ports_assign(&S, "p/b", b, sb), 0);
    assert_in_range(master(sa), 40000, 40003);
    assert_in_range(master(sb), 40000, 40003);
    assert_int_not_equal(master(sa), master(sb));
    assert_null(job_ports_missing(&S, a));
    /* a retry of a: a fresh port, its old one given back */
    assert_int_equal(job_ports_assign(&S, "p/a", a, sa), 0);
    assert_int_not_equal(master(sa), master(sb));
    assert_int_equal(cube_strmap_size(S.ports), 2);
    cJSON_Delete(a);
    cJSON_Delete(b);
}

static void a_used_up_range_fails_and_takes_nothing(void **st)
{
    (void)st;
    cJSON *s1, *s2, *tf = job("tensorflow", 3, &s1), *more = job("tensorflow", 2, &s2);
    assert_int_equal(job_ports_assign(&S, "p/tf", tf, s1), 0);
    assert_int_equal(cube_strmap_size(S.ports), 3);
    /* one port left of four: two workers cannot have theirs */
    assert_int_equal(job_ports_assign(&S, "p/more", more, s2), -1);
    assert_int_equal(cube_strmap_size(S.ports), 3);
    assert_non_null(job_ports_missing(&S, more));
    job_ports_release(&S, "p/tf");
    assert_int_equal(cube_strmap_size(S.ports), 0);
    assert_int_equal(job_ports_assign(&S, "p/more", more, s2), 0);
    assert_null(job_ports_missing(&S, more));
    job_ports_release(&S, "p/more");
    cJSON_Delete(tf);
    cJSON_Delete(more);
}

static void a_restart_takes_back_running_jobs_ports(void **st)
{
    (void)st;
    cJSON *s, *j = job("pytorch", 2, &s);
    assert_int_equal(job_ports_assign(&S, "p/r", j, s), 0);
    int port = master(s);
    job_ports_release(&S, "p/r");        /* as if cubed restarted */
    job_ports_restore(&S, "p/r", j);
    cJSON *s2, *other = job("pytorch", 2, &s2);
    for (int i = 0; i < 3; i++) {        /* the other three ports, never port */
        char id[16];
        snprintf(id, sizeof id, "p/o%d", i);
        assert_int_equal(job_ports_assign(&S, id, other, s2), 0);
        assert_int_not_equal(master(s2), port);
    }
    cJSON_Delete(j);
    cJSON_Delete(other);
}

/* spec.ports [{"name": n}...] on a Job made by job(). */
static void add_names(cJSON *j, const char *const *names, int n)
{
    cJSON *ports = cJSON_AddArrayToObject(cJSON_GetObjectItem(j, "spec"), "ports");
    for (int i = 0; i < n; i++) {
        cJSON *p = cJSON_CreateObject();
        cJSON_AddStringToObject(p, "name", names[i]);
        cJSON_AddItemToArray(ports, p);
    }
}

static int named(const cJSON *status, int replica, const char *name)
{
    const cJSON *r = cJSON_GetArrayItem(cJSON_GetObjectItem(status, "replicas"), replica);
    const cJSON *v = cJSON_GetObjectItem(cJSON_GetObjectItem(r, "ports"), name);
    return cJSON_IsNumber(v) ? (int)v->valuedouble : 0;
}

static void named_ports_per_replica_and_name(void **st)
{
    (void)st;
    static const char *const NAMES[] = {"http", "metrics"};
    cJSON *s1, *s2, *s3, *a = job("none", 2, &s1), *b = job("pytorch", 1, &s2);
    add_names(a, NAMES, 2);
    add_names(b, NAMES, 1);
    assert_int_equal(job_ports_assign(&S, "p/a", a, s1), 0);
    int seen[4] = {named(s1, 0, "http"), named(s1, 0, "metrics"), named(s1, 1, "http"),
                   named(s1, 1, "metrics")};
    for (int i = 0; i < 4; i++) {
        assert_in_range(seen[i], 40000, 40003);
        for (int j = 0; j < i; j++)
            assert_int_not_equal(seen[i], seen[j]);
    }
    assert_null(cJSON_GetObjectItem(s1, "ports"));   /* no distributed mode: no master */
    assert_null(job_ports_missing(&S, a));
    /* the range is used up: b's master and http port cannot be had */
    assert_int_equal(job_ports_assign(&S, "p/b", b, s2), -1);
    assert_non_null(job_ports_missing(&S, b));
    /* after a restart the named ports are taken back from the status */
    job_ports_release(&S, "p/a");
    job_ports_restore(&S, "p/a", a);
    assert_int_equal(cube_strmap_size(S.ports), 4);
    job_ports_release(&S, "p/a");
    assert_int_equal(job_ports_assign(&S, "p/b", b, s2), 0);
    assert_int_not_equal(master(s2), named(s2, 0, "http"));
    assert_in_range(named(s2, 0, "http"), 40000, 40003);
    assert_null(named(s2, 0, "metrics") ? "" : NULL);
    assert_null(job_ports_missing(&S, b));
    /* a Job without spec.ports nor a mode takes none */
    cJSON *plain = job("none", 1, &s3);
    assert_int_equal(job_ports_assign(&S, "p/plain", plain, s3), 0);
    assert_int_equal(cube_strmap_size(S.ports), 2);
    cJSON_Delete(a);
    cJSON_Delete(b);
    cJSON_Delete(plain);
}

/* A node whose executor assigns its own ports (CUBE_EXECUTOR_OWN_PORTS):
 * its replicas get no named ports, and none counts as missing. */
static void own_ports_executors_get_none(void **st)
{
    (void)st;
    static struct sched_executor own = {.desc = {.flags = CUBE_EXECUTOR_OWN_PORTS}};
    static struct sched_node pod = {.name = "pod", .executor = &own};
    static const char *const NAMES[] = {"http"};
    cube_strmap_put(S.nodes, "pod", &pod, NULL);
    cJSON *s1, *j = job("none", 2, &s1);
    add_names(j, NAMES, 1);
    cJSON *r1 = cJSON_GetArrayItem(cJSON_GetObjectItem(s1, "replicas"), 1);
    cJSON_ReplaceItemInObject(r1, "node", cJSON_CreateString("pod"));
    assert_int_equal(job_ports_assign(&S, "p/own", j, s1), 0);
    assert_in_range(named(s1, 0, "http"), 40000, 40003);     /* n0's executor: the host's */
    assert_null(cJSON_GetObjectItem(r1, "ports"));          /* pod's: its own */
    assert_int_equal(cube_strmap_size(S.ports), 1);
    assert_null(job_ports_missing(&S, j));
    cJSON_Delete(j);
}

static void ranges_are_checked(void **st)
{
    (void)st;
    const char *good = "{\"min\":29500,\"max\":30999}";
    const char *bad[] = {"{\"min\":80,\"max\":90}", "{\"min\":3000,\"max\":2000}",
                         "{\"min\":1.5,\"max\":2000}", "{\"min\":2000}", "{\"min\":2000,"
                         "\"max\":70000}"};
    cJSON *o = cJSON_Parse(good);
    assert_true(job_ports_range_ok(o));
    cJSON_Delete(o);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        o = cJSON_Parse(bad[i]);
        assert_false(job_ports_range_ok(o));
        cJSON_Delete(o);
    }
}

/* A listening socket on 127.0.0.1 at a port of lo..hi, or -1; *port gets it. */
static int listen_in(int lo, int hi, int *port)
{
    for (int p = lo; p <= hi; p++) {
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)p),
                                .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        if (fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0 && listen(fd, 1) == 0) {
            *port = p;
            return fd;
        }
        if (fd >= 0)
            close(fd);
    }
    return -1;
}

static void a_port_busy_on_this_machine_is_skipped(void **st)
{
    (void)st;
    static struct sched_node local = {.name = "here", .address = "127.0.0.1"};
    cube_strmap_put(S.nodes, "here", &local, NULL);
    int busy = 0, fd = listen_in(41000, 41100, &busy);
    assert_true(fd >= 0);
    local.port_min = local.port_max = busy;     /* the one port of the range is held */
    const char *nodes[] = {"here"};
    int ports[1] = {0};
    assert_int_equal(job_ports_take(&S, "p/a", nodes, 1, ports), -1);
    local.port_max = busy + 1;                  /* the next one may be free */
    int other = 0;
    if (job_ports_take(&S, "p/a", nodes, 1, ports) == 0) {
        assert_int_equal(ports[0], busy + 1);
    } else {                                    /* then busy + 1 is held too, by another */
        int fd2 = listen_in(busy + 1, busy + 1, &other);
        assert_int_equal(fd2, -1);
    }
    close(fd);
    job_ports_release(&S, "p/a");
    local.port_max = busy;                      /* freed: handed out again */
    assert_int_equal(job_ports_take(&S, "p/a", nodes, 1, ports), 0);
    assert_int_equal(ports[0], busy);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(live_jobs_never_share_a_port, setup, teardown),
        cmocka_unit_test_setup_teardown(a_used_up_range_fails_and_takes_nothing, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(a_restart_takes_back_running_jobs_ports, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(named_ports_per_replica_and_name, setup, teardown),
        cmocka_unit_test_setup_teardown(own_ports_executors_get_none, setup, teardown),
        cmocka_unit_test(ranges_are_checked),
        cmocka_unit_test_setup_teardown(a_port_busy_on_this_machine_is_skipped, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
