/* runmemo.c — what a run's controller passes keep between them: the run
 * as parsed and its status as the last pass left it, which may be ahead of
 * the stored one (runstatus.c writes a running run's status at most every
 * status_write_ms). A pass reuses the memo only when the object it is
 * given is byte for byte the one the memo was built from or last wrote
 * (length and a hash of the text), so a change by anyone else (the stop
 * and rerun actions, a label) or a restart makes the next pass start again
 * from the stored run and its Jobs: what a pass did not write yet is found
 * again there (a task's Job exists: it is adopted; it ended: it is
 * followed), so nothing is lost.
 *
 * A memo is taken out of the table for a pass (one pass of a run runs at a
 * time) and put back after; at most PL_MEMO_SLOTS runs are kept, the one
 * used longest ago goes first. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline.h"

static uint64_t text_hash(const char *text, size_t len)
{
    uint64_t h = 1469598103934665603u;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)text[i]) * 1099511628211u;
    return h;
}

void pl_memo_free(struct pl_memo *m)
{
    if (!m)
        return;
    cJSON_Delete(m->run);
    cJSON_Delete(m->status);
    free(m->dirs_made);
    free(m);
}

/* Removes and returns the table's memo of a run, or NULL. */
static struct pl_memo *table_take(struct pl *p, const char *project, const char *name)
{
    struct pl_memo *m = NULL;
    pthread_mutex_lock(&p->memo_mu);
    for (int i = 0; i < PL_MEMO_SLOTS && !m; i++)
        if (p->memo[i] && !strcmp(p->memo[i]->project, project) &&
            !strcmp(p->memo[i]->name, name)) {
            m = p->memo[i];
            p->memo[i] = NULL;
        }
    pthread_mutex_unlock(&p->memo_mu);
    return m;
}

/* (Re)builds m from the stored run's text; -1 when it does not parse. */
static int build(struct pl_memo *m, const char *text, size_t len)
{
    cJSON_Delete(m->run);
    cJSON_Delete(m->status);
    m->run = cJSON_ParseWithLength(text, len);
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(m->run, "status");
    m->status = cJSON_IsObject(st) ? cJSON_Duplicate(st, 1) : cJSON_CreateObject();
    m->len = len;
    m->hash = text_hash(text, len);
    m->written_at = 0;   /* unknown: a change is written at once */
    m->fresh = 1;
    free(m->dirs_made);  /* found again on disk */
    m->dirs_made = NULL;
    m->n_dirs_made = 0;
    return m->run && m->status ? 0 : -1;
}

struct pl_memo *pl_memo_take(struct pl *p, const char *project, const char *name,
                             const char *text)
{
    size_t len = strlen(text);
    struct pl_memo *m = table_take(p, project ? project : "", name);
    if (m && m->len == len && m->hash == text_hash(text, len))
        return m;   /* the run as this memo knows it */
    if (!m && !(m = calloc(1, sizeof *m)))
        return NULL;
    snprintf(m->project, sizeof m->project, "%s", project ? project : "");
    snprintf(m->name, sizeof m->name, "%s", name);
    if (build(m, text, len) < 0) {
        pl_memo_free(m);
        return NULL;
    }
    return m;
}

void pl_memo_put(struct pl *p, struct pl_memo *m)
{
    int slot = -1, oldest = 0;
    struct pl_memo *evicted = NULL;
    m->used_at = pl_clock();
    pthread_mutex_lock(&p->memo_mu);
    for (int i = 0; i < PL_MEMO_SLOTS && slot < 0; i++) {
        if (!p->memo[i])
            slot = i;
        else if (p->memo[i]->used_at < p->memo[oldest]->used_at)
            oldest = i;
    }
    if (slot < 0) {
        evicted = p->memo[oldest];
        slot = oldest;
    }
    p->memo[slot] = m;
    pthread_mutex_unlock(&p->memo_mu);
    pl_memo_free(evicted);
}

void pl_memo_forget(struct pl *p, const char *project, const char *name)
{
    pl_memo_free(table_take(p, project ? project : "", name));
}

int pl_memo_written(struct pl_memo *m, const char *stored)
{
    size_t len = strlen(stored);
    cJSON *run = cJSON_ParseWithLength(stored, len);
    if (!run)
        return -1;
    cJSON_Delete(m->run);
    m->run = run;
    m->len = len;
    m->hash = text_hash(stored, len);
    m->written_at = pl_clock();
    return 0;
}

void pl_memo_fini(struct pl *p)
{
    for (int i = 0; i < PL_MEMO_SLOTS; i++) {
        pl_memo_free(p->memo[i]);
        p->memo[i] = NULL;
    }
    pthread_mutex_destroy(&p->memo_mu);
}
