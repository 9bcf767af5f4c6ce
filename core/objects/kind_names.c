/* kind_names.c — what people read for a kind (cube_kind_desc's since-1.5
 * display members): checked and copied at registration, derived from the
 * kind's CamelCase name where a plugin gave none. */
#include "kinds.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DISPLAY_MAX 63

/* NULL or at most DISPLAY_MAX bytes with no control characters. */
static int display_ok(const char *s)
{
    if (!s)
        return 1;
    size_t n = strlen(s);
    if (n == 0 || n > DISPLAY_MAX)
        return 0;
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return 0;
    return 1;
}

/* "PipelineRun" -> "Pipeline run": words split before capitals that
 * follow a lowercase letter or digit; later words in lowercase. */
static char *words_of(const char *camel, int plural)
{
    size_t n = strlen(camel);
    char *out = malloc(2 * n + 2);
    if (!out)
        return NULL;
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)camel[i];
        if (i > 0 && isupper(c) && (islower((unsigned char)camel[i - 1]) ||
                                    isdigit((unsigned char)camel[i - 1]))) {
            out[o++] = ' ';
            out[o++] = (char)tolower(c);
        } else
            out[o++] = (char)c;
    }
    if (plural)
        out[o++] = 's';
    out[o] = '\0';
    return out;
}

static int dup_or_null(char **dst, const char *src)
{
    *dst = src ? strdup(src) : NULL;
    return src && !*dst ? -1 : 0;
}

int cube_kind_names_fill(struct cube_kind *k, const struct cube_kind_desc *d, char *err,
                         size_t errlen)
{
    const struct { const char *field, *value; } in[] = {
        {"display_name", d->display_name},   {"display_plural", d->display_plural},
        {"display_name_zh", d->display_name_zh}, {"display_plural_zh", d->display_plural_zh},
        {"group_zh", d->group_zh},
    };
    for (size_t i = 0; i < sizeof in / sizeof in[0]; i++)
        if (!display_ok(in[i].value)) {
            snprintf(err, errlen, "%s: 1 to %d bytes without control characters",
                     in[i].field, DISPLAY_MAX);
            return CUBE_EINVAL;
        }
    k->display_name = d->display_name ? strdup(d->display_name) : words_of(k->kind, 0);
    k->display_plural = d->display_plural ? strdup(d->display_plural) : words_of(k->kind, 1);
    if (!k->display_name || !k->display_plural ||
        dup_or_null(&k->display_name_zh, d->display_name_zh) < 0 ||
        dup_or_null(&k->display_plural_zh, d->display_plural_zh) < 0 ||
        dup_or_null(&k->group_zh, d->group_zh) < 0) {
        snprintf(err, errlen, "out of memory");
        return CUBE_ENOMEM;
    }
    return CUBE_OK;
}

void cube_kind_names_free(struct cube_kind *k)
{
    free(k->display_name), free(k->display_plural);
    free(k->display_name_zh), free(k->display_plural_zh), free(k->group_zh);
}

void cube_kind_names_json(const struct cube_kind *k, cJSON *o)
{
    const char *zh_name = k->display_name_zh ? k->display_name_zh : k->display_name;
    const char *zh_plural = k->display_plural_zh ? k->display_plural_zh : k->display_plural;
    cJSON_AddStringToObject(o, "displayName", k->display_name);
    cJSON_AddStringToObject(o, "displayPlural", k->display_plural);
    cJSON_AddStringToObject(o, "displayNameZh", zh_name);
    cJSON_AddStringToObject(o, "displayPluralZh", zh_plural);
    if (k->group_zh)
        cJSON_AddStringToObject(o, "groupZh", k->group_zh);
}
