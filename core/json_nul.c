/* json_nul.c — see json_nul.h. The text is scanned for escapes whose
 * backslash is not itself escaped; to name the field, a copy with each
 * one turned into U+FFFF (a noncharacter, the same six bytes) is parsed
 * and searched. */
#include "json_nul.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#define MARK "\xef\xbf\xbf"   /* U+FFFF as UTF-8 */

/* The next real \u0000 escape at or after from, or NULL. */
static char *next_escape(const char *text, const char *from)
{
    for (const char *p = strstr(from, "\\u0000"); p; p = strstr(p + 1, "\\u0000")) {
        size_t slashes = 0;
        for (const char *q = p; q > text && q[-1] == '\\'; q--)
            slashes++;
        if (slashes % 2 == 0)
            return (char *)p;
    }
    return NULL;
}

/* Appends ".key" or "[i]" to path (at used); returns the new length. */
static size_t step(char *path, size_t len, size_t used, const cJSON *item, int i)
{
    int n;
    if (item->string) {
        const char *mark = strstr(item->string, MARK);   /* a key shows up to it */
        size_t k = mark ? (size_t)(mark - item->string) : strlen(item->string);
        n = snprintf(path + used, len - used, "%s%.*s", used ? "." : "", (int)k, item->string);
    } else {
        n = snprintf(path + used, len - used, "[%d]", i);
    }
    return n < 0 || (size_t)n >= len - used ? len - 1 : used + (size_t)n;
}

/* Finds the first key or string value holding the mark under node. */
static int find_mark(const cJSON *node, char *path, size_t len, size_t used)
{
    const cJSON *c;
    int i = 0;
    for (c = node->child; c; c = c->next, i++) {
        size_t here = step(path, len, used, c, i);
        if ((c->string && strstr(c->string, MARK)) ||
            (cJSON_IsString(c) && strstr(c->valuestring, MARK)) ||
            ((cJSON_IsObject(c) || cJSON_IsArray(c)) && find_mark(c, path, len, here)))
            return 1;
        path[used] = '\0';
    }
    return 0;
}

int cube_json_nul_path(const char *text, char *path, size_t len)
{
    if (len)
        path[0] = '\0';
    if (!next_escape(text, text))
        return 0;
    char *copy = strdup(text);
    for (char *p = copy ? next_escape(copy, copy) : NULL; p; p = next_escape(copy, p + 6))
        memcpy(p, "\\uffff", 6);
    cJSON *doc = copy ? cJSON_Parse(copy) : NULL;
    if (doc && len && !find_mark(doc, path, len, 0))
        path[0] = '\0';
    cJSON_Delete(doc);
    free(copy);
    return 1;
}
