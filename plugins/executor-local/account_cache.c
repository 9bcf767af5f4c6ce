/* account_cache.c — what accounts.c found for a (user, project): the
 * account's uid and gid and the project group's gid, with the account
 * already its member. A start looks these up in /etc/passwd and
 * /etc/group (getpwnam_r and getgrnam_r read and parse the whole files)
 * only when the cache cannot answer.
 *
 * An answer holds only while both files are the ones it was read from:
 * same device, inode, size, and modification and change times. useradd,
 * groupadd, usermod, userdel and vipw all replace or rewrite the files, so
 * any change to accounts (ours or an administrator's) empties the cache
 * and the next start looks again, as before. Called with the accounts'
 * mutex held. */
#include "executor_local.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static const char *const account_files[2] = {"/etc/passwd", "/etc/group"};

int xl_acache_stamp_now(struct xl_acache_stamp *out)
{
    memset(out, 0, sizeof *out);
    for (int i = 0; i < 2; i++) {
        struct stat st;
        if (stat(account_files[i], &st) < 0)
            return 0;
        out->f[i] = (struct xl_acache_file){st.st_dev, st.st_ino, st.st_size, st.st_mtim,
                                            st.st_ctim};
    }
    out->valid = 1;
    return 1;
}

static int same_time(struct timespec a, struct timespec b)
{
    return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

static int same_stamp(const struct xl_acache_stamp *a, const struct xl_acache_stamp *b)
{
    if (!a->valid || !b->valid)
        return 0;
    for (int i = 0; i < 2; i++)
        if (a->f[i].dev != b->f[i].dev || a->f[i].ino != b->f[i].ino ||
            a->f[i].size != b->f[i].size || !same_time(a->f[i].mtime, b->f[i].mtime) ||
            !same_time(a->f[i].ctime, b->f[i].ctime))
            return 0;
    return 1;
}

int xl_acache_get(struct xl_acache *c, const struct xl_acache_stamp *now, const char *user,
                  const char *project, struct xl_account *acct, gid_t *pgid)
{
    if (!same_stamp(&c->stamp, now)) {
        c->n = 0;   /* the files changed: everything is looked up again */
        c->stamp = *now;
        return 0;
    }
    for (int i = 0; i < c->n; i++) {
        const struct xl_acache_entry *e = &c->e[i];
        if (!strcmp(e->user, user) && !strcmp(e->project, project)) {
            snprintf(acct->name, sizeof acct->name, "%s", e->name);
            acct->uid = e->uid;
            acct->gid = e->gid;
            *pgid = e->pgid;
            return 1;
        }
    }
    return 0;
}

void xl_acache_put(struct xl_acache *c, const struct xl_acache_stamp *before, const char *user,
                   const char *project, const struct xl_account *acct, gid_t pgid)
{
    /* Looked up from files that were replaced meanwhile (by us, adding the
     * account, or by anyone): not kept, the next start looks again. (The
     * cache's own stamp is `before`: xl_acache_get set it.) */
    struct xl_acache_stamp after;
    if (!xl_acache_stamp_now(&after) || !same_stamp(before, &after))
        return;
    if (strlen(user) >= sizeof c->e[0].user || strlen(project) >= sizeof c->e[0].project)
        return;
    if (c->n == XL_ACACHE_MAX)
        c->n = 0;
    struct xl_acache_entry *e = &c->e[c->n++];
    snprintf(e->user, sizeof e->user, "%s", user);
    snprintf(e->project, sizeof e->project, "%s", project);
    snprintf(e->name, sizeof e->name, "%s", acct->name);
    e->uid = acct->uid;
    e->gid = acct->gid;
    e->pgid = pgid;
}
