/* test_template_dir.c — {{ template_dir }} is absolute: templates_dir must
 * be absolute, and a run whose snapshot kept a relative template dir (made
 * while the pack was loaded through a relative plugin_dir) renders its
 * tasks, on a rerun too, with the pack's absolute directory. Fake host. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cube_mock.h"
#include "pipeline.h"

const struct cube_plugin_desc *cube_plugin_pipeline(void);

static struct cube_plugin_desc desc;
static char base[PATH_MAX];   /* a fresh directory holding templates/ */

static void mkdirs(const char *rel)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", base, rel);
    assert_int_equal(mkdir(path, 0755), 0);
}

static struct pl *start(const char *config)
{
    void *state = NULL;
    desc = *cube_plugin_pipeline();
    int rc = cube_mock_init(&desc, config, &state);
    if (rc != CUBE_OK)
        fprintf(stderr, "init: %s\n", cube_mock_last_error());
    assert_int_equal(rc, CUBE_OK);
    return state;
}

static int setup(void **st)
{
    (void)st;
    char tmpl[] = "/tmp/cube-tdir-XXXXXX";
    assert_non_null(mkdtemp(tmpl));
    assert_non_null(realpath(tmpl, base));
    mkdirs("templates");
    mkdirs("templates/python-script");
    return 0;
}

static int teardown(void **st)
{
    (void)st;
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
    return system(cmd) == 0 ? 0 : -1;
}

static void relative_templates_dir_is_refused(void **st)
{
    (void)st;
    void *state = NULL;
    desc = *cube_plugin_pipeline();
    int rc = cube_mock_init(&desc, "{\"templates_dir\":\"build/templates\"}", &state);
    assert_int_not_equal(rc, CUBE_OK);
    /* the schema's pattern refuses it before the plugin sees it */
    assert_non_null(strstr(cube_mock_last_error(), "templates_dir: must match pattern"));
    cube_mock_reset(&desc, state);
}

static void template_dir_is_absolute(void **st)
{
    (void)st;
    char conf[PATH_MAX + 64], want[PATH_MAX + 64], buf[PATH_MAX + 300], cwd[PATH_MAX];
    snprintf(conf, sizeof conf, "{\"templates_dir\":\"%s/templates\"}", base);
    struct pl *p = start(conf);
    /* absolute and empty: as they are */
    assert_string_equal(pl_template_dir(p, "/opt/t/x", buf, sizeof buf), "/opt/t/x");
    assert_string_equal(pl_template_dir(p, "", buf, sizeof buf), "");
    /* relative, a template of the pack: the pack's directory */
    snprintf(want, sizeof want, "%s/templates/python-script", base);
    assert_string_equal(pl_template_dir(p, "build/plugins/pipeline/templates/python-script",
                                        buf, sizeof buf), want);
    /* relative, not in the pack but there from the working directory */
    mkdirs("own");
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(base), 0);
    snprintf(want, sizeof want, "%s/own", base);
    assert_string_equal(pl_template_dir(p, "own", buf, sizeof buf), want);
    assert_string_equal(pl_template_dir(p, "gone/x", buf, sizeof buf), "gone/x");
    assert_int_equal(chdir(cwd), 0);
    cube_mock_reset(&desc, p);
}

/* A task of a run made by an older cubed: its Job's command names the
 * pack's absolute directory. */
static void old_snapshot_renders_absolute(void **st)
{
    (void)st;
    char conf[PATH_MAX + 64], want[PATH_MAX + 64], msg[256];
    snprintf(conf, sizeof conf, "{\"templates_dir\":\"%s/templates\"}", base);
    struct pl *p = start(conf);
    cJSON *run = cJSON_Parse(
        "{\"kind\":\"PipelineRun\",\"metadata\":{\"name\":\"r1\",\"project\":\"demo\"},"
        "\"spec\":{\"pipeline\":\"p\",\"executionDate\":\"2026-01-01T00:00:00Z\","
        "\"creator\":\"alice\",\"layout\":2,\"tasks\":[{\"name\":\"t\","
        "\"template\":\"python-script\","
        "\"templateDir\":\"build/plugins/pipeline/templates/python-script\","
        "\"command\":[\"/usr/bin/python3\",\"{{ template_dir }}/run_python.py\"],"
        "\"env\":{},\"resources\":{}}]}}");
    cJSON *status = cJSON_Parse("{\"tasks\":{\"t\":{\"phase\":\"Pending\",\"rerun\":1}}}");
    const cJSON *task = cJSON_GetArrayItem(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(run, "spec"),
                                         "tasks"), 0);
    cJSON *job = pl_task_job(p, run, status, task, "r1-t-1", msg, sizeof msg);
    assert_non_null(job);
    snprintf(want, sizeof want, "%s/templates/python-script/run_python.py", base);
    int found = 0;
    const cJSON *a;
    cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(
                              cJSON_GetObjectItemCaseSensitive(job, "spec"), "command"))
        found |= cJSON_IsString(a) && !strcmp(a->valuestring, want);
    if (!found) {
        char *text = cJSON_Print(job);
        fprintf(stderr, "no %s in %s\n", want, text);
        free(text);
    }
    assert_true(found);
    cJSON_Delete(job);
    cJSON_Delete(run);
    cJSON_Delete(status);
    cube_mock_reset(&desc, p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(relative_templates_dir_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(template_dir_is_absolute, setup, teardown),
        cmocka_unit_test_setup_teardown(old_snapshot_renders_absolute, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
