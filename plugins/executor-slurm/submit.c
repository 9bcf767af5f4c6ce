/* submit.c — groups: a Job attempt's replicas gathered from their start
 * calls, the account they run as, and one sbatch submission for all of
 * them once the last has come (a gang is one allocation), run by a
 * submitter thread (submitq.c) so that start returns without waiting for
 * slurmctld. The Slurm job id is recorded in the plugin's kv store (ABI
 * 1.5) under the group's key, where adopt finds it after a restart of
 * cubed. */
#include <errno.h>
#include <inttypes.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "slurm.h"

static const char *jstr(const cJSON *o, const char *k)
{
    return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, k));
}

static double jnum(const cJSON *o, const char *k)
{
    return cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(o, k));
}

int sl_engine_parse(const char *engine_id, char *key, size_t len, int *index)
{
    const char *colon;
    if (!engine_id || strncmp(engine_id, "slurm:", 6) != 0 ||
        !(colon = strrchr(engine_id + 6, ':')))
        return -1;
    size_t n = (size_t)(colon - engine_id - 6);
    char *end;
    long i = strtol(colon + 1, &end, 10);
    if (n == 0 || n >= len || *end || end == colon + 1 || i < 0 || i >= SL_MAX_REPLICAS)
        return -1;
    memcpy(key, engine_id + 6, n);
    key[n] = '\0';
    *index = (int)i;
    return 0;
}

struct sl_group *sl_group_find(struct sl *s, const char *engine_id, int *index)
{
    char key[96];
    if (sl_engine_parse(engine_id, key, sizeof key, index) < 0)
        return NULL;
    for (struct sl_group *g = s->groups; g; g = g->next)
        if (strcmp(g->key, key) == 0 && *index < g->n)
            return g;
    return NULL;
}

void sl_kv_key(const struct sl_group *g, char *out, size_t len)
{
    snprintf(out, len, "grp/%s", g->key);
}

void sl_group_free(struct sl_group *g)
{
    if (g)
        free(g->reps);
    free(g);
}

/* The account the Job's owner runs as: mapped, existing, not root. */
static int resolve_account(struct sl *s, struct sl_group *g, char *msg, size_t len)
{
    struct passwd pw, *pp = NULL;
    char buf[4096];
    if (sl_conf_account(&s->conf, g->user, g->account, sizeof g->account) < 0) {
        snprintf(msg, len, "user %s has no mapped Slurm account (executor-slurm settings "
                 "accounts and account_prefix)", g->user);
        return CUBE_EPERM;
    }
    if (getpwnam_r(g->account, &pw, buf, sizeof buf, &pp) != 0 || !pp) {
        snprintf(msg, len, "user %s maps to account %s, which does not exist on this "
                 "machine", g->user, g->account);
        return CUBE_EPERM;
    }
    if (pp->pw_uid == 0) {
        snprintf(msg, len, "account %s is root: Jobs never run as root", g->account);
        return CUBE_EPERM;
    }
    if (geteuid() != 0 && geteuid() != pp->pw_uid) {
        snprintf(msg, len, "cubed must run as root to submit as account %s", g->account);
        return CUBE_EPERM;
    }
    g->uid = pp->pw_uid;
    g->gid = pp->pw_gid;
    return CUBE_OK;
}

struct sl_group *sl_group_new(struct sl *s, const cJSON *doc, const char *key, char *msg,
                              size_t len)
{
    const cJSON *job = cJSON_GetObjectItemCaseSensitive(doc, "job");
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(job, "metadata");
    const cJSON *spec = cJSON_GetObjectItemCaseSensitive(job, "spec");
    int n = (int)jnum(doc, "replicas");
    struct sl_group *g = calloc(1, sizeof *g);
    if (!g || n < 1 || n > SL_MAX_REPLICAS || !(g->reps = calloc((size_t)n, sizeof *g->reps))) {
        snprintf(msg, len, n < 1 || n > SL_MAX_REPLICAS ? "replicas: 1 to %d on Slurm"
                                                        : "out of memory", SL_MAX_REPLICAS);
        sl_group_free(g);
        return NULL;
    }
    g->n = n;
    snprintf(g->key, sizeof g->key, "%s", key);
    snprintf(g->project, sizeof g->project, "%s", jstr(doc, "project") ? jstr(doc, "project") : "");
    snprintf(g->job, sizeof g->job, "%s", jstr(meta, "name") ? jstr(meta, "name") : "");
    snprintf(g->user, sizeof g->user, "%s", jstr(doc, "user") ? jstr(doc, "user") : "");
    snprintf(g->dir, sizeof g->dir, "%s/%s", s->conf.spool_dir, key);
    g->timeout_s = (int64_t)jnum(doc, "timeoutSeconds");
    const char *pool = jstr(spec, "pool");
    const struct sl_partition *p = sl_conf_part_of_pool(&s->conf, pool && *pool ? pool : NULL);
    if (!p)   /* the node's pool is the partition's */
        for (size_t i = 0; i < s->n_nodes && !p; i++)
            if (strcmp(s->nodes[i].name, jstr(doc, "node") ? jstr(doc, "node") : "") == 0)
                p = sl_conf_part_of_pool(&s->conf, s->nodes[i].pool);
    snprintf(g->part, sizeof g->part, "%s", p ? p->name : s->conf.parts[0].name);
    if (resolve_account(s, g, msg, len) != CUBE_OK) {
        sl_group_free(g);
        return NULL;
    }
    return g;
}

void sl_rep_fill(struct sl *s, struct sl_group *g, int i, const cJSON *doc)
{
    struct sl_rep *r = &g->reps[i];
    const cJSON *lim = cJSON_GetObjectItemCaseSensitive(doc, "limits");
    const cJSON *log = cJSON_GetObjectItemCaseSensitive(doc, "log");
    const cJSON *job = cJSON_GetObjectItemCaseSensitive(doc, "job");
    const cJSON *res = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(job, "spec"),
                                         "resources"), "limits");
    double cpu = jnum(lim, "cpuMillis"), mem = jnum(lim, "memoryBytes");
    r->used = 1;
    snprintf(r->node, sizeof r->node, "%s", jstr(doc, "node") ? jstr(doc, "node") : "");
    r->cpus = cpu > 0 ? (int64_t)((cpu + 999) / 1000) : 1;
    r->mem_mb = mem > 0 ? (int64_t)((mem + 1048575) / 1048576) : s->conf.default_memory_mb;
    /* devices Cube gave it: --gres of the mapped name, as many */
    int ndev = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(doc, "devices"));
    r->gres_count = 0;
    r->gres[0] = '\0';
    const cJSON *e;
    (void)res;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(
                              cJSON_GetObjectItemCaseSensitive(job, "spec"), "resources")) {
        const char *gres = strchr(e->string, '/') ? sl_conf_gres_of(&s->conf, e->string) : NULL;
        if (gres && ndev > 0) {
            snprintf(r->gres, sizeof r->gres, "%s", gres);
            r->gres_count = ndev;
        }
    }
    snprintf(r->log.kind, sizeof r->log.kind, "%s", jstr(log, "kind") ? jstr(log, "kind") : "Job");
    snprintf(r->log.project, sizeof r->log.project, "%s",
             jstr(log, "project") ? jstr(log, "project") : "");
    snprintf(r->log.name, sizeof r->log.name, "%s", jstr(log, "name") ? jstr(log, "name") : "");
    snprintf(r->log.stream, sizeof r->log.stream, "%s",
             jstr(log, "stream") ? jstr(log, "stream") : "replica-0");
}

/* sbatch's arguments for g into argv (strings in store). */
static void sbatch_args(struct sl *s, struct sl_group *g, char **argv, char store[][300])
{
    int a = 0, k = 0;
    int64_t mem_node = 0, cpus_node = 0;
#define ARG(...) (snprintf(store[k], 300, __VA_ARGS__), argv[a++] = store[k++])
    argv[a++] = "sbatch";
    argv[a++] = "--parsable";
    /* ALL, of sl_cmd's clean environment (PATH, LANG, HOME, SLURM_CONF:
     * nothing of cubed's); the replica scripts set the Job's own. NONE
     * would make slurmd load the account's login environment for every
     * job, seconds each (tests/bench/cube_on_slurm.sh). */
    argv[a++] = "--export=ALL";
    ARG("--job-name=cube-%s-%s", g->project, g->job);
    ARG("--comment=cube:%s", g->key);
    ARG("--partition=%s", g->part);
    ARG("--chdir=%s", g->dir);
    ARG("--output=%s/batch.out", g->dir);
    ARG("--ntasks=%d", g->n);
    /* nodes: cube mode the distinct nodes Cube chose, slurm mode one each */
    char list[2048] = "";
    int distinct = 0;
    pthread_mutex_lock(&s->mu);
    for (int i = 0; i < g->n; i++) {
        const char *sn = sl_node_slurm(s, g->reps[i].node);
        int seen = 0;
        for (int j = 0; j < i && sn; j++)
            seen |= strcmp(g->reps[j].node, g->reps[i].node) == 0;
        int64_t m = 0, c = 0;
        for (int j = 0; j < g->n; j++)
            if (strcmp(g->reps[j].node, g->reps[i].node) == 0)
                m += g->reps[j].mem_mb, c += g->reps[j].cpus;
        mem_node = m > mem_node ? m : mem_node;
        cpus_node = c > cpus_node ? c : cpus_node;
        if (sn && !seen && strlen(list) + strlen(sn) + 2 < sizeof list) {
            if (*list)
                strcat(list, ",");
            strcat(list, sn);
            distinct++;
        }
    }
    pthread_mutex_unlock(&s->mu);
    if (s->conf.mode == SL_MODE_CUBE && distinct > 0) {
        ARG("--nodes=%d", distinct);
        ARG("--nodelist=%s", list);
        ARG("--mem=%" PRId64 "M", mem_node);
        ARG("--cpus-per-task=%" PRId64, g->reps[0].cpus);
    } else {
        ARG("--nodes=%d", g->n);
        argv[a++] = "--ntasks-per-node=1";
        ARG("--mem=%" PRId64 "M", g->reps[0].mem_mb);
        ARG("--cpus-per-task=%" PRId64, g->reps[0].cpus);
    }
    (void)cpus_node;
    if (g->reps[0].gres_count > 0)
        ARG("--gres=%s:%" PRId64, g->reps[0].gres, g->reps[0].gres_count);
    if (g->timeout_s > 0)   /* a backstop; the poll thread ends it on time */
        ARG("--time=%" PRId64, (g->timeout_s + 59) / 60 + 1);
    const struct sl_project_acct *pa = sl_conf_project(&s->conf, g->project);
    if (pa && pa->account[0])
        ARG("--account=%s", pa->account);
    if (pa && pa->qos[0])
        ARG("--qos=%s", pa->qos);
    ARG("%s/job.sh", g->dir);
    argv[a] = NULL;
#undef ARG
}

/* Runs sbatch for g (without mu): its Slurm job id, or 0 with msg. */
static long sbatch(struct sl *s, struct sl_group *g, char *msg, size_t len)
{
    char *argv[40], store[24][300];
    if (sl_script_batch(s, g, msg, len) != CUBE_OK)
        return 0;
    sbatch_args(s, g, argv, store);
    struct sl_cmd_out o;
    if (sl_cmd(&s->conf, argv, g->uid, g->gid, g->account, &o) != CUBE_OK || o.status != 0) {
        char why[300];
        sl_cmd_why(&o, why, sizeof why);
        snprintf(msg, len, "sbatch: %s", why);
        sl_cmd_free(&o);
        return 0;
    }
    long id = strtol(o.out, NULL, 10);   /* "123" or "123;cluster" */
    sl_cmd_free(&o);
    if (id <= 0)
        snprintf(msg, len, "sbatch answered no job id");
    return id > 0 ? id : 0;
}

/* sbatch failed: every replica ends StartError saying why (with mu). */
static void submit_failed(struct sl *s, struct sl_group *g, const char *msg)
{
    g->start_failed = 1;
    g->state = SL_G_DONE;
    snprintf(g->fail_msg, sizeof g->fail_msg, "%s", msg);
    s->submit_fail++;
}

void sl_submit_group(struct sl *s, struct sl_group *g)
{
    char msg[SL_MSG] = "", kv[128], val[64];
    pthread_mutex_lock(&s->mu);
    int stopped = g->stopped;
    if (stopped) {   /* stopped before its sbatch: never reaches Slurm */
        g->state = SL_G_DONE;
        snprintf(g->slurm_state, sizeof g->slurm_state, "CANCELLED");
    }
    pthread_mutex_unlock(&s->mu);
    if (stopped)
        return;
    long id = sbatch(s, g, msg, sizeof msg);
    if (id > 0) {   /* recorded before the poll thread may see it end */
        sl_kv_key(g, kv, sizeof kv);
        snprintf(val, sizeof val, "%ld %s", id, g->part);
        int krc = s->host->kv_put(s->self, kv, val, strlen(val));
        if (krc != CUBE_OK)
            s->host->log(s->self, CUBE_LOG_WARN, "Slurm job %ld: kv_put failed (%d): a "
                         "restart of cubed will not re-adopt it", id, krc);
    }
    pthread_mutex_lock(&s->mu);
    if (id > 0) {
        g->slurm_id = id;
        g->state = SL_G_SUBMITTED;
        s->submits++;
        stopped = g->stopped;   /* sl_stop saw no job id to cancel */
    } else {
        submit_failed(s, g, msg);
    }
    pthread_mutex_unlock(&s->mu);
    if (id <= 0)
        s->host->log(s->self, CUBE_LOG_WARN, "Job %s/%s: %s", g->project, g->job, msg);
    else
        s->host->log(s->self, CUBE_LOG_INFO, "Job %s/%s: %d replica%s as Slurm job %ld "
                     "(partition %s, account %s)", g->project, g->job, g->n,
                     g->n == 1 ? "" : "s", id, g->part, g->account);
    if (id > 0 && stopped)
        sl_cancel(s, id, 15);
}

/* The group of doc's Job attempt, made when its first replica comes. */
static struct sl_group *group_for(struct sl *s, const cJSON *doc, char *key, size_t klen,
                                  char *msg, size_t len)
{
    const cJSON *job = cJSON_GetObjectItemCaseSensitive(doc, "job");
    const char *uid = jstr(cJSON_GetObjectItemCaseSensitive(job, "metadata"), "uid");
    double attempt = jnum(cJSON_GetObjectItemCaseSensitive(job, "status"), "attempts");
    if (!uid || !*uid || strlen(uid) > 64 || strchr(uid, '/') || strchr(uid, ':')) {
        snprintf(msg, len, "job.metadata.uid: missing or not usable");
        return NULL;
    }
    snprintf(key, klen, "%s-%d", uid, attempt > 0 ? (int)attempt : 1);
    for (struct sl_group *g = s->groups; g; g = g->next)
        if (strcmp(g->key, key) == 0)
            return g;
    struct sl_group *g = sl_group_new(s, doc, key, msg, len);
    if (g) {
        g->next = s->groups;
        s->groups = g;
    }
    return g;
}

int sl_start(void *state, const char *replica_json, char *engine_id, size_t engine_id_len,
             char *msg, size_t msg_len)
{
    struct sl *s = state;
    cJSON *doc = cJSON_Parse(replica_json);
    char key[96];
    int rc = CUBE_EINVAL, i = (int)jnum(doc, "replica");
    if (!doc) {
        snprintf(msg, msg_len, "replica document: not JSON");
        return CUBE_EINVAL;
    }
    pthread_mutex_lock(&s->mu);
    struct sl_group *g = group_for(s, doc, key, sizeof key, msg, msg_len);
    if (!g)
        rc = CUBE_EPERM;
    else if (i < 0 || i >= g->n || g->reps[i].used || g->state != SL_G_GATHER)
        snprintf(msg, msg_len, "replica %d: started twice or out of range", i);
    else
        rc = CUBE_OK;
    if (rc == CUBE_OK) {
        sl_rep_fill(s, g, i, doc);
        snprintf(g->reps[i].engine_id, sizeof g->reps[i].engine_id, "slurm:%s:%d", key, i);
        snprintf(engine_id, engine_id_len, "%s", g->reps[i].engine_id);
    }
    pthread_mutex_unlock(&s->mu);
    if (rc == CUBE_OK)
        rc = sl_script_replica(s, g, i, doc, msg, msg_len);
    cJSON_Delete(doc);
    if (rc != CUBE_OK) {
        if (g) {
            pthread_mutex_lock(&s->mu);
            g->reps[i].used = g->reps[i].used && rc == CUBE_OK;
            pthread_mutex_unlock(&s->mu);
        }
        return rc;
    }
    /* complete: a submitter runs its sbatch; should it fail, every replica
     * ends StartError (poll.c), maybe before this start has returned (the
     * host keeps such an early end until the start is recorded) */
    pthread_mutex_lock(&s->mu);
    if (++g->have == g->n && !g->stopped)
        sl_subq_push(s, g);
    pthread_mutex_unlock(&s->mu);
    return CUBE_OK;
}

int sl_stop(void *state, const char *engine_id, unsigned grace_seconds)
{
    struct sl *s = state;
    int i;
    pthread_mutex_lock(&s->mu);
    struct sl_group *g = sl_group_find(s, engine_id, &i);
    if (!g || !g->reps[i].used) {
        pthread_mutex_unlock(&s->mu);
        return CUBE_ENOTFOUND;
    }
    long id = g->slurm_id;
    int first = !g->stopped;
    unsigned grace = grace_seconds ? grace_seconds : s->conf.stop_grace;
    if (first) {
        g->stopped = 1;
        g->stop_at_ms = sl_mono_ms() + (int64_t)grace * 1000;
    }
    pthread_mutex_unlock(&s->mu);
    if (first && id > 0)
        sl_cancel(s, id, 15);
    sl_poll_kick(s);
    return CUBE_OK;
}
