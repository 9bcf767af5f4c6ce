/* test_config.c — cube.yaml keys, conf.d files, environment overrides and
 * plugin config validation, with the exact file:line:col of each message.
 * Every test runs inside a fresh temporary directory. */
#include <ftw.h>
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

#include "config.h"


/* SHA-256 of "secret". */
static const char SECRET_SHA256[] =
    "2bb80d537b1da3e38bd30361aa855686bde0eacd7162fef6a25fe97bf527a25b";

static const char *const ENV_VARS[] = {
    "CUBE_LISTEN",    "CUBE_DATA_DIR",  "CUBE_DATABASE_URL",
    "CUBE_PLUGIN_DIR", "CUBE_LOG_LEVEL", "CUBE_ADMIN_TOKEN", NULL};

struct fixture {
    char dir[512];
    char cwd[4096];
};

static void clear_env(void)
{
    for (int i = 0; ENV_VARS[i]; i++)
        unsetenv(ENV_VARS[i]);
}

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof *f);
    const char *tmp = getenv("TMPDIR");
    if (!f)
        return -1;
    snprintf(f->dir, sizeof f->dir, "%s/cube-config-XXXXXX",
             tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(f->dir) || !getcwd(f->cwd, sizeof f->cwd) || chdir(f->dir))
        return -1;
    clear_env();
    *state = f;
    return 0;
}

static int remove_entry(const char *path, const struct stat *st, int flag,
                        struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    int rc = chdir(f->cwd);
    nftw(f->dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    clear_env();
    free(f);
    return rc;
}

/* Writes a file relative to the test directory, creating conf.d/ or sub/. */
static void put(const char *path, const char *text)
{
    char dir[256];
    const char *slash = strrchr(path, '/');
    if (slash) {
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
        mkdir(dir, 0755);
    }
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
}

static void dump_errs(const struct cube_errs *errs)
{
    for (size_t i = 0; i < errs->n; i++)
        print_message("  error: %s\n", errs->msgs[i]);
}

/* Loads path; it must succeed without errors. */
static void load_ok(const char *path, struct cube_config *cfg)
{
    struct cube_errs errs = {0};
    int rc = cube_config_load(path, cfg, &errs);
    if (rc || cube_errs_count(&errs)) {
        dump_errs(&errs);
        fail_msg("config load failed");
    }
    cube_errs_clear(&errs);
}

/* Loads path; it must fail with exactly the one message `want`. */
static void load_fails(const char *path, const char *want)
{
    struct cube_config cfg;
    struct cube_errs errs = {0};
    assert_int_equal(cube_config_load(path, &cfg, &errs), -1);
    if (errs.n != 1 || strcmp(errs.msgs[0], want)) {
        dump_errs(&errs);
        fail_msg("wanted the one error: %s", want);
    }
    cube_config_free(&cfg);
    cube_errs_clear(&errs);
}

/* cube.yaml holding `text` must fail with exactly `want`. */
static void yaml_fails(const char *text, const char *want)
{
    put("cube.yaml", text);
    load_fails("cube.yaml", want);
}

static void hex(const uint8_t *b, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", b[i]);
}

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
    assert_string_equal(cfg.data_dir, "var");
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
    assert_string_equal(cfg.plugin_dir, "plugins");
    assert_string_equal(cfg.conf_dir, "conf.d");
    assert_string_equal(cfg.web_root, "");
    assert_int_equal(cfg.log_level, CUBE_LOG_WARN);
    assert_int_equal(cfg.log_json, 1);
    assert_int_equal(cfg.access_log, 0);
    assert_string_equal(cfg.tls_cert, "tls/cert.pem");
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
    assert_string_equal(cfg.data_dir, "var");
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
    assert_string_equal(cfg.data_dir, "sub/var");
    assert_string_equal(cfg.plugin_dir, "/abs/plugins");
    assert_string_equal(cfg.conf_dir, "sub/conf.d");
    assert_string_equal(cfg.web_root, "sub/web/dist");
    assert_string_equal(cfg.tls_cert, "sub/c.pem");
    assert_string_equal(cfg.tls_key, "/k.pem");
    cube_config_free(&cfg);

    put("cube.yaml", "data_dir: var\n");
    load_ok("./cube.yaml", &cfg);
    assert_string_equal(cfg.data_dir, "./var");
    cube_config_free(&cfg);

    load_ok("cube.yaml", &cfg);
    assert_string_equal(cfg.data_dir, "var");
    cube_config_free(&cfg);
}

static void test_relative_confd(void **state)
{
    (void)state;
    struct cube_config cfg;
    put("sub/cube.yaml", "conf_dir: plugins.d\n");
    put("sub/plugins.d/10-a.yaml", "plugin: a\n");
    load_ok("sub/cube.yaml", &cfg);
    assert_string_equal(cfg.conf_dir, "sub/plugins.d");
    assert_int_equal(cfg.n_plugins, 1);
    assert_string_equal(cfg.plugins[0].file, "sub/plugins.d/10-a.yaml");
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
        assert_string_equal(cfg.plugins[i].file, files[i]);
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
    assert_string_equal(cfg.plugins[0].file, "plugins.d/a.yaml");
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
    assert_string_equal(errs.msgs[0], "conf.d/20-b.yaml:2:1: plugin \"hello\" "
                        "is already configured in conf.d/10-a.yaml:1:1");
    assert_int_equal(cfg.n_plugins, 2);
    assert_string_equal(cfg.plugins[0].file, "conf.d/10-a.yaml");
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
    assert_string_equal(errs.msgs[0], "conf.d/1.yaml:2:1: unknown key \"extra\"");
    assert_string_equal(errs.msgs[1], "conf.d/2.yaml:2:1: did not find expected "
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
    assert_string_equal(cfg.plugin_dir, "rel/plugins");
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
    if (errs.n != 1 || strcmp(errs.msgs[0], want)) {
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
    assert_string_equal(cfg.data_dir, "etc/var");
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
        T(test_relative_confd),
        T(test_bad_listen),
        T(test_bad_values),
        T(test_unknown_key),
        T(test_all_errors_reported),
        T(test_errors_appended),
        T(test_yaml_errors),
        T(test_yaml_error_skips_confd),
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
        T(test_load_yaml_string),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
