/* cube/util/json.h — small cJSON helpers plugins share (libcube-util; not
 * part of the ABI). None allocates unless it says so; "o" may be NULL or
 * not an object everywhere (then read as empty). */
#ifndef CUBE_UTIL_JSON_H
#define CUBE_UTIL_JSON_H

#include <stddef.h>

#include <cjson/cJSON.h>
#include <cube/cube.h>

/* Member key of o when it is a string, else NULL (borrowed from o). */
const char *cu_str(const cJSON *o, const char *key);
/* cu_str, or def when the member is absent or not a string. */
const char *cu_str_or(const cJSON *o, const char *key, const char *def);
/* Member key of o when it is a number, else def. */
double cu_num(const cJSON *o, const char *key, double def);
/* 1 when member key of o is true, 0 when false, def otherwise. */
int cu_bool(const cJSON *o, const char *key, int def);
/* cu_str of o's "metadata" object (a resource's name, project, uid ...). */
const char *cu_meta(const cJSON *obj, const char *key);

/* Sets member key of o to item, replacing one there; takes item. */
void cu_set_item(cJSON *o, const char *key, cJSON *item);
/* Sets member key of o to the string v (NULL as ""). */
void cu_set_str(cJSON *o, const char *key, const char *v);
/* Sets member key of o to the number v. */
void cu_set_num(cJSON *o, const char *key, double v);

/* Parses text the host returned (obj_get, obj_list ...) and frees it with
 * host->free; NULL when text is NULL or not JSON. The caller owns the tree. */
cJSON *cu_json_take(const struct cube_host *host, char *text);
/* A name given twice in one object of v at any depth (borrowed), or NULL;
 * *oom is set when the check could not be made. */
const char *cu_json_dup_key(const cJSON *v, int *oom);

#endif
