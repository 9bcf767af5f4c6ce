/* test_ui.c — plugins' console entries: the checks of register_ui, each
 * refusal naming its field, asset directories beside the plugin's .so. */
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

#include "ctx/ctx.h"
#include "plugins/ui_ext.h"
#include "base/fs.h"

static char dir[PATH_MAX], err[PATH_MAX + 256];
static struct cube_plugin plug_x, plug_y;
static struct cube_ui_entry *list;

static void touch(const char *rel)
{
    char *p = cube_path_join(dir, rel);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fclose(f);
    free(p);
}

static void mkdir_in(const char *rel)
{
    char *p = cube_path_join(dir, rel);
    assert_int_equal(mkdir(p, 0700), 0);
    free(p);
}

/* dir/cube-x.so, dir/ui/page.js, dir/other/page.js, dir/link/cube-y.so ->
 * ../cube-x.so (a symlinked plugin: its assets are beside the real file). */
static int setup(void **st)
{
    (void)st;
    snprintf(dir, sizeof dir, "%s/cube-ui-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    assert_non_null(mkdtemp(dir));
    touch("cube-x.so");
    mkdir_in("ui");
    mkdir_in("other");
    mkdir_in("link");
    touch("ui/page.js");
    touch("other/page.js");
    char *link = cube_path_join(dir, "link/cube-y.so");
    assert_int_equal(symlink("../cube-x.so", link), 0);
    plug_x = (struct cube_plugin){.name = "x", .file = cube_path_join(dir, "cube-x.so")};
    plug_y = (struct cube_plugin){.name = "y", .file = link};
    list = NULL;
    return 0;
}

static int teardown(void **st)
{
    (void)st;
    cube_ui_free(&list);
    free(plug_x.file);
    free(plug_y.file);
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static struct cube_ui_desc page(void)
{
    return (struct cube_ui_desc){.size = sizeof(struct cube_ui_desc), .id = "page",
                                 .group = "Tools", .label = "Page", .label_zh = "页面",
                                 .permission = CUBE_PERM_USER, .module = "page.js"};
}

static void accepts_a_page_beside_the_so(void **st)
{
    (void)st;
    struct cube_ui_desc d = page();
    assert_int_equal(cube_ui_add(&list, &plug_x, &d, err, sizeof err), CUBE_OK);
    char *want = cube_path_join(dir, "ui");
    char *real = realpath(want, NULL);
    assert_string_equal(cube_ui_asset_dir(list, "x"), real);
    assert_string_equal(list->module, "page.js");
    assert_null(list->link);
    assert_null(cube_ui_asset_dir(list, "y"));
    free(want);
    free(real);
}

static void follows_a_symlinked_so(void **st)
{
    (void)st;
    struct cube_ui_desc d = page();
    assert_int_equal(cube_ui_add(&list, &plug_y, &d, err, sizeof err), CUBE_OK);
    char *want = cube_path_join(dir, "ui");
    char *real = realpath(want, NULL);
    assert_string_equal(cube_ui_asset_dir(list, "y"), real);
    free(want);
    free(real);
}

static void accepts_a_link_and_an_absolute_dir(void **st)
{
    (void)st;
    struct cube_ui_desc d = page();
    d.module = NULL;
    d.link = "/kinds/pipelines";
    d.label_zh = NULL;
    d.permission = CUBE_PERM_ADMIN;
    assert_int_equal(cube_ui_add(&list, &plug_x, &d, err, sizeof err), CUBE_OK);
    assert_string_equal(list->link, "/kinds/pipelines");
    assert_null(list->asset_dir);
    char *abs = cube_path_join(dir, "other");
    d = page();
    d.id = "two";
    d.asset_dir = abs;
    assert_int_equal(cube_ui_add(&list, &plug_x, &d, err, sizeof err), CUBE_OK);
    free(abs);
}

struct bad {
    const char *field, *value;  /* what to break, and how */
    const char *prefix;         /* the error must start with it */
};

static void set_field(struct cube_ui_desc *d, const char *field, const char *value)
{
    const char **slots[] = {&d->id, &d->group, &d->label, &d->label_zh, &d->permission,
                            &d->module, &d->asset_dir, &d->link};
    const char *names[] = {"id", "group", "label", "label_zh", "permission", "module",
                           "asset_dir", "link"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(names[i], field) == 0)
            *slots[i] = value;
}

static void refusals_name_the_field(void **st)
{
    (void)st;
    static const struct bad cases[] = {
        {"id", NULL, "id: "}, {"id", "Bad_Id", "id: "}, {"id", "", "id: "},
        {"group", NULL, "group: required"}, {"label", NULL, "label: required"},
        {"label", "", "label: "}, {"label_zh", "a\nb", "label_zh: "},
        {"permission", NULL, "permission: "}, {"permission", "project:view", "permission: "},
        {"permission", "root", "permission: "}, {"module", "../page.js", "module: "},
        {"module", "a/./page.js", "module: "}, {"module", ".page.js", "module: "},
        {"module", "/etc/page.js", "module: "}, {"module", "page.css", "module: "},
        {"module", "missing.js", "module: "}, {"asset_dir", "/nonexistent-dir", "asset_dir: "},
        {"asset_dir", "cube-x.so", "asset_dir: "},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct cube_ui_desc d = page();
        set_field(&d, cases[i].field, cases[i].value);
        err[0] = '\0';
        assert_int_equal(cube_ui_add(&list, &plug_x, &d, err, sizeof err), CUBE_EINVAL);
        if (strncmp(err, cases[i].prefix, strlen(cases[i].prefix)) != 0)
            fail_msg("%s=%s: got \"%s\"", cases[i].field, cases[i].value, err);
    }
    assert_null(list);
}

static void links_must_be_console_paths(void **st)
{
    (void)st;
    const char *bad[] = {NULL, "", "//evil.example", "https://evil.example", "kinds", "/a\\b"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct cube_ui_desc d = page();
        d.module = NULL;
        d.link = bad[i];
        assert_int_equal(cube_ui_add(&list, &plug_x, &d, err, sizeof err), CUBE_EINVAL);
        assert_memory_equal(err, "link: ", 6);
    }
}

/* Since 1.5: a page may own a console route and be a kind's page. */
static void routes_and_kinds(void **st)
{
    (void)st;
    struct cube_ui_desc d = page();
    d.route = "/p/:project/widgets";
    d.kind = "Widget";
    assert_int_equal(cube_ui_add(&list, &plug_x, &d, err, sizeof err), CUBE_OK);
    assert_string_equal(list->route, "/p/:project/widgets");
    assert_string_equal(list->kind, "Widget");
    const char *bad[] = {"", "p/widgets", "/", "/p//widgets", "/p/widgets/", "/p/:/w",
                         "/p/wid gets", "/p/?x", "//evil.example"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        d = page();
        d.id = "bad";
        d.route = bad[i];
        assert_int_equal(cube_ui_add(&list, &plug_x, &d, err, sizeof err), CUBE_EINVAL);
        if (strncmp(err, "route: ", 7) != 0)
            fail_msg("route=%s: got \"%s\"", bad[i], err);
    }
    d = page();
    d.id = "bad";
    d.module = NULL;
    d.link = "/kinds/jobs";
    d.route = "/widgets";
    assert_int_equal(cube_ui_add(&list, &plug_x, &d, err, sizeof err), CUBE_EINVAL);
    assert_memory_equal(err, "route: ", 7);
    d = page();
    d.id = "bad";
    d.kind = "Widget";
    assert_int_equal(cube_ui_add(&list, &plug_x, &d, err, sizeof err), CUBE_EINVAL);
    assert_memory_equal(err, "kind: ", 6);
    assert_null(list->next);
}

static void size_and_uniqueness(void **st)
{
    (void)st;
    struct cube_ui_desc d = page();
    d.size = offsetof(struct cube_ui_desc, link);
    assert_int_equal(cube_ui_add(&list, &plug_x, &d, err, sizeof err), CUBE_EINVAL);
    assert_memory_equal(err, "size: ", 6);
    assert_int_equal(cube_ui_add(&list, &plug_x, NULL, err, sizeof err), CUBE_EINVAL);
    d = page();
    assert_int_equal(cube_ui_add(&list, &plug_x, &d, err, sizeof err), CUBE_OK);
    assert_int_equal(cube_ui_add(&list, &plug_x, &d, err, sizeof err), CUBE_EEXIST);
    assert_memory_equal(err, "id: ", 4);
    /* The same id in another plugin is another entry. */
    assert_int_equal(cube_ui_add(&list, &plug_y, &d, err, sizeof err), CUBE_OK);
}

static void one_asset_dir_per_plugin(void **st)
{
    (void)st;
    struct cube_ui_desc d = page();
    assert_int_equal(cube_ui_add(&list, &plug_x, &d, err, sizeof err), CUBE_OK);
    d.id = "second";
    d.asset_dir = "other";
    assert_int_equal(cube_ui_add(&list, &plug_x, &d, err, sizeof err), CUBE_EINVAL);
    assert_memory_equal(err, "asset_dir: ", 11);
}

static void drop_removes_one_plugin(void **st)
{
    (void)st;
    struct cube_ui_desc d = page();
    assert_int_equal(cube_ui_add(&list, &plug_x, &d, err, sizeof err), CUBE_OK);
    assert_int_equal(cube_ui_add(&list, &plug_y, &d, err, sizeof err), CUBE_OK);
    d.id = "more";
    assert_int_equal(cube_ui_add(&list, &plug_x, &d, err, sizeof err), CUBE_OK);
    cube_ui_drop_plugin(&list, &plug_x);
    assert_non_null(list);
    assert_ptr_equal(list->plugin, &plug_y);
    assert_null(list->next);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(accepts_a_page_beside_the_so, setup, teardown),
        cmocka_unit_test_setup_teardown(follows_a_symlinked_so, setup, teardown),
        cmocka_unit_test_setup_teardown(accepts_a_link_and_an_absolute_dir, setup, teardown),
        cmocka_unit_test_setup_teardown(refusals_name_the_field, setup, teardown),
        cmocka_unit_test_setup_teardown(links_must_be_console_paths, setup, teardown),
        cmocka_unit_test_setup_teardown(routes_and_kinds, setup, teardown),
        cmocka_unit_test_setup_teardown(size_and_uniqueness, setup, teardown),
        cmocka_unit_test_setup_teardown(one_asset_dir_per_plugin, setup, teardown),
        cmocka_unit_test_setup_teardown(drop_removes_one_plugin, setup, teardown),
    };
    return cmocka_run_group_tests_name("console entries (register_ui)", tests, NULL, NULL);
}
