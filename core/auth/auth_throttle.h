/* auth_throttle.h — login throttling per user name and per client address.
 *
 * Each key ("user:alice", "addr:10.0.0.7") counts consecutive failures.
 * The first `free_failures` cost nothing; after that every failure locks
 * the key for base_ms * 2^(failures - free_failures - 1), at most max_ms.
 * While a key is locked, attempts are refused before the password is
 * checked (the caller answers 429 with Retry-After). A success clears the
 * user's key (not the address's: one address guessing many users stays
 * throttled). Entries idle longer than forget_ms are dropped; the table is
 * bounded (the oldest entries go first when it is full). Thread-safe. */
#ifndef CUBE_AUTH_THROTTLE_H
#define CUBE_AUTH_THROTTLE_H

#include <stddef.h>
#include <stdint.h>

struct cube_throttle;

struct cube_throttle_cfg {
    unsigned free_failures; /* 0: 5 */
    uint64_t base_ms;       /* 0: 1000 */
    uint64_t max_ms;        /* 0: 15 minutes */
    uint64_t forget_ms;     /* 0: 1 hour */
    size_t capacity;        /* 0: 65536 keys */
};

/* NULL when out of memory. cfg NULL: every default. */
struct cube_throttle *cube_throttle_new(const struct cube_throttle_cfg *cfg);
void cube_throttle_free(struct cube_throttle *t);
/* 0 when key may try now (at time now_ms), else the milliseconds left
 * until it may. */
uint64_t cube_throttle_wait(struct cube_throttle *t, const char *key,
                            uint64_t now_ms);
/* Records a failed attempt of key at now_ms. */
void cube_throttle_fail(struct cube_throttle *t, const char *key, uint64_t now_ms);
/* Forgets key's failures (a successful login). */
void cube_throttle_clear(struct cube_throttle *t, const char *key);

#endif
