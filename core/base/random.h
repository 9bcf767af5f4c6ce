/* random.h — randomness: kernel secrets and cheap unique ids. */
#ifndef CUBE_RANDOM_H
#define CUBE_RANDOM_H

#include <stddef.h>

/* Fills buf with 2*nbytes lowercase hex chars of fresh randomness and a NUL;
 * buf must hold 2*nbytes+1. Returns 0, or -1 when no randomness is available. */
int cube_random_hex(char *buf, size_t nbytes);
/* Fills buf with 2*nbytes hex chars and a NUL from a per-thread generator
 * seeded once from the kernel: unique ids (request ids), not secrets. */
void cube_id_hex(char *buf, size_t nbytes);

#endif
