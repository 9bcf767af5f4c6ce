/* test_config_confd.c — conf.d files, environment overrides and plugin
 * config validation, with the exact file:line:col of each message. Every
 * test runs inside a fresh temporary directory (config_fixture.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "config/config.h"
#include "config_fixture.h"

/* ---- conf.d ---- */

static void test_confd_order(void **state)
{
    (void)state;
    struct cube_config cfg;
    put("conf.d/20-b.yaml", "plugin: b\n");
    put("conf.d/10-a.yml", "# first\nplugin: a\nenabled: false\n");
    put("conf.d/30-c.yaml", "plugin: c\noptional: true\nconfig:\n  x: 1\n");
    put("conf.d/100-d.yaml", "  plugin: d\n");
    put("conf.d/.hidden.yaml", "plugin: hidden\n");
    put("conf.d/README.md", "not yaml: [\n");
    put("conf.d/notes.yaml.bak", "plugin: bak\n");
    load_ok(NULL, &cfg);
    assert_int_equal(cfg.n_plugins, 4);
    const char *names[] = {"a", "d", "b", "c"};
    const char *files[] = {"conf.d/10-a.yml", "conf.d/100-d.yaml",
                           "conf.d/20-b.yaml", "conf.d/30-c.yaml"};
    for (size_t i = 0; i < 4; i++) {
        assert_string_equal(cfg.plugins[i].name, names[i]);
        assert_string_equal(rel(cfg.plugins[i].file), files[i]);
    }
    assert_int_equal(cfg.plugins[0].enabled, 0);
    assert_int_equal(cfg.plugins[0].line, 2);
    assert_int_equal(cfg.plugins[0].col, 1);
    assert_int_equal(cfg.plugins[1].line, 1);
    assert_int_equal(cfg.plugins[1].col, 3);
    assert_int_equal(cfg.plugins[2].enabled, 1);
    assert_int_equal(cfg.plugins[2].optional, 0);
    assert_null(cfg.plugins[2].config);
    assert_int_equal(cfg.plugins[3].optional, 1);
    assert_true(cJSON_IsObject(cfg.plugins[3].config));
    assert_int_equal(cJSON_GetObjectItem(cfg.plugins[3].config, "x")->valueint, 1);
    assert_ptr_equal(cube_config_find_plugin(&cfg, "c"), &cfg.plugins[3]);
    assert_null(cube_config_find_plugin(&cfg, "hidden"));
    assert_null(cube_config_find_plugin(&cfg, "zz"));
    cube_config_free(&cfg);
}

static void test_confd_from_cube_yaml(void **state)
{
    (void)state;
    struct cube_config cfg;
    put("cube.yaml", "conf_dir: plugins.d/\n");
    put("plugins.d/a.yaml", "plugin: a\nconfig:\n");
    load_ok("cube.yaml", &cfg);
    assert_int_equal(cfg.n_plugins, 1);
    assert_string_equal(rel(cfg.plugins[0].file), "plugins.d/a.yaml");
    assert_null(cfg.plugins[0].config);
    cube_config_free(&cfg);
}

static void confd_fails(const char *file, const char *text, const char *want)
{
    char path[128];
    snprintf(path, sizeof path, "conf.d/%s", file);
    put(path, text);
    load_fails(NULL, want);
    unlink(path);
}

static void test_confd_bad_files(void **state)
{
    (void)state;
    confd_fails("10-x.yaml", "enabled: true\n",
                "conf.d/10-x.yaml:1:1: missing required key \"plugin\"");
    confd_fails("20-x.yaml", "plugin: x\nenabled: yes\n",
                "conf.d/20-x.yaml:2:10: enabled: expected a boolean, got \"yes\"");
    confd_fails("x.yaml", "plugin: x\noptional: 1\n",
                "conf.d/x.yaml:2:11: optional: expected a boolean, got 1");
    confd_fails("x.yaml", "plugin: x\nconfg:\n  a: 1\n",
                "conf.d/x.yaml:2:1: unknown key \"confg\"");
    confd_fails("x.yaml", "plugin: x\nconfig: [1]\n",
                "conf.d/x.yaml:2:9: config: expected a mapping, got a list");
    confd_fails("x.yaml", "plugin: Hello\n",
                "conf.d/x.yaml:1:9: plugin: expected a plugin name "
                "([a-z0-9][a-z0-9-]*), got \"Hello\"");
    confd_fails("x.yaml", "plugin: -x\n",
                "conf.d/x.yaml:1:9: plugin: expected a plugin name "
                "([a-z0-9][a-z0-9-]*), got \"-x\"");
    confd_fails("x.yaml", "plugin: 5\n",
                "conf.d/x.yaml:1:9: plugin: expected a plugin name "
                "([a-z0-9][a-z0-9-]*), got 5");
    confd_fails("x.yaml", "plugin:\n",
                "conf.d/x.yaml:1:8: plugin: expected a plugin name "
                "([a-z0-9][a-z0-9-]*), got null");
    confd_fails("x.yaml", "",
                "conf.d/x.yaml: expected a mapping with a plugin: key, got nothing");
    confd_fails("x.yaml", "- plugin: x\n",
                "conf.d/x.yaml:1:1: expected a mapping with a plugin: key, "
                "got a list");
    confd_fails("x.yaml", "plugin: x\nplugin: y\n",
                "conf.d/x.yaml:2:1: duplicate key \"plugin\"");
}

static void test_confd_long_name(void **state)
{
    (void)state;
    char text[128], want[256], name[80];
    memset(name, 'a', 65);
    name[65] = '\0';
    snprintf(text, sizeof text, "plugin: %s\n", name);
    snprintf(want, sizeof want, "conf.d/x.yaml:1:9: plugin: expected a plugin "
             "name ([a-z0-9][a-z0-9-]*), got \"%s\"", name);
    confd_fails("x.yaml", text, want);
    name[64] = '\0';
    snprintf(text, sizeof text, "plugin: %s\n", name);
    put("conf.d/x.yaml", text);
    struct cube_config cfg;
    load_ok(NULL, &cfg);
    assert_string_equal(cfg.plugins[0].name, name);
    cube_config_free(&cfg);
}

static void test_confd_duplicate_plugin(void **state)
{
    (void)state;
    struct cube_config cfg;
    struct cube_errs errs = {0};
    put("conf.d/10-a.yaml", "plugin: hello\n");
    put("conf.d/20-b.yaml", "# again\nplugin: hello\n");
    put("conf.d/30-c.yaml", "plugin: other\n");
    assert_int_equal(cube_config_load(NULL, &cfg, &errs), -1);
    assert_int_equal(errs.n, 1);
    assert_string_equal(unprefixed(errs.msgs[0]), "conf.d/20-b.yaml:2:1: plugin \"hello\" "
                        "is already configured in conf.d/10-a.yaml:1:1");
    assert_int_equal(cfg.n_plugins, 2);
    assert_string_equal(rel(cfg.plugins[0].file), "conf.d/10-a.yaml");
    assert_string_equal(cfg.plugins[1].name, "other");
    cube_config_free(&cfg);
    cube_errs_clear(&errs);
}

static void test_confd_errors_in_several_files(void **state)
{
    (void)state;
    struct cube_config cfg;
    struct cube_errs errs = {0};
    put("conf.d/1.yaml", "plugin: a\nextra: 1\n");
    put("conf.d/2.yaml", "plugin: [\n");
    put("conf.d/3.yaml", "plugin: c\n");
    assert_int_equal(cube_config_load(NULL, &cfg, &errs), -1);
    assert_int_equal(errs.n, 2);
    assert_string_equal(unprefixed(errs.msgs[0]), "conf.d/1.yaml:2:1: unknown key \"extra\"");
    assert_string_equal(unprefixed(errs.msgs[1]), "conf.d/2.yaml:2:1: did not find expected "
                        "node content (while parsing a flow node)");
    assert_int_equal(cfg.n_plugins, 1);
    assert_string_equal(cfg.plugins[0].name, "c");
    cube_config_free(&cfg);
    cube_errs_clear(&errs);
}

static void test_conf_dir_missing(void **state)
{
    (void)state;
    struct cube_config cfg;
    put("cube.yaml", "data_dir: x\n");
    load_ok("cube.yaml", &cfg);   /* default conf.d absent: fine */
    assert_int_equal(cfg.n_plugins, 0);
    cube_config_free(&cfg);
    yaml_fails("# plugins\nconf_dir: nope\n", "cube.yaml:2:11: conf_dir: "
               "cannot read \"nope\": No such file or directory");
    put("conf.d", "a file, not a directory\n");
    load_fails(NULL, "config: conf_dir: cannot read \"conf.d\": "
               "Not a directory");
}

/* ---- environment ---- */

static void test_env_overrides(void **state)
{
    (void)state;
    struct cube_config cfg;
    char digest[65];
    put("cube.yaml", "listen: \"127.0.0.1:1\"\ndata_dir: yamldir\n"
                     "admin_token_sha256: "
                     "\"0000000000000000000000000000000000000000000000000000000000000000\"\n");
    setenv("CUBE_LISTEN", "[::]:9000", 1);
    setenv("CUBE_DATA_DIR", "/data", 1);
    setenv("CUBE_DATABASE_URL", "sqlite:///tmp/x.db", 1);
    setenv("CUBE_PLUGIN_DIR", "rel/plugins", 1);
    setenv("CUBE_LOG_LEVEL", "debug", 1);
    setenv("CUBE_ADMIN_TOKEN", "secret", 1);
    load_ok("cube.yaml", &cfg);
    assert_string_equal(cfg.listen_host, "::");
    assert_int_equal(cfg.listen_port, 9000);
    assert_string_equal(cfg.data_dir, "/data");
    assert_string_equal(cfg.database, "sqlite:///tmp/x.db");
    assert_string_equal(rel(cfg.plugin_dir), "rel/plugins");
    assert_int_equal(cfg.log_level, CUBE_LOG_DEBUG);
    assert_int_equal(cfg.has_admin_token, 1);
    hex(cfg.admin_token_sha256, 32, digest);
    assert_string_equal(digest, SECRET_SHA256);
    cube_config_free(&cfg);
}

static void test_env_without_file(void **state)
{
    (void)state;
    struct cube_config cfg;
    setenv("CUBE_LISTEN", ":7000", 1);
    load_ok(NULL, &cfg);
    assert_string_equal(cfg.listen_host, "0.0.0.0");
    assert_int_equal(cfg.listen_port, 7000);
    cube_config_free(&cfg);
}

static void env_fails(const char *var, const char *value, const char *want)
{
    clear_env();
    setenv(var, value, 1);
    load_fails(NULL, want);
    unsetenv(var);
}

static void test_env_bad_values(void **state)
{
    (void)state;
    env_fails("CUBE_LISTEN", "abc",
              "CUBE_LISTEN: expected \"host:port\", got \"abc\"");
    env_fails("CUBE_LISTEN", "", "CUBE_LISTEN: expected \"host:port\", got \"\"");
    env_fails("CUBE_LISTEN", "h:99999",
              "CUBE_LISTEN: expected \"host:port\", got \"h:99999\"");
    env_fails("CUBE_LOG_LEVEL", "loud", "CUBE_LOG_LEVEL: expected debug, "
              "info, warn or error, got \"loud\"");
    env_fails("CUBE_DATABASE_URL", "mysql://x", "CUBE_DATABASE_URL: expected "
              "\"sqlite\", \"sqlite:///path\" or \"postgres://...\"");
    env_fails("CUBE_DATA_DIR", "", "CUBE_DATA_DIR: must not be empty");
    env_fails("CUBE_PLUGIN_DIR", "", "CUBE_PLUGIN_DIR: must not be empty");
    env_fails("CUBE_ADMIN_TOKEN", "", "CUBE_ADMIN_TOKEN: must not be empty");
}

/* ---- plugin config validation ---- */

static const char HELLO_SCHEMA[] =
    "{\"type\": \"object\","
    " \"properties\": {"
    "   \"greeting\": {\"type\": \"string\", \"default\": \"hello\"},"
    "   \"times\": {\"type\": \"integer\", \"minimum\": 1, \"default\": 1},"
    "   \"name\": {\"type\": \"string\"},"
    "   \"db\": {\"type\": \"object\","
    "            \"properties\": {\"host\": {\"type\": \"string\"},"
    "                           \"port\": {\"type\": \"integer\"}},"
    "            \"required\": [\"port\"]}},"
    " \"required\": [\"name\"]}";

/* Loads conf.d/10-hello.yaml holding `text` and validates it against
 * schema; returns the rc and leaves messages in errs. */
static int validate(const char *text, const char *schema, cJSON **out,
                    struct cube_errs *errs)
{
    struct cube_config cfg;
    put("conf.d/10-hello.yaml", text);
    load_ok(NULL, &cfg);
    const struct cube_plugin_conf *pc = cube_config_find_plugin(&cfg, "hello");
    assert_non_null(pc);
    int rc = cube_config_validate_plugin(pc, schema, out, errs);
    cube_config_free(&cfg);
    return rc;
}

static void validate_fails(const char *text, const char *schema,
                           const char *want)
{
    struct cube_errs errs = {0};
    cJSON *out = (cJSON *)1;
    assert_int_equal(validate(text, schema, &out, &errs), -1);
    assert_null(out);
    if (errs.n != 1 || strcmp(unprefixed(errs.msgs[0]), want)) {
        dump_errs(&errs);
        fail_msg("wanted the one error: %s", want);
    }
    cube_errs_clear(&errs);
}

static void test_plugin_defaults_applied(void **state)
{
    (void)state;
    struct cube_errs errs = {0};
    cJSON *out = NULL;
    assert_int_equal(validate("plugin: hello\nconfig:\n  name: bob\n",
                              HELLO_SCHEMA, &out, &errs), 0);
    assert_int_equal(cube_errs_count(&errs), 0);
    assert_string_equal(cJSON_GetObjectItem(out, "name")->valuestring, "bob");
    assert_string_equal(cJSON_GetObjectItem(out, "greeting")->valuestring,
                        "hello");
    assert_int_equal(cJSON_GetObjectItem(out, "times")->valueint, 1);
    cJSON_Delete(out);
}

static void test_plugin_wrong_type(void **state)
{
    (void)state;
    validate_fails("plugin: hello\nenabled: true\nconfig:\n  greeting: 5\n"
                   "  name: x\n", HELLO_SCHEMA,
                   "conf.d/10-hello.yaml:4:3: config.greeting: must be a string");
    validate_fails("plugin: hello\nconfig:\n  name: x\n  db:\n    port: \"80\"\n",
                   HELLO_SCHEMA,
                   "conf.d/10-hello.yaml:5:5: config.db.port: must be an integer");
}

static void test_plugin_unknown_key(void **state)
{
    (void)state;
    validate_fails("plugin: hello\nconfig:\n  name: x\n  extra: 1\n",
                   HELLO_SCHEMA, "conf.d/10-hello.yaml:4:3: config.extra: "
                   "unknown field \"extra\"");
}

static void test_plugin_missing_required(void **state)
{
    (void)state;
    validate_fails("plugin: hello\nconfig:\n  greeting: hi\n", HELLO_SCHEMA,
                   "conf.d/10-hello.yaml:2:1: config.name: is required");
    validate_fails("plugin: hello\nconfig:\n  name: x\n  db:\n    host: h\n",
                   HELLO_SCHEMA,
                   "conf.d/10-hello.yaml:4:3: config.db.port: is required");
    /* No config: section at all: placed at plugin:. */
    validate_fails("enabled: true\nplugin: hello\n", HELLO_SCHEMA,
                   "conf.d/10-hello.yaml:2:1: config.name: is required");
}

static void test_plugin_several_errors(void **state)
{
    (void)state;
    struct cube_errs errs = {0};
    cJSON *out = NULL;
    assert_int_equal(validate("plugin: hello\nconfig:\n  greeting: [1]\n"
                              "  times: 0\n  bogus: 1\n",
                              HELLO_SCHEMA, &out, &errs), -1);
    assert_null(out);
    assert_int_equal(errs.n, 4);
    for (size_t i = 0; i < errs.n; i++)
        assert_non_null(strstr(errs.msgs[i], "conf.d/10-hello.yaml:"));
    cube_errs_clear(&errs);
}

static void test_plugin_without_schema(void **state)
{
    (void)state;
    struct cube_errs errs = {0};
    cJSON *out = NULL;
    validate_fails("plugin: hello\nconfig:\n  a: 1\n", NULL,
                   "conf.d/10-hello.yaml:2:1: plugin hello takes no configuration");
    assert_int_equal(validate("plugin: hello\n", NULL, &out, &errs), 0);
    assert_true(cJSON_IsObject(out));
    assert_null(out->child);
    cJSON_Delete(out);
    assert_int_equal(validate("plugin: hello\nconfig: {}\n", NULL, &out, &errs),
                     0);
    cJSON_Delete(out);
    assert_int_equal(cube_errs_count(&errs), 0);
}

static void test_plugin_broken_schema(void **state)
{
    (void)state;
    validate_fails("plugin: hello\n", "{\"type\": ",
                   "plugin hello: config schema is not valid JSON");
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_confd_order),
        T(test_confd_from_cube_yaml),
        T(test_confd_bad_files),
        T(test_confd_long_name),
        T(test_confd_duplicate_plugin),
        T(test_confd_errors_in_several_files),
        T(test_conf_dir_missing),
        T(test_env_overrides),
        T(test_env_without_file),
        T(test_env_bad_values),
        T(test_plugin_defaults_applied),
        T(test_plugin_wrong_type),
        T(test_plugin_unknown_key),
        T(test_plugin_missing_required),
        T(test_plugin_several_errors),
        T(test_plugin_without_schema),
        T(test_plugin_broken_schema),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
