/* stub.c — placeholders until the pipeline library lands: every call fails. */
#include <stdio.h>

#include "args.h"
#include "cron.h"
#include "tmpl.h"

pl_cron *pl_cron_parse(const char *expr, char *err, size_t errlen)
{
    (void)expr;
    snprintf(err, errlen, "cron expressions are not supported yet");
    return NULL;
}
void pl_cron_free(pl_cron *c) { (void)c; }
pl_tz *pl_tz_load(const char *name, char *err, size_t errlen)
{
    (void)name;
    snprintf(err, errlen, "time zones are not supported yet");
    return NULL;
}
void pl_tz_free(pl_tz *tz) { (void)tz; }
int64_t pl_cron_next(const pl_cron *c, const pl_tz *tz, int64_t after)
{
    (void)c, (void)tz, (void)after;
    return -1;
}
char *pl_tmpl_render(const char *src, const cJSON *vars, char *err, size_t errlen)
{
    (void)src, (void)vars;
    snprintf(err, errlen, "templates are not supported yet");
    return NULL;
}
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
