/* uitest.c — a test plugin for console entries: good entries (a page for
 * users, one for admins only, a plain link) and, one after another,
 * descriptors that register_ui must refuse naming the bad field. Once
 * started it tries once more, which must be refused (init only). */
#include <stdlib.h>

#include <cube/cube.h>

struct uitest {
    const struct cube_host *host;
    cube_plugin *self;
};

static const struct cube_ui_desc GOOD[] = {
    {.size = sizeof GOOD[0], .id = "tool", .group = "Tools", .label = "Tool",
     .permission = CUBE_PERM_USER, .module = "tool.js", .order = 20},
    {.size = sizeof GOOD[0], .id = "admin-tool", .group = "Tools", .label = "Admin tool",
     .label_zh = "管理工具", .permission = CUBE_PERM_ADMIN, .module = "tool.js", .order = 30},
    {.size = sizeof GOOD[0], .id = "docs", .group = "Help", .label = "Job docs",
     .permission = CUBE_PERM_PUBLIC, .link = "/kinds/jobs", .order = 5},
};

/* Each must be refused; the test reads the log for the field names. */
static const struct cube_ui_desc BAD[] = {
    {.size = sizeof BAD[0], .id = "Bad_Id", .group = "Tools", .label = "X",
     .permission = CUBE_PERM_USER, .module = "tool.js"},
    {.size = sizeof BAD[0], .id = "nolabel", .group = "Tools",
     .permission = CUBE_PERM_USER, .module = "tool.js"},
    {.size = sizeof BAD[0], .id = "nogroup", .label = "X",
     .permission = CUBE_PERM_USER, .module = "tool.js"},
    {.size = sizeof BAD[0], .id = "projperm", .group = "Tools", .label = "X",
     .permission = CUBE_PERM_PROJECT_VIEW, .module = "tool.js"},
    {.size = sizeof BAD[0], .id = "escape", .group = "Tools", .label = "X",
     .permission = CUBE_PERM_USER, .module = "../uitest.c"},
    {.size = sizeof BAD[0], .id = "missing", .group = "Tools", .label = "X",
     .permission = CUBE_PERM_USER, .module = "missing.js"},
    {.size = sizeof BAD[0], .id = "nodir", .group = "Tools", .label = "X",
     .permission = CUBE_PERM_USER, .module = "tool.js", .asset_dir = "/nonexistent-ui-dir"},
    {.size = sizeof BAD[0], .id = "offsite", .group = "Tools", .label = "X",
     .permission = CUBE_PERM_USER, .link = "//evil.example/"},
    {.size = sizeof BAD[0], .id = "tool", .group = "Tools", .label = "Again",
     .permission = CUBE_PERM_USER, .module = "tool.js"},
    {.size = 8, .id = "small"},
};

static int uitest_init(const struct cube_host *host, cube_plugin *self, void **state)
{
    struct uitest *u = calloc(1, sizeof *u);
    if (!u)
        return CUBE_ENOMEM;
    *state = u;
    u->host = host;
    u->self = self;
    for (size_t i = 0; i < sizeof GOOD / sizeof GOOD[0]; i++)
        if (host->register_ui(self, &GOOD[i]) != CUBE_OK) {
            host->set_error(self, "good entry %s refused", GOOD[i].id);
            free(u);
            *state = NULL;
            return CUBE_EINVAL;
        }
    int refused = 0;
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++)
        refused += host->register_ui(self, &BAD[i]) != CUBE_OK;
    host->log(self, CUBE_LOG_INFO, "bad entries refused: %d of %zu", refused,
              sizeof BAD / sizeof BAD[0]);
    return CUBE_OK;
}

static int uitest_start(void *state)
{
    struct uitest *u = state;
    int rc = u->host->register_ui(u->self, &GOOD[0]);
    u->host->log(u->self, CUBE_LOG_INFO, "register_ui after init returned %d", rc);
    return CUBE_OK;
}

static void uitest_fini(void *state)
{
    free(state);
}

CUBE_PLUGIN_DEFINE(uitest,
    .name = "uitest",
    .version = "1.0.0",
    .vendor = "Cube tests",
    .license = "Apache-2.0",
    .description = "Test plugin: console entries, good and bad",
    .init = uitest_init,
    .start = uitest_start,
    .fini = uitest_fini,
)
