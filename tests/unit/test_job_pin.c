/* test_job_pin.c — pinning a replica to its devices (core/sched/job_pin.c,
 * ABI 1.5): a pin's env, device nodes and mounts reach the replica
 * document (host paths filled in, mounts read-only unless said); a 1.3
 * accelerator's pin_env leaves "deviceNodes" out (nodes unknown); a
 * replica without devices gets none; prepared ids are what is pinned; a
 * pin that breaks the rules, or fails, fails with a message naming why. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/callerr.h"
#include "ctx/ctx.h"
#include "sched/jobs.h"

static struct cube_sched S;
static struct cube_plugin P;
static struct sched_accel A, B;
static struct sched_accel *ACCELS[] = {&A, &B};
static const char *answer;     /* what pin "a" answers; NULL: it fails */
static char got_ids[256];      /* the ids pin "a" was given */

static int pin_a(void *state, const char *ids, double share, char **out)
{
    (void)state, (void)share;
    snprintf(got_ids, sizeof got_ids, "%s", ids);
    if (!answer) {
        /* what set_error does inside the host's call frame */
        snprintf(cube_callerr_current(&P)->msg, sizeof cube_callerr_current(&P)->msg, "%s",
                 "no such GPU here");
        return CUBE_EIO;
    }
    *out = strdup(answer);
    return CUBE_OK;
}

static int pin_env_b(void *state, const char *ids, double share, char **out)
{
    (void)state, (void)ids, (void)share;
    *out = strdup("{\"B_VISIBLE\":\"7\",\"RANK\":\"9\"}");   /* RANK: Cube's, skipped */
    return CUBE_OK;
}

static int setup(void **st)
{
    (void)st;
    memset(&S, 0, sizeof S);
    pthread_mutex_init(&S.mu, NULL);
    A = (struct sched_accel){.desc = {.size = sizeof A.desc, .name = "a", .resource = "a.dev/x",
                                      .pin = pin_a}, .plugin = &P};
    B = (struct sched_accel){.desc = {.size = sizeof B.desc, .name = "b", .resource = "b.dev/y",
                                      .pin_env = pin_env_b}, .plugin = &P};
    S.accels = ACCELS;
    S.n_accels = 2;
    answer = "{\"env\":{\"A_VISIBLE\":\"0\"},\"deviceNodes\":[{\"path\":\"/dev/a0\"},"
             "{\"path\":\"/dev/a1\",\"hostPath\":\"/dev/null\"}],\"mounts\":[{\"hostPath\":"
             "\"/opt/a\",\"containerPath\":\"/opt/a\"}]}";
    return 0;
}

static int teardown(void **st)
{
    (void)st;
    pthread_mutex_destroy(&S.mu);
    return 0;
}

/* Pins a document with env {"USER_VAR":"1"} for devices (a JSON array of
 * {id, resource}); the result's text, or NULL with msg. */
static char *pin(const char *devices, const char *ids, char *msg, size_t len)
{
    cJSON *doc = cJSON_Parse("{\"env\":{\"USER_VAR\":\"1\",\"A_VISIBLE\":\"all\"}}");
    cJSON *rep = cJSON_CreateObject();
    cJSON_AddItemToObject(rep, "devices", cJSON_Parse(devices));
    cJSON *prepared = ids ? cJSON_Parse(ids) : NULL;
    msg[0] = '\0';
    char *out = job_pin_doc(&S, doc, rep, prepared, msg, len) == 0
                    ? cJSON_PrintUnformatted(doc) : NULL;
    cJSON_Delete(doc);
    cJSON_Delete(rep);
    cJSON_Delete(prepared);
    return out;
}

static void a_pin_reaches_the_document(void **st)
{
    (void)st;
    char msg[256];
    char *out = pin("[{\"id\":\"0\",\"resource\":\"a.dev/x\",\"share\":1}]", NULL, msg,
                    sizeof msg);
    assert_non_null(out);
    assert_string_equal(out,
        "{\"env\":{\"USER_VAR\":\"1\",\"A_VISIBLE\":\"0\"},\"deviceNodes\":["
        "{\"path\":\"/dev/a0\",\"hostPath\":\"/dev/a0\"},{\"path\":\"/dev/a1\",\"hostPath\":"
        "\"/dev/null\"}],\"mounts\":[{\"hostPath\":\"/opt/a\",\"containerPath\":\"/opt/a\","
        "\"readOnly\":true}]}");
    assert_string_equal(got_ids, "[\"0\"]");
    free(out);
}

static void pin_env_leaves_the_nodes_unknown(void **st)
{
    (void)st;
    char msg[256];
    char *out = pin("[{\"id\":\"0\",\"resource\":\"a.dev/x\"},{\"id\":\"7\",\"resource\":"
                    "\"b.dev/y\"}]", NULL, msg, sizeof msg);
    assert_non_null(out);
    assert_non_null(strstr(out, "\"A_VISIBLE\":\"0\""));
    assert_non_null(strstr(out, "\"B_VISIBLE\":\"7\""));
    assert_null(strstr(out, "RANK"));
    assert_null(strstr(out, "deviceNodes"));
    assert_non_null(strstr(out, "\"mounts\":[{"));
    free(out);
    out = pin("[{\"id\":\"0\",\"resource\":\"c.dev/none\"}]", NULL, msg, sizeof msg);
    assert_null(strstr(out, "deviceNodes"));   /* no accelerator: unknown too */
    free(out);
    out = pin("[]", NULL, msg, sizeof msg);
    assert_string_equal(out, "{\"env\":{\"USER_VAR\":\"1\",\"A_VISIBLE\":\"all\"},"
                             "\"deviceNodes\":[],\"mounts\":[]}");
    free(out);
}

static void prepared_ids_are_pinned(void **st)
{
    (void)st;
    char msg[256];
    char *out = pin("[{\"id\":\"0\",\"resource\":\"a.dev/x\",\"share\":0.5}]",
                    "{\"a.dev/x\":[\"MIG-1\"]}", msg, sizeof msg);
    assert_non_null(out);
    assert_string_equal(got_ids, "[\"MIG-1\"]");
    free(out);
}

/* The pin answers doc; the start fails with a message starting so. */
static void refused(const char *doc, const char *why)
{
    char msg[256];
    answer = doc;
    char *out = pin("[{\"id\":\"0\",\"resource\":\"a.dev/x\"}]", NULL, msg, sizeof msg);
    if (out || !strstr(msg, why))
        fail_msg("%s: got \"%s\", wanted \"%s\"", doc ? doc : "(fails)", msg, why);
}

static void bad_pins_fail_naming_the_member(void **st)
{
    (void)st;
    refused(NULL, "pin (accelerator a) failed: no such GPU here");
    refused("[]", "pin (accelerator a): not a JSON object");
    refused("{\"env\":{\"RANK\":\"1\"}}", "env.RANK: reserved");
    refused("{\"env\":{\"1X\":\"1\"}}", "env.1X: not a portable variable name");
    refused("{\"env\":{\"X\":1}}", "env.X: must be a string");
    refused("{\"deviceNodes\":[{\"path\":\"/etc/shadow\"}]}", "deviceNodes[0].path: must lie");
    refused("{\"deviceNodes\":[{\"path\":\"/dev\"}]}", "deviceNodes[0].path: must lie");
    refused("{\"deviceNodes\":[{\"path\":\"/dev/../etc/x\"}]}", "deviceNodes[0].path: must be");
    refused("{\"deviceNodes\":[{\"path\":\"/dev/a\",\"hostPath\":\"a\"}]}",
            "deviceNodes[0].hostPath");
    refused("{\"deviceNodes\":[{\"path\":\"/dev/a\"},{\"path\":\"/dev/a\",\"hostPath\":"
            "\"/dev/b\"}]}", "deviceNodes[1]: /dev/a is bound from /dev/a already");
    refused("{\"deviceNodes\":{}}", "deviceNodes: must be an array");
    refused("{\"mounts\":[{\"hostPath\":\"/a\",\"containerPath\":\"/\"}]}",
            "mounts[0].containerPath: may not be");
    refused("{\"mounts\":[{\"hostPath\":\"/a\",\"containerPath\":\"/proc/sys\"}]}",
            "mounts[0].containerPath: may not be");
    refused("{\"mounts\":[{\"hostPath\":\"/a\"}]}", "mounts[0].containerPath: required");
    refused("{\"mounts\":[{\"hostPath\":\"/a\",\"containerPath\":\"/b\",\"readOnly\":1}]}",
            "mounts[0].readOnly");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(a_pin_reaches_the_document, setup, teardown),
        cmocka_unit_test_setup_teardown(pin_env_leaves_the_nodes_unknown, setup, teardown),
        cmocka_unit_test_setup_teardown(prepared_ids_are_pinned, setup, teardown),
        cmocka_unit_test_setup_teardown(bad_pins_fail_naming_the_member, setup, teardown),
    };
    return cmocka_run_group_tests_name("job pins (ABI 1.5)", tests, NULL, NULL);
}
