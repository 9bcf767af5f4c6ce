/* utf8.c — UTF-8 sequences and quoting bytes for messages (see utf8.h). */
#include "utf8.h"

#include <stdio.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at s (lead byte >= 0x80), 0 if
 * invalid: overlongs, surrogates and code points past U+10FFFF included. */
size_t cube_utf8_seq_len(const unsigned char *s)
{
    unsigned char c = s[0], lo = 0x80, hi = 0xbf;
    size_t n;
    if (c >= 0xc2 && c <= 0xdf)
        n = 2;
    else if (c >= 0xe0 && c <= 0xef)
        n = 3;
    else if (c >= 0xf0 && c <= 0xf4)
        n = 4;
    else
        return 0;
    if (c == 0xe0)
        lo = 0xa0;
    else if (c == 0xed)
        hi = 0x9f;
    else if (c == 0xf0)
        lo = 0x90;
    else if (c == 0xf4)
        hi = 0x8f;
    if (s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < n; i++) {
        if (s[i] < 0x80 || s[i] > 0xbf)
            return 0;
    }
    return n;
}

/* Writes `s` (length n) into out as a quoted string, escaping quotes and
 * control characters and cutting it short with "..." if out is too small. */
void cube_quote_n(char *out, size_t outlen, const char *s, size_t n)
{
    size_t o = 0;
    out[o++] = '"';
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (o + 10 >= outlen) {
            memcpy(out + o, "...", 3);
            o += 3;
            break;
        }
        if (c == '"' || c == '\\')
            o += (size_t)snprintf(out + o, outlen - o, "\\%c", c);
        else if (c < 0x20 || c == 0x7f)
            o += (size_t)snprintf(out + o, outlen - o, "\\x%02x", c);
        else
            out[o++] = (char)c;
    }
    snprintf(out + o, outlen - o, "\"");
}
