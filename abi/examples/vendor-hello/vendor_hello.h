/* vendor_hello.h — what the example's two files share. */
#ifndef VENDOR_HELLO_H
#define VENDOR_HELLO_H

#include <cjson/cJSON.h>
#include <cube/cube.h>

struct vendor_hello {
    const struct cube_host *host;
    cube_plugin *self;
    char greeting[65];
    char notify_url[512];    /* "" : greet without a webhook */
    cube_watch *watch;       /* the Project watch, from start to stop */
};

/* notify.c: the Project watch (start/stop), the token route, and the
 * greeted projects added to GET /api/v1/vendor-hello's answer. */
int vh_notify_start(struct vendor_hello *v);
void vh_notify_stop(struct vendor_hello *v);
int vh_set_token(void *state, cube_req *req);
void vh_add_notices(struct vendor_hello *v, cJSON *doc);

#endif
