/* test_egress.c — the allow-list's rules (core/base/egress.c): parsing and
 * verdicts, before resolution, on a connected address and through a proxy. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "base/egress.h"

static struct cube_egress_rule R[8];
static size_t N;

static void rules(const char *const *p, size_t n)
{
    for (size_t i = 0; i < N; i++)
        cube_egress_rule_clear(&R[i]);
    N = 0;
    for (size_t i = 0; i < n; i++) {
        const char *why = NULL;
        assert_int_equal(cube_egress_rule_parse(p[i], &R[N], &why), 0);
        N++;
    }
}

/* The verdict for name:port connected at addr (NULL: not resolved yet). */
static int check(const char *name, int port, const char *addr, int proxy, char *why)
{
    uint8_t a[16];
    int family = 0;
    if (addr)
        assert_int_equal(cube_egress_addr_parse(addr, &family, a), 0);
    return cube_egress_check(R, N, name, port, family, addr ? a : NULL, proxy, why, 512);
}

static void test_parse(void **st)
{
    (void)st;
    const char *bad[] = {"", "host", "host:0", "host:70000", ":80", "a b:80", "10.0.0.0/33:*",
                         "[::1:80", "*.:80", "a..b:80", "1.2.3.4/x:*"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        struct cube_egress_rule r;
        const char *why = NULL;
        assert_int_equal(cube_egress_rule_parse(bad[i], &r, &why), -1);
        assert_non_null(why);
    }
    const char *good[] = {"*:*", "*.example.com:443", "API.example.com:8080", "10.0.0.0/8:*",
                          "[::1]:*", "[fd00::/8]:443", "127.0.0.1:80"};
    rules(good, sizeof good / sizeof *good);
    assert_int_equal(R[2].kind, CUBE_EGRESS_NAME);
    assert_string_equal(R[2].name, "api.example.com");
    assert_int_equal(R[3].prefix, 8);
    assert_int_equal(R[5].family, 6);
}

static void test_names_reach_public_addresses_only(void **st)
{
    (void)st;
    char why[512];
    const char *p[] = {"*.example.com:443"};
    rules(p, 1);
    assert_int_equal(check("a.example.com", 443, NULL, 0, why), 0);
    assert_int_equal(check("a.example.com", 443, "93.184.216.34", 0, why), 0);
    assert_int_equal(check("A.B.Example.COM", 443, "2606:2800:220:1::1", 0, why), 0);
    assert_int_equal(check("example.com", 443, "93.184.216.34", 0, why), -1);
    assert_int_equal(check("a.example.com", 80, "93.184.216.34", 0, why), -1);
    const char *private[] = {"127.0.0.1", "10.1.2.3", "192.168.0.1", "169.254.169.254",
                             "172.16.0.1", "100.64.0.1", "::1", "fe80::1", "fd00::1",
                             "::ffff:127.0.0.1", "0.0.0.0"};
    for (size_t i = 0; i < sizeof private / sizeof *private; i++) {
        assert_int_equal(check("a.example.com", 443, private[i], 0, why), -1);
        assert_non_null(strstr(why, "*.example.com:443"));
    }
    /* through a proxy the name decides (the proxy resolves it) */
    assert_int_equal(check("a.example.com", 443, NULL, 1, why), 0);
}

static void test_address_rules(void **st)
{
    (void)st;
    char why[512];
    const char *p[] = {"127.0.0.1:*", "10.0.0.0/8:443", "[::1]:8080"};
    rules(p, 3);
    assert_int_equal(check("127.0.0.1", 9, NULL, 0, why), 0);
    assert_int_equal(check("localhost", 9, "127.0.0.1", 0, why), 0);
    assert_int_equal(check("localhost", 9, "::ffff:127.0.0.1", 0, why), 0);
    assert_int_equal(check("127.0.0.2", 9, NULL, 0, why), -1);
    assert_non_null(strstr(why, "127.0.0.2:9"));
    assert_int_equal(check("10.9.8.7", 443, NULL, 0, why), 1);
    assert_int_equal(check("10.9.8.7", 80, NULL, 0, why), -1);
    assert_int_equal(check("[::1]", 8080, NULL, 0, why), 2);
    assert_int_equal(check("::1", 8081, NULL, 0, why), -1);
    /* a name may pass before resolution, never after at a wrong address */
    assert_true(check("db.lan", 443, NULL, 0, why) >= 0);
    assert_int_equal(check("db.lan", 443, "192.168.1.1", 0, why), -1);
    assert_int_equal(check("db.lan", 443, NULL, 1, why), -1);   /* proxy: cannot check */
    rules(NULL, 0);
    assert_int_equal(check("127.0.0.1", 80, NULL, 0, why), -1);
    assert_non_null(strstr(why, "egress.allow is empty"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_names_reach_public_addresses_only),
        cmocka_unit_test(test_address_rules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
