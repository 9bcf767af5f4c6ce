/* prompt.c — see prompt.h. */
#include "prompt.h"

#include <stdio.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

int prompt_is_tty(void)
{
    return isatty(STDIN_FILENO);
}

int prompt_secret(const char *prompt, char *out, size_t outlen)
{
    struct termios old, quiet;
    int tty = isatty(STDIN_FILENO) && tcgetattr(STDIN_FILENO, &old) == 0;
    if (tty) {
        fprintf(stderr, "%s: ", prompt);
        quiet = old;
        quiet.c_lflag &= ~(tcflag_t)ECHO;
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet);
    }
    char *got = fgets(out, (int)outlen, stdin);
    if (tty) {
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &old);
        fputc('\n', stderr);
    }
    if (!got) {
        out[0] = '\0';
        return ferror(stdin) ? -1 : 0;
    }
    out[strcspn(out, "\r\n")] = '\0';
    return 0;
}
