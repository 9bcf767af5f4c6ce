/* config_values.c — the syntax of values that cube.yaml and the
 * environment share (config_priv.h): listen addresses, database URLs, the
 * admin token's hex SHA-256 and log level names. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "config_priv.h"

const char *const cube_config_level_names[] = {"debug", "info", "warn",
                                               "error", 0};
const int cube_config_level_values[] = {CUBE_LOG_DEBUG, CUBE_LOG_INFO,
                                        CUBE_LOG_WARN, CUBE_LOG_ERROR};

static int parse_port(const char *s, int *port)
{
    size_t n = strspn(s, "0123456789");
    if (n == 0 || n > 5 || s[n])
        return -1;
    long p = strtol(s, NULL, 10);
    if (p > 65535)
        return -1;
    *port = (int)p;
    return 0;
}

static int host_ok(const char *h, size_t n, const char *extra)
{
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)h[i]) && !strchr(extra, h[i]))
            return 0;
    return 1;
}

int cube_config_parse_listen(const char *s, char **host, int *port)
{
    const char *h = s, *colon, *extra = ".-_";
    size_t hn;
    int p;
    if (*s == '[') {
        const char *end = strchr(s, ']');
        if (!end || end[1] != ':' || end == s + 1)
            return -1;
        h = s + 1;
        hn = (size_t)(end - h);
        colon = end + 1;
        extra = ":.%";
    } else {
        colon = strrchr(s, ':');
        if (!colon)
            return -1;
        hn = (size_t)(colon - s);
    }
    if (!host_ok(h, hn, extra) || parse_port(colon + 1, &p))
        return -1;
    char *copy = hn ? strndup(h, hn) : strdup("0.0.0.0");
    if (!copy)
        return -2;
    free(*host);
    *host = copy;
    *port = p;
    return 0;
}

int cube_config_database_ok(const char *s)
{
    static const char *const schemes[] = {"sqlite://", "postgres://",
                                          "postgresql://", 0};
    if (!strcmp(s, "sqlite"))
        return 1;
    for (int i = 0; schemes[i]; i++)
        if (!strncmp(s, schemes[i], strlen(schemes[i])) &&
            s[strlen(schemes[i])])
            return 1;
    return 0;
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = (char)(c | 0x20);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

int cube_config_hex_decode32(const char *s, uint8_t out[32])
{
    uint8_t tmp[32];
    if (strlen(s) != 64)
        return -1;
    for (int i = 0; i < 32; i++) {
        int hi = hex_digit(s[2 * i]), lo = hex_digit(s[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return -1;
        tmp[i] = (uint8_t)(hi << 4 | lo);
    }
    memcpy(out, tmp, sizeof tmp);
    return 0;
}
