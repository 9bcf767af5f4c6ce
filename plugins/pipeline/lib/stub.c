/* stub.c — placeholders for what has not landed yet: every call fails. */
#include <stdio.h>

#include "args.h"

int pl_args_check_schema(const cJSON *schema, char *err, size_t errlen)
{
    (void)schema;
    snprintf(err, errlen, "argument schemas are not supported yet");
    return -1;
}
int pl_args_validate(const cJSON *schema, cJSON *args, char *err, size_t errlen)
{
    (void)schema, (void)args;
    snprintf(err, errlen, "argument schemas are not supported yet");
    return -1;
}
cJSON *pl_args_render(const cJSON *schema, const cJSON *args)
{
    (void)schema, (void)args;
    return NULL;
}
