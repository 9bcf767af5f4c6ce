/* kinds.h — the registry of resource kinds (core and plugins) and their
 * sub-resource actions. Filled during start-up (single-threaded), read-only
 * while serving. */
#ifndef CUBE_KINDS_H
#define CUBE_KINDS_H

#include <stddef.h>

#include <cjson/cJSON.h>
#include <cube/cube.h>

struct cube_plugin;
struct cube_queue;
struct cube_ctx;
struct cube_actor;
struct cube_op_error;

/* Hooks of the core's own kinds (User, Project); never set for plugins. */
struct cube_kind_core {
    /* After the schema and defaulting, before the write: may adjust obj.
     * old is the stored object (NULL on create). 0, or -1 with e filled. */
    int (*check)(struct cube_ctx *ctx, const struct cube_actor *who, cJSON *obj,
                 const cJSON *old, struct cube_op_error *e);
    /* After a write committed (obj NULL: removed), under the object's lock
     * (so in commit order); must not write objects itself. */
    void (*after)(struct cube_ctx *ctx, const char *name, const cJSON *obj,
                  int created);
    /* After any write committed (obj NULL: removed; created set on
     * create), with no lock held and before the write's caller gets its
     * answer: may do I/O and write other objects. */
    void (*committed)(struct cube_ctx *ctx, const char *name, const cJSON *obj,
                      int created);
};

struct cube_kind {
    char *kind, *plural, *singular, *group, *description;
    /* what people read (kind_names.c): never NULL for the English ones;
     * the zh ones and group_zh NULL when the plugin gave none */
    char *display_name, *display_plural, *display_name_zh, *display_plural_zh, *group_zh;
    int scope;                      /* CUBE_SCOPE_* */
    cJSON *spec_schema;             /* owned */
    cJSON *status_schema;           /* owned; NULL: any object */
    cJSON *printer_columns;         /* owned array */
    cJSON *object_schema;           /* owned: the whole object's schema */
    struct cube_plugin *plugin;     /* owner; callbacks get plugin->state */
    struct cube_kind_desc desc;     /* callbacks and resync, zero-extended */
    struct cube_queue *queue;       /* the controller's work queue, or NULL */
    const struct cube_kind_core *core; /* core kinds only, else NULL */
};

struct cube_action {
    char *kind, *method, *action, *summary;
    int perm;                       /* enum cube_perm */
    cube_route_fn handler;
    struct cube_plugin *plugin;
};

struct cube_kinds {
    struct cube_kind **items;
    size_t n, cap;
    struct cube_action **actions;
    size_t n_actions, cap_actions;
};

/* kind_names.c: checks and copies d's display names into k (deriving the
 * English ones from k->kind, which must be set): CUBE_OK, CUBE_EINVAL with
 * err naming the member, CUBE_ENOMEM. _free releases them; _json adds
 * displayName, displayPlural, displayNameZh, displayPluralZh (the English
 * ones where no zh was given) and groupZh (when given) to o. */
int cube_kind_names_fill(struct cube_kind *k, const struct cube_kind_desc *d, char *err,
                         size_t errlen);
void cube_kind_names_free(struct cube_kind *k);
void cube_kind_names_json(const struct cube_kind *k, cJSON *o);

/* Validates and copies a descriptor, compiling its schemas. Returns CUBE_OK,
 * CUBE_EINVAL or CUBE_EEXIST with err naming the field. */
int cube_kinds_add(struct cube_kinds *reg, struct cube_plugin *plugin,
                   const struct cube_kind_desc *desc, char *err, size_t errlen);
/* Adds an action; CUBE_EINVAL/CUBE_EEXIST with err. */
int cube_kinds_add_action(struct cube_kinds *reg, struct cube_plugin *plugin,
                          const struct cube_action_desc *desc, char *err,
                          size_t errlen);
/* Removes everything a plugin registered (its init failed). */
void cube_kinds_drop_plugin(struct cube_kinds *reg, struct cube_plugin *plugin);
/* Lookups; NULL when unknown. by_name accepts plural, singular or kind
 * (case-insensitive for the kind). */
struct cube_kind *cube_kinds_by_plural(const struct cube_kinds *reg,
                                       const char *plural);
struct cube_kind *cube_kinds_by_kind(const struct cube_kinds *reg,
                                     const char *kind);
const struct cube_action *cube_kinds_action(const struct cube_kinds *reg,
                                            const char *kind, const char *method,
                                            const char *action);
/* The /api/v1/kinds document (new tree). */
cJSON *cube_kinds_to_json(const struct cube_kinds *reg);
/* The JSON Schema of a whole object of this kind (new tree). */
cJSON *cube_kind_object_schema(const struct cube_kind *k);
void cube_kinds_free(struct cube_kinds *reg);

#endif
