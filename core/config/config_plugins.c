/* config_plugins.c — conf.d files and plugin config validation (see
 * config.h), and the message helpers config.c shares (config_priv.h). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_priv.h"
#include "base/utf8.h"
#include "schema/schema.h"

#define MAX_SCHEMA_ERRORS 32   /* reported per plugin; the rest counted */
#define MAX_NAME_LEN 64

/* ---- message helpers (config_priv.h) ---- */

void cube_config_err_at(struct cube_errs *errs, const struct cube_yaml_doc *doc,
                        const cJSON *node, int at_key, const char *fmt, ...)
{
    char msg[1024];
    int line, col, rc;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    rc = at_key ? cube_yaml_key_mark_of(doc, node, &line, &col)
                : cube_yaml_mark_of(doc, node, &line, &col);
    if (rc == 0)
        cube_errs_add(errs, "%s:%d:%d: %s", doc->file, line, col, msg);
    else
        cube_errs_add(errs, "%s: %s", doc->file ? doc->file : "config", msg);
}

void cube_config_quote(char *out, size_t outlen, const char *s)
{
    cube_quote_n(out, outlen, s, strlen(s));
}

void cube_config_describe(const cJSON *v, char *out, size_t outlen)
{
    double d = v ? v->valuedouble : 0;
    if (cJSON_IsString(v))
        cube_config_quote(out, outlen, v->valuestring);
    else if (cJSON_IsNumber(v) && isnan(d))
        snprintf(out, outlen, ".nan");
    else if (cJSON_IsNumber(v) && isinf(d))
        snprintf(out, outlen, "%s.inf", d < 0 ? "-" : "");
    else if (cJSON_IsNumber(v) && d == floor(d) && fabs(d) < 1e15)
        snprintf(out, outlen, "%.0f", d);
    else if (cJSON_IsNumber(v))
        snprintf(out, outlen, "%g", d);
    else if (cJSON_IsBool(v))
        snprintf(out, outlen, "%s", cJSON_IsTrue(v) ? "true" : "false");
    else if (cJSON_IsObject(v))
        snprintf(out, outlen, "a mapping");
    else if (cJSON_IsArray(v))
        snprintf(out, outlen, "a list");
    else
        snprintf(out, outlen, "null");
}

int cube_config_expected(struct cube_errs *errs,
                         const struct cube_yaml_doc *doc, const cJSON *v,
                         const char *path, const char *what)
{
    char got[96];
    cube_config_describe(v, got, sizeof got);
    cube_config_err_at(errs, doc, v, 0, "%s: expected %s, got %s", path, what,
                       got);
    return -1;
}

const struct cube_plugin_conf *cube_config_find_plugin(
    const struct cube_config *cfg, const char *name)
{
    for (size_t i = 0; i < cfg->n_plugins; i++)
        if (!strcmp(cfg->plugins[i].name, name))
            return &cfg->plugins[i];
    return NULL;
}

/* ---- listing conf.d ---- */

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int is_conf_name(const char *name)
{
    size_t n = strlen(name);
    if (name[0] == '.')
        return 0;
    return (n > 5 && !strcmp(name + n - 5, ".yaml")) ||
           (n > 4 && !strcmp(name + n - 4, ".yml"));
}

static void free_names(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

/* Lists the *.yaml and *.yml names in dir (hidden ones skipped), sorted.
 * Returns 0, or -1 with errno set. */
static int list_dir(const char *dir, char ***out, size_t *count)
{
    DIR *d = opendir(dir);
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    int saved;
    if (!d)
        return -1;
    for (errno = 0; (e = readdir(d)); errno = 0) {
        if (!is_conf_name(e->d_name))
            continue;
        if (n == cap) {
            size_t want = cap ? cap * 2 : 16;
            char **grown = realloc(names, want * sizeof *grown);
            if (!grown)
                goto fail;
            names = grown;
            cap = want;
        }
        if (!(names[n] = strdup(e->d_name)))
            goto fail;
        n++;
    }
    if (errno)
        goto fail;
    closedir(d);
    if (n)
        qsort(names, n, sizeof *names, name_cmp);
    *out = names;
    *count = n;
    return 0;
fail:
    saved = errno ? errno : ENOMEM;
    free_names(names, n);
    closedir(d);
    errno = saved;
    return -1;
}

/* ---- one conf.d file ---- */

static int name_ok(const char *s)
{
    size_t n = strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789-");
    return n > 0 && n <= MAX_NAME_LEN && !s[n] && s[0] != '-';
}

static int take_bool(struct cube_errs *errs, const struct cube_yaml_doc *doc,
                     const cJSON *v, int *dst)
{
    if (cJSON_IsNull(v))
        return 0;   /* "enabled:" with no value keeps the default */
    if (!cJSON_IsBool(v))
        return cube_config_expected(errs, doc, v, v->string, "a boolean");
    *dst = cJSON_IsTrue(v);
    return 0;
}

static int take_member(struct cube_plugin_conf *pc, const cJSON *m,
                       const cJSON **name, struct cube_errs *errs)
{
    char key[96];
    if (!strcmp(m->string, "plugin")) {
        *name = m;
        return 0;
    }
    if (!strcmp(m->string, "enabled"))
        return take_bool(errs, &pc->doc, m, &pc->enabled);
    if (!strcmp(m->string, "optional"))
        return take_bool(errs, &pc->doc, m, &pc->optional);
    if (!strcmp(m->string, "config")) {
        if (!cJSON_IsNull(m) && !cJSON_IsObject(m))
            return cube_config_expected(errs, &pc->doc, m, "config",
                                        "a mapping");
        pc->config = cJSON_IsObject(m) ? (cJSON *)m : NULL;
        return 0;
    }
    cube_config_quote(key, sizeof key, m->string);
    cube_config_err_at(errs, &pc->doc, m, 1, "unknown key %s", key);
    return -1;
}

static int take_name(struct cube_plugin_conf *pc, const cJSON *name,
                     struct cube_errs *errs)
{
    const cJSON *root = pc->doc.root;
    if (!name) {
        cube_config_err_at(errs, &pc->doc, root, 0,
                           "missing required key \"plugin\"");
        return -1;
    }
    if (!cJSON_IsString(name) || !name_ok(name->valuestring))
        return cube_config_expected(errs, &pc->doc, name, "plugin",
                                    "a plugin name ([a-z0-9][a-z0-9-]*)");
    cube_yaml_key_mark_of(&pc->doc, name, &pc->line, &pc->col);
    pc->name = strdup(name->valuestring);
    if (!pc->name) {
        cube_errs_add(errs, "%s: out of memory", pc->doc.file);
        return -1;
    }
    return 0;
}

/* Checks the keys of a loaded conf.d document and fills pc from them. */
static int read_keys(struct cube_plugin_conf *pc, struct cube_errs *errs)
{
    const cJSON *root = pc->doc.root, *m, *name = NULL;
    char got[96];
    int rc = 0;
    if (!cJSON_IsObject(root)) {
        cube_config_describe(root, got, sizeof got);
        cube_config_err_at(errs, &pc->doc, root, 0,
                           "expected a mapping with a plugin: key, got %s",
                           root ? got : "nothing");
        return -1;
    }
    cJSON_ArrayForEach(m, root) {
        if (take_member(pc, m, &name, errs))
            rc = -1;
    }
    if (take_name(pc, name, errs))
        rc = -1;
    return rc;
}

static int add_plugin(struct cube_config *cfg, struct cube_plugin_conf *pc,
                      struct cube_errs *errs)
{
    const struct cube_plugin_conf *prev;
    struct cube_plugin_conf *grown;
    prev = cube_config_find_plugin(cfg, pc->name);
    if (prev) {
        cube_errs_add(errs, "%s:%d:%d: plugin \"%s\" is already configured "
                      "in %s:%d:%d", pc->file, pc->line, pc->col, pc->name,
                      prev->file, prev->line, prev->col);
        return -1;
    }
    grown = realloc(cfg->plugins, (cfg->n_plugins + 1) * sizeof *grown);
    if (!grown) {
        cube_errs_add(errs, "%s: out of memory", pc->file);
        return -1;
    }
    cfg->plugins = grown;
    cfg->plugins[cfg->n_plugins++] = *pc;
    return 0;
}

static void load_one(struct cube_config *cfg, const char *path,
                     struct cube_errs *errs)
{
    struct cube_plugin_conf pc = {.enabled = 1};
    if (cube_yaml_load_file(path, &pc.doc, errs))
        return;
    if (read_keys(&pc, errs))
        goto fail;
    pc.file = strdup(path);
    if (!pc.file) {
        cube_errs_add(errs, "%s: out of memory", path);
        goto fail;
    }
    if (add_plugin(cfg, &pc, errs))
        goto fail;
    return;
fail:
    free(pc.name);
    free(pc.file);
    cube_yaml_doc_free(&pc.doc);
}

static char *join(const char *dir, const char *name)
{
    size_t n = strlen(dir);
    int slash = n && dir[n - 1] == '/';
    char *p = malloc(n + strlen(name) + 2);
    if (p)
        sprintf(p, "%s%s%s", dir, slash ? "" : "/", name);
    return p;
}

int cube_config_read_confd(struct cube_config *cfg,
                           const struct cube_yaml_doc *doc,
                           const cJSON *named, struct cube_errs *errs)
{
    size_t before = cube_errs_count(errs), n = 0;
    char **names = NULL, q[160];
    if (list_dir(cfg->conf_dir, &names, &n)) {
        if (errno == ENOENT && !named)
            return 0;
        cube_config_quote(q, sizeof q, cfg->conf_dir);
        cube_config_err_at(errs, doc, named, 0, "conf_dir: cannot read %s: %s",
                           q, strerror(errno));
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        char *path = join(cfg->conf_dir, names[i]);
        if (path)
            load_one(cfg, path, errs);
        else
            cube_errs_add(errs, "%s: out of memory", cfg->conf_dir);
        free(path);
    }
    free_names(names, n);
    return cube_errs_count(errs) > before ? -1 : 0;
}

/* ---- validating a plugin's config section ---- */

/* Finds `target` in the tree `dup` (a copy of `orig`, perhaps with members
 * added) and sets *out to its original, or to the nearest ancestor that
 * has one. Returns 1 when found. */
static int find_orig(const cJSON *dup, const cJSON *orig, const cJSON *target,
                     const cJSON **out)
{
    const cJSON *oc = orig && cJSON_IsArray(dup) ? orig->child : NULL;
    if (dup == target) {
        *out = orig;
        return 1;
    }
    for (const cJSON *c = dup->child; c; c = c->next) {
        const cJSON *o = cJSON_IsObject(dup) && orig
                             ? cJSON_GetObjectItemCaseSensitive(orig, c->string)
                             : oc;
        if (find_orig(c, o, target, out)) {
            if (!*out)
                *out = orig;
            return 1;
        }
        oc = oc ? oc->next : NULL;
    }
    return 0;
}

/* One message per schema error, placed at the offending member's key (or
 * the nearest enclosing one that the user wrote, else at `plugin:`). */
static void report(const struct cube_plugin_conf *pc, const cJSON *inst,
                   const struct cube_schema_error *ev, int n,
                   struct cube_errs *errs)
{
    int shown = n < MAX_SCHEMA_ERRORS ? n : MAX_SCHEMA_ERRORS;
    for (int i = 0; i < shown; i++) {
        const cJSON *orig = NULL;
        int line = pc->line, col = pc->col;
        if (ev[i].node && find_orig(inst, pc->config, ev[i].node, &orig) &&
            orig)
            cube_yaml_key_mark_of(&pc->doc, orig, &line, &col);
        cube_errs_add(errs, "%s:%d:%d: %s%s%s", pc->file, line, col,
                      ev[i].path, ev[i].path[0] ? ": " : "", ev[i].message);
    }
    if (n > shown)
        cube_errs_add(errs, "%s: %d more config errors not shown", pc->file,
                      n - shown);
}

static int no_schema(const struct cube_plugin_conf *pc, cJSON **out,
                     struct cube_errs *errs)
{
    if (pc->config && pc->config->child) {
        cube_config_err_at(errs, &pc->doc, pc->config, 1,
                           "plugin %s takes no configuration", pc->name);
        return -1;
    }
    *out = cJSON_CreateObject();
    if (!*out) {
        cube_errs_add(errs, "plugin %s: out of memory", pc->name);
        return -1;
    }
    return 0;
}

int cube_config_validate_plugin(const struct cube_plugin_conf *pc,
                                const char *schema_json, cJSON **out,
                                struct cube_errs *errs)
{
    return cube_config_validate_section(pc, "config", schema_json, out, errs);
}

int cube_config_validate_section(const struct cube_plugin_conf *pc, const char *root,
                                 const char *schema_json, cJSON **out,
                                 struct cube_errs *errs)
{
    cJSON *schema = NULL, *inst = NULL;
    struct cube_schema_error *ev = NULL;
    char why[256];
    int n;
    *out = NULL;
    if (!schema_json)
        return no_schema(pc, out, errs);
    if (!(schema = cJSON_Parse(schema_json))) {
        cube_errs_add(errs, "plugin %s: config schema is not valid JSON",
                      pc->name);
        goto fail;
    }
    if (cube_schema_check(schema, why, sizeof why)) {
        cube_errs_add(errs, "plugin %s: config schema is unusable: %s",
                      pc->name, why);
        goto fail;
    }
    inst = pc->config ? cJSON_Duplicate(pc->config, 1) : cJSON_CreateObject();
    ev = calloc(MAX_SCHEMA_ERRORS, sizeof *ev);
    if (!inst || !ev || cube_schema_apply_defaults(schema, inst)) {
        cube_errs_add(errs, "plugin %s: out of memory", pc->name);
        goto fail;
    }
    n = cube_schema_validate(schema, inst, CUBE_SCHEMA_STRICT, root, ev,
                             MAX_SCHEMA_ERRORS);
    if (n) {
        report(pc, inst, ev, n, errs);
        goto fail;
    }
    cJSON_Delete(schema);
    free(ev);
    *out = inst;
    return 0;
fail:
    cJSON_Delete(schema);
    cJSON_Delete(inst);
    free(ev);
    return -1;
}
