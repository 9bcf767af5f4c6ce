/* quantity.c — see quantity.h. Parsed by hand (digits, one optional dot,
 * a suffix) so that "1e3" style and locale never surprise: strtod is used
 * only for JSON numbers, which cJSON already parsed. */
#include "quantity.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define MAX_MILLI (INT64_C(1) << 52)   /* exact in a double; 4.5e15 */

struct suffix {
    const char *name;
    double factor;
};

static const struct suffix BYTE_SUFFIXES[] = {
    {"Ki", 1024.0}, {"Mi", 1048576.0}, {"Gi", 1073741824.0},
    {"Ti", 1099511627776.0}, {"Pi", 1125899906842624.0},
    {"k", 1e3}, {"K", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}, {"P", 1e15},
    {"", 1.0}, {NULL, 0}};

/* The decimal number at the start of s ("12", "0.25", ".5"); *end past it.
 * -1 when there are no digits or more than 18 of them. */
static int decimal(const char *s, double *out, const char **end)
{
    double v = 0, scale = 1;
    int digits = 0, dot = 0;
    for (; *s; s++) {
        if (*s == '.' && !dot) {
            dot = 1;
            continue;
        }
        if (*s < '0' || *s > '9')
            break;
        if (++digits > 18)
            return -1;
        if (dot)
            scale /= 10;
        v = v * 10 + (*s - '0');
    }
    *out = v * scale;
    *end = s;
    return digits ? 0 : -1;
}

/* A number from JSON or text with a suffix from the table (NULL: only "m"
 * for milli or none). Returns the value in base units, or -1 with why. */
static int parse(const cJSON *v, const struct suffix *table, double *out, const char **why)
{
    if (cJSON_IsNumber(v)) {
        *out = v->valuedouble;
    } else if (cJSON_IsString(v)) {
        const char *end;
        if (decimal(v->valuestring, out, &end) < 0) {
            *why = "must be a number such as \"2\", \"0.5\" or \"500m\"";
            return -1;
        }
        const struct suffix *sfx = table;
        while (sfx && sfx->name && strcmp(sfx->name, end) != 0)
            sfx++;
        if (table && sfx->name)
            *out *= sfx->factor;
        else if (!table && strcmp(end, "m") == 0)
            *out /= 1000;
        else if (!table && *end == '\0')
            ;
        else {
            *why = table ? "unknown unit (use Ki, Mi, Gi, Ti, k, M, G, T or bytes)"
                         : "unknown unit (only m, for thousandths, is allowed)";
            return -1;
        }
    } else {
        *why = "must be a number or a string such as \"2\"";
        return -1;
    }
    if (!isfinite(*out) || *out < 0) {
        *why = "must not be negative";
        return -1;
    }
    return 0;
}

int cube_qty_milli(const cJSON *v, int64_t *out, const char **why)
{
    double d;
    if (parse(v, NULL, &d, why) < 0)
        return -1;
    if (d * 1000 > (double)MAX_MILLI) {
        *why = "is too large";
        return -1;
    }
    *out = (int64_t)ceil(d * 1000 - 1e-9);
    return 0;
}

int cube_qty_bytes(const cJSON *v, int64_t *out, const char **why)
{
    double d;
    if (parse(v, BYTE_SUFFIXES, &d, why) < 0)
        return -1;
    if (d > (double)MAX_MILLI * 1000) {
        *why = "is too large";
        return -1;
    }
    *out = (int64_t)ceil(d - 1e-9);
    return 0;
}

void cube_qty_format_bytes(int64_t bytes, char *out, size_t len)
{
    static const char *const UNITS[] = {"Pi", "Ti", "Gi", "Mi", "Ki"};
    for (int i = 0; i < 5; i++) {
        int64_t f = INT64_C(1) << (10 * (5 - i));
        if (bytes >= f && bytes % f == 0) {
            snprintf(out, len, "%lld%s", (long long)(bytes / f), UNITS[i]);
            return;
        }
    }
    snprintf(out, len, "%lld", (long long)bytes);
}
