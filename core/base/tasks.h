/* tasks.h — host worker threads and timers for background work.
 * A fixed pool of worker threads runs submitted functions and due timers.
 * One timer thread keeps a min-heap of deadlines. */
#ifndef CUBE_TASKS_H
#define CUBE_TASKS_H

#include <stdint.h>

struct cube_tasks;
struct cube_timer;

typedef void (*cube_tasks_fn)(void *a, void *b);

/* Starts `workers` threads (at least 1) and the timer thread. */
struct cube_tasks *cube_tasks_new(unsigned workers);
/* Queues fn(a, b). Returns 0, or -1 after shutdown began (fn not called). */
int cube_tasks_submit(struct cube_tasks *t, cube_tasks_fn fn, void *a, void *b);
/* Calls fn(a, b) on a worker after delay_ms, then every interval_ms (0:
 * once). A repeating timer never runs concurrently with itself. `owner`
 * groups timers for cube_tasks_cancel_owner. Returns NULL on OOM/shutdown.
 * A one-shot timer's handle is freed after its run. */
struct cube_timer *cube_tasks_timer_add(struct cube_tasks *t, uint64_t delay_ms,
                                        uint64_t interval_ms, cube_tasks_fn fn,
                                        void *a, void *b, const void *owner);
/* Cancels a timer. If its callback is running on another thread, waits for
 * it to return; if called from inside that callback, returns at once. The
 * handle is invalid afterwards. Cancelling a finished one-shot is a caller
 * bug (the contract of the ABI slot says the handle is then invalid). */
void cube_tasks_timer_cancel(struct cube_tasks *t, struct cube_timer *timer);
/* Cancels every timer registered with `owner` (as timer_cancel each). */
void cube_tasks_cancel_owner(struct cube_tasks *t, const void *owner);
/* Stops accepting work, runs what is queued, cancels all timers, joins all
 * threads. Idempotent. */
void cube_tasks_shutdown(struct cube_tasks *t);
/* Shuts down if needed and frees. */
void cube_tasks_free(struct cube_tasks *t);

#endif
