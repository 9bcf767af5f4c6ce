/* objects_reserved.c — what users' writes may not set: the label and
 * annotation keys under "cube.dev/" that Cube records for itself, and
 * controller ownerReferences (only Cube's controllers own objects; a
 * user's reference would let them pass a Job off as another user's task).
 * Who a Job runs as is metadata.owner, stamped by the host; these keys are
 * informational, and refusing them keeps clients from being misled. */
#include <stdio.h>
#include <string.h>

#include "objects.h"

#define RESERVED_PREFIX "cube.dev/"

int cube_actor_internal(const struct cube_actor *who)
{
    return strncmp(who->user, "plugin:", 7) == 0 || strncmp(who->user, "system:", 7) == 0;
}

int cube_owner_is_user(const char *owner)
{
    return owner && *owner && strcmp(owner, "anonymous") != 0 &&
           strncmp(owner, "plugin:", 7) != 0 && strncmp(owner, "system:", 7) != 0;
}

static int reserved_key(const char *key)
{
    return strncmp(key, RESERVED_PREFIX, sizeof RESERVED_PREFIX - 1) == 0;
}

static cJSON *meta_map(const cJSON *obj, const char *which)
{
    return cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(obj, "metadata"),
                                            which);
}

/* One map (labels or annotations): a reserved key of the body must equal
 * the stored one; stored reserved keys the body lacks are copied in. */
static int check_map(cJSON *obj, const cJSON *cur, const char *which,
                     struct cube_op_error *e)
{
    cJSON *map = meta_map(obj, which), *item;
    const cJSON *stored = cur ? meta_map(cur, which) : NULL;
    cJSON_ArrayForEach(item, map) {
        if (!reserved_key(item->string))
            continue;
        const cJSON *was = cJSON_GetObjectItemCaseSensitive(stored, item->string);
        if (was && cJSON_Compare(was, item, 1))
            continue;
        cube_op_fail(e, 422, "Invalid", "metadata", "metadata.%s.%s: keys under "
                     RESERVED_PREFIX " are set by Cube, not by users", which, item->string);
        snprintf(e->field, sizeof e->field, "metadata.%s.%s", which, item->string);
        return -1;
    }
    cJSON_ArrayForEach(item, (cJSON *)stored) {
        if (!reserved_key(item->string) || cJSON_GetObjectItemCaseSensitive(map, item->string))
            continue;
        if (!map) {
            cJSON *meta = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
            if (!cJSON_IsObject(meta))
                return 0;   /* check_identity refuses it */
            map = cJSON_AddObjectToObject(meta, which);
        }
        if (cJSON_IsObject(map))
            cJSON_AddItemToObject(map, item->string, cJSON_Duplicate(item, 1));
    }
    return 0;
}

/* A controller reference is allowed only when the stored object has the
 * same one (a replace sending back what it read). */
static int check_refs(const cJSON *obj, const cJSON *cur, struct cube_op_error *e)
{
    const cJSON *ref;
    int i = 0;
    cJSON_ArrayForEach(ref, meta_map(obj, "ownerReferences")) {
        if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ref, "controller"))) {
            const cJSON *was, *stored = cur ? meta_map(cur, "ownerReferences") : NULL;
            int known = 0;
            cJSON_ArrayForEach(was, stored)
                known |= cJSON_Compare(was, ref, 1);
            if (!known) {
                cube_op_fail(e, 422, "Invalid", NULL, "metadata.ownerReferences[%d].controller:"
                             " only Cube's controllers own objects", i);
                snprintf(e->field, sizeof e->field, "metadata.ownerReferences[%d].controller",
                         i);
                return -1;
            }
        }
        i++;
    }
    return 0;
}

int cube_obj_check_reserved(const struct cube_actor *who, cJSON *obj,
                            const cJSON *cur, struct cube_op_error *e)
{
    if (cube_actor_internal(who))
        return 0;
    if (check_map(obj, cur, "labels", e) < 0 || check_map(obj, cur, "annotations", e) < 0)
        return -1;
    return check_refs(obj, cur, e);
}
