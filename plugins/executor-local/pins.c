/* pins.c — what pins a replica to its devices beyond its environment (ABI
 * 1.5: "deviceNodes" and "mounts" of the replica document, cube_sched.h)
 * and how the bubblewrap sandbox shows exactly that: a fresh /dev (bwrap
 * --dev: null, zero, full, random, urandom, tty, a private devpts, and the
 * fd/stdin/stdout/stderr links) with the machine's /dev/shm and the
 * replica's device nodes bound in, and its mounts. A document without
 * "deviceNodes" (a device of a 1.3/1.4 accelerator, whose nodes nobody
 * knows) keeps the whole /dev of the machine, as before 1.5. Without the
 * sandbox a replica sees every device of the machine: only its
 * environment (CUDA_VISIBLE_DEVICES ...) pins it, and its log says so. */
#include "executor_local.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#define XL_PIN_NODES_MAX 64
#define XL_PIN_MOUNTS_MAX 32

/* 1 when s is an absolute path without empty, "." or ".." segments. */
static int clean_path(const char *s)
{
    if (!s || s[0] != '/' || strlen(s) >= PATH_MAX)
        return 0;
    for (const char *p = s + 1; *p;) {
        size_t n = strcspn(p, "/");
        if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
            return 0;
        p += n;
        if (*p == '/' && *++p == '\0')
            return 0;
    }
    return 1;
}

/* 1 when path is dir or lies below it. */
static int below(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    return strncmp(path, dir, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

static const char *path_of(const cJSON *o, const char *key)
{
    const char *v = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, key));
    return clean_path(v) ? v : NULL;
}

int xl_pins_parse(struct xl_pins *p, const void *doc_obj, char *msg, size_t len)
{
    const cJSON *doc = doc_obj, *e;
    const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(doc, "deviceNodes");
    const cJSON *mounts = cJSON_GetObjectItemCaseSensitive(doc, "mounts");
    memset(p, 0, sizeof *p);
    if ((nodes && !cJSON_IsNull(nodes) && (!cJSON_IsArray(nodes) ||
                                            cJSON_GetArraySize(nodes) > XL_PIN_NODES_MAX)) ||
        (mounts && !cJSON_IsNull(mounts) && (!cJSON_IsArray(mounts) ||
                                              cJSON_GetArraySize(mounts) > XL_PIN_MOUNTS_MAX)))
        return snprintf(msg, len, "deviceNodes, mounts: must be arrays of at most %d and %d",
                        XL_PIN_NODES_MAX, XL_PIN_MOUNTS_MAX), CUBE_EINVAL;
    p->known = cJSON_IsArray(nodes);
    p->nodes = calloc((size_t)cJSON_GetArraySize(nodes) + 1, sizeof *p->nodes);
    p->mounts = calloc((size_t)cJSON_GetArraySize(mounts) + 1, sizeof *p->mounts);
    if (!p->nodes || !p->mounts)
        return snprintf(msg, len, "out of memory"), CUBE_ENOMEM;
    cJSON_ArrayForEach(e, nodes) {
        const char *path = path_of(e, "path"), *host = path_of(e, "hostPath");
        if (!path || !below(path, "/dev") || !strcmp(path, "/dev"))
            return snprintf(msg, len, "deviceNodes[%zu].path: must be a clean path under /dev/",
                            p->n_nodes), CUBE_EINVAL;
        struct xl_pin_node *n = &p->nodes[p->n_nodes++];
        if (!(n->path = strdup(path)) || !(n->host = strdup(host ? host : path)))
            return snprintf(msg, len, "out of memory"), CUBE_ENOMEM;
    }
    cJSON_ArrayForEach(e, mounts) {
        const char *host = path_of(e, "hostPath"), *dest = path_of(e, "containerPath");
        if (!host || !dest || !strcmp(dest, "/") || below(dest, "/dev") ||
            below(dest, "/proc"))
            return snprintf(msg, len, "mounts[%zu]: needs clean hostPath and containerPath "
                            "(not /, /dev or /proc)", p->n_mounts), CUBE_EINVAL;
        struct xl_pin_mount *m = &p->mounts[p->n_mounts++];
        m->read_only = !cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(e, "readOnly"));
        if (!(m->host = strdup(host)) || !(m->dest = strdup(dest)))
            return snprintf(msg, len, "out of memory"), CUBE_ENOMEM;
    }
    return CUBE_OK;
}

void xl_pins_free(struct xl_pins *p)
{
    for (size_t i = 0; p->nodes && i < p->n_nodes; i++) {
        free(p->nodes[i].path);
        free(p->nodes[i].host);
    }
    for (size_t i = 0; p->mounts && i < p->n_mounts; i++) {
        free(p->mounts[i].host);
        free(p->mounts[i].dest);
    }
    free(p->nodes);
    free(p->mounts);
    memset(p, 0, sizeof *p);
}

size_t xl_pins_argc(const struct xl_pins *p)
{
    return 8 + 3 * (p->n_nodes + p->n_mounts);
}

/* Appends k arguments (copies); -1 when out of memory. */
static int put(char **out, size_t *n, int k, ...)
{
    va_list ap;
    int rc = 0;
    va_start(ap, k);
    for (int i = 0; i < k && rc == 0; i++)
        rc = (out[(*n)++] = strdup(va_arg(ap, const char *))) ? 0 : -1;
    va_end(ap);
    return rc;
}

int xl_pins_bwrap_dev(const struct xl_pins *p, char **out, size_t *n, char *msg, size_t len)
{
    struct stat st;
    if (!p->known)   /* nodes unknown: the machine's /dev, as before 1.5 */
        return put(out, n, 3, "--dev-bind", "/dev", "/dev") < 0
                   ? (snprintf(msg, len, "out of memory"), -1) : 0;
    if (put(out, n, 2, "--dev", "/dev") < 0)
        return snprintf(msg, len, "out of memory"), -1;
    /* shared memory between the processes of a node, as before (NCCL) */
    if (stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) &&
        put(out, n, 3, "--bind", "/dev/shm", "/dev/shm") < 0)
        return snprintf(msg, len, "out of memory"), -1;
    for (size_t i = 0; i < p->n_nodes; i++) {
        const struct xl_pin_node *d = &p->nodes[i];
        if (stat(d->host, &st) < 0 || !(S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)))
            return snprintf(msg, len, "device node %s: not a device on this node", d->host),
                   -1;
        if (put(out, n, 3, "--dev-bind", d->host, d->path) < 0)
            return snprintf(msg, len, "out of memory"), -1;
    }
    return 0;
}

int xl_pins_bwrap_mounts(const struct xl_pins *p, char **out, size_t *n, char *msg,
                         size_t len)
{
    struct stat st;
    for (size_t i = 0; i < p->n_mounts; i++) {
        const struct xl_pin_mount *m = &p->mounts[i];
        if (stat(m->host, &st) < 0)
            return snprintf(msg, len, "mount %s: does not exist on this node", m->host), -1;
        if (put(out, n, 3, m->read_only ? "--ro-bind" : "--bind", m->host, m->dest) < 0)
            return snprintf(msg, len, "out of memory"), -1;
    }
    return 0;
}

void xl_pins_note(struct xl *x, const struct xl_replica *r)
{
    if (x->conf.sandbox == XL_SANDBOX_BWRAP || (!r->pins.n_nodes && !r->pins.n_mounts))
        return;
    char line[256];
    int n = snprintf(line, sizeof line, "executor-local: no sandbox on node %s: the replica "
                     "may open every device of the node; only its environment pins it\n",
                     x->conf.node_name);
    const struct xl_log *l = &r->log;
    x->host->log_append(x->self, l->kind, l->project, l->name, l->stream, line,
                        (size_t)(n < (int)sizeof line ? n : (int)sizeof line - 1));
}
