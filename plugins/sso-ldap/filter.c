/* filter.c — RFC 4515 value escaping and {placeholder} expansion for LDAP
 * search filters, and the user-name check done before any network traffic.
 * Escaping is what stops "*)(uid=*" from widening a search. */
#include "filter.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 1 when byte c must be written as \XX inside a filter value. */
static int needs_escape(unsigned char c)
{
    return c == '\0' || c == '(' || c == ')' || c == '*' || c == '\\' ||
           c < 0x20 || c == 0x7f;
}

/* Escaped length of value[0..len). */
static size_t escaped_len(const char *value, size_t len)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        n += needs_escape((unsigned char)value[i]) ? 3 : 1;
    return n;
}

/* Writes value[0..len) escaped at out (room checked by the caller);
 * returns the bytes written. */
static size_t escape_into(char *out, const char *value, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)value[i];
        if (needs_escape(c)) {
            out[o++] = '\\';
            out[o++] = hex[c >> 4];
            out[o++] = hex[c & 15];
        } else {
            out[o++] = (char)c;
        }
    }
    return o;
}

/* Escapes len bytes of value into a new string. */
char *ssoldap_filter_escape(const char *value, size_t len)
{
    char *out = malloc(escaped_len(value, len) + 1);
    if (!out)
        return NULL;
    out[escape_into(out, value, len)] = '\0';
    return out;
}

/* The index of the key whose "{key}" starts at p, or -1. */
static int key_at(const char *p, const char *const *keys, size_t n)
{
    if (*p != '{')
        return -1;
    for (size_t k = 0; k < n; k++) {
        size_t kl = strlen(keys[k]);
        if (strncmp(p + 1, keys[k], kl) == 0 && p[1 + kl] == '}')
            return (int)k;
    }
    return -1;
}

/* Expands every {key} of tmpl with its escaped value, in one pass. */
char *ssoldap_filter_expand(const char *tmpl, const char *const *keys,
                            const char *const *values, size_t n)
{
    size_t need = 1;
    for (const char *p = tmpl; *p;) {
        int k = key_at(p, keys, n);
        need += k < 0 ? 1 : escaped_len(values[k], strlen(values[k]));
        p += k < 0 ? 1 : strlen(keys[k]) + 2;
    }
    char *out = malloc(need);
    if (!out)
        return NULL;
    size_t o = 0;
    for (const char *p = tmpl; *p;) {
        int k = key_at(p, keys, n);
        if (k < 0) {
            out[o++] = *p++;
            continue;
        }
        o += escape_into(out + o, values[k], strlen(values[k]));
        p += strlen(keys[k]) + 2;
    }
    out[o] = '\0';
    return out;
}

/* 1 when tmpl contains "{key}". */
int ssoldap_filter_has(const char *tmpl, const char *key)
{
    char want[64];
    int n = snprintf(want, sizeof want, "{%s}", key);
    return n > 0 && (size_t)n < sizeof want && strstr(tmpl, want) != NULL;
}

/* 1 when tmpl is one parenthesised filter with balanced parentheses. */
int ssoldap_filter_shape_ok(const char *tmpl)
{
    size_t len = strlen(tmpl);
    if (len < 3 || tmpl[0] != '(' || tmpl[len - 1] != ')')
        return 0;
    int depth = 0;
    for (size_t i = 0; i < len; i++) {
        if (tmpl[i] == '\\') {
            i++; /* an escape: the next byte is data */
            continue;
        }
        depth += tmpl[i] == '(' ? 1 : tmpl[i] == ')' ? -1 : 0;
        if (depth < 0 || (depth == 0 && i + 1 < len))
            return 0;
    }
    return depth == 0;
}

/* Length of the UTF-8 sequence at s (1..4), or 0 when malformed. */
static size_t utf8_seq(const unsigned char *s)
{
    if (s[0] < 0x80)
        return 1;
    size_t n = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4
             : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 && s[0] <= 0xdf ? 2 : 0;
    if (n == 0 || (n == 3 && s[0] > 0xef))
        return 0;
    uint32_t cp = s[0] & (0x7f >> n);
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3f);
    }
    if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
        (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
        return 0;
    return n;
}

/* 1 when name is a non-empty, short, printable UTF-8 string. */
int ssoldap_username_ok(const char *name)
{
    if (!name)
        return 0;
    size_t len = strnlen(name, SSOLDAP_USERNAME_MAX + 1);
    if (len == 0 || len > SSOLDAP_USERNAME_MAX)
        return 0;
    const unsigned char *s = (const unsigned char *)name;
    for (size_t i = 0; i < len;) {
        if (s[i] < 0x20 || s[i] == 0x7f)
            return 0;
        size_t n = utf8_seq(s + i);
        if (n == 0)
            return 0;
        i += n;
    }
    return 1;
}
