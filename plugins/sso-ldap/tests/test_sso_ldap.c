/* test_sso_ldap.c — the sso-ldap plugin against the fake host, no directory:
 * config checks (each error names its setting), RFC 4515 escaping, the
 * user-name check, the group mapping and refusals made before any traffic. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cube_mock.h"
#include "filter.h"
#include "sso_ldap.h"

const struct cube_plugin_desc *cube_plugin_sso_ldap(void);

#define BASE "\"url\":\"ldaps://127.0.0.1:1\",\"base_dn\":\"dc=example,dc=org\""

static void *state;

/* Resets the fake host and inits the plugin with config {BASE, extra}. */
static int init_with(const char *extra)
{
    char json[2048];
    snprintf(json, sizeof json, "{" BASE "%s%s}", extra && *extra ? "," : "",
             extra ? extra : "");
    cube_mock_reset(cube_plugin_sso_ldap(), state);
    state = NULL;
    return cube_mock_init(cube_plugin_sso_ldap(), json, &state);
}

/* Whether err names the setting want names: the plugin's own message
 * ("sso-ldap: url: ...") or the host's, whose schema check runs first
 * ("url: ...", or a member of it: "project_roles[0].extra: ..."). */
static int names_setting(const char *err, const char *want)
{
    const char *field = strncmp(want, "sso-ldap: ", 10) == 0 ? want + 10 : want;
    size_t n = strcspn(field, ":");
    return strncmp(err, want, strlen(want)) == 0 ||
           (strncmp(err, field, n) == 0 && err[n] && strchr(":.[", err[n]));
}

/* Inits with a whole config and checks it fails with msg starting with want. */
static void refused(const char *json, const char *want)
{
    cube_mock_reset(cube_plugin_sso_ldap(), state);
    state = NULL;
    int rc = cube_mock_init(cube_plugin_sso_ldap(), json, &state);
    if (rc == CUBE_OK || !names_setting(cube_mock_last_error(), want))
        fail_msg("config %s: rc %d, error \"%s\", wanted \"%s...\"", json, rc,
                 cube_mock_last_error(), want);
    assert_null(state);
}

/* As refused, with BASE plus extra. */
static void refused_extra(const char *extra, const char *want)
{
    char json[2048];
    snprintf(json, sizeof json, "{" BASE ",%s}", extra);
    refused(json, want);
}

static int teardown(void **st)
{
    (void)st;
    cube_mock_reset(cube_plugin_sso_ldap(), state);
    state = NULL;
    return 0;
}

static void descriptor_and_schema(void **st)
{
    (void)st;
    const struct cube_plugin_desc *d = cube_plugin_sso_ldap();
    assert_int_equal(d->magic, CUBE_PLUGIN_MAGIC);
    assert_int_equal(d->size, sizeof *d);
    assert_string_equal(d->name, "sso-ldap");
    cJSON *schema = cJSON_Parse(d->config_schema);
    assert_non_null(schema);
    const cJSON *props = cJSON_GetObjectItem(schema, "properties");
    assert_non_null(cJSON_GetObjectItem(props, "bind_password_env"));
    assert_non_null(cJSON_GetObjectItem(props, "project_roles"));
    cJSON_Delete(schema);
}

static void registers_password_provider(void **st)
{
    (void)st;
    assert_int_equal(init_with(NULL), CUBE_OK);
    assert_int_equal(cube_mock_auth_count(), 1);
    const struct cube_auth_desc *a = cube_mock_auth_provider("ldap");
    assert_non_null(a);
    assert_int_equal(a->kind, CUBE_AUTH_PASSWORD);
    assert_non_null(a->password_login);
    assert_string_equal(a->display_name, "LDAP");
    assert_int_equal(init_with("\"display_name\":\"Company directory\""), CUBE_OK);
    assert_string_equal(cube_mock_auth_provider("ldap")->display_name, "Company directory");
}

static void url_errors_name_the_setting(void **st)
{
    (void)st;
    refused("{\"base_dn\":\"dc=x\"}", "sso-ldap: url: required");
    refused("{\"url\":\"http://x\",\"base_dn\":\"dc=x\"}",
            "sso-ldap: url: must start with ldap:// or ldaps://");
    refused("{\"url\":\"ldaps://\",\"base_dn\":\"dc=x\"}", "sso-ldap: url: cannot parse");
    refused("{\"url\":\"ldaps://[::1\",\"base_dn\":\"dc=x\"}", "sso-ldap: url: cannot parse");
    refused("{\"url\":\"ldaps://h:99999\",\"base_dn\":\"dc=x\"}", "sso-ldap: url: cannot parse");
    refused("{\"url\":\"ldaps://h/dc=x??sub\",\"base_dn\":\"dc=x\"}",
            "sso-ldap: url: cannot parse");
    refused("{\"url\":42,\"base_dn\":\"dc=x\"}", "sso-ldap: url: must be a string");
}

static void clear_text_needs_consent(void **st)
{
    (void)st;
    refused("{\"url\":\"ldap://127.0.0.1\",\"base_dn\":\"dc=x\"}",
            "sso-ldap: url: ldap:// without starttls");
    refused("{\"url\":\"ldaps://h\",\"starttls\":true,\"base_dn\":\"dc=x\"}",
            "sso-ldap: starttls: only for ldap://");
    cube_mock_reset(cube_plugin_sso_ldap(), state);
    assert_int_equal(cube_mock_init(cube_plugin_sso_ldap(),
        "{\"url\":\"ldap://h:389\",\"starttls\":true,\"base_dn\":\"dc=x\"}", &state), CUBE_OK);
    cube_mock_reset(cube_plugin_sso_ldap(), state);
    assert_int_equal(cube_mock_init(cube_plugin_sso_ldap(),
        "{\"url\":\"ldap://h\",\"allow_insecure\":true,\"base_dn\":\"dc=x\"}", &state), CUBE_OK);
    assert_non_null(strstr(cube_mock_last_log(), "clear text"));
}

static void search_settings_are_checked(void **st)
{
    (void)st;
    refused("{\"url\":\"ldaps://h\"}", "sso-ldap: base_dn: required");
    refused("{\"url\":\"ldaps://h\",\"base_dn\":\"not a dn\"}", "sso-ldap: base_dn:");
    refused_extra("\"user_filter\":\"(uid=alice)\"", "sso-ldap: user_filter: must contain {username}");
    refused_extra("\"user_filter\":\"uid={username}\"", "sso-ldap: user_filter:");
    refused_extra("\"user_filter\":\"(uid={username}))(\"", "sso-ldap: user_filter:");
    refused_extra("\"group_filter\":\"(member=x)\"", "sso-ldap: group_filter: must contain {dn}");
    refused_extra("\"group_base_dn\":\"=,=\"", "sso-ldap: group_base_dn:");
    refused_extra("\"timeout_s\":0", "sso-ldap: timeout_s:");
    refused_extra("\"timeout_s\":1e12", "sso-ldap: timeout_s:");
    refused_extra("\"tls_ca_file\":\"/nonexistent/ca.pem\"", "sso-ldap: tls_ca_file: cannot read");
    refused_extra("\"attr_email\":\"mail)(x\"", "sso-ldap: attr_email:");
    refused_extra("\"urll\":\"x\"", "sso-ldap: urll: unknown setting");
    assert_int_equal(init_with("\"group_filter\":\"(&(objectClass=posixGroup)(memberUid={username}))\","
                               "\"user_filter\":\"(&(objectClass=person)(|(uid={username})(mail={username})))\","
                               "\"timeout_s\":2,\"tls_ca_file\":\"/dev/null\""), CUBE_OK);
}

static void bind_settings_are_checked(void **st)
{
    (void)st;
    refused_extra("\"bind_dn\":\"cn=reader,dc=x\"", "sso-ldap: bind_password: required");
    refused_extra("\"bind_password\":\"pw\"", "sso-ldap: bind_dn: required");
    refused_extra("\"bind_dn\":\"cn=r,dc=x\",\"bind_password\":\"a\",\"bind_password_env\":\"X\"",
                  "sso-ldap: bind_password_env: set bind_password or");
    unsetenv("SSO_LDAP_TEST_PW");
    refused_extra("\"bind_dn\":\"cn=r,dc=x\",\"bind_password_env\":\"SSO_LDAP_TEST_PW\"",
                  "sso-ldap: bind_password_env: environment variable SSO_LDAP_TEST_PW");
    refused_extra("\"bind_dn\":\"nope\",\"bind_password\":\"a\"", "sso-ldap: bind_dn:");
    setenv("SSO_LDAP_TEST_PW", "s3cret-from-env", 1);
    assert_int_equal(init_with("\"bind_dn\":\"cn=r,dc=x\",\"bind_password_env\":\"SSO_LDAP_TEST_PW\""),
                     CUBE_OK);
    assert_string_equal(((struct ssoldap *)state)->conf.bind_password, "s3cret-from-env");
    assert_null(strstr(cube_mock_last_log(), "s3cret"));
    unsetenv("SSO_LDAP_TEST_PW");
}

static void group_mappings_are_checked(void **st)
{
    (void)st;
    refused_extra("\"admin_groups\":\"cn=admins,dc=x\"", "sso-ldap: admin_groups: must be a list");
    refused_extra("\"admin_groups\":[\"cn=admins,dc=x\",\"junk\"]", "sso-ldap: admin_groups[1]:");
    refused_extra("\"project_roles\":[{\"group\":\"cn=ml,dc=x\",\"project\":\"ml\",\"role\":\"boss\"}]",
                  "sso-ldap: project_roles[0].role: must be creator, ops, dev or viewer");
    refused_extra("\"project_roles\":[{\"group\":\"cn=ml,dc=x\",\"project\":\"ml\",\"role\":\"dev\"},"
                  "{\"group\":\"cn=ml,dc=x\",\"project\":\"Bad_Name\",\"role\":\"dev\"}]",
                  "sso-ldap: project_roles[1].project:");
    refused_extra("\"project_roles\":[{\"group\":\"x\",\"project\":\"ml\",\"role\":\"dev\"}]",
                  "sso-ldap: project_roles[0].group:");
    refused_extra("\"project_roles\":[{\"group\":\"cn=a,dc=x\",\"project\":\"ml\",\"role\":\"dev\","
                  "\"extra\":1}]", "sso-ldap: project_roles[0]: unknown key");
}

static void escapes_rfc4515_specials(void **st)
{
    (void)st;
    char *e = ssoldap_filter_escape("*)(uid=*", 8);
    assert_string_equal(e, "\\2a\\29\\28uid=\\2a");
    free(e);
    e = ssoldap_filter_escape("a\\b\0c", 5);
    assert_string_equal(e, "a\\5cb\\00c");
    free(e);
    e = ssoldap_filter_escape("tab\there\x7f", 9);
    assert_string_equal(e, "tab\\09here\\7f");
    free(e);
    e = ssoldap_filter_escape("zo\xc3\xab", 4); /* UTF-8 passes as is */
    assert_string_equal(e, "zo\xc3\xab");
    free(e);
}

static void expands_placeholders_once(void **st)
{
    (void)st;
    const char *keys[] = {"dn", "username"};
    const char *vals[] = {"cn=a\\,b,dc=x", "{dn}*"};
    char *f = ssoldap_filter_expand("(|(member={dn})(memberUid={username})({other}=1))",
                                    keys, vals, 2);
    assert_string_equal(f, "(|(member=cn=a\\5c,b,dc=x)(memberUid={dn}\\2a)({other}=1))");
    free(f);
    f = ssoldap_filter_expand("(|(uid={username})(mail={username}))", keys + 1, vals + 1, 1);
    assert_string_equal(f, "(|(uid={dn}\\2a)(mail={dn}\\2a))");
    free(f);
    assert_true(ssoldap_filter_has("(uid={username})", "username"));
    assert_false(ssoldap_filter_has("(uid={user})", "username"));
    assert_true(ssoldap_filter_shape_ok("(&(a=b)(c=\\29))"));
    assert_false(ssoldap_filter_shape_ok("(a=b)(c=d)"));
    assert_false(ssoldap_filter_shape_ok("(a=b"));
}

static void checks_user_names(void **st)
{
    (void)st;
    char name[SSOLDAP_USERNAME_MAX + 2];
    memset(name, 'a', sizeof name);
    name[SSOLDAP_USERNAME_MAX] = '\0';
    assert_true(ssoldap_username_ok(name));
    name[SSOLDAP_USERNAME_MAX] = 'a';
    name[SSOLDAP_USERNAME_MAX + 1] = '\0';
    assert_false(ssoldap_username_ok(name));
    assert_false(ssoldap_username_ok(""));
    assert_false(ssoldap_username_ok(NULL));
    assert_false(ssoldap_username_ok("al\nice"));
    assert_false(ssoldap_username_ok("\xc3\x28"));         /* bad continuation */
    assert_false(ssoldap_username_ok("\xc0\xaf"));         /* overlong '/' */
    assert_false(ssoldap_username_ok("\xed\xa0\x80"));     /* surrogate */
    assert_false(ssoldap_username_ok("\xf4\x90\x80\x80")); /* past U+10FFFF */
    assert_true(ssoldap_username_ok("zo\xc3\xab"));
    assert_true(ssoldap_username_ok("\xf0\x9f\x98\x80"));
    assert_true(ssoldap_username_ok("*)(uid=*"));          /* escaped, not refused */
}

/* Calls the registered password_login. */
static int login(const char *user, const char *pw, char **id, char *msg, size_t len)
{
    const struct cube_auth_desc *a = cube_mock_auth_provider("ldap");
    assert_non_null(a);
    return a->password_login(state, user, pw, id, msg, len);
}

static void refuses_before_any_traffic(void **st)
{
    (void)st;
    char msg[256], *id = NULL, big[300];
    assert_int_equal(init_with(NULL), CUBE_OK);
    assert_int_equal(login("alice", "", &id, msg, sizeof msg), CUBE_EPERM);
    assert_non_null(strstr(msg, "empty password"));
    assert_null(id);
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    assert_int_equal(login(big, "pw", &id, msg, sizeof msg), CUBE_EPERM);
    assert_non_null(strstr(msg, "user name refused"));
    assert_int_equal(login("a\x01", "pw", &id, msg, sizeof msg), CUBE_EPERM);
    /* A name the directory cannot hold is not its user: "unknown". */
    assert_true(cube_mock_metric("cube_sso_ldap_logins_total", "denied") == 1.0);
    assert_true(cube_mock_metric("cube_sso_ldap_logins_total", "unknown") == 2.0);
    /* Through ABI 1.5's password_check the same name is declined (the
     * next login method may know it), the reason in the error channel. */
    assert_int_equal(cube_mock_password_check("ldap", "a\x01", "pw", &id, msg, sizeof msg),
                     CUBE_DECLINED);
    assert_non_null(strstr(msg, "user name refused"));
    assert_null(id);
    assert_int_equal(cube_mock_password_check("ldap", "alice", "", &id, msg, sizeof msg),
                     CUBE_EPERM);
    assert_non_null(strstr(msg, "empty password"));
}

static void unreachable_server_is_unavailable(void **st)
{
    (void)st;
    char msg[256], *id = NULL;
    /* Port 1 on loopback: nothing listens, the connection is refused. */
    cube_mock_reset(cube_plugin_sso_ldap(), state);
    assert_int_equal(cube_mock_init(cube_plugin_sso_ldap(), "{\"url\":\"ldap://127.0.0.1:1\","
        "\"starttls\":true,\"base_dn\":\"dc=x\",\"timeout_s\":2}", &state), CUBE_OK);
    assert_int_equal(login("alice", "pw", &id, msg, sizeof msg), CUBE_EUNAVAIL);
    assert_null(id);
    assert_true(cube_mock_metric("cube_sso_ldap_logins_total", "unavailable") == 1.0);
    assert_null(strstr(msg, "pw"));
}

/* A config with groups mapped, and a user in the given (normalised) groups. */
static char *identity_for(const char *const *groups, size_t n, int with_admins)
{
    struct ssoldap_conf c;
    char err[256];
    char json[1024];
    snprintf(json, sizeof json, "{" BASE "%s,\"project_roles\":["
             "{\"group\":\"cn=ml,dc=x\",\"project\":\"ml\",\"role\":\"dev\"},"
             "{\"group\":\"CN=ML-Leads, dc=X\",\"project\":\"ml\",\"role\":\"creator\"},"
             "{\"group\":\"cn=ml,dc=x\",\"project\":\"vision\",\"role\":\"viewer\"},"
             "{\"group\":\"cn=other,dc=x\",\"project\":\"nlp\",\"role\":\"ops\"}]}",
             with_admins ? ",\"admin_groups\":[\"cn=Admins,dc=x\"]" : "");
    assert_int_equal(ssoldap_conf_load(json, &c, err, sizeof err), CUBE_OK);
    struct ssoldap_user u = {.dn = "uid=alice,dc=x", .username = "alice",
                             .display_name = "Alice L", .groups = (char **)groups,
                             .n_groups = n};
    char *id = ssoldap_identity(&c, &u, "typed");
    ssoldap_conf_free(&c);
    return id;
}

static void maps_groups_to_roles(void **st)
{
    (void)st;
    const char *alice[] = {"cn=admins,dc=x", "cn=ml,dc=x", "cn=ml-leads,dc=x"};
    char *id = identity_for(alice, 3, 1);
    assert_string_equal(id, "{\"username\":\"alice\",\"displayName\":\"Alice L\","
                            "\"role\":\"admin\",\"projects\":{\"ml\":\"creator\",\"vision\":\"viewer\"}}");
    free(id);
    const char *bob[] = {"cn=ml,dc=x"};
    id = identity_for(bob, 1, 1);
    assert_string_equal(id, "{\"username\":\"alice\",\"displayName\":\"Alice L\","
                            "\"role\":\"user\",\"projects\":{\"ml\":\"dev\",\"vision\":\"viewer\"}}");
    free(id);
    id = identity_for(NULL, 0, 0); /* no admin_groups: the role is left to the core */
    assert_string_equal(id, "{\"username\":\"alice\",\"displayName\":\"Alice L\",\"projects\":{}}");
    free(id);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(descriptor_and_schema, teardown),
        cmocka_unit_test_teardown(registers_password_provider, teardown),
        cmocka_unit_test_teardown(url_errors_name_the_setting, teardown),
        cmocka_unit_test_teardown(clear_text_needs_consent, teardown),
        cmocka_unit_test_teardown(search_settings_are_checked, teardown),
        cmocka_unit_test_teardown(bind_settings_are_checked, teardown),
        cmocka_unit_test_teardown(group_mappings_are_checked, teardown),
        cmocka_unit_test(escapes_rfc4515_specials),
        cmocka_unit_test(expands_placeholders_once),
        cmocka_unit_test(checks_user_names),
        cmocka_unit_test_teardown(refuses_before_any_traffic, teardown),
        cmocka_unit_test_teardown(unreachable_server_is_unavailable, teardown),
        cmocka_unit_test(maps_groups_to_roles),
    };
    return cmocka_run_group_tests_name("sso-ldap plugin (fake host)", tests, NULL, NULL);
}
