/* cube/util/endpoint.h — the "host:port" of a replica's endpoint (ABI 1.5,
 * cube_host.replica_endpoints), checked and split the way cubed does
 * (libcube-util; not part of the ABI). Executors check what they report,
 * plugins split what they read from a Job's status.replicas[i].endpoints. */
#ifndef CUBE_UTIL_ENDPOINT_H
#define CUBE_UTIL_ENDPOINT_H

#include <stddef.h>

#include <cjson/cJSON.h>

/* Longest "host:port" accepted, in bytes (the NUL excluded). */
#define CU_HOSTPORT_MAX 299

/* Splits "host:port" or "[v6]:port" into host (brackets dropped, hlen
 * bytes at most with its NUL; *v6 (may be NULL) set to 1 when bracketed)
 * and *port (1..65535). 0, or -1 when hp is neither; host is then
 * unchanged. No name is looked up. */
int cu_hostport_split(const char *hp, char *host, size_t hlen, unsigned *port, int *v6);
/* 1 when hp is "host:port" whose host is a numeric IPv4 address, a
 * bracketed IPv6 address or a DNS name (labels of letters, digits and
 * inner '-', at most 253 bytes, the last label not all digits), at most
 * CU_HOSTPORT_MAX bytes. */
int cu_hostport_ok(const char *hp);
/* 1 when o is an endpoints object as replica_endpoints takes it: at most
 * `max` members, each name a DNS label given once, each value a string
 * cu_hostport_ok accepts. */
int cu_endpoints_ok(const cJSON *o, int max);

#endif
