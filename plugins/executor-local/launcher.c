/* launcher.c — the launcher loop, in the supervisor program (see
 * executor_local.h for the protocol; cubed's side is in spawn.c).
 *
 * One request at a time: check it, fork, answer with the child's pid and
 * start time. The child puts the two fds it got on 3 and 4 and becomes a
 * supervisor exactly as an exec()ed one would (xl_supervisor_run), with
 * the request's argv and environment. The launcher reaps its children
 * when SIGCHLD arrives (it is unblocked only while waiting in ppoll), so
 * ended supervisors never linger as zombies; the start time is read from
 * /proc before any reaping, so it names the supervisor even when it ended
 * at once. It ends when cubed's end of the socket closes. */
#include "executor_local.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define ARGS_MAX 65536   /* argv + environment strings of a request */

static char request[XL_LAUNCH_MAX + 1];
static char *title;   /* argv[1]: what ps shows after the program's path */

static void on_sigchld(int sig)
{
    (void)sig;   /* only interrupts ppoll */
}

static void reap_children(void)
{
    while (waitpid(-1, NULL, WNOHANG) > 0) {}
}

/* fds 0-2 on /dev/null, its own session, SIGCHLD handled and blocked but
 * while waiting; -1 on failure. */
static int launcher_setup(int sock, sigset_t *wait_mask)
{
    if (sock != XL_SUP_FD_DIR)
        close(XL_SUP_FD_DIR);   /* cubed put the socket on both */
    setsid();
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 || dup2(null, 2) < 0)
        return -1;
    if (null > 2)
        close(null);
    if (fcntl(sock, F_SETFD, FD_CLOEXEC) < 0)
        return -1;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigchld;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_NOCLDSTOP;
    if (sigaction(SIGCHLD, &sa, NULL) < 0)
        return -1;
    signal(SIGPIPE, SIG_IGN);
    sigset_t chld;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    if (sigprocmask(SIG_BLOCK, &chld, wait_mask) < 0)
        return -1;
    sigdelset(wait_mask, SIGCHLD);
    return 0;
}

/* Receives one request: its length; 0 at the end of the socket (or when
 * it fails); -1 for a message to refuse (its fds closed, *nfds 0). The fds
 * get close-on-exec. */
static ssize_t receive(int sock, int fds[2], int *nfds)
{
    union {
        struct cmsghdr h;
        char buf[CMSG_SPACE(sizeof(int) * 4)];
    } ctl;
    struct iovec iov = {.iov_base = request, .iov_len = sizeof request};
    struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf,
                       .msg_controllen = sizeof ctl.buf};
    ssize_t n;
    *nfds = 0;
    while ((n = recvmsg(sock, &m, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR) {}
    if (n < 0)
        return 0;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
            continue;
        size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t i = 0; i < k; i++) {
            int fd;
            memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
            if (*nfds < 2)
                fds[(*nfds)++] = fd;
            else
                close(fd);
        }
    }
    if (n > 0 && (*nfds != 2 || (m.msg_flags & (MSG_TRUNC | MSG_CTRUNC)))) {
        for (int i = 0; i < *nfds; i++)
            close(fds[i]);
        *nfds = 0;
        return -1;
    }
    return n;
}

/* Nonzero when request[0..n) is a well-formed request. */
static int request_ok(size_t n)
{
    struct xl_launch_req h;
    if (n < sizeof h || n > XL_LAUNCH_MAX)
        return 0;
    memcpy(&h, request, sizeof h);
    if (h.magic != XL_LAUNCH_MAGIC || h.argc < 2 || h.argc > ARGS_MAX ||
        h.envc > ARGS_MAX - h.argc || request[n - 1] != '\0')
        return 0;
    uint32_t strings = 0;
    for (size_t i = sizeof h; i < n; i++)
        strings += request[i] == '\0';
    return strings == h.argc + h.envc;
}

/* The child: fds in place, argv and environment from the request, then a
 * supervisor. */
__attribute__((noreturn)) static void become_supervisor(size_t n, const int fds[2])
{
    signal(SIGCHLD, SIG_DFL);   /* the supervisor waits for its replica */
    size_t tlen = strlen(title);  /* ps: a supervisor, not one more launcher */
    memset(title, 0, tlen);
    memcpy(title, "--supervisor", tlen < 12 ? tlen : 12);
    int out = fcntl(fds[0], F_DUPFD_CLOEXEC, 10), dir = fcntl(fds[1], F_DUPFD_CLOEXEC, 10);
    if (out < 0 || dir < 0 || dup2(out, XL_SUP_FD_OUT) < 0 || dup2(dir, XL_SUP_FD_DIR) < 0)
        _exit(127);
    struct xl_launch_req h;
    memcpy(&h, request, sizeof h);
    char **v = calloc((size_t)h.argc + h.envc + 2, sizeof *v);
    if (!v)
        _exit(127);
    char *s = request + sizeof h, *end = request + n;
    for (uint32_t i = 0; i < h.argc + h.envc && s < end; i++, s += strlen(s) + 1)
        v[i < h.argc ? i : i + 1] = s;   /* argv, NULL, environment, NULL */
    xl_supervisor_run((int)h.argc, v, v + h.argc + 1);
}

/* The start time of a child not reaped yet (a zombie's still counts). */
static unsigned long long child_start_time(pid_t pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t k = fd < 0 ? -1 : read(fd, buf, sizeof buf - 1);
    if (fd >= 0)
        close(fd);
    if (k <= 0)
        return 0;
    buf[k] = '\0';
    return xl_stat_start_time(buf);
}

/* Handles one request; 0 when the socket ended. */
static int serve_one(int sock)
{
    int fds[2], nfds;
    ssize_t n = receive(sock, fds, &nfds);
    if (n == 0)
        return 0;
    struct xl_launch_reply r = {.pid = -1, .err = EINVAL};
    if (n > 0 && request_ok((size_t)n)) {
        pid_t pid = fork();
        if (pid == 0) {
            close(sock);
            become_supervisor((size_t)n, fds);
        }
        r.pid = pid;
        r.err = pid < 0 ? errno : 0;
        r.start = pid > 0 ? child_start_time(pid) : 0;
    }
    for (int i = 0; i < nfds; i++)
        close(fds[i]);
    return send(sock, &r, sizeof r, MSG_NOSIGNAL) == (ssize_t)sizeof r;
}

void xl_launcher_main(int sock, char *arg)
{
    title = arg;
    sigset_t wait_mask;
    if (launcher_setup(sock, &wait_mask) < 0)
        _exit(1);
    for (;;) {
        struct pollfd pfd = {.fd = sock, .events = POLLIN};
        int k = ppoll(&pfd, 1, NULL, &wait_mask);
        int err = errno;   /* reaping sets errno (ECHILD) */
        reap_children();
        if (k < 0 && err != EINTR)
            _exit(1);
        if (k > 0 && (pfd.revents & POLLIN) && !serve_one(sock))
            _exit(0);
        if (k > 0 && !(pfd.revents & POLLIN))
            _exit(0);   /* hang-up or error without data: cubed is gone */
    }
}
