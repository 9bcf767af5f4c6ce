/* script.c — a group's spool directory: the batch script that launches each
 * replica as one job step (srun) and each replica's wrapper, which sets
 * the replica's environment, enters its workdir, runs its command and
 * writes "<exit code> <oom 0|1> <Slurm node>\n" to rN.exit (in one write:
 * a reader takes it once the newline is there). The wrapper writes the
 * replica's output to rN.out itself, so all of it is there when rN.exit
 * is. Files are the account's, mode
 * 0700 (a wrapper holds the replica's CUBE_TOKEN). */
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "slurm.h"

#define SCRIPT_CAP (1u << 20)

struct sb { char *p; size_t n, cap; int oom; };

static void sb_add(struct sb *b, const char *s)
{
    size_t k = strlen(s);
    if (b->oom || b->n + k + 1 > SCRIPT_CAP) {
        b->oom = 1;
        return;
    }
    if (b->n + k + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->n + k + 1)
            cap *= 2;
        char *p = realloc(b->p, cap);
        if (!p) {
            b->oom = 1;
            return;
        }
        b->p = p, b->cap = cap;
    }
    memcpy(b->p + b->n, s, k + 1);
    b->n += k;
}

static void sb_q(struct sb *b, const char *s)   /* single-quoted */
{
    size_t cap = strlen(s) * 4 + 3;
    char *q = malloc(cap);
    if (!q) {
        b->oom = 1;
        return;
    }
    q[0] = '\0';
    if (sl_shquote(q, cap, s) < 0)
        b->oom = 1;
    else
        sb_add(b, q);
    free(q);
}

static void sb_fmt(struct sb *b, const char *fmt, long v)
{
    char t[64];
    snprintf(t, sizeof t, fmt, v);
    sb_add(b, t);
}

/* Writes text to dir/name as the account, mode 0700. */
static int put_file(const struct sl_group *g, const char *name, const struct sb *b,
                    char *msg, size_t len)
{
    char path[900], tmp[910];
    snprintf(path, sizeof path, "%s/%s", g->dir, name);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0700);
    int ok = fd >= 0 && write(fd, b->p, b->n) == (ssize_t)b->n &&
             fchown(fd, g->uid, g->gid) == 0 && fchmod(fd, 0700) == 0;
    if (fd >= 0 && close(fd) < 0)
        ok = 0;
    if (!ok || rename(tmp, path) < 0) {
        snprintf(msg, len, "cannot write %s: %s", path, strerror(errno));
        unlink(tmp);
        return CUBE_EIO;
    }
    return CUBE_OK;
}

static int env_name_ok(const char *k)
{
    if (!k || !((*k >= 'A' && *k <= 'Z') || (*k >= 'a' && *k <= 'z') || *k == '_'))
        return 0;
    for (const char *p = k; *p; p++)
        if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
              (*p >= '0' && *p <= '9') || *p == '_'))
            return 0;
    return 1;
}

/* Makes g->dir (its parent, the spool dir, root's and 0711). */
static int make_dir(const struct sl *s, const struct sl_group *g, char *msg, size_t len)
{
    struct stat st;
    if (mkdir(s->conf.spool_dir, 0711) < 0 && errno != EEXIST) {
        snprintf(msg, len, "spool_dir %s: %s", s->conf.spool_dir, strerror(errno));
        return CUBE_EIO;
    }
    if (mkdir(g->dir, 0700) < 0 && errno != EEXIST) {
        snprintf(msg, len, "cannot make %s: %s", g->dir, strerror(errno));
        return CUBE_EIO;
    }
    if (lstat(g->dir, &st) < 0 || !S_ISDIR(st.st_mode) ||
        lchown(g->dir, g->uid, g->gid) < 0 || chmod(g->dir, 0700) < 0) {
        snprintf(msg, len, "cannot prepare %s for account %s: %s", g->dir, g->account,
                 strerror(errno));
        return CUBE_EIO;
    }
    return CUBE_OK;
}

/* The lines that say whether the replica's own memory cgroup (v1: its
 * task and step groups; v2: memory.events) saw an OOM kill; shell
 * builtins only (no process per check: replicas of short Jobs end by the
 * thousand). */
static const char OOM_CHECK[] =
    "oom_in() { while read -r k v; do\n"
    "  [ \"$k\" = oom_kill ] && [ \"${v:-0}\" -gt 0 ] && return 0; done <\"$1\"; return 1; }\n"
    "oom=0\n"
    "while IFS=: read -r _ ctl path; do\n"
    "  case \",$ctl,\" in\n"
    "  *,memory,*) for d in \"$path\" \"${path%/*}\"; do\n"
    "      f=/sys/fs/cgroup/memory$d/memory.oom_control\n"
    "      [ -r \"$f\" ] && oom_in \"$f\" && oom=1\n"
    "    done ;;\n"
    "  ,,) f=/sys/fs/cgroup$path/memory.events\n"
    "      [ -r \"$f\" ] && oom_in \"$f\" && oom=1 ;;\n"
    "  esac\n"
    "done </proc/self/cgroup\n";

int sl_script_replica(struct sl *s, struct sl_group *g, int i, const cJSON *doc, char *msg,
                      size_t len)
{
    struct sb b = {0};
    char name[32], exitf[900], outf[900];
    const cJSON *env = cJSON_GetObjectItemCaseSensitive(doc, "env"), *e;
    const cJSON *argv = cJSON_GetObjectItemCaseSensitive(doc, "command");
    const char *wd = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(doc, "workdir"));
    struct passwd pw, *pp = NULL;
    char pwbuf[4096];
    if (make_dir(s, g, msg, len) != CUBE_OK)
        return CUBE_EIO;
    if (!cJSON_IsArray(argv) || cJSON_GetArraySize(argv) == 0) {
        snprintf(msg, len, "command: empty");
        return CUBE_EINVAL;
    }
    getpwnam_r(g->account, &pw, pwbuf, sizeof pwbuf, &pp);
    snprintf(exitf, sizeof exitf, "%s/r%d.exit", g->dir, i);
    snprintf(outf, sizeof outf, "%s/r%d.out", g->dir, i);
    sb_add(&b, "#!/bin/bash\n# Cube replica, written by executor-slurm\nexec >>");
    sb_q(&b, outf);   /* written by the replica itself: all there once it has ended */
    sb_add(&b, " 2>&1 </dev/null\n");
    sb_add(&b, "export PATH=/usr/local/bin:/usr/bin:/bin\nexport USER=");
    sb_q(&b, g->account);
    sb_add(&b, " LOGNAME=");
    sb_q(&b, g->account);
    sb_add(&b, " HOME=");
    sb_q(&b, pp && pp->pw_dir ? pp->pw_dir : "/");
    sb_add(&b, "\n");
    cJSON_ArrayForEach(e, env) {
        if (!cJSON_IsString(e) || !env_name_ok(e->string))
            continue;
        sb_add(&b, "export ");
        sb_add(&b, e->string);
        sb_add(&b, "=");
        sb_q(&b, e->valuestring);
        sb_add(&b, "\n");
    }
    /* slurm mode: Slurm chose the nodes; rank 0 runs on the batch host */
    if (s->conf.mode == SL_MODE_SLURM)
        sb_add(&b, "[ -n \"${MASTER_ADDR:-}\" ] && export MASTER_ADDR=\"$SLURM_LAUNCH_NODE_IPADDR\"\n");
    sb_add(&b, "cd -- ");
    sb_q(&b, wd && *wd ? wd : pp && pp->pw_dir && access(pp->pw_dir, X_OK) == 0 ? pp->pw_dir
                                                                               : g->dir);
    sb_add(&b, " || { echo \"executor-slurm: cannot enter the workdir\" >&2; echo '127 0' >");
    sb_q(&b, exitf);
    sb_add(&b, "; exit 127; }\n");
    cJSON_ArrayForEach(e, argv) {
        sb_q(&b, cJSON_IsString(e) ? e->valuestring : "");
        sb_add(&b, " ");
    }
    sb_add(&b, "&\nchild=$!\ntrap 'kill -TERM $child 2>/dev/null' TERM INT\n"
               "while :; do wait $child; rc=$?; kill -0 $child 2>/dev/null || break; done\n");
    sb_add(&b, OOM_CHECK);
    sb_add(&b, "printf '%s %s %s\\n' \"$rc\" \"$oom\" \"${SLURMD_NODENAME:-}\" >");
    sb_q(&b, exitf);   /* one write; read only once its newline is there */
    sb_add(&b, "\nexit $rc\n");
    snprintf(name, sizeof name, "r%d.sh", i);
    int rc = b.oom ? (snprintf(msg, len, "the replica's script is too large"), CUBE_ETOOBIG)
                   : put_file(g, name, &b, msg, len);
    free(b.p);
    return rc;
}

/* One srun line: replica i as a step of its own. Its output does not go
 * through srun (which forwards it on its own time, after the step's end):
 * the wrapper writes rN.out itself. */
static void step_line(struct sl *s, struct sb *b, const struct sl_group *g, int i)
{
    const struct sl_rep *r = &g->reps[i];
    char path[900];
    sb_add(b, "srun --export=ALL --nodes=1 --ntasks=1 --exact --kill-on-bad-exit=0");
    pthread_mutex_lock(&s->mu);
    const char *node = s->conf.mode == SL_MODE_CUBE ? sl_node_slurm(s, r->node) : NULL;
    if (node) {
        sb_add(b, " --nodelist=");
        sb_q(b, node);
    } else {
        sb_fmt(b, " --relative=%ld", i);
    }
    pthread_mutex_unlock(&s->mu);
    sb_fmt(b, " --cpus-per-task=%ld", (long)r->cpus);
    sb_fmt(b, " --mem=%ldM", (long)r->mem_mb);
    if (r->gres_count > 0) {
        sb_add(b, " --gres=");
        sb_add(b, r->gres);
        sb_fmt(b, ":%ld", (long)r->gres_count);
    }
    sb_fmt(b, " --job-name=replica-%ld --output=/dev/null /bin/bash ", i);
    snprintf(path, sizeof path, "%s/r%d.sh", g->dir, i);
    sb_q(b, path);
    sb_add(b, " 2>>");
    snprintf(path, sizeof path, "%s/r%d.launch", g->dir, i);
    sb_q(b, path);
    sb_fmt(b, " &\np%ld=$!\n", i);
}

int sl_script_batch(struct sl *s, struct sl_group *g, char *msg, size_t len)
{
    struct sb b = {0};
    sb_add(&b, "#!/bin/bash\n# Cube Job ");
    sb_add(&b, g->project);
    sb_add(&b, "/");
    sb_add(&b, g->job);
    sb_add(&b, " (executor-slurm): one job step per replica\n"
               "export PATH=/usr/local/bin:/usr/bin:/bin\ncd -- ");
    sb_q(&b, g->dir);
    sb_add(&b, " || exit 1\n");
    for (int i = 0; i < g->n; i++)
        step_line(s, &b, g, i);
    sb_add(&b, "rc=0\n");
    for (int i = 0; i < g->n; i++)
        sb_fmt(&b, "wait $p%ld || rc=1\n", i);
    sb_add(&b, "exit $rc\n");
    int rc = b.oom ? (snprintf(msg, len, "the batch script is too large"), CUBE_ETOOBIG)
                   : put_file(g, "job.sh", &b, msg, len);
    free(b.p);
    return rc;
}
