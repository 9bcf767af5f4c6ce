/* objects_priv.h — helpers shared by the objects_*.c files only. */
#ifndef CUBE_OBJECTS_PRIV_H
#define CUBE_OBJECTS_PRIV_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "objects.h"

/* Current UTC time as RFC 3339 with milliseconds into buf (>= 32 bytes). */
void cube_obj_now(char *buf, size_t len);
/* A random (version 4) UUID into buf (>= 37 bytes). */
void cube_obj_new_uid(char *buf);
/* The concatenation of parts[0..n) into buf, truncated to len - 1 bytes
 * as snprintf would; the length written. */
size_t cube_obj_join(char *buf, size_t len, const char *const *parts, size_t n);
/* v in decimal, written at the end of buf; returns where it starts. */
char *cube_obj_i64(int64_t v, char buf[24]);
/* Reads the stored object's JSON text (new string; cache first). */
int cube_obj_load_text(struct cube_ctx *ctx, const struct cube_kind *k,
                       const char *project, const char *name, char **text,
                       int64_t *rv, struct cube_op_error *e);
/* As cube_obj_load_text; stripe_held: the caller holds the object's write
 * stripe already (the lock is not recursive). */
int cube_obj_load_text2(struct cube_ctx *ctx, const struct cube_kind *k,
                        const char *project, const char *name, char **text,
                        int64_t *rv, int stripe_held, struct cube_op_error *e);
/* Reads the stored object into a new tree (and its rv). */
int cube_obj_load(struct cube_ctx *ctx, const struct cube_kind *k,
                  const char *project, const char *name, cJSON **out,
                  int64_t *rv, struct cube_op_error *e);
/* Writes a complete object with a fresh rv (create or conditional update),
 * publishes the watch event, records the audit event and queues the
 * controllers. On success *obj has its new resourceVersion and, when text
 * is not NULL, *text the object as stored (JSON text, malloc'd). */
int cube_obj_commit(struct cube_ctx *ctx, const struct cube_kind *k,
                    const char *project, cJSON *obj, int create,
                    int64_t expected_rv, const char *verb,
                    const struct cube_actor *who, char **text,
                    struct cube_op_error *e);
/* cube_obj_commit with event (JSON text, cube_obj_event_doc) recorded in
 * the same store write instead of the audit event; NULL: the audit one. */
int cube_obj_commit_event(struct cube_ctx *ctx, const struct cube_kind *k,
                          const char *project, cJSON *obj, int create,
                          int64_t expected_rv, const char *verb,
                          const struct cube_actor *who, const char *event,
                          char **text, struct cube_op_error *e);
/* The lock stripe of one object (see cube_ctx.obj_locks). */
pthread_mutex_t *cube_obj_stripe(struct cube_ctx *ctx, const char *kind,
                                 const char *project, const char *name);
/* item as JSON text, byte for byte what cJSON_PrintUnformatted gives,
 * with less work (new string; NULL where cJSON fails too). */
char *cube_obj_print(const cJSON *item);
/* The audit/plugin event about an object as JSON text (new string). */
char *cube_obj_event_doc(const struct cube_kind *k, const char *project,
                         const char *name, const char *uid, const char *verb,
                         const char *user, int result, const char *type,
                         const char *reason, const char *message);
/* "what" for messages: "widgets/foo". */
void cube_obj_what(const struct cube_kind *k, const char *name, char *buf,
                   size_t len);

#endif
