/* egress.h — the outbound allow-list's rules (cube.yaml `egress.allow`):
 * parsing a pattern and matching a destination. Pure functions over libc;
 * config/ parses the rules, net/ enforces them, the fake host shares them.
 *
 * A rule is "HOST:PORT". PORT is a number or "*". HOST is one of
 *   *                any name (not an address: see below)
 *   *.example.com    any name under example.com (not example.com itself)
 *   api.example.com  that name (case-insensitive)
 *   10.1.2.3, [::1]  that address;  10.0.0.0/8, [fd00::/8]  that network
 * A destination (the URL's host, the address it resolved to, the port) is
 * allowed when an address rule matches the address and port, or a name
 * rule matches the name and port AND the address is public: a name rule
 * never admits loopback, private, link-local, shared, multicast or
 * unspecified addresses (so DNS cannot turn "*.example.com" into a door to
 * cubed's own network); those need an address rule. */
#ifndef CUBE_EGRESS_H
#define CUBE_EGRESS_H

#include <stddef.h>
#include <stdint.h>

enum cube_egress_kind {
    CUBE_EGRESS_ANY_NAME = 1,   /* "*" */
    CUBE_EGRESS_SUFFIX,         /* "*.example.com": name holds ".example.com" */
    CUBE_EGRESS_NAME,           /* "api.example.com" */
    CUBE_EGRESS_ADDR,           /* an address or network */
};

struct cube_egress_rule {
    char *text;                 /* the pattern as written, for messages */
    enum cube_egress_kind kind;
    char *name;                 /* lowercase; SUFFIX and NAME only */
    int family;                 /* 4 or 6; ADDR only */
    uint8_t addr[16];           /* network byte order; ADDR only */
    int prefix;                 /* bits; ADDR only */
    int port;                   /* 1..65535, or 0 for "*" */
};

/* Parses one pattern into r (which owns malloc'd text and name). Returns 0,
 * or -1 with *why set to a static reason. */
int cube_egress_rule_parse(const char *pattern, struct cube_egress_rule *r,
                           const char **why);
/* Frees what r owns. */
void cube_egress_rule_clear(struct cube_egress_rule *r);

/* Parses a textual address ("10.1.2.3", "::1", "[::1]") into family and
 * addr (16 bytes). Returns 0 or -1. */
int cube_egress_addr_parse(const char *s, int *family, uint8_t addr[16]);
/* Whether an address may be reached by a name rule (not loopback, private,
 * link-local, shared, multicast, reserved or unspecified). */
int cube_egress_addr_public(int family, const uint8_t addr[16]);

/* The verdict on a destination. `name` is the URL's host (an address
 * literal or a name); `family`/`addr` the address connected to (family 0:
 * not known yet, for checks before resolution or through a proxy). With
 * no address, a name rule decides alone when `trust_name` is set (through
 * a proxy) and otherwise any rule that could match after resolution lets
 * it pass for now. Returns the index of the rule that allows it, or -1
 * with a reason naming the rule that came closest in why. */
int cube_egress_check(const struct cube_egress_rule *rules, size_t n,
                      const char *name, int port, int family,
                      const uint8_t addr[16], int trust_name, char *why,
                      size_t whylen);

#endif
