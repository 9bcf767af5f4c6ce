/* ends.c — replica ends noticed as they happen. Each supervisor, right
 * after writing its status file, writes its slot name and a newline into
 * the FIFO <run dir root>/.ends (non-blocking: when nobody reads — cubed is
 * down — or the FIFO is full, nothing is lost; the tick and re-adoption
 * find the status file anyway). A thread of this plugin reads the FIFO and
 * reports each end at once, instead of waiting for the next tick on the
 * host's shared workers behind other work.
 *
 * The thread collects each end (the rest of the output, the status) and
 * hands the report to one of XL_REPORTERS reporter threads: a report
 * waits for the host to record the end (a store commit), and reports made
 * side by side share commits, where one thread would report a layer of a
 * wide pipeline one commit after another. The thread and the tick both
 * collect under reap_mu; a run being reported (reporting) is left to its
 * reporter, so a run is reported once and only one thread pumps output. */
#include "executor_local.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LINE_MAX_LEN 64   /* a slot name is at most 63 bytes */

/* Handles the complete lines in buf[0..*n); keeps a partial one. */
static void handle_lines(struct xl *x, char *buf, size_t *n)
{
    char *p = buf, *end = buf + *n, *nl;
    while ((nl = memchr(p, '\n', (size_t)(end - p)))) {
        *nl = '\0';
        if (xl_slot_valid(p))
            xl_reap_slot(x, p);
        p = nl + 1;
    }
    *n = (size_t)(end - p);
    memmove(buf, p, *n);
    if (*n >= LINE_MAX_LEN)   /* no slot is this long: drop it */
        *n = 0;
}

static void *ends_main(void *arg)
{
    struct xl *x = arg;
    char buf[4096 + LINE_MAX_LEN];
    size_t n = 0;
    while (!__atomic_load_n(&x->ends_quit, __ATOMIC_ACQUIRE)) {
        ssize_t k = read(x->ends_fd, buf + n, sizeof buf - n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        n += (size_t)k;
        handle_lines(x, buf, &n);
    }
    return NULL;
}

/* A reporter: reports queued ends until told to quit. */
static void *reporter_main(void *arg)
{
    struct xl *x = arg;
    pthread_mutex_lock(&x->rep_mu);
    for (;;) {
        while (!x->rep_head && !x->rep_quit)
            pthread_cond_wait(&x->rep_cv, &x->rep_mu);
        if (x->rep_quit)
            break;
        struct xl_run *r = x->rep_head;
        x->rep_head = r->report_next;
        if (!x->rep_head)
            x->rep_tail = NULL;
        pthread_mutex_unlock(&x->rep_mu);
        xl_run_report(x, r);
        pthread_mutex_lock(&x->rep_mu);
    }
    pthread_mutex_unlock(&x->rep_mu);
    return NULL;
}

void xl_report_queue(struct xl *x, struct xl_run *r)
{
    pthread_mutex_lock(&x->rep_mu);
    int take = x->n_reporters > 0 && !x->rep_quit;
    if (take) {
        r->report_next = NULL;
        if (x->rep_tail)
            x->rep_tail->report_next = r;
        else
            x->rep_head = r;
        x->rep_tail = r;
        pthread_cond_signal(&x->rep_cv);
    }
    pthread_mutex_unlock(&x->rep_mu);
    if (!take)
        xl_run_report(x, r);
}

static void reporters_stop(struct xl *x)
{
    pthread_mutex_lock(&x->rep_mu);
    x->rep_quit = 1;
    pthread_cond_broadcast(&x->rep_cv);
    pthread_mutex_unlock(&x->rep_mu);
    for (int i = 0; i < x->n_reporters; i++)
        pthread_join(x->reporters[i], NULL);
    x->n_reporters = 0;
    /* Left unreported: their run directories stay for the next cubed. */
    for (struct xl_run *r = x->rep_head; r; r = r->report_next)
        __atomic_store_n(&r->reporting, 0, __ATOMIC_RELEASE);
    x->rep_head = x->rep_tail = NULL;
}

int xl_ends_start(struct xl *x, char *err, size_t len)
{
    char path[PATH_MAX + 16];
    struct stat st;
    snprintf(path, sizeof path, "%s/" XL_ENDS_FIFO, x->conf.run_root);
    if (mkfifo(path, 0600) < 0 && errno != EEXIST)
        return snprintf(err, len, "run_dir: cannot create %s: %s", path, strerror(errno)),
               CUBE_EIO;
    /* Read-write: the FIFO never reports end-of-file between supervisors. */
    x->ends_fd = open(path, O_RDWR | O_CLOEXEC);
    if (x->ends_fd < 0 || fstat(x->ends_fd, &st) < 0 || !S_ISFIFO(st.st_mode))
        return snprintf(err, len, "run_dir: %s is not a FIFO of ours", path), CUBE_EIO;
    /* Without reporters (no thread to be had) the ends thread reports. */
    while (x->n_reporters < XL_REPORTERS &&
           pthread_create(&x->reporters[x->n_reporters], NULL, reporter_main, x) == 0)
        x->n_reporters++;
    if (pthread_create(&x->ends_thread, NULL, ends_main, x) != 0)
        return snprintf(err, len, "cannot start a thread"), CUBE_ENOMEM;
    x->ends_running = 1;
    return CUBE_OK;
}

void xl_ends_stop(struct xl *x)
{
    if (x->ends_running) {
        __atomic_store_n(&x->ends_quit, 1, __ATOMIC_RELEASE);
        (void)!write(x->ends_fd, "\n", 1);   /* wakes the reader */
        pthread_join(x->ends_thread, NULL);
        x->ends_running = 0;
    }
    reporters_stop(x);
    if (x->ends_fd >= 0)
        close(x->ends_fd);
    x->ends_fd = -1;
}
