/* sockaddr.h — socket addresses from numeric hosts. */
#ifndef CUBE_SOCKADDR_H
#define CUBE_SOCKADDR_H

#include <sys/socket.h>

/* Fills *ss and *len for the numeric IPv4 or IPv6 address host and port
 * (no name lookup). 0, or -1 with errno EINVAL when host is neither. */
int cube_sockaddr_numeric(const char *host, unsigned port, struct sockaddr_storage *ss,
                          socklen_t *len);

#endif
