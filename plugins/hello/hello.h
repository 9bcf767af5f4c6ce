/* hello.h — shared between the hello plugin's files. */
#ifndef CUBE_HELLO_H
#define CUBE_HELLO_H

#include <pthread.h>

#include <cube/cube.h>

struct hello {
    const struct cube_host *host;
    cube_plugin *self;
    cube_metric *greetings;
    pthread_mutex_t mu;
    char greeting[65];     /* guarded by mu; changed by the admin route */
    int ticks;             /* events per ticks stream */
    char catalog[1100];    /* the ~1 KiB document, built once at init */
};

/* GET /api/v1/hello-ticks: streams `ticks` SSE events, one per 20 ms. */
int hello_ticks(void *state, cube_req *req);

#endif
