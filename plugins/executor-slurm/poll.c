/* poll.c — the poll thread. Every poll_ms: each submitted group's
 * replicas' output tailed into their log streams (log_append_at: resumable
 * and never duplicated), each replica's end reported from its exit file
 * (the wrapper writes it once the command has ended, after all of its
 * output: no Slurm command needed), timeouts and stop grace enforced
 * (scancel). Every squeue_ms (at
 * most; reading files is cheap, a Slurm command is a process and an RPC
 * slurmctld answers under its job lock) the query thread (query.c) runs
 * one `squeue` of our jobs' ids only and hands its answer over; its
 * states report Pending/Running (replica_status, when changed) and end
 * what ended without an exit file (cancelled, node failure, time limit,
 * gone: Lost after 3 squeues that asked for it and did not list it). A
 * group whose replicas have all ended is done, whatever Slurm's state.
 * Only this thread frees groups. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "slurm.h"

#define CHUNK 65536

void sl_poll_kick(struct sl *s)
{
    pthread_mutex_lock(&s->mu);
    s->refresh_now |= 2;   /* 2: a job round now */
    pthread_cond_signal(&s->cv);
    pthread_mutex_unlock(&s->mu);
}

int sl_cancel(struct sl *s, long slurm_id, int sig)
{
    char id[32], sg[32];
    snprintf(id, sizeof id, "%ld", slurm_id);
    snprintf(sg, sizeof sg, "--signal=%d", sig);
    /* not --full: the signal goes to every job step (the replicas) and not
     * to the batch shell, which then sees them end and exits itself */
    char *a1[] = {"scancel", sg, id, NULL};
    char *a2[] = {"scancel", id, NULL};
    struct sl_cmd_out o;
    int rc = sl_cmd(&s->conf, sig ? a1 : a2, (uid_t)-1, 0, NULL, &o);
    if (rc == CUBE_OK && o.status != 0) {
        char why[256];
        sl_cmd_why(&o, why, sizeof why);
        s->host->log(s->self, CUBE_LOG_WARN, "scancel %s %ld: %s", sig ? sg : "", slurm_id, why);
        rc = CUBE_EIO;
    }
    sl_cmd_free(&o);
    return rc;
}

/* Ships what replica i wrote since the last call (without mu: the
 * offsets are the poll thread's). */
static void pump(struct sl *s, struct sl_group *g, int i)
{
    struct sl_rep *r = &g->reps[i];
    char path[900];
    static __thread char buf[CHUNK];
    snprintf(path, sizeof path, "%s/r%d.out", g->dir, i);
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0)
        return;
    for (int rounds = 0; rounds < 64; rounds++) {
        ssize_t n = pread(fd, buf, sizeof buf, (off_t)r->log_off);
        if (n <= 0)
            break;
        int rc = s->host->log_append_at(s->self, r->log.kind, r->log.project, r->log.name,
                                        r->log.stream, r->log_off, buf, (size_t)n);
        if (rc != CUBE_OK && rc != CUBE_ESTATE) {
            if (rc == CUBE_ECONFLICT)   /* the stream is shorter: resync */
                s->host->log_stat(s->self, r->log.kind, r->log.project, r->log.name,
                                  r->log.stream, &r->log_off, NULL);
            break;
        }
        r->log_off += (uint64_t)n;
    }
    close(fd);
}

/* Replica i's exit file ("<code> <oom> <Slurm node>\n"; older wrappers
 * wrote no node): 1 with code, oom and node ("" when absent) once it is
 * there whole (its newline written). */
static int read_exit(const struct sl_group *g, int i, int *code, int *oom, char *node,
                     size_t len)
{
    char path[900], buf[160] = "", nd[96] = "";
    snprintf(path, sizeof path, "%s/r%d.exit", g->dir, i);
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    if (!strchr(buf, '\n'))
        return 0;
    *code = 0, *oom = 0;
    int k = sscanf(buf, "%d %d %95s", code, oom, nd);
    snprintf(node, len, "%s", k >= 3 ? nd : "");
    return k >= 1;
}

/* srun's own complaint about replica i's step into out (its first error
 * line; "" when it said nothing); 1 when it said the step ran out of
 * memory. */
static int launch_said(const struct sl_group *g, int i, char *out, size_t len)
{
    char path[900], buf[8192];
    snprintf(path, sizeof path, "%s/r%d.launch", g->dir, i);
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    buf[n > 0 ? n : 0] = '\0';
    const char *e = strstr(buf, "error: ");
    if (out && len)
        snprintf(out, len, "%.*s", e ? (int)strcspn(e + 7, "\n") : 0, e ? e + 7 : "");
    return strstr(buf, "Out Of Memory") != NULL;
}

static int terminal(const char *st)
{
    static const char *const T[] = {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT",
                                    "OUT_OF_MEMORY", "NODE_FAIL", "PREEMPTED", "BOOT_FAIL",
                                    "DEADLINE", "REVOKED", "SPECIAL_EXIT", NULL};
    for (int i = 0; T[i]; i++)
        if (strcmp(st, T[i]) == 0)
            return 1;
    return 0;
}

/* How replica i ended: code, reason and message. */
static void end_of(struct sl_group *g, int i, int have, int code, int oom, int *out_code,
                   const char **reason, char *msg, size_t len)
{
    const char *st = g->slurm_state;
    *out_code = have ? code : -1;
    if (g->start_failed) {
        *reason = CUBE_EXIT_FAILED;
        snprintf(msg, len, "%s", g->fail_msg);
    } else if (g->stopped && g->stop_reason_timeout) {
        *reason = CUBE_EXIT_TIMEOUT;
        snprintf(msg, len, "ran past timeoutSeconds %lld (Slurm job %ld cancelled)",
                 (long long)g->timeout_s, g->slurm_id);
    } else if ((have && oom) || (!have && launch_said(g, i, NULL, 0)) ||
               strcmp(st, "OUT_OF_MEMORY") == 0) {
        *reason = CUBE_EXIT_OOM;
        snprintf(msg, len, "killed for its memory limit (%lld MiB; Slurm job %ld)",
                 (long long)g->reps[i].mem_mb, g->slurm_id);
    } else if (g->stopped) {
        *reason = CUBE_EXIT_STOPPED;
        snprintf(msg, len, "stopped (Slurm job %ld cancelled)", g->slurm_id);
    } else if (strcmp(st, "TIMEOUT") == 0) {
        *reason = CUBE_EXIT_TIMEOUT;
        snprintf(msg, len, "Slurm's time limit ended job %ld", g->slurm_id);
    } else if (strcmp(st, "NODE_FAIL") == 0 || strcmp(st, "LOST") == 0 ||
               strcmp(st, "BOOT_FAIL") == 0) {
        *reason = CUBE_EXIT_LOST;
        snprintf(msg, len, strcmp(st, "LOST") == 0 ? "Slurm has no job %ld any more"
                                                   : "Slurm job %ld: node failure", g->slurm_id);
    } else if (!have) {
        char said[200];
        launch_said(g, i, said, sizeof said);
        *reason = strcmp(st, "CANCELLED") == 0 ? CUBE_EXIT_STOPPED : CUBE_EXIT_COMPLETED;
        snprintf(msg, len, "Slurm job %ld ended %s%s%s without an exit status%s%s", g->slurm_id,
                 st, g->slurm_reason[0] && strcmp(g->slurm_reason, "None") ? ": " : "",
                 strcmp(g->slurm_reason, "None") ? g->slurm_reason : "", *said ? "; srun: " : "",
                 said);
    } else {
        *reason = CUBE_EXIT_COMPLETED;
        snprintf(msg, len, "exit code %d (Slurm job %ld)", code, g->slurm_id);
    }
}

/* Reports replica i Running before its end when no squeue saw it run
 * (it ran between two): on the node its exit file names (slurm mode). */
static void ran(struct sl *s, struct sl_group *g, int i, const char *slurm_node)
{
    struct sl_rep *r = &g->reps[i];
    char node[96] = "", msg[256];
    if (r->running_reported)
        return;
    if (s->conf.mode == SL_MODE_SLURM && *slurm_node) {
        pthread_mutex_lock(&s->mu);
        const char *cn = sl_node_cube(s, slurm_node);
        snprintf(node, sizeof node, "%s", cn ? cn : "");
        pthread_mutex_unlock(&s->mu);
    }
    snprintf(msg, sizeof msg, "Slurm job %ld on %s", g->slurm_id,
             *slurm_node ? slurm_node : g->slurm_nodes);
    if (s->host->replica_status(s->self, r->engine_id, "Running", node, msg) == CUBE_OK)
        r->running_reported = 1;
}

/* Reports the end of every replica not yet ended whose exit file is there
 * (its output is all in rN.out then: the wrapper writes both), or of all
 * of them when the job is over (final). */
static void ends(struct sl *s, struct sl_group *g, int final)
{
    for (int i = 0; i < g->n; i++) {
        struct sl_rep *r = &g->reps[i];
        int code = 0, oom = 0, have, out;
        const char *reason;
        char msg[SL_MSG], node[96] = "";
        if (!r->used || r->ended)
            continue;
        have = g->start_failed ? 0 : read_exit(g, i, &code, &oom, node, sizeof node);
        if (!have && !final)
            continue;
        pump(s, g, i);
        if (have)
            ran(s, g, i, node);
        end_of(g, i, have, code, oom, &out, &reason, msg, sizeof msg);
        r->ended = 1;
        if (strcmp(reason, CUBE_EXIT_LOST) == 0)
            s->host->log(s->self, CUBE_LOG_WARN, "Job %s/%s replica %d: %s: reported Lost",
                         g->project, g->job, i, msg);
        s->host->replica_exited(s->self, r->engine_id, out, reason, msg);
    }
}

/* Reports Pending with Slurm's state (PENDING, CONFIGURING, ...) and
 * reason, when it has one, each time they change, or Running (once). */
static void status(struct sl *s, struct sl_group *g)
{
    int running = strcmp(g->slurm_state, "RUNNING") == 0 ||
                  strcmp(g->slurm_state, "COMPLETING") == 0;
    char *hosts[SL_MAX_REPLICAS] = {0};
    int nh = running ? sl_hostlist_expand(g->slurm_nodes, hosts, SL_MAX_REPLICAS) : 0;
    if (running && !g->started_ms)
        g->started_ms = sl_mono_ms();
    for (int i = 0; i < g->n; i++) {
        struct sl_rep *r = &g->reps[i];
        char msg[256], node[96] = "";
        if (!r->used || r->ended || (running && r->running_reported))
            continue;
        if (!running) {   /* reason "None": Slurm has not looked at it yet */
            int why = g->slurm_reason[0] && strcmp(g->slurm_reason, "None") != 0;
            snprintf(msg, sizeof msg, "Slurm job %ld %s%s%s", g->slurm_id, g->slurm_state,
                     why ? ": " : "", why ? g->slurm_reason : "");
            if (strncmp(msg, r->pending_msg, sizeof r->pending_msg - 1) != 0 &&
                s->host->replica_status(s->self, r->engine_id, "Pending", NULL, msg) == CUBE_OK)
                snprintf(r->pending_msg, sizeof r->pending_msg, "%s", msg);
            continue;
        }
        if (s->conf.mode == SL_MODE_SLURM && nh > 0) {
            pthread_mutex_lock(&s->mu);
            const char *cn = sl_node_cube(s, hosts[i < nh ? i : nh - 1]);
            snprintf(node, sizeof node, "%s", cn ? cn : "");
            pthread_mutex_unlock(&s->mu);
        }
        snprintf(msg, sizeof msg, "Slurm job %ld on %s", g->slurm_id, g->slurm_nodes);
        if (s->host->replica_status(s->self, r->engine_id, "Running", node, msg) == CUBE_OK)
            r->running_reported = 1;
    }
    for (int i = 0; i < nh; i++)
        free(hosts[i]);
}

/* Timeout and stop grace (without mu). */
static void deadlines(struct sl *s, struct sl_group *g)
{
    int64_t now = sl_mono_ms();
    if (!g->stopped && g->timeout_s > 0 && g->started_ms &&
        now - g->started_ms >= g->timeout_s * 1000) {
        g->stopped = 1;
        g->stop_reason_timeout = 1;
        g->stop_at_ms = now + (int64_t)s->conf.stop_grace * 1000;
        sl_cancel(s, g->slurm_id, 15);
    } else if (g->stopped && g->stop_at_ms && now >= g->stop_at_ms) {
        g->stop_at_ms = 0;
        sl_cancel(s, g->slurm_id, 9);
        sl_cancel(s, g->slurm_id, 0);
    }
}

/* Slurm's state of g from its line of squeue (NULL: not listed). */
static void take_line(struct sl_group *g, const char *line)
{
    if (!line) {
        if (++g->missing_polls >= 3)   /* not a race with sbatch: gone */
            snprintf(g->slurm_state, sizeof g->slurm_state, "LOST");
        return;
    }
    /* id|state|nodes|reason; nodes is empty while the job pends */
    char f[3][256] = {{0}};
    const char *p = strchr(line, '|');
    for (int k = 0; k < 3 && p; k++) {
        const char *q = p + 1, *e = k < 2 ? strchr(q, '|') : strchr(q, '\n');
        size_t n = e ? (size_t)(e - q) : strlen(q);
        snprintf(f[k], sizeof f[k], "%.*s", (int)(n < sizeof f[k] ? n : sizeof f[k] - 1), q);
        p = k < 2 ? e : NULL;
    }
    snprintf(g->slurm_state, sizeof g->slurm_state, "%s", f[0]);
    snprintf(g->slurm_nodes, sizeof g->slurm_nodes, "%s", f[1]);
    snprintf(g->slurm_reason, sizeof g->slurm_reason, "%s", f[2]);
    g->missing_polls = 0;
}

/* 1 when every replica of g has started here (or been adopted) and ended
 * (reported); a group adopted only in part waits for Slurm's end. */
static int all_ended(const struct sl_group *g)
{
    for (int i = 0; i < g->n; i++)
        if (!g->reps[i].used || !g->reps[i].ended)
            return 0;
    return 1;
}

/* One group's round (without mu). seen: squeue answered this round, line
 * is g's line of it (NULL: not listed); otherwise Slurm's state is the
 * last one seen and only the files are read. */
static void round_group(struct sl *s, struct sl_group *g, int seen, const char *line)
{
    if (seen)
        take_line(g, line);
    for (int i = 0; i < g->n; i++)
        if (g->reps[i].used && !g->reps[i].ended)
            pump(s, g, i);
    int over = terminal(g->slurm_state) || strcmp(g->slurm_state, "LOST") == 0;
    if (seen && !over && g->slurm_state[0])
        status(s, g);
    if (!over)
        deadlines(s, g);
    ends(s, g, over);
    if (over || all_ended(g))
        g->state = SL_G_DONE;
}

/* The line of squeue's output for job id (NULL). */
static const char *line_of(const char *out, long id)
{
    char pre[32];
    int n = snprintf(pre, sizeof pre, "%ld|", id);
    for (const char *p = out; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
        if (strncmp(p, pre, (size_t)n) == 0)
            return p;
    return NULL;
}

/* The query thread's latest squeue answer not taken yet (caller holds
 * mu): its output (the caller's to free; NULL when none) and its
 * generation, 0 when Slurm did not answer it or there is none. */
static char *take_answer(struct sl *s, unsigned *gen)
{
    *gen = 0;
    if (s->sq_done_gen == s->sq_used_gen)
        return NULL;
    s->sq_used_gen = s->sq_done_gen;
    s->sq_failing = !s->sq_ok;
    char *out = s->sq_out;
    s->sq_out = NULL;
    if (s->sq_ok && out)
        *gen = s->sq_done_gen;
    return out;
}

/* 1 while Slurm does not answer: the last squeue or node refresh failed,
 * or the query thread's command in flight (squeue, scontrol) has taken
 * more than max(1.5 s, squeue_ms) (one fails after seconds when slurmctld
 * is down). Jobs then keep their state, as the
 * log says: no ends, no deadlines, until Slurm answers again (caller
 * holds mu). */
static int slurm_away(const struct sl *s)
{
    int64_t limit = s->conf.squeue_ms > 1500 ? (int64_t)s->conf.squeue_ms : 1500;
    return s->sq_failing || !s->slurm_up || (s->ask_since_ms && sl_mono_ms() - s->ask_since_ms > limit);
}

/* Logs a hold of the jobs (slurm_away) once it has lasted 10 s, and its
 * end (caller holds mu; this thread's fields only). 1: log "held" now,
 * -1: log "answers again" now, 0: nothing. */
static int note_held(struct sl *s, int held, int64_t *held_ms)
{
    int64_t now = sl_mono_ms();
    if (!held) {
        int said = s->held_said;
        *held_ms = s->held_since_ms ? now - s->held_since_ms : 0;
        s->held_since_ms = 0;
        s->held_said = 0;
        return said ? -1 : 0;
    }
    if (!s->held_since_ms)
        s->held_since_ms = now;
    *held_ms = now - s->held_since_ms;
    if (s->held_said || *held_ms < 10000)
        return 0;
    s->held_said = 1;
    return 1;
}

/* A done group's last ends, its kv record removed; freed (caller holds mu,
 * released meanwhile). */
static void finish(struct sl *s, struct sl_group *g)
{
    char kv[128];
    pthread_mutex_unlock(&s->mu);
    ends(s, g, 1);
    sl_kv_key(g, kv, sizeof kv);
    if (g->slurm_id)
        s->host->kv_delete(s->self, kv);
    pthread_mutex_lock(&s->mu);
    sl_group_free(g);
}

/* One round over the groups (call without mu): submitted ones looked at,
 * with the query thread's squeue answer when a new one came; done ones
 * freed. */
static void jobs_round(struct sl *s)
{
    unsigned gen;
    pthread_mutex_lock(&s->mu);
    char *out = take_answer(s, &gen);
    int held = slurm_away(s);
    int64_t held_ms;
    int say = note_held(s, held, &held_ms);
    if (say) {   /* logged without mu */
        pthread_mutex_unlock(&s->mu);
        s->host->log(s->self, say > 0 ? CUBE_LOG_WARN : CUBE_LOG_INFO,
                     say > 0 ? "Slurm has not answered for %lld s: Jobs keep their state "
                               "(no ends, no deadlines) until it does"
                             : "Slurm answers again after %lld s: Jobs go on",
                     (long long)(held_ms / 1000));
        pthread_mutex_lock(&s->mu);
    }
    struct sl_group **pp = &s->groups;
    while (*pp) {
        struct sl_group *g = *pp;
        if (g->state == SL_G_GATHER && g->stopped) {   /* stopped before its submit */
            g->state = SL_G_DONE;
            snprintf(g->slurm_state, sizeof g->slurm_state, "CANCELLED");
        }
        if (g->state == SL_G_SUBMITTED && !held) {
            int seen = gen && g->sq_gen && g->sq_gen <= gen;   /* asked for it */
            const char *line = seen ? line_of(out, g->slurm_id) : NULL;
            pthread_mutex_unlock(&s->mu);
            round_group(s, g, seen, line);   /* it stays: only this thread frees */
            pthread_mutex_lock(&s->mu);
            /* a Job started meanwhile (one this group's end let in: its
             * replica_exited runs the scheduler) was pushed at the head */
            pp = sl_group_link(s, g, pp);
        }
        if (g->state == SL_G_DONE) {
            if (*pp == g)
                *pp = g->next;   /* off the list: the query thread no longer sees it */
            finish(s, g);
            continue;
        }
        pp = &g->next;
    }
    pthread_mutex_unlock(&s->mu);
    free(out);
}

void *sl_poll_main(void *arg)
{
    struct sl *s = arg;
    pthread_mutex_lock(&s->mu);
    while (!s->quit) {
        s->refresh_now &= ~2;
        pthread_mutex_unlock(&s->mu);
        jobs_round(s);
        pthread_mutex_lock(&s->mu);
        if (s->quit || (s->refresh_now & 2))
            continue;
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        ts.tv_nsec += (long)(s->conf.poll_ms % 1000) * 1000000L;
        ts.tv_sec += s->conf.poll_ms / 1000 + ts.tv_nsec / 1000000000L;
        ts.tv_nsec %= 1000000000L;
        pthread_cond_timedwait(&s->cv, &s->mu, &ts);
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}
