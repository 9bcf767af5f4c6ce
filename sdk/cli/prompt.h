/* prompt.h — reading secrets (tokens, passwords) from standard input. */
#ifndef CUBECTL_PROMPT_H
#define CUBECTL_PROMPT_H

#include <stddef.h>

/* Reads one line from stdin into out (the line end dropped). On a
 * terminal, prompt goes to stderr first and echo is off meanwhile.
 * Returns 0 (an empty line, or end of input, leaves out ""), or -1 on a
 * read error. */
int prompt_secret(const char *prompt, char *out, size_t outlen);
/* 1 when stdin is a terminal. */
int prompt_is_tty(void);

#endif
