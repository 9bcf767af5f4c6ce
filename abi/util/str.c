/* str.c — string checks and copies; see cube/util/str.h. */
#include <cube/util/str.h>

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cu_copy(char *dst, size_t cap, const char *src)
{
    if (!cap)
        return -1;
    size_t n = strlen(src);
    int cut = n >= cap;
    if (cut)
        n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
    return cut ? -1 : 0;
}

char *cu_strdupf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (!s)
        return NULL;
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

int cu_starts_with(const char *s, const char *prefix)
{
    return s && prefix && strncmp(s, prefix, strlen(prefix)) == 0;
}

int cu_utf8_valid(const char *str, size_t len)
{
    const unsigned char *s = (const unsigned char *)str, *end = s + len;
    while (s < end) {
        unsigned char c = *s;
        size_t n = c >= 0x01 && c < 0x80 ? 1 : c >= 0xC2 && c <= 0xDF ? 2
                 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
        if (!n || (size_t)(end - s) < n)
            return 0;
        for (size_t i = 1; i < n; i++)
            if ((s[i] & 0xC0) != 0x80)
                return 0;
        if ((c == 0xE0 && s[1] < 0xA0) || (c == 0xED && s[1] > 0x9F) ||
            (c == 0xF0 && s[1] < 0x90) || (c == 0xF4 && s[1] > 0x8F))
            return 0;
        s += n;
    }
    return 1;
}

int cu_dns_label(const char *s)
{
    size_t n = s ? strlen(s) : 0;
    return n >= 1 && n <= 63 && strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789-") == n &&
           s[0] != '-' && s[n - 1] != '-';
}

int cu_env_name(const char *s)
{
    if (!s || !*s || isdigit((unsigned char)*s))
        return 0;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_')
            return 0;
    return 1;
}

/* Skips digits, then a '.' and digits; NULL when s starts with no digit. */
static const char *decimal(const char *s)
{
    if (!s || !isdigit((unsigned char)*s))
        return NULL;
    while (isdigit((unsigned char)*s))
        s++;
    if (*s == '.' && isdigit((unsigned char)s[1]))
        for (s++; isdigit((unsigned char)*s); s++)
            ;
    return s;
}

int cu_qty_bytes(const char *s)
{
    static const char *const UNITS[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei",
                                        "k", "M", "G", "T", "P", "E", NULL};
    if (!(s = decimal(s)))
        return 0;
    if ((*s == 'e' || *s == 'E') && isdigit((unsigned char)s[1])) {
        for (s++; isdigit((unsigned char)*s); s++)
            ;
        return *s == '\0';
    }
    for (int i = 0; UNITS[i]; i++)
        if (strcmp(s, UNITS[i]) == 0)
            return 1;
    return 0;
}

int cu_qty_cpu(const char *s)
{
    return (s = decimal(s)) && (*s == '\0' || strcmp(s, "m") == 0);
}

char *cu_file_read(const char *path, size_t max, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t n = 0, cap = 0;
    if (!f)
        return NULL;
    for (;;) {
        if (n + 1 >= cap) {
            size_t want = cap ? cap * 2 : 4096;
            char *grown = cap > max ? NULL : realloc(buf, want);
            if (!grown) {
                errno = cap > max ? EFBIG : ENOMEM;
                goto fail;
            }
            buf = grown;
            cap = want;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (n > max) {
            errno = EFBIG;
            goto fail;
        }
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        errno = EIO;
        goto fail;
    }
    fclose(f);
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
fail:;
    int saved = errno;
    free(buf);
    fclose(f);
    errno = saved;
    return NULL;
}
