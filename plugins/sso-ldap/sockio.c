/* sockio.c — bounds every read on a directory connection by the configured
 * timeout. libldap (as Debian builds it, without LDAP_USE_NON_BLOCKING_TLS)
 * runs the TLS handshake of ldaps:// and StartTLS without any timeout,
 * retrying EAGAIN in a busy loop, so a server that accepts and then stays
 * silent would spin an HTTP thread for ever. A connection callback pushes
 * a Sockbuf layer just above the TCP provider (below TLS) that polls before
 * each read and fails it with ETIMEDOUT when nothing arrives in time. */
#include "sso_ldap.h"

#include <errno.h>
#include <poll.h>

#include <lber.h>
#include <ldap.h>

/* Layer setup: keeps the pointer to the timeout in milliseconds. */
static int layer_setup(Sockbuf_IO_Desc *d, void *arg)
{
    d->sbiod_pvt = arg;
    return 0;
}

/* Layer control: nothing of its own, passed down. */
static int layer_ctrl(Sockbuf_IO_Desc *d, int opt, void *arg)
{
    return LBER_SBIOD_CTRL_NEXT(d, opt, arg);
}

/* Waits up to the timeout for data, then reads; -1 with errno ETIMEDOUT
 * when none came. (libldap reads only when it expects data: after poll
 * said so, or within a message or TLS record in flight.) */
static ber_slen_t layer_read(Sockbuf_IO_Desc *d, void *buf, ber_len_t len)
{
    const int *timeout_ms = d->sbiod_pvt;
    ber_socket_t fd = -1;
    if (ber_sockbuf_ctrl(d->sbiod_sb, LBER_SB_OPT_GET_FD, &fd) == 1 && fd >= 0) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int r;
        do
            r = poll(&p, 1, *timeout_ms);
        while (r < 0 && errno == EINTR);
        if (r == 0) {
            errno = ETIMEDOUT;
            return -1;
        }
    }
    return LBER_SBIOD_READ_NEXT(d, buf, len);
}

/* Writes through unchanged. */
static ber_slen_t layer_write(Sockbuf_IO_Desc *d, void *buf, ber_len_t len)
{
    return LBER_SBIOD_WRITE_NEXT(d, buf, len);
}

static Sockbuf_IO timeout_io = {
    .sbi_setup = layer_setup, .sbi_ctrl = layer_ctrl,
    .sbi_read = layer_read, .sbi_write = layer_write,
};

/* Connection callback: pushes the timeout layer onto the new socket. */
static int on_connect(LDAP *ld, Sockbuf *sb, LDAPURLDesc *srv, struct sockaddr *addr,
                      struct ldap_conncb *ctx)
{
    (void)ld, (void)srv, (void)addr;
    return ber_sockbuf_add_io(sb, &timeout_io, LBER_SBIOD_LEVEL_PROVIDER + 5, ctx->lc_arg)
           == 0 ? 0 : LDAP_LOCAL_ERROR;
}

/* Close callback: the layer goes with the Sockbuf. */
static void on_close(LDAP *ld, Sockbuf *sb, struct ldap_conncb *ctx)
{
    (void)ld, (void)sb, (void)ctx;
}

/* Fills cb so that connections of the handle it is set on time out reads
 * after *timeout_ms; cb and timeout_ms must outlive the handle. */
void ssoldap_io_callbacks(struct ldap_conncb *cb, int *timeout_ms)
{
    cb->lc_add = on_connect;
    cb->lc_del = on_close;
    cb->lc_arg = timeout_ms;
}
