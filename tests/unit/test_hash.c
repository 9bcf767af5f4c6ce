/* test_hash.c — SHA-256 (FIPS 180-2 vectors, one reused context per
 * thread, threads at once), hex and the constant-time compare. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <string.h>

#include "base/hash.h"

static void hex_of(const char *s, size_t n, char out[65])
{
    uint8_t md[32];
    assert_int_equal(cube_sha256(s, n, md), 0);
    cube_hex(md, 32, out);
}

static void vectors(void **state)
{
    (void)state;
    char hex[65];
    for (int round = 0; round < 3; round++) {   /* the thread's context, reused */
        hex_of("abc", 3, hex);
        assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        hex_of("", 0, hex);
        assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
        hex_of(two, strlen(two), hex);
        assert_string_equal(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    }
}

static void *hash_many(void *arg)
{
    (void)arg;
    uint8_t md[32];
    char hex[65];
    for (int i = 0; i < 2000; i++) {
        if (cube_sha256("abc", 3, md) != 0)
            return "failed";
        cube_hex(md, 32, hex);
        if (strcmp(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"))
            return "wrong digest";
    }
    return NULL;
}

static void threads_at_once(void **state)
{
    (void)state;
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        assert_int_equal(pthread_create(&t[i], NULL, hash_many, NULL), 0);
    for (int i = 0; i < 4; i++) {
        void *why = NULL;
        assert_int_equal(pthread_join(t[i], &why), 0);
        assert_null(why);
    }
}

static void compare(void **state)
{
    (void)state;
    assert_int_equal(cube_ct_compare("same", "same", 4), 0);
    assert_int_not_equal(cube_ct_compare("same", "sane", 4), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(vectors),
        cmocka_unit_test(threads_at_once),
        cmocka_unit_test(compare),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
