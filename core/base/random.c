/* random.c — randomness: kernel secrets and cheap unique ids (see random.h). */
#include "random.h"

#include <pthread.h>
#include <stdio.h>
#include <sys/random.h>
#include <unistd.h>

#include "clock.h"

int cube_random_hex(char *buf, size_t nbytes)
{
    unsigned char raw[64];
    if (nbytes > sizeof raw)
        return -1;
    if (getrandom(raw, nbytes, 0) != (ssize_t)nbytes)
        return -1;
    for (size_t i = 0; i < nbytes; i++)
        snprintf(buf + 2 * i, 3, "%02x", raw[i]);
    return 0;
}

/* splitmix64: tiny, fast, and good enough to make ids unique. */
static uint64_t next_id_word(void)
{
    static _Thread_local uint64_t state;
    static _Thread_local int seeded;
    if (!seeded) {
        if (getrandom(&state, sizeof state, 0) != (ssize_t)sizeof state)
            state = cube_now_ns() ^ (uint64_t)(uintptr_t)&state;
        seeded = 1;
    }
    uint64_t z = (state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

void cube_id_hex(char *buf, size_t nbytes)
{
    static const char hex[] = "0123456789abcdef";
    uint64_t word = 0;
    for (size_t i = 0; i < nbytes; i++) {
        if (i % 8 == 0)
            word = next_id_word();
        unsigned char b = (unsigned char)(word >> (8 * (i % 8)));
        buf[2 * i] = hex[b >> 4];
        buf[2 * i + 1] = hex[b & 15];
    }
    buf[2 * nbytes] = '\0';
}
