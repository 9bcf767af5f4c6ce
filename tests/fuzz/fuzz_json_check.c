/* fuzz_json_check.c — libFuzzer target: the input is a request body.
 * Findings besides crashes and sanitizer reports: a body that passes the
 * check although cJSON reads it as an object or array holding a duplicate
 * name or a string (or name) that is not UTF-8, or a fault with no
 * message. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "http/json_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* An independent UTF-8 reading: decode, then reject overlong forms,
 * surrogates and code points past U+10FFFF. */
static int utf8_ok(const unsigned char *s)
{
    while (*s) {
        unsigned cp, n;
        if (*s < 0x80) {
            s++;
            continue;
        }
        if ((*s & 0xE0) == 0xC0)
            cp = *s & 0x1F, n = 1;
        else if ((*s & 0xF0) == 0xE0)
            cp = *s & 0x0F, n = 2;
        else if ((*s & 0xF8) == 0xF0)
            cp = *s & 0x07, n = 3;
        else
            return 0;
        for (unsigned i = 1; i <= n; i++) {
            if ((s[i] & 0xC0) != 0x80)
                return 0;
            cp = cp << 6 | (s[i] & 0x3F);
        }
        static const unsigned min[] = {0, 0x80, 0x800, 0x10000};
        if (cp < min[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return 0;
        s += n + 1;
    }
    return 1;
}

static int strings_ok(const cJSON *n)
{
    if (n->string && !utf8_ok((const unsigned char *)n->string))
        return 0;
    if (cJSON_IsString(n) && !utf8_ok((const unsigned char *)n->valuestring))
        return 0;
    for (const cJSON *c = n->child; c; c = c->next)
        if (!strings_ok(c))
            return 0;
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct cube_json_fault f;
    const char *text = (const char *)data;
    memset(&f, 0, sizeof f);
    if (cube_json_body_check(text, size, &f)) {
        if (!f.message[0])
            abort();
        return 0;
    }
    cJSON *root = cJSON_ParseWithLengthOpts(text, size, NULL, 0);
    if (root && (cJSON_IsObject(root) || cJSON_IsArray(root)) &&
        (cube_json_tree_check(root, &f) || !strings_ok(root)))
        abort();
    cJSON_Delete(root);
    return 0;
}
