/* test_config.c — cube.yaml: defaults, every key good and bad, with the
 * exact file:line:col of each message, and parsing text (the fuzz entry
 * point). Every test runs inside a fresh temporary directory
 * (config_fixture.c); conf.d, the environment and plugin config are
 * test_config_confd.c's. */
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

/* ---- defaults ---- */

static void test_defaults(void **state)
{
    (void)state;
    struct cube_config cfg;
    cube_config_defaults(&cfg);
    assert_string_equal(cfg.listen_host, "127.0.0.1");
    assert_int_equal(cfg.listen_port, 8080);
    assert_string_equal(cfg.data_dir, "var");
    assert_string_equal(cfg.database, "sqlite");
    assert_string_equal(cfg.plugin_dir, "build/plugins");
    assert_string_equal(cfg.conf_dir, "conf.d");
    assert_string_equal(cfg.web_root, "web/dist");
    assert_int_equal(cfg.log_level, CUBE_LOG_INFO);
    assert_int_equal(cfg.log_json, 0);
    assert_int_equal(cfg.access_log, 1);
    assert_null(cfg.tls_cert);
    assert_null(cfg.tls_key);
    assert_int_equal(cfg.max_body_bytes, 8 << 20);
    assert_int_equal(cfg.max_header_bytes, 16 << 10);
    assert_int_equal(cfg.request_timeout_s, 30);
    assert_int_equal(cfg.max_connections, 1024);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    assert_int_equal(cfg.threads, cpus < 2 ? 2 : cpus > 1024 ? 1024 : cpus);
    assert_true(cfg.threads >= 2);
    assert_int_equal(cfg.has_admin_token, 0);
    assert_null(cfg.file);
    assert_int_equal(cfg.n_plugins, 0);
    cube_config_free(&cfg);
    assert_null(cfg.listen_host);
}

static void test_no_file_no_confd(void **state)
{
    (void)state;
    struct cube_config cfg;
    load_ok(NULL, &cfg);
    assert_null(cfg.file);
    assert_string_equal(cfg.listen_host, "127.0.0.1");
    assert_int_equal(cfg.n_plugins, 0);
    cube_config_free(&cfg);
}

static void test_empty_cube_yaml(void **state)
{
    (void)state;
    struct cube_config cfg;
    put("cube.yaml", "# nothing set\n");
    load_ok("cube.yaml", &cfg);
    assert_string_equal(cfg.file, "cube.yaml");
    assert_string_equal(rel(cfg.data_dir), "var");
    cube_config_free(&cfg);
}

/* ---- cube.yaml keys, good ---- */

static void test_every_key(void **state)
{
    (void)state;
    struct cube_config cfg;
    char digest[65];
    put("conf.d/.keep", "");
    put("cube.yaml",
        "listen: \"[::1]:9000\"\n"
        "data_dir: /srv/cube\n"
        "database: \"postgres://cube@db:5432/cube\"\n"
        "plugin_dir: plugins\n"
        "conf_dir: conf.d\n"
        "web_root: \"\"\n"
        "log:\n"
        "  level: warn\n"
        "  format: json\n"
        "  access: off\n"
        "tls:\n"
        "  cert: tls/cert.pem\n"
        "  key: /etc/key.pem\n"
        "limits:\n"
        "  max_body_bytes: 1048576\n"
        "  max_header_bytes: 0x2000\n"
        "  request_timeout_s: 60\n"
        "  max_connections: 10\n"
        "  threads: 3\n"
        "admin_token_sha256: "
        "2BB80D537B1DA3E38BD30361AA855686BDE0EACD7162FEF6A25FE97BF527A25B\n");
    load_ok("cube.yaml", &cfg);
    assert_string_equal(cfg.listen_host, "::1");
    assert_int_equal(cfg.listen_port, 9000);
    assert_string_equal(cfg.data_dir, "/srv/cube");
    assert_string_equal(cfg.database, "postgres://cube@db:5432/cube");
    assert_string_equal(rel(cfg.plugin_dir), "plugins");
    assert_string_equal(rel(cfg.conf_dir), "conf.d");
    assert_string_equal(cfg.web_root, "");
    assert_int_equal(cfg.log_level, CUBE_LOG_WARN);
    assert_int_equal(cfg.log_json, 1);
    assert_int_equal(cfg.access_log, 0);
    assert_string_equal(rel(cfg.tls_cert), "tls/cert.pem");
    assert_string_equal(cfg.tls_key, "/etc/key.pem");
    assert_int_equal(cfg.max_body_bytes, 1048576);
    assert_int_equal(cfg.max_header_bytes, 8192);
    assert_int_equal(cfg.request_timeout_s, 60);
    assert_int_equal(cfg.max_connections, 10);
    assert_int_equal(cfg.threads, 3);
    assert_int_equal(cfg.has_admin_token, 1);
    hex(cfg.admin_token_sha256, 32, digest);
    assert_string_equal(digest, SECRET_SHA256);
    cube_config_free(&cfg);
}

static void test_log_choices(void **state)
{
    (void)state;
    static const struct {
        const char *yaml;
        int level, json, access;
    } cases[] = {
        {"log: {level: debug, format: text, access: text}\n",
         CUBE_LOG_DEBUG, 0, 1},
        {"log: {level: info, access: json}\n", CUBE_LOG_INFO, 0, 2},
        {"log: {level: error}\n", CUBE_LOG_ERROR, 0, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct cube_config cfg;
        put("cube.yaml", cases[i].yaml);
        load_ok("cube.yaml", &cfg);
        assert_int_equal(cfg.log_level, cases[i].level);
        assert_int_equal(cfg.log_json, cases[i].json);
        assert_int_equal(cfg.access_log, cases[i].access);
        cube_config_free(&cfg);
    }
}

static void test_listen_forms(void **state)
{
    (void)state;
    static const struct {
        const char *value, *host;
        int port;
    } cases[] = {
        {"\"127.0.0.1:8081\"", "127.0.0.1", 8081},
        {"localhost:0", "localhost", 0},
        {"\":8080\"", "0.0.0.0", 8080},
        {"\"[::1]:8080\"", "::1", 8080},
        {"\"[::]:65535\"", "::", 65535},
        {"my-host.example.com:443", "my-host.example.com", 443},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct cube_config cfg;
        char text[128];
        snprintf(text, sizeof text, "listen: %s\n", cases[i].value);
        put("cube.yaml", text);
        load_ok("cube.yaml", &cfg);
        assert_string_equal(cfg.listen_host, cases[i].host);
        assert_int_equal(cfg.listen_port, cases[i].port);
        cube_config_free(&cfg);
    }
}

static void test_null_value_keeps_default(void **state)
{
    (void)state;
    struct cube_config cfg;
    put("cube.yaml", "data_dir:\nlog:\n  level: ~\ntls:\n");
    load_ok("cube.yaml", &cfg);
    assert_string_equal(rel(cfg.data_dir), "var");
    assert_int_equal(cfg.log_level, CUBE_LOG_INFO);
    assert_null(cfg.tls_cert);
    cube_config_free(&cfg);
}

static void test_relative_paths(void **state)
{
    (void)state;
    struct cube_config cfg;
    put("sub/cube.yaml", "data_dir: var\nplugin_dir: /abs/plugins\n"
                         "tls: {cert: c.pem, key: /k.pem}\n");
    load_ok("sub/cube.yaml", &cfg);
    assert_string_equal(rel(cfg.data_dir), "sub/var");
    assert_string_equal(cfg.plugin_dir, "/abs/plugins");
    assert_string_equal(rel(cfg.conf_dir), "sub/conf.d");
    assert_string_equal(rel(cfg.web_root), "sub/web/dist");
    assert_string_equal(rel(cfg.tls_cert), "sub/c.pem");
    assert_string_equal(cfg.tls_key, "/k.pem");
    cube_config_free(&cfg);

    /* `cubed -c cube.yaml` (make run): absolute, whatever the spelling */
    put("cube.yaml", "data_dir: var\nplugin_dir: ./build//plugins/\n");
    const char *names[] = {"cube.yaml", "./cube.yaml", "sub/../cube.yaml"};
    const char *dirs[] = {"", "", "sub/../"};
    for (int i = 0; i < 3; i++) {
        char want[64];
        load_ok(names[i], &cfg);
        snprintf(want, sizeof want, "%svar", dirs[i]);
        assert_string_equal(rel(cfg.data_dir), want);
        snprintf(want, sizeof want, "%sbuild/plugins", dirs[i]);
        assert_string_equal(rel(cfg.plugin_dir), want);
        snprintf(want, sizeof want, "%sconf.d", dirs[i]);
        assert_string_equal(rel(cfg.conf_dir), want);
        cube_config_free(&cfg);
    }

    /* no config file: the defaults, against the working directory */
    load_ok(NULL, &cfg);
    assert_string_equal(rel(cfg.data_dir), "var");
    assert_string_equal(rel(cfg.plugin_dir), "build/plugins");
    assert_string_equal(rel(cfg.conf_dir), "conf.d");
    assert_string_equal(rel(cfg.web_root), "web/dist");
    cube_config_free(&cfg);

    /* an absolute cube.yaml path */
    char cwd[4096], abs[4200];
    assert_non_null(getcwd(cwd, sizeof cwd));
    snprintf(abs, sizeof abs, "%s//sub/./cube.yaml", cwd);
    load_ok(abs, &cfg);
    assert_string_equal(rel(cfg.data_dir), "sub/var");
    cube_config_free(&cfg);
}

/* Relative CUBE_DATA_DIR and CUBE_PLUGIN_DIR: against the working
 * directory, not cube.yaml's. */
static void test_relative_env_paths(void **state)
{
    (void)state;
    struct cube_config cfg;
    put("sub/cube.yaml", "data_dir: var\n");
    setenv("CUBE_DATA_DIR", "data", 1);
    setenv("CUBE_PLUGIN_DIR", "./out/plugins", 1);
    load_ok("sub/cube.yaml", &cfg);
    assert_string_equal(rel(cfg.data_dir), "data");
    assert_string_equal(rel(cfg.plugin_dir), "out/plugins");
    assert_string_equal(rel(cfg.conf_dir), "sub/conf.d");
    cube_config_free(&cfg);
    clear_env();
}

static void test_relative_confd(void **state)
{
    (void)state;
    struct cube_config cfg;
    put("sub/cube.yaml", "conf_dir: plugins.d\n");
    put("sub/plugins.d/10-a.yaml", "plugin: a\n");
    load_ok("sub/cube.yaml", &cfg);
    assert_string_equal(rel(cfg.conf_dir), "sub/plugins.d");
    assert_int_equal(cfg.n_plugins, 1);
    assert_string_equal(rel(cfg.plugins[0].file), "sub/plugins.d/10-a.yaml");
    cube_config_free(&cfg);
}

/* ---- cube.yaml keys, bad ---- */

static void test_bad_listen(void **state)
{
    (void)state;
    yaml_fails("listen: abc\n",
               "cube.yaml:1:9: listen: expected \"host:port\", got \"abc\"");
    yaml_fails("listen: 8080\n",
               "cube.yaml:1:9: listen: expected \"host:port\", got 8080");
    static const char *const bad[] = {
        "host:65536", "host:", "::1:80", "[::1]8080", "[]:80", "a b:80",
        "h:-1", "h:123456", "h:8o", "[::1:80"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char text[64], want[128];
        snprintf(text, sizeof text, "# bad\nlisten: \"%s\"\n", bad[i]);
        snprintf(want, sizeof want, "cube.yaml:2:9: listen: expected "
                 "\"host:port\", got \"%s\"", bad[i]);
        yaml_fails(text, want);
    }
}

static void test_bad_values(void **state)
{
    (void)state;
    static const char *const cases[][2] = {
        {"data_dir: 5\n",
         "cube.yaml:1:11: data_dir: expected a non-empty string, got 5"},
        {"data_dir: \"\"\n",
         "cube.yaml:1:11: data_dir: expected a non-empty string, got \"\""},
        {"database: mysql://x\n",
         "cube.yaml:1:11: database: expected \"sqlite\", \"sqlite:///path\" "
         "or \"postgres://...\""},
        {"database: postgres://\n",
         "cube.yaml:1:11: database: expected \"sqlite\", \"sqlite:///path\" "
         "or \"postgres://...\""},
        {"plugin_dir: [a]\n",
         "cube.yaml:1:13: plugin_dir: expected a non-empty string, got a list"},
        {"conf_dir: {a: 1}\n",
         "cube.yaml:1:11: conf_dir: expected a non-empty string, got a mapping"},
        {"web_root: 1\n", "cube.yaml:1:11: web_root: expected a string, got 1"},
        {"log: text\n", "cube.yaml:1:6: log: expected a mapping, got \"text\""},
        {"log: {level: verbose}\n",
         "cube.yaml:1:14: log.level: expected debug, info, warn or error, "
         "got \"verbose\""},
        {"log: {format: xml}\n",
         "cube.yaml:1:15: log.format: expected text or json, got \"xml\""},
        {"log: {access: yes}\n",
         "cube.yaml:1:15: log.access: expected text, json or off, got \"yes\""},
        {"log: {lvl: info}\n", "cube.yaml:1:7: log: unknown key \"lvl\""},
        {"tls: {cert: a.pem}\n",
         "cube.yaml:1:6: tls: cert and key must be given together"},
        {"tls: {cert: 1, key: k}\n",
         "cube.yaml:1:13: tls.cert: expected a non-empty string, got 1"},
        {"tls: on\n", "cube.yaml:1:6: tls: expected a mapping, got \"on\""},
        {"limits: 5\n", "cube.yaml:1:9: limits: expected a mapping, got 5"},
        {"limits: {speed: 1}\n", "cube.yaml:1:10: limits: unknown key \"speed\""},
        {"limits: {threads: 0}\n",
         "cube.yaml:1:19: limits.threads: expected an integer from 1 to 1024, "
         "got 0"},
        {"limits: {max_body_bytes: 1.5}\n",
         "cube.yaml:1:26: limits.max_body_bytes: expected an integer from 1 to "
         "1099511627776, got 1.5"},
        {"limits: {max_header_bytes: \"16k\"}\n",
         "cube.yaml:1:28: limits.max_header_bytes: expected an integer from "
         "1024 to 16777216, got \"16k\""},
        {"limits: {request_timeout_s: -1}\n",
         "cube.yaml:1:29: limits.request_timeout_s: expected an integer from 1 "
         "to 86400, got -1"},
        {"limits: {max_connections: true}\n",
         "cube.yaml:1:27: limits.max_connections: expected an integer from 1 "
         "to 1000000, got true"},
        {"limits: {threads: .inf}\n",
         "cube.yaml:1:19: limits.threads: expected an integer from 1 to 1024, "
         "got .inf"},
        {"admin_token_sha256: abc\n",
         "cube.yaml:1:21: admin_token_sha256: expected 64 hex digits (the "
         "SHA-256 of the admin token)"},
        {"admin_token_sha256: "
         "2bb80d537b1da3e38bd30361aa855686bde0eacd7162fef6a25fe97bf527a25g\n",
         "cube.yaml:1:21: admin_token_sha256: expected 64 hex digits (the "
         "SHA-256 of the admin token)"},
        {"- listen\n", "cube.yaml:1:1: expected a mapping of settings, got a list"},
        {"hello\n", "cube.yaml:1:1: expected a mapping of settings, got \"hello\""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        yaml_fails(cases[i][0], cases[i][1]);
}

static void test_unknown_key(void **state)
{
    (void)state;
    yaml_fails("listen: \"127.0.0.1:9090\"\n"
               "data_dir: var2\n"
               "# a comment\n"
               "web_root: www\n"
               "lsten: x\n",
               "cube.yaml:5:1: unknown key \"lsten\"");
    yaml_fails("\"bad\\tkey\": 1\n", "cube.yaml:1:1: unknown key \"bad\\x09key\"");
}

static void test_all_errors_reported(void **state)
{
    (void)state;
    struct cube_config cfg;
    struct cube_errs errs = {0};
    put("cube.yaml", "listen: x\nlsten: y\nlimits:\n  threads: -2\n"
                     "  max_connections: 0\n");
    assert_int_equal(cube_config_load("cube.yaml", &cfg, &errs), -1);
    assert_int_equal(errs.n, 4);
    assert_string_equal(errs.msgs[0],
                        "cube.yaml:1:9: listen: expected \"host:port\", got \"x\"");
    assert_string_equal(errs.msgs[1], "cube.yaml:2:1: unknown key \"lsten\"");
    assert_string_equal(errs.msgs[2], "cube.yaml:4:12: limits.threads: "
                        "expected an integer from 1 to 1024, got -2");
    assert_string_equal(errs.msgs[3], "cube.yaml:5:20: limits.max_connections: "
                        "expected an integer from 1 to 1000000, got 0");
    cube_config_free(&cfg);
    cube_errs_clear(&errs);
}

static void test_errors_appended(void **state)
{
    (void)state;
    struct cube_config cfg;
    struct cube_errs errs = {0};
    put("cube.yaml", "data_dir: x\n");
    cube_errs_add(&errs, "earlier problem");
    assert_int_equal(cube_config_load("cube.yaml", &cfg, &errs), 0);
    assert_int_equal(errs.n, 1);
    cube_config_free(&cfg);
    cube_errs_clear(&errs);
}

static void test_yaml_errors(void **state)
{
    (void)state;
    yaml_fails("listen: 1\nlisten: 2\n", "cube.yaml:2:1: duplicate key \"listen\"");
    yaml_fails("a: &x 1\n", "cube.yaml:1:4: anchors and aliases are not "
               "supported (&x); write the value out");
    yaml_fails("log: {level: info\n", "cube.yaml:2:1: did not find expected "
               "',' or '}' (while parsing a flow mapping)");
    load_fails("missing.yaml",
               "missing.yaml: cannot read: No such file or directory");
}

/* A cube.yaml that does not parse stops there: conf.d is not read. */
static void test_yaml_error_skips_confd(void **state)
{
    (void)state;
    put("conf.d/10-a.yaml", "nonsense: 1\n");
    yaml_fails("a: [\n", "cube.yaml:2:1: did not find expected node content "
               "(while parsing a flow node)");
}

/* ---- parsing text (the fuzz entry point) ---- */

static void test_load_yaml_string(void **state)
{
    (void)state;
    struct cube_config cfg;
    struct cube_errs errs = {0};
    const char *ok = "listen: \":9\"\nconf_dir: /nonexistent\n";
    assert_int_equal(cube_config_load_yaml_string(ok, strlen(ok), "etc/c.yaml",
                                                  &cfg, &errs), 0);
    assert_string_equal(cfg.file, "etc/c.yaml");
    assert_int_equal(cfg.listen_port, 9);
    assert_string_equal(rel(cfg.data_dir), "etc/var");
    cube_config_free(&cfg);

    const char *bad = "listen: 1\nthreads: 2\n";
    assert_int_equal(cube_config_load_yaml_string(bad, strlen(bad), "c.yaml",
                                                  &cfg, &errs), -1);
    assert_int_equal(errs.n, 2);
    assert_string_equal(errs.msgs[1], "c.yaml:2:1: unknown key \"threads\"");
    cube_config_free(&cfg);
    cube_errs_clear(&errs);

    assert_int_equal(cube_config_load_yaml_string("[", 1, "c.yaml", &cfg,
                                                  &errs), -1);
    assert_int_equal(errs.n, 1);
    assert_string_equal(cfg.listen_host, "127.0.0.1");
    cube_config_free(&cfg);
    cube_errs_clear(&errs);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_defaults),
        T(test_no_file_no_confd),
        T(test_empty_cube_yaml),
        T(test_every_key),
        T(test_log_choices),
        T(test_listen_forms),
        T(test_null_value_keeps_default),
        T(test_relative_paths),
        T(test_relative_env_paths),
        T(test_relative_confd),
        T(test_bad_listen),
        T(test_bad_values),
        T(test_unknown_key),
        T(test_all_errors_reported),
        T(test_errors_appended),
        T(test_yaml_errors),
        T(test_yaml_error_skips_confd),
        T(test_load_yaml_string),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
