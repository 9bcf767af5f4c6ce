/* test_config.c — the config file: where it is, mode 0600 in 0700
 * directories, JSON or YAML, keys kept, environment overrides. */
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

static char dir[64];

static int make_dir(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/cubectl-test-XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int remove_dir(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void write_file(const char *path, const char *text, mode_t mode)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    chmod(path, mode);
}

static void test_save_is_private(void **state)
{
    (void)state;
    char path[128], parent[128], err[256];
    struct stat st;
    snprintf(path, sizeof path, "%s/a/b/config", dir);
    snprintf(parent, sizeof parent, "%s/a/b", dir);
    struct cli_config c = {"http://h:1", "s3cret", "team", NULL};
    umask(022);
    assert_int_equal(config_save(path, &c, err, sizeof err), 0);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0600);
    assert_int_equal(stat(parent, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0700);
    /* an old world-readable file is replaced by a private one */
    write_file(path, "{\"server\": \"http://old\", \"extra\": 1}\n", 0644);
    assert_int_equal(config_save(path, &c, err, sizeof err), 0);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0600);
    struct cli_config back = {0};
    assert_int_equal(config_load(path, NULL, &back, err, sizeof err), 0);
    assert_string_equal(back.server, "http://h:1");
    assert_string_equal(back.token, "s3cret");
    assert_string_equal(back.project, "team");
    config_free(&back);
    FILE *f = fopen(path, "r");
    char text[512] = {0};
    assert_true(fread(text, 1, sizeof text - 1, f) > 0);
    fclose(f);
    assert_non_null(strstr(text, "\"extra\": 1"));   /* unknown keys kept */
}

static void test_load_yaml_and_missing(void **state)
{
    (void)state;
    char path[128], err[256];
    struct cli_config c = {0};
    snprintf(path, sizeof path, "%s/none", dir);
    assert_int_equal(config_load(path, NULL, &c, err, sizeof err), 0);
    assert_null(c.server);
    snprintf(path, sizeof path, "%s/config.yaml", dir);
    write_file(path, "# written by hand\nserver: https://cube.example\nproject: ml\n", 0600);
    assert_int_equal(config_load(path, NULL, &c, err, sizeof err), 0);
    assert_string_equal(c.server, "https://cube.example");
    assert_null(c.token);
    assert_string_equal(c.project, "ml");
    config_free(&c);
    write_file(path, "server: [unclosed\n", 0600);
    assert_int_equal(config_load(path, NULL, &c, err, sizeof err), -1);
    assert_non_null(strstr(err, "config.yaml:"));
    write_file(path, "- a list\n", 0600);
    assert_int_equal(config_load(path, NULL, &c, err, sizeof err), -1);
}

static void test_path_and_env(void **state)
{
    (void)state;
    setenv("HOME", "/home/u", 1);
    unsetenv("CUBE_CONFIG");
    char *p = config_path();
    assert_string_equal(p, "/home/u/.config/cube/config");
    free(p);
    setenv("CUBE_CONFIG", "/etc/cube.json", 1);
    p = config_path();
    assert_string_equal(p, "/etc/cube.json");
    free(p);
    struct cli_config c = {0};
    config_set(&c.server, "http://file");
    config_set(&c.project, "p-file");
    setenv("CUBE_API", "http://in-cluster:8080", 1);
    setenv("CUBE_TOKEN", "job-token", 1);
    setenv("CUBE_PROJECT", "", 1);   /* empty: not set */
    assert_int_equal(config_apply_env(&c), 0);
    assert_string_equal(c.server, "http://in-cluster:8080");
    assert_string_equal(c.token, "job-token");
    assert_string_equal(c.project, "p-file");
    config_free(&c);
}

static char *slurp(const char *path)
{
    static char text[2048];
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    fclose(f);
    return text;
}

static void test_contexts(void **state)
{
    (void)state;
    char path[128], err[256];
    snprintf(path, sizeof path, "%s/ctx", dir);
    /* an older flat file reads as it is, and becomes context "default" */
    write_file(path, "{\"server\": \"http://old\", \"project\": \"p0\", \"keep\": 1}\n", 0600);
    struct cli_config c = {0};
    assert_int_equal(config_load(path, NULL, &c, err, sizeof err), 0);
    assert_string_equal(c.server, "http://old");
    assert_null(c.context);
    config_free(&c);
    struct cli_config prod = {"https://prod", "t1", NULL, "prod"};
    assert_int_equal(config_save(path, &prod, err, sizeof err), 0);
    assert_non_null(strstr(slurp(path), "\"keep\": 1"));
    /* the current context is prod; "default" keeps the old settings */
    assert_int_equal(config_load(path, NULL, &c, err, sizeof err), 0);
    assert_string_equal(c.context, "prod");
    assert_string_equal(c.server, "https://prod");
    assert_null(c.project);   /* then the server's default project */
    config_free(&c);
    assert_int_equal(config_load(path, "default", &c, err, sizeof err), 0);
    assert_string_equal(c.server, "http://old");
    assert_string_equal(c.project, "p0");
    config_free(&c);
    assert_int_equal(config_load(path, "nope", &c, err, sizeof err), -1);
    assert_non_null(strstr(err, "no context named \"nope\""));
    config_free(&c);
    /* saving a context again replaces it in place */
    struct cli_config prod2 = {"https://prod", "t2", "ml", "prod"};
    assert_int_equal(config_save(path, &prod2, err, sizeof err), 0);
    cJSON *doc = config_read_doc(path, err, sizeof err);
    assert_non_null(doc);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "contexts")), 2);
    assert_null(cJSON_GetObjectItem(doc, "server"));   /* moved into "default" */
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(
                            config_find_context(doc, "prod"), "token")), "t2");
    cJSON_Delete(doc);
    assert_true(config_context_name_ok("127.0.0.1:8080"));
    assert_false(config_context_name_ok(""));
    assert_false(config_context_name_ok("a b"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_save_is_private),
        cmocka_unit_test(test_load_yaml_and_missing),
        cmocka_unit_test(test_path_and_env),
        cmocka_unit_test(test_contexts),
    };
    return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
