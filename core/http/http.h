/* http.h — the HTTP server (libmicrohttpd; an epoll loop per HTTP thread,
 * http_loop.h). */
#ifndef CUBE_HTTP_SERVER_H
#define CUBE_HTTP_SERVER_H

struct cube_ctx;
struct cube_http;

/* Binds and starts serving ctx's router. Returns 0, or -1 with the reason
 * logged (address in use, TLS files unreadable ...). */
int cube_http_start(struct cube_ctx *ctx);
/* The bound TCP port (useful with port 0). */
int cube_http_port(const struct cube_http *http);
/* Graceful stop: stop accepting, end parked streams, wait up to
 * `grace_ms` for in-flight requests, then close everything and free. */
void cube_http_stop(struct cube_ctx *ctx, unsigned grace_ms);

#endif
