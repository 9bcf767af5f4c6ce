/* cube/util/queue.h — a bounded work queue with its own worker threads
 * (libcube-util; not part of the ABI).
 *
 * Items are opaque pointers. Ownership: cu_queue_push takes an item only
 * when it returns 0; from then on the queue hands it to exactly one call
 * of run (on a worker thread) or, when stopped without draining, of left
 * (on the stopping thread). The queue never frees an item itself. run is
 * called with no lock held and may block; several workers run items
 * concurrently, in no promised order across workers (one worker: FIFO).
 *
 * Threads: push may be called from any thread, also from run; stop from
 * any thread but a worker, once. */
#ifndef CUBE_UTIL_QUEUE_H
#define CUBE_UTIL_QUEUE_H

#include <stddef.h>

struct cu_queue;

/* What a worker does with an item; ctx is the one given to cu_queue_new. */
typedef void (*cu_queue_fn)(void *ctx, void *item);

/* A queue holding at most cap items (cap >= 1) with workers threads
 * (1 to 64) calling run. Returns NULL (errno set) when it cannot start. */
struct cu_queue *cu_queue_new(size_t cap, int workers, cu_queue_fn run, void *ctx);
/* Queues item without waiting. Returns 0, or -1 when the queue is full
 * (errno EAGAIN) or stopping (errno ESHUTDOWN): the caller keeps item and
 * may do the work itself. */
int cu_queue_push(struct cu_queue *q, void *item);
/* Queues item, waiting while the queue is full. Returns 0, or -1 (errno
 * ESHUTDOWN) when it is stopping: the caller keeps item. */
int cu_queue_push_wait(struct cu_queue *q, void *item);
/* Items queued and not yet taken by a worker. */
size_t cu_queue_length(struct cu_queue *q);
/* Stops the workers and frees q. drain: the workers run every queued item
 * first; else each item not yet taken goes to left (when not NULL) on this
 * thread. Items being run finish first either way. NULL q: nothing. */
void cu_queue_stop(struct cu_queue *q, int drain, cu_queue_fn left);

#endif
