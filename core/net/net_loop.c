/* net_loop.c — the network thread: one libcurl multi handle for every
 * fetch of cubed, driven by curl_multi_poll, woken by curl_multi_wakeup
 * when a plugin thread queues an operation (add, cancel, abort, resume).
 * It runs no plugin code: callbacks go to workers (net_deliver.c). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "config/config.h"
#include "net.h"
#include "net_priv.h"

int cube_net_post(struct cube_net *net, enum net_op_kind kind, struct net_fetch *f)
{
    struct net_op *op = malloc(sizeof *op);
    if (!op)
        return -1;
    *op = (struct net_op){.kind = kind, .f = f};
    if (f)
        cube_net_ref(f);
    pthread_mutex_lock(&net->mu);
    if (net->stopping && kind == NET_OP_ADD) {
        pthread_mutex_unlock(&net->mu);
        cube_net_unref(f);
        free(op);
        return -1;
    }
    if (net->ops_tail)
        net->ops_tail->next = op;
    else
        net->ops_head = op;
    net->ops_tail = op;
    pthread_mutex_unlock(&net->mu);
    curl_multi_wakeup(net->multi);
    return 0;
}

/* Ends f's transfer for good: the done callback is queued, the loop's
 * reference dropped. */
static void retire(struct net_fetch *f)
{
    if (f->in_multi)
        curl_multi_remove_handle(f->net->multi, f->easy);
    f->in_multi = 0;
    f->loop_done = 1;
    cube_net_deliver(f, NULL, 0);
    cube_net_unref(f);
}

static void start(struct net_fetch *f)
{
    if (f->refused[0]) {
        cube_net_fetch_fail(f, CUBE_EPERM, "%s", f->refused);
        retire(f);
    } else if (curl_multi_add_handle(f->net->multi, f->easy) != CURLM_OK) {
        cube_net_fetch_fail(f, CUBE_EIO, "the transfer could not be started");
        retire(f);
    } else {
        f->in_multi = 1;
    }
}

/* A transfer ended with rc: follow a redirect or retire. */
static void ended(struct net_fetch *f, CURLcode rc)
{
    curl_multi_remove_handle(f->net->multi, f->easy);
    f->in_multi = 0;
    if (cube_net_fetch_finished(f, rc))
        start(f);
    else
        retire(f);
}

/* Runs one queued operation; returns 1 for STOP. */
static int run_op(struct net_op *op)
{
    struct net_fetch *f = op->f;
    switch (op->kind) {
    case NET_OP_ADD:
        start(f);
        break;
    case NET_OP_CANCEL:
        if (!f->loop_done) {
            if (f->in_multi)
                curl_multi_remove_handle(f->net->multi, f->easy);
            f->in_multi = 0;
            f->loop_done = 1;
            cube_net_unref(f);
        }
        break;
    case NET_OP_ABORT:
        if (!f->loop_done && f->in_multi)
            ended(f, CURLE_WRITE_ERROR);
        break;
    case NET_OP_RESUME:
        if (f->in_multi)
            curl_easy_pause(f->easy, CURLPAUSE_CONT);
        break;
    case NET_OP_STOP:
        return 1;
    }
    return 0;
}

/* Takes the queued operations and runs them in order. Returns 1 on STOP. */
static int run_ops(struct cube_net *net)
{
    pthread_mutex_lock(&net->mu);
    struct net_op *op = net->ops_head;
    net->ops_head = net->ops_tail = NULL;
    pthread_mutex_unlock(&net->mu);
    int stop = 0;
    while (op) {
        struct net_op *next = op->next;
        stop |= run_op(op);
        if (op->f)
            cube_net_unref(op->f);
        free(op);
        op = next;
    }
    return stop;
}

static void *loop_main(void *arg)
{
    struct cube_net *net = arg;
    while (!run_ops(net)) {
        int running = 0;
        curl_multi_perform(net->multi, &running);
        CURLMsg *m;
        int left;
        while ((m = curl_multi_info_read(net->multi, &left))) {
            if (m->msg != CURLMSG_DONE)
                continue;
            struct net_fetch *f = NULL;
            curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&f);
            ended(f, m->data.result);
        }
        curl_multi_poll(net->multi, NULL, 0, 1000, NULL);
    }
    return NULL;
}

static void global_init(void)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
}

static void share_lock(CURL *c, curl_lock_data d, curl_lock_access a, void *p)
{
    (void)c;
    (void)a;
    pthread_mutex_lock(&((pthread_mutex_t *)p)[d]);
}

static void share_unlock(CURL *c, curl_lock_data d, void *p)
{
    (void)c;
    pthread_mutex_unlock(&((pthread_mutex_t *)p)[d]);
}

struct cube_net *cube_net_new(const struct cube_config *cfg, struct cube_tasks *tasks)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;   /* libcurl's own global state */
    pthread_once(&once, global_init);
    struct cube_net *net = calloc(1, sizeof *net);
    if (!net)
        return NULL;
    net->cfg = cfg;
    net->tasks = tasks;
    pthread_mutex_init(&net->mu, NULL);
    pthread_mutex_t *locks = net->share_locks;
    for (int i = 0; i < CURL_LOCK_DATA_LAST; i++)
        pthread_mutex_init(&locks[i], NULL);
    net->multi = curl_multi_init();
    net->share = curl_share_init();
    if (!net->multi || !net->share)
        goto fail;
    curl_share_setopt(net->share, CURLSHOPT_LOCKFUNC, share_lock);
    curl_share_setopt(net->share, CURLSHOPT_UNLOCKFUNC, share_unlock);
    curl_share_setopt(net->share, CURLSHOPT_USERDATA, locks);
    curl_share_setopt(net->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
    curl_share_setopt(net->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
    curl_multi_setopt(net->multi, CURLMOPT_MAX_HOST_CONNECTIONS, 16L);
    if (pthread_create(&net->thread, NULL, loop_main, net))
        goto fail;
    net->started = 1;
    return net;
fail:
    cube_log(CUBE_LOG_ERROR, "net", "cannot start the network thread");
    cube_net_free(net);
    return NULL;
}

void cube_net_free(struct cube_net *net)
{
    if (!net)
        return;
    pthread_mutex_lock(&net->mu);
    net->stopping = 1;
    pthread_mutex_unlock(&net->mu);
    cube_net_cancel_owner(net, NULL);
    if (net->started) {
        cube_net_post(net, NET_OP_STOP, NULL);
        pthread_join(net->thread, NULL);
        run_ops(net);   /* cancels queued after STOP */
    }
    /* strands still queued on workers drop the last references */
    for (int busy = 1; busy;) {
        pthread_mutex_lock(&net->mu);
        busy = 0;
        for (size_t b = 0; b < NET_BUCKETS; b++)
            busy |= net->buckets[b] != NULL;
        pthread_mutex_unlock(&net->mu);
        if (busy)
            usleep(1000);
    }
    if (net->multi)
        curl_multi_cleanup(net->multi);
    if (net->share)
        curl_share_cleanup(net->share);
    pthread_mutex_destroy(&net->mu);
    for (int i = 0; i < CURL_LOCK_DATA_LAST; i++)
        pthread_mutex_destroy(&net->share_locks[i]);
    free(net);
}
