/* strmap.h — a small hash map from strings to pointers (not thread-safe:
 * callers lock). Keys are copied; values are borrowed and never freed by
 * the map (cube_strmap_free takes a callback for that). */
#ifndef CUBE_STRMAP_H
#define CUBE_STRMAP_H

#include <stddef.h>

struct cube_strmap;

/* An empty map, or NULL when out of memory. */
struct cube_strmap *cube_strmap_new(void);
/* Frees the map; free_value (may be NULL) is called on every value. */
void cube_strmap_free(struct cube_strmap *m, void (*free_value)(void *));
/* The value of key, or NULL. */
void *cube_strmap_get(const struct cube_strmap *m, const char *key);
/* Sets key to value; *old (may be NULL) gets the value it replaced (NULL
 * when new). Returns 0, or -1 when out of memory (the map is unchanged). */
int cube_strmap_put(struct cube_strmap *m, const char *key, void *value,
                    void **old);
/* Removes key and returns its value (NULL when absent). */
void *cube_strmap_del(struct cube_strmap *m, const char *key);
/* Number of keys. */
size_t cube_strmap_size(const struct cube_strmap *m);
/* Calls fn for every entry in no particular order; fn must not change the
 * map. Stops early and returns fn's value when it is nonzero. */
int cube_strmap_each(const struct cube_strmap *m,
                     int (*fn)(void *cls, const char *key, void *value),
                     void *cls);

#endif
