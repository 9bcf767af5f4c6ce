/* loader.h — finding, checking, loading and running plugins. */
#ifndef CUBE_LOADER_H
#define CUBE_LOADER_H

#include <stddef.h>
#include <stdio.h>

#include <cube/cube.h>

struct cube_ctx;
struct cube_config;
struct cube_errs;

/* Size of the 1.0 part of the descriptor: anything smaller is refused. */
#define CUBE_DESC_MIN_SIZE \
    (offsetof(struct cube_plugin_desc, fini) + sizeof(void (*)(void *)))

/* Finds cube-<name>.so in plugin_dir or plugin_dir/<name>/. Returns a
 * malloc'd path, or NULL with err naming the places looked at. */
char *cube_loader_find(const char *plugin_dir, const char *name, char *err,
                       size_t errlen);
/* Checks a descriptor before any plugin callback runs: magic, ABI major and
 * minor, size, flags, name (== expected_name when given), init. Copies it
 * into *out (zero-filled to the host's size). 0, or -1 with err saying
 * "<file>: <what>: expected X, found Y". */
int cube_loader_check_desc(const struct cube_plugin_desc *d, const char *file,
                           const char *expected_name,
                           struct cube_plugin_desc *out, char *err,
                           size_t errlen);
/* dlopen(RTLD_NOW|RTLD_LOCAL)s `file`, resolves cube_plugin_<name> (or the
 * generic entry) and checks the descriptor. The handle is never closed once
 * init ran; on failure here it is closed. 0 or -1 with err. */
int cube_loader_open(const char *file, const char *name, void **handle,
                     struct cube_plugin_desc *desc, char *err, size_t errlen);
/* Loads and initialises every enabled plugin (none in safe mode): in
 * conf.d order, except that a plugin comes after the plugins it requires
 * (cube_plugin_desc.dependencies); one whose requirement is not met is
 * refused with a message naming it. A failing optional plugin is skipped with a warning. Returns 0, or
 * -1 after logging which plugin failed and why. */
int cube_loader_load_all(struct cube_ctx *ctx);
/* Calls start on every plugin in load order; -1 on the first failure. */
int cube_loader_start_all(struct cube_ctx *ctx);
/* Cancels plugins' timers, calls stop, then fini, both in reverse load
 * order (a plugin before those it requires), frees. */
void cube_loader_unload_all(struct cube_ctx *ctx);
/* Adds the names of cube-<name>.so files in dir and its direct subdirs. */
void cube_loader_scan_dir(const char *dir, char ***names, size_t *n);
/* --check-config: finds, opens and checks every enabled plugin, its
 * requirements, and validates its config section, without running init. */
int cube_loader_check_all(const struct cube_config *cfg, struct cube_errs *errs);
/* -- dependencies (loader_deps.c; cube_plugin_desc.dependencies) ----------- */

/* One plugin as the order of loading sees it: done once its init
 * succeeded (--check-config: once checked), failed when it cannot load. */
struct cube_dep_node {
    const char *name, *version;
    const char *const *dependencies;
    int done, failed;
};
/* Compares versions number by number ("1.10" > "1.9"; missing numbers are
 * 0; anything after the numbers is ignored): <0, 0, >0. NULL is "". */
int cube_version_cmp(const char *a, const char *b);
/* Checks the form of d->dependencies (at most CUBE_DEPENDENCIES_MAX entries of
 * "name" or "name>=X.Y", none naming d itself): 0, or -1 with err naming
 * file and the entry. */
int cube_deps_check_desc(const struct cube_plugin_desc *d, const char *file, char *err,
                         size_t errlen);
/* 1 when d->dependencies names plugin `name`, else 0. */
int cube_deps_names(const struct cube_plugin_desc *d, const char *name);
/* Whether node i may be initialised now: 0 (every plugin it requires is
 * done), 1 (wait: one is not done yet), -1 (never: one is not among the
 * nodes, failed, or is older than required; err names both). */
int cube_deps_ready(const struct cube_dep_node *nodes, size_t n, size_t i, char *err,
                    size_t errlen);
/* The message for node i when nothing can be initialised any more while
 * it still waits: the cycle of requirements it is on. */
void cube_deps_cycle(const struct cube_dep_node *nodes, size_t n, size_t i, char *err,
                     size_t errlen);

/* Prints every plugin found in plugin_dir and every conf.d entry, with its
 * descriptor and whether it is enabled. Returns 0, or 1 if any problem. */
int cube_loader_list(const struct cube_config *cfg, FILE *out);

#endif
