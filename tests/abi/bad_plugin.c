/* bad_plugin.c — one source, many test plugins for the loader. Each build
 * defines VARIANT_<v>, ENTRY (the exported entry symbol) and PLUGIN_NAME,
 * and gets exactly one defect (or none, for "good" and "generic_entry"),
 * so every refusal the loader can give is seen on a real .so.
 *
 * The descriptor is written out by hand rather than with
 * CUBE_PLUGIN_DEFINE, which fixes magic, versions and size: those are what
 * the variants break. */
#include <stddef.h>

#include <cube/cube.h>

#if !defined(ENTRY) || !defined(PLUGIN_NAME)
#error "build with -DVARIANT_<v> -DENTRY=<symbol> -DPLUGIN_NAME=\"<name>\""
#endif

#define MAGIC CUBE_PLUGIN_MAGIC
#define MAJOR CUBE_ABI_MAJOR
#define MINOR CUBE_ABI_MINOR
#define SIZE sizeof(struct cube_plugin_desc)
#define FLAGS 0u
#define DESC_NAME PLUGIN_NAME
#define HAS_INIT 1
#define RETURNS_NULL 0

#if defined(VARIANT_wrong_major)
#undef MAJOR
#define MAJOR 2
#elif defined(VARIANT_newer_minor)
#undef MINOR
#define MINOR 99
#elif defined(VARIANT_bad_magic)
#undef MAGIC
#define MAGIC 0x0badcafeu
#elif defined(VARIANT_short_descriptor)
#undef SIZE
#define SIZE 16
#elif defined(VARIANT_missing_init)
#undef HAS_INIT
#define HAS_INIT 0
#elif defined(VARIANT_name_mismatch)
#undef DESC_NAME
#define DESC_NAME "bad-other-name"
#elif defined(VARIANT_bad_flags)
#undef FLAGS
#define FLAGS 1u
#elif defined(VARIANT_null_desc)
#undef RETURNS_NULL
#define RETURNS_NULL 1
#endif
/* no_entry and generic_entry differ only in ENTRY, set by the build. */

static int plugin_init(const struct cube_host *host, cube_plugin *self, void **state)
{
    *state = NULL;
#if defined(VARIANT_init_fails)
    host->set_error(self, "boom: database unreachable");
    return CUBE_EINVAL;
#else
    return CUBE_OK;
#endif
}

CUBE_EXPORT const struct cube_plugin_desc *ENTRY(void);
CUBE_EXPORT const struct cube_plugin_desc *ENTRY(void)
{
    static const struct cube_plugin_desc desc = {
        .magic = MAGIC,
        .abi_major = MAJOR,
        .abi_minor = MINOR,
        .size = (uint32_t)(SIZE),
        .flags = FLAGS,
        .name = DESC_NAME,
        .version = "0.0.1",
        .vendor = "Cube tests",
        .license = "Apache-2.0",
        .description = "loader test plugin " PLUGIN_NAME,
        .init = HAS_INIT ? plugin_init : NULL,
    };
    return RETURNS_NULL ? NULL : &desc;
}
