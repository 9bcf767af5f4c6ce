/* clock.h — the monotonic clock. */
#ifndef CUBE_CLOCK_H
#define CUBE_CLOCK_H

#include <stdint.h>

/* Monotonic clock in nanoseconds. */
uint64_t cube_now_ns(void);

#endif
