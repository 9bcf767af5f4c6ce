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
/* Loads and initialises every enabled plugin in conf.d order (none in safe
 * mode). A failing optional plugin is skipped with a warning. Returns 0, or
 * -1 after logging which plugin failed and why. */
int cube_loader_load_all(struct cube_ctx *ctx);
/* Calls start on every plugin in load order; -1 on the first failure. */
int cube_loader_start_all(struct cube_ctx *ctx);
/* Cancels plugins' timers, calls stop (reverse order), then fini, frees. */
void cube_loader_unload_all(struct cube_ctx *ctx);
/* Adds the names of cube-<name>.so files in dir and its direct subdirs. */
void cube_loader_scan_dir(const char *dir, char ***names, size_t *n);
/* --check-config: finds, opens and checks every enabled plugin and
 * validates its config section, without running init. */
int cube_loader_check_all(const struct cube_config *cfg, struct cube_errs *errs);
/* Prints every plugin found in plugin_dir and every conf.d entry, with its
 * descriptor and whether it is enabled. Returns 0, or 1 if any problem. */
int cube_loader_list(const struct cube_config *cfg, FILE *out);

#endif
