/* host_refusal.c — the obj_error slot (ABI 1.5): the refusal of the last
 * object slot call a plugin made on a thread, kept per thread (one record:
 * the plugin that made the call, and the API's status, code, field and
 * message). host_objects.c and host_owner.c clear it when an object slot
 * starts and fill it when one refuses. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "host_slots.h"
#include "objects/objects.h"

static _Thread_local struct {
    const cube_plugin *self;   /* NULL: nothing refused on this thread */
    struct cube_op_error e;
} last;

void cube_host_refusal_clear(cube_plugin *self)
{
    (void)self;
    last.self = NULL;
}

void cube_host_refusal_op(cube_plugin *self, const struct cube_op_error *e)
{
    last.self = self;
    last.e = *e;
}

void cube_host_refusal_set(cube_plugin *self, int status, const char *code, const char *field,
                           const char *fmt, ...)
{
    va_list ap;
    last.self = self;
    last.e.status = status;
    snprintf(last.e.code, sizeof last.e.code, "%s", code);
    snprintf(last.e.field, sizeof last.e.field, "%s", field ? field : "");
    va_start(ap, fmt);
    vsnprintf(last.e.message, sizeof last.e.message, fmt, ap);
    va_end(ap);
}

char *cube_slot_obj_error(cube_plugin *self)
{
    if (!self || last.self != self)
        return NULL;
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON_AddNumberToObject(o, "status", last.e.status);
    cJSON_AddStringToObject(o, "code", last.e.code);
    if (last.e.field[0])
        cJSON_AddStringToObject(o, "field", last.e.field);
    cJSON_AddStringToObject(o, "message", last.e.message);
    char *text = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    return text;
}
