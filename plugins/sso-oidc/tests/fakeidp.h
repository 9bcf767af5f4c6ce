/* fakeidp.h — a test-only OpenID provider stand-in: an HTTP/1.1 server on
 * a loopback port, in a thread, answering the discovery document, the JWK
 * Set and the token endpoint with bodies the test sets, and recording
 * what the plugin sent. One connection at a time. */
#ifndef FAKEIDP_H
#define FAKEIDP_H

#include <pthread.h>

struct fakeidp {
    int fd, port, stop;
    pthread_t thread;
    pthread_mutex_t mu;
    char issuer[64];
    char *discovery, *jwks, *token; /* bodies (owned) */
    int discovery_status, jwks_status, token_status;
    int jwks_hits, token_hits;
    char last_form[4096], last_auth[512]; /* the last token request */
};

/* Starts the server; issuer is http://127.0.0.1:<port>; the discovery
 * document points at /authorize, /token and /jwks. 0 or -1. */
int fakeidp_start(struct fakeidp *f);
void fakeidp_stop(struct fakeidp *f);
/* Replaces a body (copied) and status: which is "discovery", "jwks" or "token". */
void fakeidp_set(struct fakeidp *f, const char *which, int status, const char *body);

#endif
