/* test_sso_ldap_slapd.c — the sso-ldap plugin, driven through the fake host,
 * against a real slapd started by with_slapd.sh (see slapd.sh for the
 * directory). Exits 77 (skipped) when CUBE_TEST_LDAP_URL is not set. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <cube/util/json.h>

#include "cube_mock.h"

const struct cube_plugin_desc *cube_plugin_sso_ldap(void);

#define PEOPLE "ou=people,dc=example,dc=org"
#define GROUPS "ou=groups,dc=example,dc=org"
#define READER "\"bind_dn\":\"cn=reader,dc=example,dc=org\""

static const char *url, *surl, *ca, *other_ca, *dir, *ctl;
static void *state;

/* Inits the plugin with url u, CA file cafile and extra settings (which
 * come first, so they win over the defaults here: cJSON takes the first of
 * duplicate keys); the search and group mapping of the test directory. */
static int init_cfg(const char *u, const char *cafile, const char *extra)
{
    char json[4096];
    snprintf(json, sizeof json,
             "{%s%s\"url\":\"%s\",%s\"tls_ca_file\":\"%s\",\"timeout_s\":3,"
             "\"base_dn\":\"" PEOPLE "\",\"group_base_dn\":\"" GROUPS "\","
             "\"admin_groups\":[\"CN=Admins, " GROUPS "\"],\"project_roles\":["
             "{\"group\":\"cn=ml," GROUPS "\",\"project\":\"ml\",\"role\":\"dev\"},"
             "{\"group\":\"cn=ml-leads," GROUPS "\",\"project\":\"ml\",\"role\":\"creator\"},"
             "{\"group\":\"cn=ml," GROUPS "\",\"project\":\"vision\",\"role\":\"viewer\"}]}",
             extra ? extra : "", extra && *extra ? "," : "", u,
             strncmp(u, "ldap:", 5) == 0 ? "\"starttls\":true," : "", cafile);
    cube_mock_reset(cube_plugin_sso_ldap(), state);
    state = NULL;
    int rc = cube_mock_init(cube_plugin_sso_ldap(), json, &state);
    if (rc != CUBE_OK)
        print_message("init: %s\n", cube_mock_last_error());
    return rc;
}

/* The usual config: StartTLS on ldap://, service account reader. */
static int init_std(const char *extra)
{
    char all[1024];
    snprintf(all, sizeof all, READER ",\"bind_password\":\"reader-pw\"%s%s",
             extra && *extra ? "," : "", extra ? extra : "");
    return init_cfg(url, ca, all);
}

/* Logs in; *id gets the parsed identity (or NULL). */
static int login(const char *user, const char *pw, cJSON **id, char *msg, size_t len)
{
    char *json = NULL;
    const struct cube_auth_desc *a = cube_mock_auth_provider("ldap");
    assert_non_null(a);
    int rc = a->password_login(state, user, pw, &json, msg, len);
    if (id)
        *id = json ? cJSON_Parse(json) : NULL;
    if (rc != CUBE_OK)
        assert_null(json);
    free(json);
    return rc;
}

/* Seconds since an arbitrary start (monotonic). */
static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int teardown(void **st)
{
    (void)st;
    cube_mock_reset(cube_plugin_sso_ldap(), state);
    state = NULL;
    return 0;
}

static void admin_with_highest_project_role(void **st)
{
    (void)st;
    char msg[256];
    cJSON *id;
    assert_int_equal(init_std(NULL), CUBE_OK);
    assert_int_equal(login("alice", "alice-pw", &id, msg, sizeof msg), CUBE_OK);
    assert_string_equal(cu_str(id, "username"), "alice");
    assert_string_equal(cu_str(id, "displayName"), "Alice Liddell");
    assert_string_equal(cu_str(id, "email"), "alice@example.org");
    assert_string_equal(cu_str(id, "role"), "admin");
    const cJSON *p = cJSON_GetObjectItem(id, "projects");
    assert_string_equal(cu_str(p, "ml"), "creator");
    assert_string_equal(cu_str(p, "vision"), "viewer");
    assert_int_equal(cJSON_GetArraySize(p), 2);
    cJSON_Delete(id);
}

static void user_roles_and_missing_attributes(void **st)
{
    (void)st;
    char msg[256];
    cJSON *id;
    assert_int_equal(init_std(NULL), CUBE_OK);
    assert_int_equal(login("bob", "bob-pw", &id, msg, sizeof msg), CUBE_OK);
    assert_string_equal(cu_str(id, "role"), "user");
    assert_string_equal(cu_str(cJSON_GetObjectItem(id, "projects"), "ml"), "dev");
    cJSON_Delete(id);
    assert_int_equal(login("carol", "carol-pw", &id, msg, sizeof msg), CUBE_OK);
    assert_string_equal(cu_str(id, "role"), "user");
    assert_null(cu_str(id, "email"));
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(id, "projects")), 0);
    cJSON_Delete(id);
    assert_true(cube_mock_metric("cube_sso_ldap_logins_total", "ok") == 2.0);
}

static void wrong_password_and_unknown_user(void **st)
{
    (void)st;
    char msg[256];
    assert_int_equal(init_std(NULL), CUBE_OK);
    assert_int_equal(login("alice", "bob-pw", NULL, msg, sizeof msg), CUBE_EPERM);
    assert_non_null(strstr(msg, "wrong password"));
    assert_null(strstr(msg, "bob-pw"));
    assert_int_equal(login("mallory", "x", NULL, msg, sizeof msg), CUBE_EPERM);
    assert_non_null(strstr(msg, "unknown"));
    assert_int_equal(login("alice", "", NULL, msg, sizeof msg), CUBE_EPERM);
    /* ABI 1.5: an unknown user is declined (another method may have
     * them), a wrong password is final; a success's identity comes from
     * the host's allocator. */
    char *json = NULL;
    assert_int_equal(cube_mock_password_check("ldap", "mallory", "x", &json, msg, sizeof msg),
                     CUBE_DECLINED);
    assert_non_null(strstr(msg, "unknown"));
    assert_int_equal(cube_mock_password_check("ldap", "alice", "bob-pw", &json, msg,
                                              sizeof msg), CUBE_EPERM);
    assert_non_null(strstr(msg, "wrong password"));
    assert_null(strstr(msg, "bob-pw"));
    assert_int_equal(cube_mock_password_check("ldap", "alice", "alice-pw", &json, msg,
                                              sizeof msg), CUBE_OK);
    assert_non_null(json);
    assert_non_null(strstr(json, "\"username\""));
    free(json);
}

static void filter_injection_matches_nothing(void **st)
{
    (void)st;
    const char *attempts[] = {"*)(uid=*", "*", "alice)(|(uid=*", "al*", "alice\\", "*)(|(cn=*"};
    char msg[256];
    assert_int_equal(init_std(NULL), CUBE_OK);
    for (size_t i = 0; i < sizeof attempts / sizeof attempts[0]; i++) {
        assert_int_equal(login(attempts[i], "alice-pw", NULL, msg, sizeof msg), CUBE_EPERM);
        assert_non_null(strstr(msg, "unknown"));
    }
}

static void custom_filters_and_ambiguity(void **st)
{
    (void)st;
    char msg[256];
    cJSON *id;
    assert_int_equal(init_std("\"user_filter\":\"(|(uid={username})(mail={username}))\""), CUBE_OK);
    assert_int_equal(login("bob@example.org", "bob-pw", &id, msg, sizeof msg), CUBE_OK);
    assert_string_equal(cu_str(id, "username"), "bob");
    cJSON_Delete(id);
    assert_int_equal(init_std("\"user_filter\":\"(|(uid={username})(objectClass=inetOrgPerson))\""),
                     CUBE_OK);
    assert_int_equal(login("alice", "alice-pw", NULL, msg, sizeof msg), CUBE_EPERM);
    assert_non_null(strstr(msg, "several"));
}

static void ldaps_and_password_from_env(void **st)
{
    (void)st;
    char msg[256];
    cJSON *id;
    setenv("SSO_LDAP_READER_PW", "reader-pw", 1);
    assert_int_equal(init_cfg(surl, ca, READER ",\"bind_password_env\":\"SSO_LDAP_READER_PW\""),
                     CUBE_OK);
    unsetenv("SSO_LDAP_READER_PW");
    assert_int_equal(login("alice", "alice-pw", &id, msg, sizeof msg), CUBE_OK);
    assert_string_equal(cu_str(id, "role"), "admin");
    cJSON_Delete(id);
}

static void untrusted_certificate_is_unavailable(void **st)
{
    (void)st;
    char msg[256];
    assert_int_equal(init_cfg(url, other_ca, READER ",\"bind_password\":\"reader-pw\""), CUBE_OK);
    assert_int_equal(login("alice", "alice-pw", NULL, msg, sizeof msg), CUBE_EUNAVAIL);
    assert_non_null(strstr(msg, "StartTLS"));
    assert_int_equal(init_cfg(surl, other_ca, READER ",\"bind_password\":\"reader-pw\""), CUBE_OK);
    assert_int_equal(login("alice", "alice-pw", NULL, msg, sizeof msg), CUBE_EUNAVAIL);
}

static void service_account_and_base_errors(void **st)
{
    (void)st;
    char msg[256];
    /* Anonymous may not even see base_dn here: a directory error, not "unknown user". */
    assert_int_equal(init_cfg(url, ca, NULL), CUBE_OK);
    assert_int_equal(login("alice", "alice-pw", NULL, msg, sizeof msg), CUBE_EIO);
    assert_non_null(strstr(msg, "base_dn"));
    assert_int_equal(init_cfg(url, ca, READER ",\"bind_password\":\"wrong\""), CUBE_OK);
    assert_int_equal(login("alice", "alice-pw", NULL, msg, sizeof msg), CUBE_EIO);
    assert_non_null(strstr(msg, "bind_dn"));
    assert_null(strstr(msg, "wrong"));
    char json[512];
    snprintf(json, sizeof json, "{\"url\":\"%s\",\"tls_ca_file\":\"%s\",\"base_dn\":"
             "\"ou=nobody,dc=example,dc=org\"," READER ",\"bind_password\":\"reader-pw\"}",
             surl, ca);
    cube_mock_reset(cube_plugin_sso_ldap(), state);
    assert_int_equal(cube_mock_init(cube_plugin_sso_ldap(), json, &state), CUBE_OK);
    assert_int_equal(login("alice", "alice-pw", NULL, msg, sizeof msg), CUBE_EIO);
    assert_non_null(strstr(msg, "base_dn"));
}

static void plain_ldap_needs_consent(void **st)
{
    (void)st;
    char json[512], msg[256];
    snprintf(json, sizeof json, "{\"url\":\"%s\",\"base_dn\":\"" PEOPLE "\"}", url);
    cube_mock_reset(cube_plugin_sso_ldap(), state);
    state = NULL;
    assert_int_equal(cube_mock_init(cube_plugin_sso_ldap(), json, &state), CUBE_EINVAL);
    assert_non_null(strstr(cube_mock_last_error(), "sso-ldap: url: ldap:// without starttls"));
    snprintf(json, sizeof json, "{\"url\":\"%s\",\"allow_insecure\":true,\"base_dn\":\"" PEOPLE "\","
             READER ",\"bind_password\":\"reader-pw\"}", url);
    cube_mock_reset(cube_plugin_sso_ldap(), state);
    assert_int_equal(cube_mock_init(cube_plugin_sso_ldap(), json, &state), CUBE_OK);
    assert_int_equal(login("bob", "bob-pw", NULL, msg, sizeof msg), CUBE_OK);
}

struct worker { const char *user, *pw; int ok; };

/* Logs in 20 times as w->user; counts successes. */
static void *work(void *arg)
{
    struct worker *w = arg;
    const struct cube_auth_desc *a = cube_mock_auth_provider("ldap");
    for (int i = 0; i < 20; i++) {
        char *json = NULL, msg[256];
        if (a->password_login(state, w->user, w->pw, &json, msg, sizeof msg) == CUBE_OK &&
            strstr(json, w->user))
            w->ok++;
        free(json);
    }
    return NULL;
}

static void concurrent_logins(void **st)
{
    (void)st;
    struct worker w[8];
    pthread_t t[8];
    assert_int_equal(init_std(NULL), CUBE_OK);
    for (int i = 0; i < 8; i++) {
        w[i] = (struct worker){i % 2 ? "bob" : "alice", i % 2 ? "bob-pw" : "alice-pw", 0};
        assert_int_equal(pthread_create(&t[i], NULL, work, &w[i]), 0);
    }
    for (int i = 0; i < 8; i++) {
        pthread_join(t[i], NULL);
        assert_int_equal(w[i].ok, 20);
    }
}

static void silent_server_times_out(void **st)
{
    (void)st;
    /* Listens but never answers: the connection completes, replies never come. */
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t alen = sizeof a;
    assert_int_equal(bind(s, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(listen(s, 8), 0);
    assert_int_equal(getsockname(s, (struct sockaddr *)&a, &alen), 0);
    char u[64], msg[256];
    snprintf(u, sizeof u, "ldap://127.0.0.1:%d", ntohs(a.sin_port));
    assert_int_equal(init_cfg(u, ca, READER ",\"bind_password\":\"reader-pw\",\"timeout_s\":1"), CUBE_OK);
    double t0 = now_s();
    assert_int_equal(login("alice", "alice-pw", NULL, msg, sizeof msg), CUBE_EUNAVAIL);
    print_message("silent server, StartTLS: %s (%.1f s)\n", msg, now_s() - t0);
    assert_true(now_s() - t0 < 2.5);
    /* ldaps://: the TLS handshake waits no longer than the timeout either
     * (libldap alone would spin in it for ever; see sockio.c). */
    snprintf(u, sizeof u, "ldaps://127.0.0.1:%d", ntohs(a.sin_port));
    assert_int_equal(init_cfg(u, ca, READER ",\"bind_password\":\"reader-pw\",\"timeout_s\":1"), CUBE_OK);
    t0 = now_s();
    assert_int_equal(login("alice", "alice-pw", NULL, msg, sizeof msg), CUBE_EUNAVAIL);
    print_message("silent server, ldaps: %s (%.1f s)\n", msg, now_s() - t0);
    assert_true(now_s() - t0 < 2.5);
    close(s);
}

/* Runs slapd.sh cmd on the test server; 0 on success. */
static int slapd_ctl(const char *cmd)
{
    char line[2048];
    snprintf(line, sizeof line, "'%s' %s '%s' >/dev/null", ctl, cmd, dir);
    return system(line);
}

static void stopped_server_is_unavailable(void **st)
{
    (void)st;
    char msg[256];
    assert_int_equal(init_std(NULL), CUBE_OK);
    assert_int_equal(slapd_ctl("stop"), 0);
    assert_int_equal(login("alice", "alice-pw", NULL, msg, sizeof msg), CUBE_EUNAVAIL);
    print_message("slapd stopped: %s\n", msg);
    assert_int_equal(slapd_ctl("start"), 0);
    assert_int_equal(login("alice", "alice-pw", NULL, msg, sizeof msg), CUBE_OK);
}

int main(void)
{
    url = getenv("CUBE_TEST_LDAP_URL");
    surl = getenv("CUBE_TEST_LDAPS_URL");
    ca = getenv("CUBE_TEST_LDAP_CA");
    other_ca = getenv("CUBE_TEST_LDAP_OTHER_CA");
    dir = getenv("CUBE_TEST_LDAP_DIR");
    ctl = getenv("CUBE_TEST_LDAP_CTL");
    if (!url || !surl || !ca || !other_ca || !dir || !ctl) {
        printf("SKIP: no slapd (CUBE_TEST_LDAP_* unset; run under with_slapd.sh, which "
               "says why slapd did not start)\n");
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(admin_with_highest_project_role, teardown),
        cmocka_unit_test_teardown(user_roles_and_missing_attributes, teardown),
        cmocka_unit_test_teardown(wrong_password_and_unknown_user, teardown),
        cmocka_unit_test_teardown(filter_injection_matches_nothing, teardown),
        cmocka_unit_test_teardown(custom_filters_and_ambiguity, teardown),
        cmocka_unit_test_teardown(ldaps_and_password_from_env, teardown),
        cmocka_unit_test_teardown(untrusted_certificate_is_unavailable, teardown),
        cmocka_unit_test_teardown(service_account_and_base_errors, teardown),
        cmocka_unit_test_teardown(plain_ldap_needs_consent, teardown),
        cmocka_unit_test_teardown(concurrent_logins, teardown),
        cmocka_unit_test_teardown(silent_server_times_out, teardown),
        cmocka_unit_test_teardown(stopped_server_is_unavailable, teardown), /* last */
    };
    return cmocka_run_group_tests_name("sso-ldap against slapd", tests, NULL, NULL);
}
