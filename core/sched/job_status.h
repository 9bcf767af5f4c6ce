/* job_status.h — reading and rewriting a Job's status, shared by the Job
 * controller files (job_ctrl.c, job_exit.c, job_loop.c). */
#ifndef CUBE_JOB_STATUS_H
#define CUBE_JOB_STATUS_H

#include <stdint.h>

#include <cjson/cJSON.h>

struct cube_sched;

/* Edits a copy of the Job's status (the whole Job is given, read-only but
 * for its status); returns 0 to write it, 1 to leave it as it is, -1 on
 * error. */
typedef int (*job_edit_fn)(void *cls, const cJSON *job, cJSON *status);

/* Reads the Job, lets edit change its status and writes it back, retrying
 * on a concurrent change. 0 written or unchanged, -1 (gone, store error). */
int job_update_status(struct cube_sched *s, const char *project, const char *name,
                      job_edit_fn edit, void *cls);
/* The same, with an event (job_event_doc; NULL: none) recorded in the
 * status' store write (or alone when edit leaves the status as it is). */
int job_update_status_event(struct cube_sched *s, const char *project, const char *name,
                            job_edit_fn edit, void *cls, const char *event);
/* An event about a Job as job_event records it (new text). */
char *job_event_doc(struct cube_sched *s, const char *project, const char *name,
                    const char *type, const char *reason, const char *message);
/* The engine's id of a Job ("project/name") into buf. */
void job_id(const char *project, const char *name, char *buf, size_t len);
/* Splits "project/name" (into the buffers); -1 when malformed. */
int job_id_split(const char *id, char project[64], char name[64]);
/* status.<key> as a string, "" when absent. */
const char *job_status_str(const cJSON *job, const char *key);
/* Sets status[key] to a string / number / the current time. */
void job_set_str(cJSON *status, const char *key, const char *value);
void job_set_num(cJSON *status, const char *key, double value);
void job_set_now(cJSON *status, const char *key);
/* Records an event about a Job (type "Normal"/"Warning"). */
void job_event(struct cube_sched *s, const char *project, const char *name,
               const char *type, const char *reason, const char *message);

#endif
