/* egress.c — the outbound allow-list's rules: see egress.h. */
#include <arpa/inet.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "egress.h"

int cube_egress_addr_parse(const char *s, int *family, uint8_t addr[16])
{
    char buf[64];
    size_t n = strlen(s);
    if (n >= 2 && s[0] == '[' && s[n - 1] == ']') {
        s++;
        n -= 2;
    }
    if (n >= sizeof buf)
        return -1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    memset(addr, 0, 16);
    if (inet_pton(AF_INET, buf, addr) == 1) {
        *family = 4;
        return 0;
    }
    if (inet_pton(AF_INET6, buf, addr) == 1) {
        *family = 6;
        static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
        if (!memcmp(addr, mapped, 12)) {   /* ::ffff:a.b.c.d is IPv4 */
            memmove(addr, addr + 12, 4);
            memset(addr + 4, 0, 12);
            *family = 4;
        }
        return 0;
    }
    return -1;
}

/* Whether the first `bits` bits of a and b agree. */
static int prefix_eq(const uint8_t *a, const uint8_t *b, int bits)
{
    int whole = bits / 8, rest = bits % 8;
    if (memcmp(a, b, (size_t)whole))
        return 0;
    if (!rest)
        return 1;
    uint8_t mask = (uint8_t)(0xff << (8 - rest));
    return (a[whole] & mask) == (b[whole] & mask);
}

struct net {
    uint8_t a[16];
    int bits;
};

int cube_egress_addr_public(int family, const uint8_t addr[16])
{
    static const struct net v4[] = {
        {{0}, 8},             {{10}, 8},           {{100, 64}, 10},  {{127}, 8},
        {{169, 254}, 16},     {{172, 16}, 12},     {{192, 0, 0}, 24}, {{192, 168}, 16},
        {{198, 18}, 15},      {{224}, 4},          {{240}, 4},
    };
    static const struct net v6[] = {
        {{0}, 127},                 /* :: and ::1 (the last bit decides nothing) */
        {{0xfc}, 7},                /* unique local */
        {{0xfe, 0x80}, 10},         /* link-local */
        {{0xff}, 8},                /* multicast */
        {{0x00, 0x64, 0xff, 0x9b}, 96}, /* NAT64: the IPv4 inside is unknown */
        {{0x20, 0x01, 0x0d, 0xb8}, 32}, /* documentation */
    };
    const struct net *t = family == 4 ? v4 : v6;
    size_t n = family == 4 ? sizeof v4 / sizeof *v4 : sizeof v6 / sizeof *v6;
    for (size_t i = 0; i < n; i++)
        if (prefix_eq(addr, t[i].a, t[i].bits))
            return 0;
    return 1;
}

/* A host name of letters, digits, '-' and '.', lowercased into a copy. */
static char *name_copy(const char *s, size_t n)
{
    if (!n || n > 253)
        return NULL;
    char *out = malloc(n + 1);
    if (!out)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        if (!isalnum((unsigned char)s[i]) && s[i] != '-' && s[i] != '.') {
            free(out);
            return NULL;
        }
        out[i] = (char)tolower((unsigned char)s[i]);
    }
    out[n] = '\0';
    return out;
}

/* HOST part of a rule into r. */
static int parse_host(const char *h, size_t n, struct cube_egress_rule *r, const char **why)
{
    char buf[80];
    if (n == 1 && h[0] == '*') {
        r->kind = CUBE_EGRESS_ANY_NAME;
        return 0;
    }
    int bracket = n >= 2 && h[0] == '[' && h[n - 1] == ']';
    const char *slash = memchr(h, '/', n);
    if (bracket || slash || (n < sizeof buf && strspn(h, "0123456789.") == n)) {
        if (n >= sizeof buf)
            return *why = "the address is too long", -1;
        memcpy(buf, h + bracket, n - 2 * (size_t)bracket);
        buf[n - 2 * (size_t)bracket] = '\0';
        char *s = strchr(buf, '/');
        long bits = -1;
        if (s) {
            *s++ = '\0';
            char *end;
            bits = strtol(s, &end, 10);
            if (!*s || *end)
                return *why = "the prefix length after '/' must be a number", -1;
        }
        if (cube_egress_addr_parse(buf, &r->family, r->addr))
            return *why = "not an IPv4 address or a bracketed IPv6 address", -1;
        int max = r->family == 4 ? 32 : 128;
        if (bits > max || (s && bits < 0))
            return *why = "the prefix length is out of range", -1;
        r->prefix = bits < 0 ? max : (int)bits;
        r->kind = CUBE_EGRESS_ADDR;
        return 0;
    }
    if (n > 2 && h[0] == '*' && h[1] == '.') {
        r->kind = CUBE_EGRESS_SUFFIX;
        r->name = name_copy(h + 1, n - 1);
    } else {
        r->kind = CUBE_EGRESS_NAME;
        r->name = name_copy(h, n);
    }
    if (!r->name || strstr(r->name, "..") || r->name[strlen(r->name) - 1] == '.')
        return *why = "a host is \"*\", \"*.domain\", a name, an address or a network", -1;
    return 0;
}

int cube_egress_rule_parse(const char *pattern, struct cube_egress_rule *r,
                           const char **why)
{
    memset(r, 0, sizeof *r);
    const char *colon = strrchr(pattern, ':');
    if (!colon || colon == pattern || (pattern[0] == '[' && colon[-1] != ']'))
        return *why = "expected HOST:PORT (PORT a number or *)", -1;
    const char *p = colon + 1;
    if (!strcmp(p, "*")) {
        r->port = 0;
    } else {
        char *end;
        long port = strtol(p, &end, 10);
        if (!*p || *end || port < 1 || port > 65535)
            return *why = "the port must be 1..65535 or *", -1;
        r->port = (int)port;
    }
    if (parse_host(pattern, (size_t)(colon - pattern), r, why) ||
        !(r->text = strdup(pattern))) {
        if (!*why)
            *why = "out of memory";
        cube_egress_rule_clear(r);
        return -1;
    }
    return 0;
}

void cube_egress_rule_clear(struct cube_egress_rule *r)
{
    free(r->text);
    free(r->name);
    memset(r, 0, sizeof *r);
}

/* Whether a name rule matches the (lowercase-insensitive) host name. */
static int name_matches(const struct cube_egress_rule *r, const char *name)
{
    if (r->kind == CUBE_EGRESS_ANY_NAME)
        return 1;
    if (r->kind == CUBE_EGRESS_NAME)
        return !strcasecmp(r->name, name);
    size_t n = strlen(name), s = strlen(r->name);
    return n > s && !strcasecmp(name + n - s, r->name);
}

int cube_egress_check(const struct cube_egress_rule *rules, size_t n,
                      const char *name, int port, int family,
                      const uint8_t addr[16], int trust_name, char *why,
                      size_t whylen)
{
    uint8_t lit[16];
    int lit_family = 0;
    int is_literal = cube_egress_addr_parse(name, &lit_family, lit) == 0;
    if (!family && is_literal) {
        family = lit_family;
        addr = lit;
    }
    const struct cube_egress_rule *near = NULL;
    for (size_t i = 0; i < n; i++) {
        const struct cube_egress_rule *r = &rules[i];
        if (r->port && r->port != port)
            continue;
        if (r->kind == CUBE_EGRESS_ADDR) {
            if (family == r->family && prefix_eq(addr, r->addr, r->prefix))
                return (int)i;
            if (!family && !trust_name)
                return (int)i;     /* may match once the name resolves */
            continue;
        }
        if (is_literal || !name_matches(r, name))
            continue;
        if (!family || cube_egress_addr_public(family, addr))
            return (int)i;
        near = r;
    }
    char shown[96];
    if (family) {
        char a[INET6_ADDRSTRLEN] = "?";
        inet_ntop(family == 4 ? AF_INET : AF_INET6, addr, a, sizeof a);
        if (is_literal)
            snprintf(shown, sizeof shown, "%s:%d", a, port);
        else
            snprintf(shown, sizeof shown, "%s:%d (at %s)", name, port, a);
    } else {
        snprintf(shown, sizeof shown, "%s:%d", name, port);
    }
    if (near)
        snprintf(why, whylen,
                 "egress: %s refused: rule \"%s\" admits names at public addresses only; "
                 "add an address rule to egress.allow to reach this one", shown, near->text);
    else if (!n)
        snprintf(why, whylen, "egress: %s refused: egress.allow is empty (the default: "
                 "no outbound HTTP)", shown);
    else
        snprintf(why, whylen, "egress: %s refused: no rule of egress.allow matches", shown);
    return -1;
}
