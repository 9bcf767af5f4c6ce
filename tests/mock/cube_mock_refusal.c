/* cube_mock_refusal.c — the fake host's ABI 1.5 obj_error: every object
 * slot of the table (installed by the other files) is wrapped so that a
 * call starts by forgetting the calling thread's refusal and a failed one
 * records it: the status and code cubed answers for its return code, the
 * reason the slot logged as the message, and the field that reason starts
 * with ("spec.image: ..."). Test-only code. */
#include "cube_mock.h"
#include "cube_mock_priv.h"

#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

static struct cube_host orig;   /* the slots wrapped */

static _Thread_local struct {
    int set;
    int rc;
    char message[512];
} last;

static void clear(void)
{
    last.set = 0;
}

static void note(int rc)
{
    if (rc == CUBE_OK)
        return;
    last.set = 1;
    last.rc = rc;
    snprintf(last.message, sizeof last.message, "%s", cube_mock_last_log());
}

static char *obj_error(cube_plugin *self)
{
    (void)self;
    if (!last.set)
        return NULL;
    static const struct { int rc, status; const char *code; } MAP[] = {
        {CUBE_EINVAL, 422, "Invalid"}, {CUBE_ENOTFOUND, 404, "NotFound"},
        {CUBE_EEXIST, 409, "AlreadyExists"}, {CUBE_ECONFLICT, 409, "Conflict"},
        {CUBE_EPERM, 403, "Forbidden"}, {CUBE_EUNAVAIL, 503, "Unavailable"},
    };
    int status = 500;
    const char *code = "InternalError";
    for (size_t i = 0; i < sizeof MAP / sizeof MAP[0]; i++)
        if (MAP[i].rc == last.rc)
            status = MAP[i].status, code = MAP[i].code;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "status", status);
    cJSON_AddStringToObject(o, "code", code);
    const char *colon = strstr(last.message, ": ");
    if (colon && !memchr(last.message, ' ', (size_t)(colon - last.message)) && colon > last.message) {
        char field[256];
        snprintf(field, sizeof field, "%.*s", (int)(colon - last.message), last.message);
        cJSON_AddStringToObject(o, "field", field);
    }
    cJSON_AddStringToObject(o, "message", last.message);
    char *text = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    return text;
}

static char *w_get(cube_plugin *s, const char *k, const char *p, const char *n, int *rc)
{
    clear();
    char *out = orig.obj_get(s, k, p, n, rc);
    note(*rc);
    return out;
}

static char *w_list(cube_plugin *s, const char *k, const char *p, const char *sel, int *rc)
{
    clear();
    char *out = orig.obj_list(s, k, p, sel, rc);
    note(*rc);
    return out;
}

static char *w_page(cube_plugin *s, const char *k, const char *p, const char *sel, unsigned lim,
                    const char *cont, int *rc)
{
    clear();
    char *out = orig.obj_list_page(s, k, p, sel, lim, cont, rc);
    note(*rc);
    return out;
}

static char *w_create(cube_plugin *s, const char *json, int *rc)
{
    clear();
    char *out = orig.obj_create(s, json, rc);
    note(*rc);
    return out;
}

static char *w_create_for(cube_plugin *s, cube_req *req, const char *json, int *rc)
{
    clear();
    char *out = orig.obj_create_for(s, req, json, rc);
    note(*rc);
    return out;
}

static char *w_update(cube_plugin *s, const char *json, int *rc)
{
    clear();
    char *out = orig.obj_update(s, json, rc);
    note(*rc);
    return out;
}

static char *w_status(cube_plugin *s, const char *k, const char *p, const char *n,
                      const char *st, const char *rv, int *rc)
{
    clear();
    char *out = orig.obj_update_status(s, k, p, n, st, rv, rc);
    note(*rc);
    return out;
}

static int w_delete(cube_plugin *s, const char *k, const char *p, const char *n)
{
    clear();
    int rc = orig.obj_delete(s, k, p, n);
    note(rc);
    return rc;
}

void mock_refusal_install(struct cube_host *h)
{
    orig = *h;
    h->obj_get = w_get;
    h->obj_list = w_list;
    h->obj_list_page = w_page;
    h->obj_create = w_create;
    h->obj_create_for = w_create_for;
    h->obj_update = w_update;
    h->obj_update_status = w_status;
    h->obj_delete = w_delete;
    h->obj_error = obj_error;
}
