/* config_egress.c — cube.yaml's `egress:` section, the outbound HTTP that
 * plugins do through the host (core/net/):
 *   egress:
 *     allow: ["127.0.0.1:*", "*.example.com:443"]   default []: nothing
 *     ca_file: /etc/ssl/certs/ca.pem   CA bundle for https (default: the
 *                                      system's); verification is always on
 *     proxy: "http://proxy.lan:3128"   default: none (direct); the
 *                                      environment's https_proxy is not used
 *     no_proxy: ["*.lan:*", "10.0.0.0/8:*"]  reached directly (same syntax)
 * Rules and their meaning: base/egress.h. Every bad entry is reported at its
 * file:line:col with its index. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_priv.h"

/* A list of rule patterns into *rules / *n (replacing them). */
static int take_rules(const struct cube_yaml_doc *doc, struct cube_errs *errs,
                      const cJSON *v, const char *path, struct cube_egress_rule **rules,
                      size_t *n)
{
    if (!cJSON_IsArray(v))
        return cube_config_expected(errs, doc, v, path, "a list of \"HOST:PORT\" rules");
    int count = cJSON_GetArraySize(v), bad = 0;
    struct cube_egress_rule *out = calloc((size_t)count + 1, sizeof *out);
    if (!out) {
        cube_config_err_at(errs, doc, v, 0, "out of memory");
        return -1;
    }
    size_t k = 0;
    const cJSON *item;
    cJSON_ArrayForEach(item, v) {
        const char *why = NULL;
        char at[64];
        snprintf(at, sizeof at, "%s[%zu]", path, k + (size_t)bad);
        if (!cJSON_IsString(item)) {
            cube_config_expected(errs, doc, item, at, "a \"HOST:PORT\" string");
            bad++;
        } else if (cube_egress_rule_parse(item->valuestring, &out[k], &why)) {
            char q[96];
            cube_config_quote(q, sizeof q, item->valuestring);
            cube_config_err_at(errs, doc, item, 0, "%s: %s: %s", at, q, why);
            bad++;
        } else {
            k++;
        }
    }
    if (bad) {
        cube_config_egress_free_rules(out, k);
        return -1;
    }
    cube_config_egress_free_rules(*rules, *n);
    *rules = out;
    *n = k;
    return 0;
}

static int take_text(const struct cube_yaml_doc *doc, struct cube_errs *errs,
                     const cJSON *v, const char *path, int url, char **dst)
{
    if (!cJSON_IsString(v) || !v->valuestring[0] || strlen(v->valuestring) > 1024)
        return cube_config_expected(errs, doc, v, path, "a non-empty string");
    if (url && strncmp(v->valuestring, "http://", 7) && strncmp(v->valuestring, "https://", 8)) {
        cube_config_err_at(errs, doc, v, 0, "%s: must start with http:// or https://", path);
        return -1;
    }
    char *copy = strdup(v->valuestring);
    if (!copy) {
        cube_config_err_at(errs, doc, v, 0, "out of memory");
        return -1;
    }
    free(*dst);
    *dst = copy;
    return 0;
}

int cube_config_egress_key(struct cube_config *cfg, const struct cube_yaml_doc *doc,
                           struct cube_errs *errs, const cJSON *v, const char *path)
{
    if (!cJSON_IsObject(v))
        return cube_config_expected(errs, doc, v, path, "a mapping");
    int rc = 0;
    const cJSON *m;
    cJSON_ArrayForEach(m, v) {
        char at[64];
        snprintf(at, sizeof at, "%s.%s", path, m->string);
        if (!strcmp(m->string, "allow"))
            rc |= take_rules(doc, errs, m, at, &cfg->egress_allow, &cfg->n_egress_allow);
        else if (!strcmp(m->string, "no_proxy"))
            rc |= take_rules(doc, errs, m, at, &cfg->egress_no_proxy,
                             &cfg->n_egress_no_proxy);
        else if (!strcmp(m->string, "ca_file"))
            rc |= take_text(doc, errs, m, at, 0, &cfg->egress_ca_file);
        else if (!strcmp(m->string, "proxy"))
            rc |= take_text(doc, errs, m, at, 1, &cfg->egress_proxy);
        else {
            char key[96];
            cube_config_quote(key, sizeof key, m->string);
            cube_config_err_at(errs, doc, m, 1, "%s: unknown key %s (allow, ca_file, "
                               "proxy, no_proxy)", path, key);
            rc = -1;
        }
    }
    return rc ? -1 : 0;
}

void cube_config_egress_free_rules(struct cube_egress_rule *rules, size_t n)
{
    for (size_t i = 0; rules && i < n; i++)
        cube_egress_rule_clear(&rules[i]);
    free(rules);
}
