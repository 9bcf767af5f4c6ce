/* cube/util/conf.h — typed readers over a plugin's JSON config (libcube-util).
 *
 * Not part of the ABI: compiled into the plugin from libcube-util.a (see
 * abi/util/README.md), so it may name cJSON and may change between Cube
 * releases without breaking a built plugin.
 *
 * A struct cu_conf says what is read (a JSON object, borrowed), where it
 * sits in the config (path, "node_groups[0]", or NULL at the top), what to
 * put before every message (prefix, "sso-ldap", or NULL) and where the
 * first error goes. Every reader leaves *out at its default when the key is
 * absent or JSON null, and on a wrong value writes
 *     "[<prefix>: ]<path>.<key>: <reason>"
 * into err and returns CUBE_EINVAL (CUBE_ENOMEM when a copy fails). All are
 * reentrant; none keeps a pointer into the object after it returns. */
#ifndef CUBE_UTIL_CONF_H
#define CUBE_UTIL_CONF_H

#include <stddef.h>

#include <cjson/cJSON.h>
#include <cube/cube.h>

struct cu_conf {
    const cJSON *obj;     /* the object read; NULL reads as empty (borrowed) */
    const char *path;     /* where obj sits ("pools[2]"), NULL at the top */
    const char *prefix;   /* before every message ("sso-ldap"), or NULL */
    char *err;            /* the message buffer (caller's) */
    size_t len;           /* its size */
};

/* The reader of member key of c (an object) as its own cu_conf, path
 * extended ("a.b"); writes the path into buf (cap bytes). */
struct cu_conf cu_conf_sub(const struct cu_conf *c, const char *key, char *buf, size_t cap);
/* The same for item i of an array member ("a[3]"). */
struct cu_conf cu_conf_item(const struct cu_conf *c, const char *key, int i, char *buf,
                            size_t cap);

/* Writes "[prefix: ][path.]key: <fmt...>" into c->err; returns CUBE_EINVAL.
 * key NULL names the object itself (its path, or "config"). */
int cu_conf_bad(const struct cu_conf *c, const char *key, const char *fmt, ...)
    CUBE_PRINTF(3, 4);

/* A string: a malloc()ed copy into *out (a copy of def, or NULL when def is
 * NULL and the key is absent). */
int cu_conf_str(const struct cu_conf *c, const char *key, const char *def, char **out);
/* A string copied into out (cap bytes, NUL included); refuses longer ones. */
int cu_conf_strbuf(const struct cu_conf *c, const char *key, const char *def, char *out,
                   size_t cap);
/* true or false into *out (1 or 0). */
int cu_conf_bool(const struct cu_conf *c, const char *key, int def, int *out);
/* A whole number in [min, max]. */
int cu_conf_int(const struct cu_conf *c, const char *key, long long def, long long min,
                long long max, long long *out);
/* cu_conf_int for an int. */
int cu_conf_intv(const struct cu_conf *c, const char *key, int def, int min, int max,
                 int *out);
/* A number in [min, max]. */
int cu_conf_num(const struct cu_conf *c, const char *key, double def, double min,
                double max, double *out);
/* Refuses a member whose name is not in known (NULL-terminated): a typo
 * would otherwise silently do nothing ("<key>: unknown setting"). */
int cu_conf_known(const struct cu_conf *c, const char *const *known);
/* Parses json (NULL: "{}") into *root, which must be an object, else
 * "[prefix: ]config: must be a mapping". The caller frees *root. */
int cu_conf_parse(const char *json, const char *prefix, char *err, size_t len,
                  cJSON **root);

#endif
