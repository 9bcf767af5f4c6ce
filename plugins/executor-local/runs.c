/* runs.c — the replicas cubed watches. Each has a run directory under
 * run_dir: meta.json (log target, cgroups, limits: what adoption needs),
 * out (the replica's stdout and stderr), offset (how much of out is in the
 * log stream), stop (a stop request's grace) and, once it ended, status
 * (written by the supervisor). A timer appends new output to the log
 * stream and reports ends. */
#include "executor_local.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#define PUMP_MAX_PER_TICK (4u << 20)

/* dir/name into out. */
static void join(char *out, size_t len, const char *dir, const char *name)
{
    snprintf(out, len, "%s/%s", dir, name);
}

/* Writes text to dir/name through a temporary file and rename. No fsync:
 * the rename alone keeps readers from a half-written file, and after a
 * crash of the machine its replicas are gone anyway (the janitor removes
 * what is left). */
static int write_atomic(const char *dir, const char *name, const char *text)
{
    char tmp[PATH_MAX + 16], path[PATH_MAX + 16];
    snprintf(tmp, sizeof tmp, "%s/.%s.tmp", dir, name);
    join(path, sizeof path, dir, name);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    size_t n = strlen(text);
    int ok = write(fd, text, n) == (ssize_t)n;
    close(fd);
    return ok && rename(tmp, path) == 0 ? 0 : -1;
}

/* The log target as a JSON object. */
static cJSON *log_json(const struct xl_log *l)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "kind", l->kind);
    cJSON_AddStringToObject(o, "project", l->project);
    cJSON_AddStringToObject(o, "name", l->name);
    cJSON_AddStringToObject(o, "stream", l->stream);
    return o;
}

int xl_meta_write(const struct xl_run *r, const char *user)
{
    cJSON *m = cJSON_CreateObject(), *cg = cJSON_CreateObject(), *dirs = cJSON_CreateArray();
    cJSON_AddItemToObject(m, "log", log_json(&r->log));
    cJSON_AddNumberToObject(cg, "version", r->cg.version);
    for (int i = 0; i < XL_CG_NCTL; i++)
        cJSON_AddItemToArray(dirs, cJSON_CreateString(r->cg.dir[i]));
    cJSON_AddItemToObject(cg, "dirs", dirs);
    cJSON_AddItemToObject(m, "cgroup", cg);
    cJSON_AddNumberToObject(m, "memoryBytes", (double)r->memory_bytes);
    cJSON_AddNumberToObject(m, "timeoutSeconds", (double)r->timeout_s);
    cJSON_AddStringToObject(m, "user", user);
    char *text = cJSON_Print(m);
    cJSON_Delete(m);
    int rc = text ? write_atomic(r->dir, "meta.json", text) : -1;
    free(text);
    return rc;
}

/* The cgroup part of a meta file. */
static void meta_cgroup(struct xl_run *r, const cJSON *cg)
{
    const cJSON *dirs = cJSON_GetObjectItemCaseSensitive(cg, "dirs"), *d;
    int i = 0;
    r->cg.version = cJSON_GetObjectItemCaseSensitive(cg, "version")
                        ? cJSON_GetObjectItemCaseSensitive(cg, "version")->valueint : 0;
    cJSON_ArrayForEach(d, dirs) {
        const char *s = cJSON_GetStringValue(d);
        if (i < XL_CG_NCTL && s && (!*s || s[0] == '/'))
            snprintf(r->cg.dir[i], sizeof r->cg.dir[i], "%s", s);
        i++;
    }
}

int xl_meta_read(struct xl_run *r)
{
    char path[PATH_MAX + 16];
    join(path, sizeof path, r->dir, "meta.json");
    FILE *f = fopen(path, "re");
    if (!f)
        return -1;
    char text[16384];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    cJSON *m = cJSON_Parse(text);
    if (!cJSON_IsObject(m))
        return cJSON_Delete(m), -1;
    meta_cgroup(r, cJSON_GetObjectItemCaseSensitive(m, "cgroup"));
    const cJSON *mem = cJSON_GetObjectItemCaseSensitive(m, "memoryBytes");
    const cJSON *to = cJSON_GetObjectItemCaseSensitive(m, "timeoutSeconds");
    r->memory_bytes = cJSON_IsNumber(mem) ? (int64_t)mem->valuedouble : 0;
    r->timeout_s = cJSON_IsNumber(to) ? (int64_t)to->valuedouble : 0;
    if (!r->log.kind)
        xl_log_parse(&r->log, cJSON_GetObjectItemCaseSensitive(m, "log"));
    cJSON_Delete(m);
    return r->log.kind ? 0 : -1;
}

int xl_run_open_files(struct xl_run *r)
{
    char path[PATH_MAX + 16], buf[32];
    join(path, sizeof path, r->dir, "out");
    r->out_fd = open(path, O_RDWR | O_CLOEXEC);
    join(path, sizeof path, r->dir, "offset");
    r->off_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (r->out_fd < 0 || r->off_fd < 0)
        return -1;
    ssize_t n = pread(r->off_fd, buf, sizeof buf - 1, 0);
    buf[n > 0 ? n : 0] = '\0';
    r->offset = strtoull(buf, NULL, 10);
    return 0;
}

/* Saves how far the output went, and frees the disk space behind it. */
static void save_offset(struct xl_run *r)
{
    char buf[32];
    int n = snprintf(buf, sizeof buf, "%020" PRIu64 "\n", r->offset);
    (void)!pwrite(r->off_fd, buf, (size_t)n, 0);
    off_t done = (off_t)(r->offset & ~(uint64_t)65535);
    if (done > 0)
        fallocate(r->out_fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, done);
}

void xl_run_pump(struct xl *x, struct xl_run *r)
{
    char *buf = x->pump_buf;   /* only the tick pumps, and it never overlaps */
    size_t moved = 0;
    while (r->out_fd >= 0 && moved < PUMP_MAX_PER_TICK) {
        ssize_t n = pread(r->out_fd, buf, XL_PUMP_CHUNK, (off_t)r->offset);
        if (n <= 0)
            break;
        int rc = x->host->log_append(x->self, r->log.kind, r->log.project, r->log.name,
                                     r->log.stream, buf, (size_t)n);
        if (rc == CUBE_ENOMEM || rc == CUBE_EUNAVAIL || rc == CUBE_EIO)
            break;   /* transient: again on the next tick; others drop the bytes */
        r->offset += (uint64_t)n;
        moved += (size_t)n;
    }
    if (moved)
        save_offset(r);
}

long long xl_kv_number(const char *text, const char *key, long long def)
{
    size_t k = strlen(key);
    for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
        if (strncmp(p, key, k) == 0 && p[k] == ' ')
            return strtoll(p + k + 1, NULL, 10);
    return def;
}

/* The signal's name ("SIGSEGV"), or its number. */
static void sig_name(int sig, char *out, size_t len)
{
    const char *abbrev = sigabbrev_np(sig);
    if (abbrev)
        snprintf(out, len, "SIG%s", abbrev);
    else
        snprintf(out, len, "signal %d", sig);
}

void xl_status_verdict(const char *text, int64_t memory_bytes, int64_t timeout_s,
                       int *code, const char **reason, char *msg, size_t len)
{
    int st = (int)xl_kv_number(text, "status", 0);
    long long oom = xl_kv_number(text, "oom", -1), failcnt = xl_kv_number(text, "failcnt", -1);
    const char *v = strstr(text, "verdict ");
    char verdict[16] = "none", how[64];
    if (v)
        sscanf(v, "verdict %15s", verdict);
    int sig = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
    *code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    if (sig) {
        char name[32];
        sig_name(sig, name, sizeof name);
        snprintf(how, sizeof how, "killed by %s", name);
    } else {
        snprintf(how, sizeof how, "exit code %d", *code);
    }
    int oom_hit = oom > 0 || (oom < 0 && failcnt > 0 && sig == SIGKILL);
    if (strcmp(verdict, "starterror") == 0) {
        *reason = CUBE_EXIT_FAILED;
        int e = (int)xl_kv_number(text, "errno", 0);
        snprintf(msg, len, "cannot %s: %s", xl_step_name((int)xl_kv_number(text, "step", 0)),
                 strerror(e));
    } else if (strcmp(verdict, "stopped") == 0) {
        *reason = CUBE_EXIT_STOPPED;
        snprintf(msg, len, "stopped on request (%s)", how);
    } else if (strcmp(verdict, "timeout") == 0) {
        *reason = CUBE_EXIT_TIMEOUT;
        snprintf(msg, len, "ran past timeoutSeconds (%lld s) (%s)", (long long)timeout_s, how);
    } else if (oom_hit && !(WIFEXITED(st) && *code == 0)) {
        *reason = CUBE_EXIT_OOM;
        snprintf(msg, len, "killed for exceeding its memory limit of %lld bytes (%s)",
                 (long long)memory_bytes, how);
    } else {
        *reason = CUBE_EXIT_COMPLETED;
        if (sig)
            snprintf(msg, len, "%s", how);
        else
            snprintf(msg, len, "exited with code %d", *code);
    }
}

void xl_run_dir_remove(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            unlinkat(dirfd(d), e->d_name, 0);
    if (d)
        closedir(d);
    rmdir(dir);
}

int xl_run_report(struct xl *x, struct xl_run *r)
{
    int rc = x->host->replica_exited(x->self, r->engine_id, r->end_code, r->end_reason,
                                     r->end_msg);
    int reported = rc == CUBE_OK || rc == CUBE_ENOTFOUND || rc == CUBE_EINVAL;
    if (reported && rc != CUBE_OK)
        x->host->log(x->self, CUBE_LOG_WARN, "replica %s ended (%s) but the host does not "
                     "know it", r->engine_id, r->end_reason);
    pthread_mutex_lock(&x->mu);
    if (reported)   /* log close, cgroup and run dir: xl_run_cleanup, by the tick */
        __atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
    __atomic_store_n(&r->reporting, 0, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&x->mu);   /* r may be freed by the tick from here */
    return reported;
}

int xl_run_collect(struct xl *x, struct xl_run *r)
{
    char path[PATH_MAX + 16], text[512];
    join(path, sizeof path, r->dir, "status");
    if (xl_read_file(path, text, sizeof text) <= 0)
        return 0;
    xl_run_pump(x, r);
    xl_status_verdict(text, r->memory_bytes, r->timeout_s, &r->end_code, &r->end_reason,
                      r->end_msg, sizeof r->end_msg);
    return 1;
}

int xl_run_try_reap(struct xl *x, struct xl_run *r)
{
    return xl_run_collect(x, r) && xl_run_report(x, r);
}

int xl_run_check_lost(struct xl *x, struct xl_run *r)
{
    if (xl_proc_start_time(r->sup_pid) == r->sup_start)
        return 0;
    if (xl_run_try_reap(x, r))   /* it may have just written its status */
        return 1;
    xl_run_pump(x, r);
    r->end_code = -1;
    r->end_reason = CUBE_EXIT_LOST;
    snprintf(r->end_msg, sizeof r->end_msg, "the replica's supervisor vanished without "
             "recording how the replica ended");
    return xl_run_report(x, r);
}

void xl_run_cleanup(struct xl *x, struct xl_run *r)
{
    x->host->log_close(x->self, r->log.kind, r->log.project, r->log.name, r->log.stream);
    xl_cgroup_release(&x->cgpool, &r->cg);
    xl_run_dir_remove(r->dir);
}

void xl_run_free(struct xl_run *r)
{
    if (!r)
        return;
    if (r->out_fd >= 0)
        close(r->out_fd);
    if (r->off_fd >= 0)
        close(r->off_fd);
    xl_log_free(&r->log);
    free(r);
}
