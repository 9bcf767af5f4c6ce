/* test_url.c — resource paths, query strings and label selectors as they
 * go on the wire, and command-line flag parsing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "args.h"
#include "buf.h"
#include "url.h"

static void test_escape(void **state)
{
    (void)state;
    char *e = url_escape("a b/c?d=e&f%", NULL);
    assert_string_equal(e, "a%20b%2Fc%3Fd%3De%26f%25");
    free(e);
    e = url_escape("Az09-._~\xc3\xa9", NULL);
    assert_string_equal(e, "Az09-._~%C3%A9");
    free(e);
}

static void test_paths(void **state)
{
    (void)state;
    struct buf b = {0};
    assert_int_equal(url_collection(&b, "widgets", 0, "default"), 0);
    assert_string_equal(buf_str(&b), "/api/v1/projects/default/widgets");
    buf_free(&b);
    assert_int_equal(url_collection(&b, "gadgets", 1, "ignored"), 0);
    assert_string_equal(buf_str(&b), "/api/v1/gadgets");
    buf_free(&b);
    assert_int_equal(url_object(&b, "widgets", 0, "my proj", "a/b", "events"), 0);
    assert_string_equal(buf_str(&b), "/api/v1/projects/my%20proj/widgets/a%2Fb/events");
    buf_free(&b);
    assert_int_equal(url_object(&b, "gadgets", 1, NULL, "g1", NULL), 0);
    assert_string_equal(buf_str(&b), "/api/v1/gadgets/g1");
    buf_free(&b);
}

static void test_list_queries(void **state)
{
    (void)state;
    struct buf b = {0};
    struct url_list_opts o = {"a=b,c!=d", 50, "tok/1=", NULL};
    buf_puts(&b, "/api/v1/gadgets");
    assert_int_equal(url_list_query(&b, &o), 0);
    assert_string_equal(buf_str(&b),
        "/api/v1/gadgets?labelSelector=a%3Db,c!%3Dd&limit=50&continue=tok%2F1%3D");
    buf_free(&b);
    struct url_list_opts w = {"tier in (a,b)", 0, NULL, "42"};
    buf_puts(&b, "/x");
    assert_int_equal(url_list_query(&b, &w), 0);
    assert_string_equal(buf_str(&b),
        "/x?watch=1&resourceVersion=42&labelSelector=tier%20in%20%28a,b%29");
    buf_free(&b);
    struct url_list_opts now = {NULL, 0, NULL, ""};
    buf_puts(&b, "/x");
    assert_int_equal(url_list_query(&b, &now), 0);
    assert_string_equal(buf_str(&b), "/x?watch=1");
    buf_free(&b);
    struct url_list_opts none = {"", 0, "", NULL};
    buf_puts(&b, "/x");
    assert_int_equal(url_list_query(&b, &none), 0);
    assert_string_equal(buf_str(&b), "/x");
    buf_free(&b);
}

struct flags {
    const char *out, *sel, *file;
    int all, watch;
    struct flag_list fields;
};

static int parse(struct flags *f, int argc, char **argv, char **pos, int *npos,
                 char *err)
{
    const struct cli_flag table[] = {
        FLAG_STR("output", 'o', &f->out),
        FLAG_STR("selector", 'l', &f->sel),
        FLAG_STR("filename", 'f', &f->file),
        FLAG_ON("all-projects", 'A', &f->all),
        FLAG_ON("watch", 'w', &f->watch),
        FLAG_LIST("field", 'F', &f->fields),
        FLAG_END,
    };
    const struct cli_flag *tables[] = {table};
    memset(f, 0, sizeof *f);
    return args_parse(argc, argv, tables, 1, pos, npos, err, 256);
}

static void test_args(void **state)
{
    (void)state;
    struct flags f;
    char err[256], *pos[16];
    int npos;
    char *a1[] = {"widgets", "-ojson", "--selector=app=web", "-Aw", "a", "-f", "-"};
    assert_int_equal(parse(&f, 7, a1, pos, &npos, err), 0);
    assert_int_equal(npos, 2);
    assert_string_equal(pos[0], "widgets");
    assert_string_equal(pos[1], "a");
    assert_string_equal(f.out, "json");
    assert_string_equal(f.sel, "app=web");
    assert_string_equal(f.file, "-");
    assert_true(f.all && f.watch);
    char *a2[] = {"-l", "x", "--", "-o", "-"};
    assert_int_equal(parse(&f, 5, a2, pos, &npos, err), 0);
    assert_int_equal(npos, 2);
    assert_string_equal(pos[0], "-o");
    assert_null(f.out);
    char *a3[] = {"--nope"};
    assert_int_equal(parse(&f, 1, a3, pos, &npos, err), -1);
    assert_string_equal(err, "unknown flag: --nope");
    char *a4[] = {"-o"};
    assert_int_equal(parse(&f, 1, a4, pos, &npos, err), -1);
    assert_string_equal(err, "flag -o needs a value");
    char *a5[] = {"--watch=yes"};
    assert_int_equal(parse(&f, 1, a5, pos, &npos, err), -1);
    char *a6[] = {"-Ax"};
    assert_int_equal(parse(&f, 1, a6, pos, &npos, err), -1);
    assert_string_equal(err, "unknown shorthand flag: 'x' in -Ax");
    /* a repeatable flag keeps every value, in order, in each spelling */
    char *a7[] = {"--field", "a=1", "-Fb=2", "--field=c=3", "x"};
    assert_int_equal(parse(&f, 5, a7, pos, &npos, err), 0);
    assert_int_equal(f.fields.n, 3);
    assert_string_equal(f.fields.v[0], "a=1");
    assert_string_equal(f.fields.v[1], "b=2");
    assert_string_equal(f.fields.v[2], "c=3");
    assert_int_equal(npos, 1);
    char *many[FLAG_LIST_MAX + 1];
    for (int i = 0; i <= FLAG_LIST_MAX; i++)
        many[i] = "-Fk=v";
    assert_int_equal(parse(&f, FLAG_LIST_MAX + 1, many, pos, &npos, err), -1);
    assert_non_null(strstr(err, "more than"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_escape),
        cmocka_unit_test(test_paths),
        cmocka_unit_test(test_list_queries),
        cmocka_unit_test(test_args),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
