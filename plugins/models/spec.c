/* spec.c — a Model's spec beyond its JSON Schema. Defaulting gives the
 * labels (model=<family>, model-version=<n>) and, when omitted, the
 * version; the check refuses a path outside the project's files or not
 * there, framework options that do not fit, a version another object of
 * the family has (409), and changes to what was registered (family,
 * version, framework, path, pytorch): a registered version's identity and
 * files do not change, its description, metrics, params, source and
 * inference do. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models.h"

int mdl_path_ok(const char *path)
{
    size_t n = path ? strlen(path) : 0;
    if (!n || n > 1024 || path[0] == '/')
        return 0;
    for (const char *s = path; *s;) {
        const char *e = strchr(s, '/');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        if (!len || s[0] == '.')
            return 0;   /* "", ".", ".." and hidden names */
        for (size_t i = 0; i < len; i++)
            if ((unsigned char)s[i] < 0x20 || s[i] == '\\')
                return 0;
        if (!e)
            break;
        s = e + 1;
        if (!*s)
            return 0;   /* a trailing "/" */
    }
    return 1;
}

/* The stored object of obj's name when it is obj itself (same uid): an
 * update. NULL on create. */
static cJSON *stored_self(struct mdl *p, const cJSON *obj)
{
    int rc;
    const char *project = cu_meta(obj, "project"), *name = cu_meta(obj, "name");
    const char *uid = cu_meta(obj, "uid");
    if (!project || !name || !uid)
        return NULL;
    cJSON *cur = cu_json_take(p->host, p->host->obj_get(p->self, MDL_KIND, project, name, &rc));
    const char *cuid = cu_meta(cur, "uid");
    if (cur && (!cuid || strcmp(cuid, uid))) {
        cJSON_Delete(cur);
        return NULL;
    }
    return cur;
}

static void set_label(cJSON *obj, const char *key, const char *value)
{
    cJSON *meta = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
    cJSON *labels = cJSON_GetObjectItemCaseSensitive(meta, "labels");
    if (!cJSON_IsObject(labels)) {
        cJSON_DeleteItemFromObjectCaseSensitive(meta, "labels");
        labels = cJSON_AddObjectToObject(meta, "labels");
    }
    if (labels)
        cu_set_str(labels, key, value);
}

int mdl_defaulting(void *state, const char *object_json, char **out)
{
    struct mdl *p = state;
    cJSON *obj = cJSON_Parse(object_json);
    cJSON *spec = cJSON_GetObjectItemCaseSensitive(obj, "spec");
    const char *family = cu_str(spec, "name"), *project = cu_meta(obj, "project");
    const char *name = cu_meta(obj, "name");
    *out = NULL;
    if (!obj)
        return CUBE_ENOMEM;
    if (!family || !project || !name || !cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(obj,
                                                                                 "metadata"))) {
        cJSON_Delete(obj);   /* the schema will say what is missing */
        return CUBE_OK;
    }
    set_label(obj, MDL_LABEL, family);
    if (!cJSON_GetObjectItemCaseSensitive(spec, "version")) {
        cJSON *cur = stored_self(p, obj);
        const cJSON *old = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(cur, "spec"), "version");
        int64_t v = cJSON_IsNumber(old) ? (int64_t)old->valuedouble
                                        : mdl_version_next(p, project, family, name);
        cJSON_Delete(cur);
        if (v < 1) {
            cJSON_Delete(obj);
            return CUBE_EUNAVAIL;
        }
        cJSON_AddNumberToObject(spec, "version", (double)v);
    }
    const cJSON *ver = cJSON_GetObjectItemCaseSensitive(spec, "version");
    if (cJSON_IsNumber(ver)) {
        char buf[32];
        snprintf(buf, sizeof buf, "%lld", (long long)ver->valuedouble);
        set_label(obj, MDL_LABEL_VERSION, buf);
    }
    char *text = cJSON_PrintUnformatted(obj);
    cJSON_Delete(obj);
    if (!text)
        return CUBE_ENOMEM;
    size_t n = strlen(text) + 1;
    *out = p->host->alloc(n);
    if (*out)
        memcpy(*out, text, n);
    free(text);
    return *out ? CUBE_OK : CUBE_ENOMEM;
}

/* spec.path names a file or a directory of the project's files. */
static int check_path(struct mdl *p, const char *project, const char *path)
{
    if (!mdl_path_ok(path)) {
        p->host->set_error_field(p->self, "spec.path",
                                 "must be a path inside the project's files: relative, "
                                 "\"/\"-separated, without \"..\", \".\", empty or hidden "
                                 "segments, at most 1024 bytes");
        return CUBE_EINVAL;
    }
    int rc;
    cube_file *f = p->host->file_open(p->self, project, path, CUBE_FILE_READ, &rc);
    if (f) {
        p->host->file_close(f);
        return CUBE_OK;
    }
    if (rc == CUBE_ENOTFOUND || rc == CUBE_EPERM) {
        char *dir = p->host->file_list(p->self, project, path, &rc);
        p->host->free(dir);
        if (dir)
            return CUBE_OK;
    }
    if (rc == CUBE_EPERM)
        p->host->set_error_field(p->self, "spec.path",
                                 "%.400s: a symbolic link or not a regular file or directory "
                                 "(links are not followed)", path);
    else
        p->host->set_error_field(p->self, "spec.path",
                                 "%.400s: no such file or directory in the project's files",
                                 path);
    return CUBE_EINVAL;
}

static int check_torch(struct mdl *p, const cJSON *spec)
{
    const char *fw = cu_str(spec, "framework");
    const cJSON *pt = cJSON_GetObjectItemCaseSensitive(spec, "pytorch");
    if (pt && strcmp(fw, "pytorch")) {
        p->host->set_error_field(p->self, "spec.pytorch", "only for framework pytorch (not %s)",
                                 fw);
        return CUBE_EINVAL;
    }
    const char *format = cu_str_or(pt, "format", "torchscript");
    if (pt && !strcmp(format, "state_dict") && !cu_str(pt, "class")) {
        p->host->set_error_field(p->self, "spec.pytorch.class",
                                 "a state dict needs the module class that takes it "
                                 "(module.path:ClassName)");
        return CUBE_EINVAL;
    }
    if (pt && !strcmp(format, "torchscript") &&
        (cu_str(pt, "class") || cJSON_GetObjectItemCaseSensitive(pt, "init"))) {
        p->host->set_error_field(p->self, "spec.pytorch.class",
                                 "only for format state_dict (TorchScript carries its code)");
        return CUBE_EINVAL;
    }
    return CUBE_OK;
}

/* What cannot change once a version is registered. */
static int check_fixed(struct mdl *p, const cJSON *spec, const cJSON *old)
{
    static const char *const FIXED[] = {"name", "version", "framework", "path", "pytorch"};
    const cJSON *ospec = cJSON_GetObjectItemCaseSensitive(old, "spec");
    for (size_t i = 0; i < sizeof FIXED / sizeof FIXED[0]; i++) {
        const cJSON *a = cJSON_GetObjectItemCaseSensitive(spec, FIXED[i]);
        const cJSON *b = cJSON_GetObjectItemCaseSensitive(ospec, FIXED[i]);
        if ((a || b) && (!a || !b || !cJSON_Compare(a, b, 1))) {
            char field[32];
            snprintf(field, sizeof field, "spec.%s", FIXED[i]);
            p->host->set_error_field(p->self, field,
                                     "cannot change once the version is registered (register "
                                     "a new version instead)");
            return CUBE_EINVAL;
        }
    }
    return CUBE_OK;
}

int mdl_check(void *state, const char *object_json, const char *old_json)
{
    struct mdl *p = state;
    cJSON *obj = cJSON_Parse(object_json), *old = old_json ? cJSON_Parse(old_json) : NULL;
    const cJSON *spec = cJSON_GetObjectItemCaseSensitive(obj, "spec");
    const char *project = cu_meta(obj, "project"), *name = cu_meta(obj, "name");
    const cJSON *ver = cJSON_GetObjectItemCaseSensitive(spec, "version");
    int rc = CUBE_OK;
    if (!obj || (old_json && !old)) {
        rc = CUBE_ENOMEM;
        goto done;
    }
    if (old && (rc = check_fixed(p, spec, old)) != CUBE_OK)
        goto done;
    if ((rc = check_torch(p, spec)) != CUBE_OK)
        goto done;
    if (!old && cu_str(spec, "path") &&
        (rc = check_path(p, project, cu_str(spec, "path"))) != CUBE_OK)
        goto done;
    if (!cJSON_IsNumber(ver)) {
        p->host->set_error_field(p->self, "spec.version", "required");
        rc = CUBE_EINVAL;
        goto done;
    }
    char who[256];
    if (mdl_version_claim(p, project, cu_str(spec, "name"), name, (int64_t)ver->valuedouble,
                          who, sizeof who) < 0) {
        p->host->set_error(p->self, "cannot list the family's versions");
        rc = CUBE_EUNAVAIL;
    } else if (*who) {
        p->host->set_error_field(p->self, "spec.version",
                                 "version %lld of model %s is already %s's (omit spec.version "
                                 "for the next free one)",
                                 (long long)ver->valuedouble, cu_str(spec, "name"), who);
        rc = CUBE_EEXIST;
    }
done:
    cJSON_Delete(obj);
    cJSON_Delete(old);
    return rc;
}
