/* utf8.h — UTF-8 sequences and quoting bytes for messages. */
#ifndef CUBE_UTF8_H
#define CUBE_UTF8_H

#include <stddef.h>

/* Length of the valid UTF-8 sequence at s (lead byte >= 0x80), or 0 when
 * invalid (overlongs, surrogates, past U+10FFFF). s must hold 4 readable
 * bytes or a NUL before the end. */
size_t cube_utf8_seq_len(const unsigned char *s);
/* Writes s (n bytes) into out as a double-quoted string for messages,
 * escaping quotes, backslashes and control bytes, cut with "..." when out
 * is too small. */
void cube_quote_n(char *out, size_t outlen, const char *s, size_t n);

#endif
