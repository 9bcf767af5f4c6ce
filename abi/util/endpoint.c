/* endpoint.c — replica endpoints' "host:port" (cube/util/endpoint.h): the
 * one implementation cubed, the fake host and plugins share. */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include <cube/util/endpoint.h>
#include <cube/util/str.h>

int cu_hostport_split(const char *hp, char *host, size_t hlen, unsigned *port, int *v6)
{
    const char *colon;
    size_t n;
    int bracketed = hp && hp[0] == '[';
    if (!hp)
        return -1;
    if (bracketed) {
        const char *close = strchr(hp, ']');
        if (!close || close[1] != ':')
            return -1;
        n = (size_t)(close - hp - 1);
        colon = close + 1;
        hp++;
    } else {
        if (!(colon = strrchr(hp, ':')))
            return -1;
        n = (size_t)(colon - hp);
    }
    const char *digits = colon + 1;
    size_t nd = strspn(digits, "0123456789");
    if (n == 0 || n >= hlen || nd == 0 || nd > 5 || digits[nd])
        return -1;
    unsigned long v = strtoul(digits, NULL, 10);
    if (v < 1 || v > 65535)
        return -1;
    memcpy(host, hp, n);
    host[n] = '\0';
    *port = (unsigned)v;
    if (v6)
        *v6 = bracketed;
    return 0;
}

/* 1 when name is a DNS name (see cu_hostport_ok). */
static int dns_name(const char *name)
{
    static const char LABEL[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-";
    const char *last = name;
    if (strlen(name) > 253)
        return 0;
    for (const char *p = name; *p;) {
        size_t l = strspn(p, LABEL);
        if (l == 0 || l > 63 || p[0] == '-' || p[l - 1] == '-')
            return 0;
        last = p;
        p += l;
        if (*p == '.' && !*++p)
            return 0;               /* a trailing dot */
        if (*p && p[-1] != '.')
            return 0;               /* a byte no label has */
    }
    return last[strspn(last, "0123456789")] != '\0';
}

int cu_hostport_ok(const char *hp)
{
    char host[CU_HOSTPORT_MAX + 1];
    unsigned char addr[16];
    unsigned port;
    int v6;
    if (!hp || strlen(hp) > CU_HOSTPORT_MAX ||
        cu_hostport_split(hp, host, sizeof host, &port, &v6) < 0)
        return 0;
    if (v6)
        return inet_pton(AF_INET6, host, addr) == 1;
    return inet_pton(AF_INET, host, addr) == 1 || dns_name(host);
}

int cu_endpoints_ok(const cJSON *o, int max)
{
    const cJSON *v;
    int n = 0;
    if (!cJSON_IsObject(o))
        return 0;
    cJSON_ArrayForEach(v, o) {
        if (++n > max || !v->string || !cu_dns_label(v->string) || !cJSON_IsString(v) ||
            !cu_hostport_ok(v->valuestring))
            return 0;
        for (const cJSON *w = o->child; w != v; w = w->next)
            if (!strcmp(w->string, v->string))
                return 0;           /* a name twice */
    }
    return 1;
}
