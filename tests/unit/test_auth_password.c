/* test_auth_password.c — scrypt password hashes: format, verification,
 * strict parsing, rehash decisions and the password policy. Most tests use
 * ln=10 for speed; one uses the defaults. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth/auth_password.h"

static const struct cube_scrypt_params fast = {10, 8, 1};

/* Made with Python's hashlib.scrypt (independent implementation). */
static const char kat1[] = "$scrypt$ln=10,r=8,p=1$AAECAwQFBgcICQoLDA0ODw"
                           "$hKGWL22WtdGfIbxEPAZ06BS2bWyYKuZIKvypfAlYOWk";
static const char kat2[] = "$scrypt$ln=11,r=2,p=3$/////////////////////w"
                           "$izR5T6xw0/yteimt/RL6vh6OsJo4d14sIpKdqf3RlqU";
#define KAT_SALT "AAECAwQFBgcICQoLDA0ODw"
#define KAT_KEY "hKGWL22WtdGfIbxEPAZ06BS2bWyYKuZIKvypfAlYOWk"

/* A malloc'd string of n copies of c. */
static char *repeat(char c, size_t n)
{
    char *s = malloc(n + 1);
    assert_non_null(s);
    memset(s, c, n);
    s[n] = '\0';
    return s;
}

static void hash_then_verify(void **st)
{
    char enc[128];
    assert_int_equal(cube_password_hash("correct horse", &fast, enc, sizeof enc), 0);
    assert_non_null(strstr(enc, "$scrypt$ln=10,r=8,p=1$"));
    assert_int_equal(cube_password_verify("correct horse", enc), 1);
    assert_int_equal(cube_password_verify("correct hors", enc), 0);
    assert_int_equal(cube_password_verify("correct horse ", enc), 0);
    assert_int_equal(cube_password_verify("Correct horse", enc), 0);
    assert_int_equal(cube_password_verify("", enc), 0);
    assert_int_equal(cube_password_verify(NULL, enc), 0);
}

static void salts_differ(void **st)
{
    char a[128], b[128];
    assert_int_equal(cube_password_hash("same password", &fast, a, sizeof a), 0);
    assert_int_equal(cube_password_hash("same password", &fast, b, sizeof b), 0);
    assert_string_not_equal(a, b);
    assert_int_equal(cube_password_verify("same password", a), 1);
    assert_int_equal(cube_password_verify("same password", b), 1);
}

static void known_answers(void **st)
{
    assert_int_equal(cube_password_verify("correct horse battery", kat1), 1);
    assert_int_equal(cube_password_verify("correct horse batterY", kat1), 0);
    assert_int_equal(cube_password_verify("", kat2), 1);
    assert_int_equal(cube_password_verify("x", kat2), 0);
}

static void default_parameters(void **st)
{
    char enc[128];
    const char *pw = "a default password";
    assert_int_equal(cube_password_hash(pw, &cube_scrypt_default, enc, sizeof enc), 0);
    assert_int_equal(strncmp(enc, "$scrypt$ln=15,r=8,p=1$", 22), 0);
    assert_int_equal(strlen(enc), 22 + 22 + 1 + 43);
    assert_int_equal(cube_password_verify(pw, enc), 1);
    assert_int_equal(cube_password_verify("a default passworD", enc), 0);
    assert_int_equal(cube_password_needs_rehash(enc, &cube_scrypt_default), 0);
    assert_int_equal(cube_password_needs_rehash(enc, NULL), 0);
}

static void parameters_round_trip(void **st)
{
    const struct cube_scrypt_params prms[] = {{10, 1, 1}, {11, 4, 2}, {12, 2, 16}, {10, 32, 1}};
    for (size_t i = 0; i < sizeof prms / sizeof *prms; i++) {
        char enc[128], want[64];
        assert_int_equal(cube_password_hash("round trip!", &prms[i], enc, sizeof enc), 0);
        snprintf(want, sizeof want, "$scrypt$ln=%u,r=%u,p=%u$", prms[i].log2_n,
                 prms[i].r, prms[i].p);
        assert_int_equal(strncmp(enc, want, strlen(want)), 0);
        assert_int_equal(cube_password_verify("round trip!", enc), 1);
        assert_int_equal(cube_password_needs_rehash(enc, &prms[i]), 0);
    }
}

static void bad_hash_arguments(void **st)
{
    char enc[128];
    const struct cube_scrypt_params bad[] = {
        {9, 8, 1}, {21, 8, 1}, {10, 0, 1}, {10, 33, 1}, {10, 8, 0}, {10, 8, 17},
        {18, 8, 1}, /* 256 MiB and more of scrypt memory */
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        assert_int_equal(cube_password_hash("password1", &bad[i], enc, sizeof enc), -1);
    assert_int_equal(cube_password_hash("password1", NULL, enc, sizeof enc), -1);
    assert_int_equal(cube_password_hash(NULL, &fast, enc, sizeof enc), -1);
    assert_int_equal(cube_password_hash("password1", &fast, NULL, 128), -1);
    assert_int_equal(cube_password_hash("password1", &fast, enc, 60), -1);
    assert_int_equal(cube_password_hash("", &fast, enc, sizeof enc), 0);
    assert_int_equal(cube_password_verify("", enc), 1);
}

static void malformed_encodings(void **st)
{
    const char *bad[] = {
        "", "$scrypt$", "scrypt$ln=10,r=8,p=1$" KAT_SALT "$" KAT_KEY,
        "$argon2id$ln=10,r=8,p=1$" KAT_SALT "$" KAT_KEY,
        "$scrypt$ln=9,r=8,p=1$" KAT_SALT "$" KAT_KEY,
        "$scrypt$ln=21,r=8,p=1$" KAT_SALT "$" KAT_KEY,
        "$scrypt$ln=10,r=0,p=1$" KAT_SALT "$" KAT_KEY,
        "$scrypt$ln=10,r=33,p=1$" KAT_SALT "$" KAT_KEY,
        "$scrypt$ln=10,r=8,p=0$" KAT_SALT "$" KAT_KEY,
        "$scrypt$ln=10,r=8,p=17$" KAT_SALT "$" KAT_KEY,
        "$scrypt$ln=20,r=8,p=1$" KAT_SALT "$" KAT_KEY, /* memory cap */
        "$scrypt$ln=010,r=8,p=1$" KAT_SALT "$" KAT_KEY,
        "$scrypt$ln=+10,r=8,p=1$" KAT_SALT "$" KAT_KEY,
        "$scrypt$ln= 10,r=8,p=1$" KAT_SALT "$" KAT_KEY,
        "$scrypt$ln=10,r=8$" KAT_SALT "$" KAT_KEY,
        "$scrypt$r=8,ln=10,p=1$" KAT_SALT "$" KAT_KEY,
        "$scrypt$ln=10,r=8,p=1,x=1$" KAT_SALT "$" KAT_KEY,
        "$SCRYPT$ln=10,r=8,p=1$" KAT_SALT "$" KAT_KEY,
        "$scrypt$ln=10,r=8,p=1$" KAT_SALT "==$" KAT_KEY,
        "$scrypt$ln=10,r=8,p=1$" KAT_SALT "$" KAT_KEY "=",
        "$scrypt$ln=10,r=8,p=1$AAECAwQFBgcICQoLDA0OD$" KAT_KEY,
        "$scrypt$ln=10,r=8,p=1$AAECAwQFBgcICQoLDA0ODwA$" KAT_KEY,
        "$scrypt$ln=10,r=8,p=1$AAECAwQFBgcICQoLDA0ODx$" KAT_KEY, /* stray bits */
        "$scrypt$ln=10,r=8,p=1$" KAT_SALT "$hKGWL22WtdGfIbxEPAZ06BS2bWyYKuZIKvypfAlYOW",
        "$scrypt$ln=10,r=8,p=1$" KAT_SALT "$hKGWL22WtdGfIbxEPAZ06BS2bWyYKuZIKvypfAlYOWl",
        "$scrypt$ln=10,r=8,p=1$" KAT_SALT "$hKGWL22WtdGfIbxEPAZ06BS2bWyYKuZIKvypfAlYOWkA",
        "$scrypt$ln=10,r=8,p=1$" KAT_SALT "$hKGWL22WtdGfIbxEPAZ06BS2bWyYKuZIKvypfAlY-Wk",
        "$scrypt$ln=10,r=8,p=1$" KAT_SALT "$hKGWL22WtdGfIbxEPAZ06BS2bWyYKuZIKvypf lYOWk",
        "$scrypt$ln=10,r=8,p=1$" KAT_SALT "$" KAT_KEY "$",
        "$scrypt$ln=10,r=8,p=1$" KAT_SALT "$" KAT_KEY "\n",
        "$scrypt$ln=10,r=8,p=1$$" KAT_KEY,
        "$scrypt$ln=10,r=8,p=1$" KAT_SALT,
        "$scrypt$ln=10,r=8,p=1$" KAT_SALT "$",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        if (cube_password_verify("correct horse battery", bad[i]) != -1)
            fail_msg("accepted malformed #%zu: %s", i, bad[i]);
        assert_int_equal(cube_password_needs_rehash(bad[i], &fast), 1);
    }
    assert_int_equal(cube_password_verify("x", NULL), -1);
    assert_int_equal(cube_password_verify(NULL, NULL), -1);
}

static void needs_rehash(void **st)
{
    const char *enc[] = {
        "$scrypt$ln=15,r=8,p=1$" KAT_SALT "$" KAT_KEY,
        "$scrypt$ln=16,r=8,p=1$" KAT_SALT "$" KAT_KEY,
        "$scrypt$ln=15,r=8,p=2$" KAT_SALT "$" KAT_KEY,
        "$scrypt$ln=14,r=8,p=1$" KAT_SALT "$" KAT_KEY,
        "$scrypt$ln=16,r=4,p=1$" KAT_SALT "$" KAT_KEY,
        "$scrypt$ln=16,r=16,p=1$" KAT_SALT "$" KAT_KEY,
    };
    const int want[] = {0, 0, 0, 1, 1, 0};
    for (size_t i = 0; i < sizeof enc / sizeof *enc; i++)
        assert_int_equal(cube_password_needs_rehash(enc[i], &cube_scrypt_default), want[i]);
    const struct cube_scrypt_params p2 = {15, 8, 2};
    assert_int_equal(cube_password_needs_rehash(enc[0], &p2), 1);
    assert_int_equal(cube_password_needs_rehash(kat1, NULL), 1);
    assert_int_equal(cube_password_needs_rehash(kat1, &fast), 0);
    assert_int_equal(cube_password_needs_rehash("garbage", &fast), 1);
    assert_int_equal(cube_password_needs_rehash(NULL, &fast), 1);
}

static void policy(void **st)
{
    assert_null(cube_password_policy("correct horse"));
    assert_null(cube_password_policy("abcdefgh"));
    assert_null(cube_password_policy("aaaaaaab"));
    assert_non_null(strstr(cube_password_policy("short"), "at least 8"));
    assert_non_null(strstr(cube_password_policy(""), "at least 8"));
    assert_non_null(strstr(cube_password_policy("abcdefg"), "at least 8"));
    assert_non_null(strstr(cube_password_policy("aaaaaaaa"), "one character"));
    assert_non_null(strstr(cube_password_policy("!!!!!!!!!!!!!!!!!!!!"), "one character"));
    assert_non_null(cube_password_policy(NULL));
    char *s = repeat('z', 1024);
    assert_non_null(strstr(cube_password_policy(s), "one character"));
    s[0] = 'y';
    assert_null(cube_password_policy(s));
    free(s);
    s = repeat('z', 1025);
    s[0] = 'y';
    assert_non_null(strstr(cube_password_policy(s), "at most 1024"));
    free(s);
}

static void length_limit(void **st)
{
    char enc[128];
    char *s = repeat('q', 1025);
    s[0] = 'p';
    assert_int_equal(cube_password_hash(s, &fast, enc, sizeof enc), -1);
    s[1024] = '\0';
    assert_int_equal(cube_password_hash(s, &fast, enc, sizeof enc), 0);
    assert_int_equal(cube_password_verify(s, enc), 1);
    s[1023] = 'r';
    assert_int_equal(cube_password_verify(s, enc), 0);
    s[1023] = 'q';
    free(s);
    s = repeat('q', 1025);
    s[0] = 'p';
    assert_int_equal(cube_password_verify(s, enc), 0); /* too long: no match */
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hash_then_verify),
        cmocka_unit_test(salts_differ),
        cmocka_unit_test(known_answers),
        cmocka_unit_test(default_parameters),
        cmocka_unit_test(parameters_round_trip),
        cmocka_unit_test(bad_hash_arguments),
        cmocka_unit_test(malformed_encodings),
        cmocka_unit_test(needs_rehash),
        cmocka_unit_test(policy),
        cmocka_unit_test(length_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
