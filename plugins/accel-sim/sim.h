/* sim.h — the accel-sim plugin's files share this.
 *
 *   accel_sim.c  config, discover, pin_env, usage, init/fini
 *   sim_pin.c    ABI 1.5: pin (env, device nodes, mounts), partitions
 *                (prepare/release) and the admin routes that push device
 *                health and show partitions and the calls made */
#ifndef CUBE_ACCEL_SIM_H
#define CUBE_ACCEL_SIM_H

#include <pthread.h>

#include <cjson/cJSON.h>
#include <cube/cube.h>

struct accel_sim {
    const struct cube_host *host;
    cube_plugin *self;
    char resource[64], visible_env[65], share_env[65];
    cJSON *devices;          /* the checked device documents (read-only) */
    cJSON *mounts;           /* the checked mounts every pin gets (read-only) */
    pthread_mutex_t mu;      /* guards what follows */
    cJSON *partitions;       /* live partition id -> {"device", "job", "replica"} */
    cJSON *calls;            /* [{"op": "prepare"|"release", "request", ...}], last 256 */
    unsigned seq;            /* partition numbers */
};

/* The configured device with this id, or NULL. */
const cJSON *sim_find(const struct accel_sim *a, const char *id);
/* Answers a malloc()ed copy of doc's text in *out (doc is freed). */
int sim_answer(cJSON *doc, char **out);
/* The ids of ids_json (an array of configured ids or, with partitions,
 * live partition ids; a share is of exactly one) joined by ',' into list;
 * CUBE_OK or CUBE_EINVAL (logged). */
int sim_ids(struct accel_sim *a, const char *ids_json, double share, char *list, size_t len);

/* -- sim_pin.c ---------------------------------------------------------- */
int sim_pin(void *state, const char *ids_json, double share, char **pin_json);
int sim_prepare(void *state, const char *request_json, char **prepared_json);
int sim_release(void *state, const char *request_json, const char *prepared_json);
/* Registers the admin routes (init only). */
int sim_routes(struct accel_sim *a);

#endif
