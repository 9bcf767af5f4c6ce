/* fetchprobe.h — the fetch probe shared by the plugin (fetchprobe.c) and
 * the fake host's test (test_mock_fetch.c). */
#ifndef FETCHPROBE_H
#define FETCHPROBE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include <cube/cube.h>

struct probe_args {
    const char *url, *method, *body, *auth;
    uint32_t timeout_ms;
    uint64_t max_bytes;
    int redirects, stream, cancel_ms;   /* cancel_ms < 0: wait for done */
};

/* What the callbacks saw. */
struct probe_run {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pthread_t caller;
    int finished, error, status, chunks, late, cancel_rc, cancel_returned, other_thread;
    char message[1024], content_type[128];
    char body[8192];
    size_t body_len, total;
};

/* Runs one fetch and waits for it (or cancels it after cancel_ms). Returns
 * CUBE_OK, or fetch's own refusal. */
int probe_fetch(const struct cube_host *host, cube_plugin *self, struct probe_run *r,
                const struct probe_args *a);
/* The run as JSON (malloc'd). */
char *probe_json(const struct probe_run *r);

#endif
