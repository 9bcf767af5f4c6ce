/* statekv_api.h — the API the statekv test plugin exports to others
 * (api_export "statekv.greeter"), as a plugin vendor would ship it. */
#ifndef STATEKV_API_H
#define STATEKV_API_H

#include <stdint.h>

#define STATEKV_API_NAME "statekv.greeter"
#define STATEKV_API_VERSION 2

struct statekv_api {
    uint32_t size;                      /* sizeof(struct statekv_api) */
    /* since version 1 */
    const char *(*greet)(void);
    /* since version 2 */
    int (*calls)(void);                 /* how many times greet ran */
};

#endif
