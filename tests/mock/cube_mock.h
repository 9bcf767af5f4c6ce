/* cube_mock.h — a fake Cube host for plugin unit tests (no cubed needed).
 *
 * It implements the whole struct cube_host: routes are kept in a table and
 * called through cube_mock_request; responses are captured; timers and
 * submitted work run only when the test calls cube_mock_run_timers, so tests
 * are deterministic; metrics keep their last values per label set. */
#ifndef CUBE_MOCK_H
#define CUBE_MOCK_H

#include <stddef.h>

#include <cube/cube.h>

struct cube_mock_response {
    int status;          /* 0 when the handler did not answer */
    char *content_type;
    char *body;          /* NUL-terminated; for streams, everything read */
    size_t body_len;
    int handler_rc;
    int streamed;
};

/* Creates the fake host and plugin handle. config_json may be NULL ("{}");
 * it is used as given (the mock does not apply schema defaults). */
const struct cube_host *cube_mock_host(const char *config_json, cube_plugin **self);
/* Calls desc->init and checks nothing else; returns init's result. */
int cube_mock_init(const struct cube_plugin_desc *desc, const char *config_json,
                   void **state);
/* Finds the route for method+path (templates with {params}), builds a
 * request with the given query ("a=1&b=2" or NULL), one "Name: value"
 * header (or NULL) and body (or NULL), runs the handler and returns what
 * it answered. For a stream, reads until END/ERROR, running timers between
 * reads whenever read returns 0 (at most `max_idle_rounds` times). */
struct cube_mock_response cube_mock_request(const char *method, const char *path,
                                            const char *query, const char *header,
                                            const char *body);
/* Runs every due timer and submitted task once. Returns how many ran. */
int cube_mock_run_timers(void);
/* The value of a metric for a label set (label values joined by ','), or
 * -1 when unknown. */
double cube_mock_metric(const char *name, const char *labels);
/* The last log line the plugin wrote, or "". */
const char *cube_mock_last_log(void);
/* The message of the last set_error, or "". */
const char *cube_mock_last_error(void);
/* Number of routes registered. */
int cube_mock_route_count(void);
void cube_mock_response_free(struct cube_mock_response *r);
/* Calls fini (if any) with state and forgets everything. */
void cube_mock_reset(const struct cube_plugin_desc *desc, void *state);

#endif
