/* adopt.c — after a restart of cubed: each replica the store says ran here
 * comes back through adopt with its engine id and replica document. The
 * group's Slurm job id is in the kv store (written at submit); the poll
 * thread then finds the job in squeue (or reports the replica Lost when
 * Slurm no longer knows it), and output resumes where the log stream ends
 * (log_stat, ABI 1.5). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slurm.h"

/* The group key's Slurm job id and partition from the kv store (0). */
static long kv_job(struct sl *s, const char *key, char *part, size_t len)
{
    char kv[128];
    size_t n = 0;
    int rc = CUBE_OK;
    snprintf(kv, sizeof kv, "grp/%s", key);
    char *v = s->host->kv_get(s->self, kv, &n, &rc);
    long id = 0;
    if (v) {
        char p[64] = "";
        if (sscanf(v, "%ld %63s", &id, p) < 1)
            id = 0;
        snprintf(part, len, "%s", p);
        s->host->free(v);
    }
    return id;
}

int sl_adopt(void *state, const char *engine_id, const char *replica_json)
{
    struct sl *s = state;
    char key[96], part[64] = "", msg[SL_MSG];
    int i;
    if (sl_engine_parse(engine_id, key, sizeof key, &i) < 0)
        return CUBE_ENOTFOUND;
    long id = kv_job(s, key, part, sizeof part);
    if (id <= 0)   /* never submitted (cubed stopped while gathering) */
        return CUBE_ENOTFOUND;
    cJSON *doc = cJSON_Parse(replica_json);
    if (!doc)
        return CUBE_ENOTFOUND;
    pthread_mutex_lock(&s->mu);
    struct sl_group *g = NULL;
    for (g = s->groups; g && strcmp(g->key, key) != 0; g = g->next)
        ;
    if (!g && (g = sl_group_new(s, doc, key, msg, sizeof msg))) {
        g->slurm_id = id;
        g->state = SL_G_SUBMITTED;
        g->have = g->n;
        if (part[0])
            snprintf(g->part, sizeof g->part, "%s", part);
        g->next = s->groups;
        s->groups = g;
    }
    int rc = g && i < g->n && !g->reps[i].used ? CUBE_OK : CUBE_ENOTFOUND;
    if (rc == CUBE_OK) {
        struct sl_rep *r = &g->reps[i];
        sl_rep_fill(s, g, i, doc);
        snprintf(r->engine_id, sizeof r->engine_id, "%s", engine_id);
        uint64_t size = 0;
        int closed = 0;
        if (s->host->log_stat(s->self, r->log.kind, r->log.project, r->log.name,
                              r->log.stream, &size, &closed) == CUBE_OK)
            r->log_off = size;   /* the stream holds the file's first bytes */
        /* its time limit counts from now: the start time before the restart is
         * not known here (Slurm's --time backstop still holds) */
        g->started_ms = 0;
    }
    pthread_mutex_unlock(&s->mu);
    cJSON_Delete(doc);
    if (rc == CUBE_OK)
        s->host->log(s->self, CUBE_LOG_INFO, "re-adopted %s (Slurm job %ld)", engine_id, id);
    else
        s->host->log(s->self, CUBE_LOG_WARN, "cannot re-adopt %s: %s", engine_id,
                     g ? "replica already adopted" : msg);
    sl_poll_kick(s);
    return rc;
}
