/* yaml_scalar.c — plain scalars under the YAML 1.2 core schema, and which
 * strings a writer must quote; see cube/util/yaml.h. */
#include <cube/util/yaml.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "yaml_internal.h"

static int is_one_of(const char *s, const char *const *words)
{
    for (; *words; words++)
        if (!strcmp(s, *words))
            return 1;
    return 0;
}

/* 1 when s is non-empty and every byte of it is in set. (A loop: GCC's
 * -Wstringop-overread misreads strspn/strlen here under the sanitizers.) */
static int all_of(const char *s, const char *set)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (!strchr(set, *s))
            return 0;
    return 1;
}

/* [-+]? ( \. [0-9]+ | [0-9]+ ( \. [0-9]* )? ) ( [eE] [-+]? [0-9]+ )? */
static int is_core_float(const char *s)
{
    if (*s == '-' || *s == '+')
        s++;
    size_t n = strspn(s, "0123456789");
    s += n;
    if (*s == '.') {
        size_t frac = strspn(s + 1, "0123456789");
        if (!n && !frac)
            return 0;
        s += 1 + frac;
    } else if (!n) {
        return 0;
    }
    if (*s == 'e' || *s == 'E') {
        s++;
        if (*s == '-' || *s == '+')
            s++;
        return all_of(s, "0123456789");
    }
    return *s == '\0';
}

static double radix_value(const char *digits, int base)
{
    double v = 0;
    for (; *digits; digits++) {
        int d = *digits <= '9' ? *digits - '0' : (*digits | 0x20) - 'a' + 10;
        v = v * base + d;
    }
    return v;
}

static const char *const NULLS[] = {"", "~", "null", "Null", "NULL", 0};
static const char *const TRUES[] = {"true", "True", "TRUE", 0};
static const char *const FALSES[] = {"false", "False", "FALSE", 0};
static const char *const INFS[] = {".inf", ".Inf", ".INF", 0};
static const char *const NANS[] = {".nan", ".NaN", ".NAN", 0};

/* A non-finite number: ±.inf, .nan (what JSON cannot carry). */
static cJSON *nonfinite_node(const char *s, int allowed, int *refused)
{
    if (!allowed) {
        *refused = 1;
        return NULL;
    }
    cJSON *n = cJSON_CreateNumber(0);
    if (n)
        n->valuedouble = is_one_of(s, NANS) ? NAN : *s == '-' ? -INFINITY : INFINITY;
    return n;
}

cJSON *cu_yaml_resolve_plain(const char *s, int nonfinite, int *refused)
{
    const char *u = (*s == '-' || *s == '+') ? s + 1 : s;
    *refused = 0;
    if (is_one_of(s, NULLS))
        return cJSON_CreateNull();
    if (is_one_of(s, TRUES) || is_one_of(s, FALSES))
        return cJSON_CreateBool(is_one_of(s, TRUES));
    if (!strncmp(s, "0x", 2) && all_of(s + 2, "0123456789abcdefABCDEF"))
        return cJSON_CreateNumber(radix_value(s + 2, 16));
    if (!strncmp(s, "0o", 2) && all_of(s + 2, "01234567"))
        return cJSON_CreateNumber(radix_value(s + 2, 8));
    if (is_one_of(u, INFS) || is_one_of(s, NANS))
        return nonfinite_node(s, nonfinite, refused);
    if (is_core_float(s))
        return cJSON_CreateNumber(strtod(s, NULL));
    return cJSON_CreateString(s);
}

/* YAML 1.1 also reads 1_000, 0b101, 1:30 (base 60) and dates as
 * non-strings; anything close to those is quoted on output. */
static int old_number_or_date(const char *s)
{
    const char *d = (*s == '-' || *s == '+') ? s + 1 : s;
    if (strspn(s, "0123456789") == 4 && s[4] == '-')
        return 1;
    if (!((*d >= '0' && *d <= '9') || (*d == '.' && d[1] >= '0' && d[1] <= '9')))
        return 0;
    return strspn(d, "0123456789_:.eE+-xXoObBabcdefABCDEF") == strlen(d);
}

int cu_yaml_plain_is_string(const char *s)
{
    /* YAML 1.1 readers (still common) take these as booleans. */
    static const char *const OLD_BOOLS[] = {"y", "Y", "yes", "Yes", "YES",
        "n", "N", "no", "No", "NO", "on", "On", "ON", "off", "Off", "OFF", 0};
    int refused;   /* .inf and .nan, with either sign: not strings */
    if (is_one_of(s, OLD_BOOLS) || old_number_or_date(s))
        return 0;
    cJSON *v = cu_yaml_resolve_plain(s, 0, &refused);
    int str = v && cJSON_IsString(v);
    cJSON_Delete(v);
    return str;
}
