/* schema_format.c — the "format" checks of schema_format.h: date-time
 * (RFC 3339), email (a strict-ish dot-atom address) and uri (RFC 3986,
 * absolute: a scheme is required). */
#include "schema_format.h"

#include <ctype.h>
#include <string.h>

/* strchr that does not count the terminating NUL as a member. */
static bool in_set(const char *set, char c)
{
    return c != '\0' && strchr(set, c) != NULL;
}

/* ASCII-only classes: <ctype.h> answers per locale, URIs and hosts don't. */
static bool is_alpha(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_alnum(char c)
{
    return is_alpha(c) || (c >= '0' && c <= '9');
}

/* Reads exactly `n` digits at *s into *out and advances past them. */
static bool read_digits(const char **s, int n, int *out)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (!isdigit((unsigned char)(*s)[i]))
            return false;
        v = v * 10 + ((*s)[i] - '0');
    }
    *s += n;
    *out = v;
    return true;
}

static bool expect_char(const char **s, char c)
{
    if (**s != c)
        return false;
    (*s)++;
    return true;
}

static int days_in_month(int year, int month)
{
    static const int DAYS[12] = {31, 28, 31, 30, 31, 30,
                                 31, 31, 30, 31, 30, 31};
    bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    return month == 2 && leap ? 29 : DAYS[month - 1];
}

/* RFC 3339 full-date: YYYY-MM-DD with a real calendar day. */
static bool parse_full_date(const char **s)
{
    int y, m, d;
    return read_digits(s, 4, &y) && expect_char(s, '-')
        && read_digits(s, 2, &m) && m >= 1 && m <= 12 && expect_char(s, '-')
        && read_digits(s, 2, &d) && d >= 1 && d <= days_in_month(y, m);
}

/* RFC 3339 time-offset: Z or +HH:MM / -HH:MM. */
static bool parse_time_offset(const char **s)
{
    int h, m;
    if (**s == 'Z' || **s == 'z') {
        (*s)++;
        return true;
    }
    if (**s != '+' && **s != '-')
        return false;
    (*s)++;
    return read_digits(s, 2, &h) && h <= 23 && expect_char(s, ':')
        && read_digits(s, 2, &m) && m <= 59;
}

/* RFC 3339 full-time: HH:MM:SS[.frac]offset; second 60 is a leap second. */
static bool parse_full_time(const char **s)
{
    int h, m, sec;
    if (!(read_digits(s, 2, &h) && h <= 23 && expect_char(s, ':')
          && read_digits(s, 2, &m) && m <= 59 && expect_char(s, ':')
          && read_digits(s, 2, &sec) && sec <= 60))
        return false;
    if (**s == '.') {
        (*s)++;
        if (!isdigit((unsigned char)**s))
            return false;
        while (isdigit((unsigned char)**s))
            (*s)++;
    }
    return parse_time_offset(s);
}

static bool is_date_time(const char *s)
{
    if (!parse_full_date(&s))
        return false;
    if (*s != 'T' && *s != 't')
        return false;
    s++;
    return parse_full_time(&s) && *s == '\0';
}

/* A DNS host name: dot-separated labels of letters, digits and inner
 * hyphens, 1-63 bytes each, 253 in all. */
static bool is_host_name(const char *s, size_t len)
{
    if (len == 0 || len > 253)
        return false;
    size_t label = 0;
    for (size_t i = 0; i <= len; i++) {
        char c = i < len ? s[i] : '.';
        if (c == '.') {
            if (label == 0 || s[i - 1] == '-')
                return false;
            label = 0;
        } else if (is_alnum(c) || (c == '-' && label > 0)) {
            if (++label > 63)
                return false;
        } else {
            return false;
        }
    }
    return true;
}

/* Addresses as people write them: a dot-atom local part (RFC 5322, no
 * quoting or comments), '@', and a host name. */
static bool is_email(const char *s)
{
    static const char ATEXT[] = "!#$%&'*+/=?^_`{|}~-";
    const char *at = strchr(s, '@');
    if (!at || at == s || at - s > 64 || strlen(s) > 254)
        return false;
    for (const char *p = s; p < at; p++) {
        bool dot_ok = *p == '.' && p > s && p + 1 < at && p[1] != '.';
        if (!is_alnum(*p) && !in_set(ATEXT, *p) && !dot_ok)
            return false;
    }
    return is_host_name(at + 1, strlen(at + 1));
}

/* RFC 3986 character sets. */
static bool is_unreserved(char c)
{
    return is_alnum(c) || in_set("-._~", c);
}

static bool is_sub_delim(char c)
{
    return in_set("!$&'()*+,;=", c);
}

/* Accepts chars that are unreserved, sub-delims, in `extra`, or a %HH
 * escape, from s up to `end`; returns where it stopped. */
static const char *skip_uri_chars(const char *s, const char *end,
                                  const char *extra)
{
    while (s < end) {
        if (*s == '%' && end - s >= 3 && isxdigit((unsigned char)s[1])
            && isxdigit((unsigned char)s[2]))
            s += 3;
        else if (is_unreserved(*s) || is_sub_delim(*s)
                 || in_set(extra, *s))
            s++;
        else
            break;
    }
    return s;
}

/* authority = [userinfo "@"] host [":" port], host possibly "[IP]". */
static bool is_uri_authority(const char *s, const char *end)
{
    const char *at = memchr(s, '@', (size_t)(end - s));
    if (at) {
        if (skip_uri_chars(s, at, ":") != at)
            return false;
        s = at + 1;
    }
    if (*s == '[') {
        const char *close = memchr(s, ']', (size_t)(end - s));
        if (!close || close == s + 1)
            return false;
        for (const char *p = s + 1; p < close; p++)
            if (!isxdigit((unsigned char)*p) && !in_set(":.vV", *p))
                return false;
        s = close + 1;
    } else {
        s = skip_uri_chars(s, end, "");
    }
    if (s < end && *s == ':')
        for (s++; s < end && isdigit((unsigned char)*s); s++)
            ;
    return s == end;
}

/* An absolute URI (RFC 3986 "URI"): scheme ":" hier-part [?query] [#frag]. */
static bool is_uri(const char *s)
{
    if (!is_alpha(*s))
        return false;
    while (is_alnum(*s) || in_set("+-.", *s))
        s++;
    if (*s != ':')
        return false;
    s++;
    if (s[0] == '/' && s[1] == '/') {
        const char *end = s + 2 + strcspn(s + 2, "/?#");
        if (!is_uri_authority(s + 2, end))
            return false;
        s = end;
    }
    const char *end = s + strlen(s);
    s = skip_uri_chars(s, end, ":@/?"); /* path and query */
    if (*s == '#')
        s = skip_uri_chars(s + 1, end, ":@/?");
    return *s == '\0';
}

static const struct {
    const char *name;
    const char *noun;
    bool (*check)(const char *s);
} FORMATS[] = {
    {"date-time", "date-time", is_date_time},
    {"email", "email address", is_email},
    {"uri", "URI", is_uri},
};

static int format_index(const char *format)
{
    for (size_t i = 0; i < sizeof FORMATS / sizeof FORMATS[0]; i++)
        if (strcmp(FORMATS[i].name, format) == 0)
            return (int)i;
    return -1;
}

bool cube_schema_format_known(const char *format)
{
    return format_index(format) >= 0;
}

bool cube_schema_format_ok(const char *format, const char *s)
{
    int i = format_index(format);
    return i < 0 || FORMATS[i].check(s);
}

const char *cube_schema_format_noun(const char *format)
{
    int i = format_index(format);
    return i < 0 ? format : FORMATS[i].noun;
}
