/*
 * cube_plugin.h — the plugin descriptor, versions, error codes and opaque handles.
 *
 * Part of the Cube plugin ABI. This header is a promise to plugin vendors:
 * everything here is append-only. Fields and constants are never reordered,
 * removed or re-typed; a new field is added at the end of its struct with a
 * "since 1.N" note, and CUBE_ABI_MINOR is raised. See CHANGELOG.md.
 *
 * Only plain C crosses the boundary: integers, UTF-8 `const char *`, JSON as
 * text, and the opaque handles declared below.
 */
#ifndef CUBE_PLUGIN_H
#define CUBE_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Magic number at the start of every plugin descriptor ("CUBE"). */
#define CUBE_PLUGIN_MAGIC 0x43554245u

/*
 * Versions, in one rule (the loader enforces it; nothing else says otherwise):
 *
 *  - A plugin's descriptor names the oldest host it runs on: abi_major and
 *    abi_minor. CUBE_PLUGIN_DEFINE writes CUBE_ABI_MAJOR and
 *    CUBE_PLUGIN_MIN_MINOR, which is the CUBE_ABI_MINOR of the headers the
 *    plugin was built with unless the plugin defines it lower.
 *  - The host loads a plugin only when the majors are equal and the
 *    plugin's abi_minor is at most the host's own minor; others are refused
 *    at start-up, the message naming the file ("the plugin needs a newer
 *    Cube"). A plugin built against older headers loads into every later
 *    host of the same major, unchanged.
 *  - So the table a plugin receives has every slot of its abi_minor and of
 *    the minors before it, none NULL: call them without checking.
 *  - Only a slot newer than the plugin's declared abi_minor can be missing.
 *    A plugin that wants to run on older hosts defines
 *    CUBE_PLUGIN_MIN_MINOR (before including cube.h) below its headers'
 *    minor, and tests each newer slot with CUBE_HOST_HAS (cube_host.h)
 *    before calling it.
 */

/** ABI major version: a plugin loads only into a host with the same major. */
#define CUBE_ABI_MAJOR 1
/** ABI minor version of these headers (the host's, for cubed). */
#define CUBE_ABI_MINOR 5

/** The oldest host minor the plugin being compiled runs on (since 1.5; see
 *  "Versions" above). Define it before including cube.h to run on older
 *  hosts; it may not exceed CUBE_ABI_MINOR. */
#ifndef CUBE_PLUGIN_MIN_MINOR
#define CUBE_PLUGIN_MIN_MINOR CUBE_ABI_MINOR
#endif
#if CUBE_PLUGIN_MIN_MINOR > CUBE_ABI_MINOR || CUBE_PLUGIN_MIN_MINOR < 0
#error "CUBE_PLUGIN_MIN_MINOR must be from 0 to CUBE_ABI_MINOR"
#endif

/** Marks a printf-style function so the compiler checks its arguments. */
#if defined(__GNUC__) || defined(__clang__)
#define CUBE_PRINTF(fmt_index, first_arg) \
    __attribute__((format(printf, fmt_index, first_arg)))
#define CUBE_EXPORT __attribute__((visibility("default")))
#else
#define CUBE_PRINTF(fmt_index, first_arg)
#define CUBE_EXPORT
#endif

/**
 * Return codes. Every host slot and plugin callback that can fail returns
 * CUBE_OK (0) or one of these negative codes. New codes are only appended.
 */
enum cube_status {
    CUBE_OK = 0,
    CUBE_EINVAL = -1,     /**< an argument or descriptor field is invalid */
    CUBE_ENOMEM = -2,     /**< out of memory */
    CUBE_ENOTFOUND = -3,  /**< the named thing does not exist */
    CUBE_EEXIST = -4,     /**< the named thing already exists (duplicate) */
    CUBE_EPERM = -5,      /**< not allowed */
    CUBE_EIO = -6,        /**< I/O or system error */
    CUBE_ESTATE = -7,     /**< called at the wrong time (e.g. after start) */
    CUBE_EVERSION = -8,   /**< ABI or descriptor version mismatch */
    CUBE_EINTERNAL = -9,  /**< a bug: the host logs details */
    CUBE_ETOOBIG = -10,   /**< a size limit was exceeded */
    CUBE_EUNAVAIL = -11,  /**< temporarily unavailable; try again later */
    /* since 1.1 */
    CUBE_ECONFLICT = -12, /**< stale resourceVersion (optimistic concurrency) */
    /* since 1.5 */
    /** Flow, not failure: "not yet, call again". From a reconcile: call
     *  again after the delay given with cube_host.retry_after (no back-off
     *  growth, not counted as an error); from a proxy resolve: park the
     *  request until the plugin wakes it (see cube_proxy.h). */
    CUBE_EAGAIN = -13,
    /** Flow, not failure: "not mine": the host goes on to the next
     *  provider (an auth provider that does not know the user, a hook
     *  that leaves the decision to others). */
    CUBE_DECLINED = -14,
    CUBE_ETIMEDOUT = -15, /**< a deadline passed (an outbound fetch's timeout) */
    /** The content is not what the caller said it is: a file's sha256
     *  differs from the one file_commit was told to expect (nothing is
     *  published). */
    CUBE_EDIGEST = -16,
};

/** Log levels for cube_host.log (ordered: a higher value is more severe). */
enum cube_log_level {
    CUBE_LOG_DEBUG = 10,
    CUBE_LOG_INFO = 20,
    CUBE_LOG_WARN = 30,
    CUBE_LOG_ERROR = 40,
};

/*
 * Opaque handles. Plugins never see their layout; the host owns them.
 */

/** This plugin, as the host knows it. Passed to most host slots. Valid from
 *  init until fini returns. */
typedef struct cube_plugin cube_plugin;
/** One HTTP request being answered. Valid only during the route handler
 *  call that received it (and, for streams, see cube_stream). */
typedef struct cube_req cube_req;
/** A streaming response body. Valid until its close callback returns. */
typedef struct cube_stream cube_stream;
/** A registered metric. Valid until the host exits; never freed by plugins. */
typedef struct cube_metric cube_metric;
/** A timer. Valid until cube_host.timer_cancel or, for one-shot timers,
 *  until its callback returns. */
typedef struct cube_timer cube_timer;

struct cube_host;

/**
 * The plugin descriptor. A plugin returns a pointer to one `static const`
 * instance from its entry function (see CUBE_PLUGIN_DEFINE). The host reads
 * and checks it before calling any other plugin code:
 * magic, abi_major == host major, abi_minor <= host minor (see "Versions"
 * above), size large enough for the 1.0 fields, name non-empty and equal to
 * the conf.d plugin name, init non-NULL.
 */
struct cube_plugin_desc {
    /* since 1.0 */
    uint32_t magic;      /**< CUBE_PLUGIN_MAGIC */
    uint16_t abi_major;  /**< CUBE_ABI_MAJOR the plugin was built with */
    uint16_t abi_minor;  /**< the oldest host minor it runs on:
                              CUBE_PLUGIN_MIN_MINOR (by default the
                              CUBE_ABI_MINOR it was built with) */
    uint32_t size;       /**< sizeof(struct cube_plugin_desc) as compiled */
    uint32_t flags;      /**< reserved, must be 0 */
    const char *name;        /**< short name, [a-z0-9-], e.g. "hello" */
    const char *version;     /**< the plugin's own version, e.g. "1.2.0" */
    const char *vendor;      /**< who ships it */
    const char *license;     /**< SPDX id, e.g. "Apache-2.0" */
    const char *description; /**< one line for `cubed --list-plugins` */
    /**
     * JSON Schema (as text) for the plugin's `config:` section in conf.d, or
     * NULL when the plugin takes no configuration. The host validates the
     * section (types, required, defaults, unknown keys) before init, and
     * reports errors as file:line:column. Supported keywords: type,
     * properties, required, default, enum, minimum, maximum, minLength,
     * maxLength, pattern, items, additionalProperties, description.
     */
    const char *config_schema;
    /**
     * Required. Called once after the config is validated. Register routes,
     * metrics and timers here. Store the plugin's state in *state; it is
     * passed back to every callback. *state is read by the host as soon as
     * it is written: assign it before adding timers or submitting work
     * during init, since those callbacks receive the state current at the
     * time of the timer_add/submit call. `host` and `self` stay valid until
     * fini returns. Return CUBE_OK, or an error after calling
     * host->set_error(self, ...) with a message for the operator.
     */
    int (*init)(const struct cube_host *host, cube_plugin *self, void **state);
    /** Optional. Called once all plugins are initialised, before the server
     *  accepts requests. Return CUBE_OK or an error (stops start-up). */
    int (*start)(void *state);
    /** Optional. Called on shutdown after the server stopped accepting
     *  requests and in-flight requests finished. Timers are cancelled by
     *  the host before this call. */
    void (*stop)(void *state);
    /** Optional. Releases state. Called once, last; also after a failed
     *  start. Never called when init failed. */
    void (*fini)(void *state);

    /* since 1.5 */
    /**
     * Optional: the plugins this one needs, a NULL-terminated array of
     * "name" or "name>=X.Y[.Z]" (the other plugin's descriptor version,
     * compared number by number; a missing number counts as 0, anything
     * after the numbers, such as "-rc1", is ignored), at most
     * CUBE_DEPENDENCIES_MAX entries. The host initialises every plugin after
     * the plugins it requires (conf.d order otherwise), stops and finis
     * it before them, and refuses to start, at start-up and in
     * `cubed --check-config`, when one is not enabled, failed to load,
     * is too old, or the requirements form a cycle; the message names
     * the plugin and the requirement. Borrowed for the life of the
     * process (a static array). Required to use another plugin's API
     * (cube_host.api_get). (Not called `requires`: a C++20 keyword.)
     */
    const char *const *dependencies;
};

/** The most entries cube_plugin_desc.dependencies may have (since 1.5). */
#define CUBE_DEPENDENCIES_MAX 32

/** Type of a plugin's entry function. It must be pure: no side effects,
 *  callable more than once, returning the same static descriptor. */
typedef const struct cube_plugin_desc *(*cube_plugin_entry_fn)(void);

/** Name of the generic entry symbol tried when `cube_plugin_<name>` is absent. */
#define CUBE_PLUGIN_ENTRY_GENERIC "cube_plugin_entry"

#define CUBE_PLUGIN_CAT_(a, b) a##b
#define CUBE_PLUGIN_CAT(a, b) CUBE_PLUGIN_CAT_(a, b)

/**
 * Defines the plugin's only exported symbol, `cube_plugin_<ident>`, returning
 * a descriptor filled with the fields given as designated initialisers.
 * `ident` is the plugin name with '-' written as '_'.
 *
 *     CUBE_PLUGIN_DEFINE(hello,
 *         .name = "hello", .version = "1.0.0", .vendor = "Cube",
 *         .license = "Apache-2.0", .description = "Says hello",
 *         .init = hello_init, .fini = hello_fini);
 */
#define CUBE_PLUGIN_DEFINE(ident, ...)                                        \
    CUBE_EXPORT const struct cube_plugin_desc *CUBE_PLUGIN_CAT(cube_plugin_, ident)(void); \
    CUBE_EXPORT const struct cube_plugin_desc *CUBE_PLUGIN_CAT(cube_plugin_, ident)(void)  \
    {                                                                         \
        static const struct cube_plugin_desc desc_ = {                        \
            .magic = CUBE_PLUGIN_MAGIC,                                       \
            .abi_major = CUBE_ABI_MAJOR,                                      \
            .abi_minor = CUBE_PLUGIN_MIN_MINOR,                               \
            .size = (uint32_t)sizeof(struct cube_plugin_desc),                \
            __VA_ARGS__};                                                     \
        return &desc_;                                                        \
    }

#ifdef __cplusplus
}
#endif

#endif /* CUBE_PLUGIN_H */
