/* test_objcache.c — the object cache: documents by (kind, project, name)
 * and the owner read from a cached document once per version. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "objects/objcache.h"

static void documents_by_key(void **state)
{
    (void)state;
    struct cube_objcache *c = cube_objcache_new(1 << 20);
    int64_t rv = 0;
    cube_objcache_put(c, "Job", "lab", "a", 7, "{\"x\":1}");
    char *doc = cube_objcache_get(c, "Job", "lab", "a", &rv);
    assert_string_equal(doc, "{\"x\":1}");
    assert_int_equal(rv, 7);
    free(doc);
    assert_null(cube_objcache_get(c, "Job", "other", "a", &rv));
    assert_null(cube_objcache_get(c, "Notebook", "lab", "a", &rv));
    cube_objcache_drop(c, "Job", "lab", "a");
    assert_null(cube_objcache_get(c, "Job", "lab", "a", &rv));
    cube_objcache_free(c);
}

static void owner_follows_each_version(void **state)
{
    (void)state;
    struct cube_objcache *c = cube_objcache_new(1 << 20);
    char owner[OBJCACHE_OWNER_MAX] = "unchanged";
    assert_int_equal(cube_objcache_owner(c, "Svc", "lab", "s", owner, sizeof owner), 0);
    assert_string_equal(owner, "unchanged");
    cube_objcache_put(c, "Svc", "lab", "s", 1,
                      "{\"metadata\":{\"name\":\"s\",\"owner\":\"alice\"},\"spec\":{}}");
    assert_int_equal(cube_objcache_owner(c, "Svc", "lab", "s", owner, sizeof owner), 1);
    assert_string_equal(owner, "alice");
    /* a write replaces the version: its owner is read again */
    cube_objcache_put(c, "Svc", "lab", "s", 2, "{\"metadata\":{\"owner\":\"bob\"}}");
    assert_int_equal(cube_objcache_owner(c, "Svc", "lab", "s", owner, sizeof owner), 1);
    assert_string_equal(owner, "bob");
    cube_objcache_put(c, "Svc", "lab", "s", 3, "{\"metadata\":{\"name\":\"s\"}}");
    assert_int_equal(cube_objcache_owner(c, "Svc", "lab", "s", owner, sizeof owner), 1);
    assert_string_equal(owner, "");
    cube_objcache_drop(c, "Svc", "lab", "s");
    assert_int_equal(cube_objcache_owner(c, "Svc", "lab", "s", owner, sizeof owner), 0);
    cube_objcache_free(c);
}

static void owner_that_does_not_fit_is_a_miss(void **state)
{
    (void)state;
    struct cube_objcache *c = cube_objcache_new(1 << 20);
    char owner[OBJCACHE_OWNER_MAX], small[4];
    cube_objcache_put(c, "Svc", "lab", "s", 1, "{\"metadata\":{\"owner\":\"alice\"}}");
    assert_int_equal(cube_objcache_owner(c, "Svc", "lab", "s", small, sizeof small), 0);
    char doc[200];
    memset(owner, 'x', sizeof owner - 1);
    owner[sizeof owner - 1] = '\0';   /* 63 bytes: fits */
    snprintf(doc, sizeof doc, "{\"metadata\":{\"owner\":\"%s\"}}", owner);
    cube_objcache_put(c, "Svc", "lab", "long", 1, doc);
    char got[OBJCACHE_OWNER_MAX];
    assert_int_equal(cube_objcache_owner(c, "Svc", "lab", "long", got, sizeof got), 1);
    assert_string_equal(got, owner);
    snprintf(doc, sizeof doc, "{\"metadata\":{\"owner\":\"%sy\"}}", owner);
    cube_objcache_put(c, "Svc", "lab", "long", 2, doc);   /* 64 bytes: the caller reads it */
    assert_int_equal(cube_objcache_owner(c, "Svc", "lab", "long", got, sizeof got), 0);
    cube_objcache_put(c, "Svc", "lab", "bad", 1, "{not json");
    assert_int_equal(cube_objcache_owner(c, "Svc", "lab", "bad", got, sizeof got), 0);
    cube_objcache_free(c);
}

static void disabled_cache_holds_nothing(void **state)
{
    (void)state;
    struct cube_objcache *c = cube_objcache_new(0);
    char owner[OBJCACHE_OWNER_MAX];
    int64_t rv;
    cube_objcache_put(c, "Svc", "lab", "s", 1, "{\"metadata\":{\"owner\":\"alice\"}}");
    assert_null(cube_objcache_get(c, "Svc", "lab", "s", &rv));
    assert_int_equal(cube_objcache_owner(c, "Svc", "lab", "s", owner, sizeof owner), 0);
    cube_objcache_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(documents_by_key),
        cmocka_unit_test(owner_follows_each_version),
        cmocka_unit_test(owner_that_does_not_fit_is_a_miss),
        cmocka_unit_test(disabled_cache_holds_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
