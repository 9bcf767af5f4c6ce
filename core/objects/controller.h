/* controller.h — controllers: a work queue per kind with de-duplication,
 * rate-limited retries with exponential back-off, periodic resync, and
 * reconcile calls on host worker threads (never two at once for one
 * object). */
#ifndef CUBE_CONTROLLER_H
#define CUBE_CONTROLLER_H

struct cube_ctx;
struct cube_kind;

/* Creates queues for every kind with a reconcile or finalize callback. */
int cube_ctrl_init(struct cube_ctx *ctx);
/* Queues every stored object of those kinds once (after start) and arms
 * resync timers. */
int cube_ctrl_start(struct cube_ctx *ctx);
/* Queues one object (no-op for kinds without a controller). */
void cube_ctrl_enqueue(struct cube_ctx *ctx, const struct cube_kind *k,
                       const char *project, const char *name);
/* Queues the owners named by an object's metadata.ownerReferences. */
void cube_ctrl_enqueue_owners(struct cube_ctx *ctx, const char *project,
                              const void *object /* const cJSON * */);
/* Stops taking work and waits for running reconciles. The queues stay
 * until cube_ctrl_free: what still reports a change while plugins stop
 * (an executor's thread that hears a replica end) finds a stopped queue,
 * not freed memory. */
void cube_ctrl_shutdown(struct cube_ctx *ctx);
/* Frees the queues (after plugins are unloaded). */
void cube_ctrl_free(struct cube_ctx *ctx);

#endif
