/* config_apps.c — cube.yaml's keys for the apps origin (see apps.h):
 *   apps_listen: "host:port"   where the apps listener binds
 *   apps_origin: "https://apps.cube.example" or a per-object template
 *                "https://{name}--{project}.apps.cube.example"
 *   console_origin: "https://cube.example"
 * An origin is a scheme (http or https), a host name or [v6] address and an
 * optional port: no path, query, fragment or user part. Only apps_origin's
 * host may hold the {project} and {name} placeholders. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_priv.h"

/* Skips a placeholder at s when allowed; its length, else 0. */
static size_t placeholder(const char *s, int allow)
{
    if (!allow)
        return 0;
    if (!strncmp(s, "{project}", 9))
        return 9;
    if (!strncmp(s, "{name}", 6))
        return 6;
    return 0;
}

/* NULL when s is an origin as described above (a trailing "/" allowed),
 * else what is wrong with it. */
static const char *origin_problem(const char *s, int allow_template)
{
    const char *h = !strncmp(s, "https://", 8) ? s + 8 : !strncmp(s, "http://", 7) ? s + 7 : NULL;
    if (!h)
        return "must start with http:// or https://";
    if (*h == '[') {
        const char *end = strchr(h, ']');
        if (!end || end == h + 1 || strspn(h + 1, "0123456789abcdefABCDEF:.") != (size_t)(end - h - 1))
            return "a bracketed host must be an IPv6 address";
        h = end + 1;
    } else {
        size_t n = 0;
        while (h[n] && h[n] != ':' && h[n] != '/') {
            size_t ph = placeholder(h + n, allow_template);
            if (ph) {
                n += ph;
                continue;
            }
            if (!isalnum((unsigned char)h[n]) && h[n] != '.' && h[n] != '-')
                return allow_template ? "the host may hold letters, digits, '.', '-', "
                                        "{project} and {name} only"
                                      : "the host may hold letters, digits, '.' and '-' only";
            n++;
        }
        if (!n)
            return "the host is missing";
        h += n;
    }
    if (*h == ':') {
        size_t d = strspn(h + 1, "0123456789");
        long port = d && d <= 5 ? strtol(h + 1, NULL, 10) : 0;
        if (port < 1 || port > 65535)
            return "the port must be a number from 1 to 65535";
        h += 1 + d;
    }
    if (*h == '/' && !h[1])
        return NULL;
    return *h ? "an origin has no path, query or user part (scheme://host[:port])" : NULL;
}

static int take_origin(const struct cube_yaml_doc *doc, struct cube_errs *errs,
                       const cJSON *v, const char *path, int allow_template, char **dst)
{
    const char *bad = cJSON_IsString(v) && strlen(v->valuestring) <= 255
                          ? origin_problem(v->valuestring, allow_template)
                          : "expected a string of at most 255 characters";
    if (bad) {
        cube_config_err_at(errs, doc, v, 0, "%s: %s", path, bad);
        return -1;
    }
    char *copy = strdup(v->valuestring);
    if (!copy) {
        cube_config_err_at(errs, doc, v, 0, "out of memory");
        return -1;
    }
    size_t n = strlen(copy);
    if (copy[n - 1] == '/')
        copy[n - 1] = '\0';
    free(*dst);
    *dst = copy;
    return 0;
}

static int take_listen(struct cube_config *cfg, const struct cube_yaml_doc *doc,
                       struct cube_errs *errs, const cJSON *v, const char *path)
{
    int rc = cJSON_IsString(v) ? cube_config_parse_listen(v->valuestring, &cfg->apps_listen_host,
                                                          &cfg->apps_listen_port)
                               : -1;
    if (rc == -2)
        cube_config_err_at(errs, doc, v, 0, "out of memory");
    if (rc == -1)
        return cube_config_expected(errs, doc, v, path, "\"host:port\"");
    cfg->apps_listen_set = rc == 0;
    return rc;
}

int cube_config_apps_key(struct cube_config *cfg, const struct cube_yaml_doc *doc,
                         struct cube_errs *errs, const cJSON *v, const char *path)
{
    if (!strcmp(path, "apps_listen"))
        return take_listen(cfg, doc, errs, v, path);
    if (!strcmp(path, "apps_origin"))
        return take_origin(doc, errs, v, path, 1, &cfg->apps_origin);
    return take_origin(doc, errs, v, path, 0, &cfg->console_origin);
}
