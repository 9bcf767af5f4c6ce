/* cube_mock_proxy.c — the fake host's ABI 1.5 proxy serving features:
 * proxy_wake and proxy_stats, and simulated requests through a
 * registered prefix (cube_mock_proxy_send) that run resolve, park on
 * CUBE_EAGAIN, sample mirror copies, move the counters and call done as
 * cubed does. Nothing is relayed: the test says what the upstream
 * answered; mirror copies are counted as handed over and never fail. */
#include "cube_mock.h"
#include "cube_mock_priv.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_PREFIXES 16
#define MAX_KEYS 256
#define MAX_PARKED 256
#define MAX_ENDED 1024

struct key_stat {
    int prefix;
    char key[128];
    struct cube_proxy_stats s;
    uint64_t seq;
};

struct parked {
    int prefix;
    char *path;
    char key[128];
    int status, woken;
    uint64_t in, out;
};

static struct {
    struct cube_proxy_stats total[MAX_PREFIXES];
    uint64_t total_seq[MAX_PREFIXES];
    uint64_t wake_gen[MAX_PREFIXES];
    struct key_stat keys[MAX_KEYS];
    int n_keys;
    struct parked parked[MAX_PARKED];
    int n_parked;
    int ended[MAX_ENDED];
    int n_ended;
} P;

static int64_t wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int prefix_index(const char *tmpl)
{
    for (int i = 0; tmpl && cube_mock_proxy(i); i++)
        if (!strcmp(cube_mock_proxy(i)->prefix, tmpl))
            return i;
    return -1;
}

static struct key_stat *key_stat(int prefix, const char *key, int create)
{
    for (int i = 0; i < P.n_keys; i++)
        if (P.keys[i].prefix == prefix && !strcmp(P.keys[i].key, key))
            return &P.keys[i];
    if (!create || P.n_keys == MAX_KEYS)
        return NULL;
    struct key_stat *k = &P.keys[P.n_keys++];
    memset(k, 0, sizeof *k);
    k->prefix = prefix;
    snprintf(k->key, sizeof k->key, "%s", key);
    return k;
}

/* What cubed refuses in a resolve answer (503, logged), or NULL. */
static const char *bad_upstream(const struct cube_proxy_desc *d,
                                const struct cube_proxy_upstream *up, int relay)
{
    unsigned char a[16];
    for (const unsigned char *c = (const unsigned char *)up->key; *c; c++)
        if (*c < 0x20 || *c == 0x7f)
            return "key holds a control byte";
    if (!relay)
        return NULL;
    const char *hosts[] = {up->host, up->mirror_host};
    unsigned ports[] = {up->port, up->mirror_port};
    for (int i = 0; i < (up->mirror_host[0] && up->mirror_percent ? 2 : 1); i++) {
        int v4 = inet_pton(AF_INET, hosts[i], a) == 1;
        if (!v4 && inet_pton(AF_INET6, hosts[i], a) != 1)
            return "not a numeric address";
        if (!d->allow_remote && !(v4 ? a[0] == 127 : !strcmp(hosts[i], "::1")))
            return "not a loopback address";
        if (ports[i] < 1 || ports[i] > 65535)
            return "port out of range";
    }
    return up->mirror_percent > 100 ? "mirror_percent is above 100" : NULL;
}

/* The tag of the resolve that relayed the request being ended (0: none). */
static uint64_t relayed_tag;

/* The request ended with status: counters, then done. */
static int end(int i, struct key_stat *k, const char *key, int status, int upstream,
               int mirrored, int parked, uint64_t in, uint64_t out)
{
    uint64_t tag = upstream ? relayed_tag : 0;
    relayed_tag = 0;
    const struct cube_proxy_desc *d = cube_mock_proxy(i);
    struct cube_proxy_stats *s[] = {&P.total[i], k ? &k->s : NULL};
    for (int j = 0; j < 2; j++)
        if (s[j]) {
            s[j]->inflight--;
            s[j]->errors += status >= 500;
            s[j]->last_ms = wall_ms();
        }
    if (P.n_ended < MAX_ENDED)
        P.ended[P.n_ended++] = status;
    if (d->size >= offsetof(struct cube_proxy_desc, done) + sizeof d->done && d->done) {
        struct cube_proxy_done r = {
            .size = sizeof r, .prefix = d->prefix, .key = key ? key : "", .status = status,
            .upstream = upstream, .error = status >= 500, .mirrored = mirrored,
            .parked = parked, .bytes_in = in, .bytes_out = upstream ? out : 0, .tag = tag};
        d->done(mock_state(), &r);
    }
    return status;
}

static int park_max(const struct cube_proxy_desc *d)
{
    unsigned m = d->size >= offsetof(struct cube_proxy_desc, park_max) + sizeof d->park_max
                 ? d->park_max : 0;
    return m ? (int)m : 256;
}

static int mirror_wanted(int i, struct key_stat *k, const struct cube_proxy_upstream *up,
                         uint64_t in)
{
    const struct cube_proxy_desc *d = cube_mock_proxy(i);
    if (!up->mirror_host[0] || !up->mirror_percent)
        return 0;
    uint64_t *seq = k ? &k->seq : &P.total_seq[i], n = (*seq)++;
    if ((n + 1) * up->mirror_percent / 100 == n * up->mirror_percent / 100)
        return 0;
    size_t cap = d->size >= offsetof(struct cube_proxy_desc, mirror_body_max) +
                 sizeof d->mirror_body_max && d->mirror_body_max ? d->mirror_body_max : 1 << 20;
    if (in > cap)
        return 0;
    P.total[i].mirrored++;
    if (k)
        k->s.mirrored++;
    return 1;
}

/* resolve for a request counted already; key is the bound key or NULL. */
static int run(int i, const char *path, const char *key, int status, uint64_t in,
               uint64_t out, int was_parked)
{
    const struct cube_proxy_desc *d = cube_mock_proxy(i);
    struct cube_proxy_upstream up;
    struct cube_mock_response answer;
    int rc, said;
    for (int tries = 0;; tries++) {   /* a wake while resolve ran: again */
        uint64_t gen = P.wake_gen[i];
        rc = mock_proxy_resolve(i, path, key, &up, &answer);
        said = answer.status;
        cube_mock_response_free(&answer);
        if (said || rc != CUBE_EAGAIN || gen == P.wake_gen[i] || tries == 8)
            break;
    }
    struct key_stat *k = key ? key_stat(i, key, 0) : NULL;
    if (said || (rc != CUBE_OK && rc != CUBE_EAGAIN))
        return end(i, k, key, said ? said : rc == CUBE_ENOTFOUND ? 404
                   : rc == CUBE_EPERM ? 403 : 503, 0, 0, was_parked, in, out);
    if (bad_upstream(d, &up, rc == CUBE_OK)) {
        mock_logf("resolve for %s: %s", d->prefix, bad_upstream(d, &up, rc == CUBE_OK));
        return end(i, k, key, 503, 0, 0, was_parked, in, out);
    }
    if (!key) {
        key = up.key;
        if ((k = key_stat(i, key, 1))) {
            k->s.requests++;
            k->s.inflight++;
            k->s.last_ms = wall_ms();
        }
    }
    if (rc == CUBE_OK) {
        relayed_tag = up.tag;
        return end(i, k, key, status, 1, mirror_wanted(i, k, &up, in), was_parked, in, out);
    }
    int here = 0;
    for (int j = 0; j < P.n_parked; j++)
        here += P.parked[j].prefix == i;
    if (here >= park_max(d) || P.n_parked == MAX_PARKED)
        return end(i, k, key, 503, 0, 0, was_parked, in, out);
    struct parked *w = &P.parked[P.n_parked++];
    *w = (struct parked){.prefix = i, .path = mock_strdup(path), .status = status, .in = in,
                         .out = out};
    snprintf(w->key, sizeof w->key, "%s", key);
    P.total[i].parked++;
    if (k)
        k->s.parked++;
    return 0;
}

int cube_mock_proxy_send(int i, const char *path, int status, uint64_t bytes_in,
                         uint64_t bytes_out)
{
    if (i < 0 || i >= MAX_PREFIXES || !cube_mock_proxy(i))
        return 404;
    P.total[i].requests++;
    P.total[i].inflight++;
    P.total[i].last_ms = wall_ms();
    return run(i, path, NULL, status, bytes_in, bytes_out, 0);
}

/* Takes parked request j out; *w gets it (path owned by the caller). */
static void unpark(int j, struct parked *w)
{
    *w = P.parked[j];
    memmove(&P.parked[j], &P.parked[j + 1], (size_t)(P.n_parked - j - 1) * sizeof *w);
    P.n_parked--;
    P.total[w->prefix].parked--;
    struct key_stat *k = key_stat(w->prefix, w->key, 0);
    if (k)
        k->s.parked--;
}

/* Ends (woken: runs resolve again for) the parked requests that match. */
static int settle(int woken, const char *key, int status)
{
    int n = 0;
    for (int j = 0; j < P.n_parked;) {
        struct parked *p = &P.parked[j];
        if ((woken && !p->woken) || (!woken && key && strcmp(p->key, key))) {
            j++;
            continue;
        }
        struct parked w;
        unpark(j, &w);
        int before = P.n_parked;
        if (woken) {
            run(w.prefix, w.path, w.key, w.status, w.in, w.out, 1);
        } else {
            end(w.prefix, key_stat(w.prefix, w.key, 0), w.key, status, 0, 0, 1, w.in, w.out);
        }
        n += P.n_parked == before; /* it ended (did not park again at the end) */
        free(w.path);
    }
    return n;
}

int cube_mock_proxy_run_woken(void) { return settle(1, NULL, 0); }
int cube_mock_proxy_expire(void) { return settle(0, NULL, 504); }
int cube_mock_proxy_hang_up(const char *key) { return settle(0, key, 499); }
int cube_mock_proxy_parked(void) { return P.n_parked; }

const int *cube_mock_proxy_ended(int *count)
{
    if (count)
        *count = P.n_ended;
    return P.ended;
}

static int proxy_wake(cube_plugin *self, const char *prefix, const char *key)
{
    (void)self;
    if (!prefix)
        return CUBE_EINVAL;
    int i = prefix_index(prefix), n = 0;
    if (i < 0)
        return CUBE_ENOTFOUND;
    P.wake_gen[i]++;
    for (int j = 0; j < P.n_parked; j++)
        if (P.parked[j].prefix == i && !P.parked[j].woken &&
            (!key || !strcmp(P.parked[j].key, key))) {
            P.parked[j].woken = 1;
            n++;
        }
    return n;
}

static int proxy_stats(cube_plugin *self, const char *prefix, const char *key,
                       struct cube_proxy_stats *out)
{
    (void)self;
    if (!prefix || !out || out->size < offsetof(struct cube_proxy_stats, requests) +
                                           sizeof out->requests)
        return CUBE_EINVAL;
    size_t size = out->size < sizeof *out ? out->size : sizeof *out;
    int i = prefix_index(prefix);
    struct key_stat *k = i >= 0 && key ? key_stat(i, key, 0) : NULL;
    const struct cube_proxy_stats *s = i < 0 ? NULL : key ? (k ? &k->s : NULL) : &P.total[i];
    struct cube_proxy_stats z = {0};
    memcpy(out, s ? s : &z, size);
    out->size = size;
    return s ? CUBE_OK : CUBE_ENOTFOUND;
}

/* ABI 1.5 application credentials: checked as cubed checks them, kept
 * (the digest, lowercased) for cube_mock_proxy_credential. */
#define MAX_CREDS 64
static struct {
    int prefix;
    char key[128], digest[65];
} C[MAX_CREDS];
static int n_creds;

static int proxy_credential_set(cube_plugin *self, const char *prefix, const char *key,
                                const char *sha256_hex)
{
    (void)self;
    if (!prefix || !key || strlen(key) > 127)
        return CUBE_EINVAL;
    for (const char *c = key; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            return CUBE_EINVAL;
    if (sha256_hex) {
        if (strlen(sha256_hex) != 64)
            return CUBE_EINVAL;
        for (const char *c = sha256_hex; *c; c++)
            if (!strchr("0123456789abcdefABCDEF", *c))
                return CUBE_EINVAL;
    }
    int i = prefix_index(prefix), j = 0;
    if (i < 0)
        return CUBE_ENOTFOUND;
    while (j < n_creds && (C[j].prefix != i || strcmp(C[j].key, key)))
        j++;
    if (!sha256_hex) {
        if (j < n_creds)
            C[j] = C[--n_creds];
        return CUBE_OK;
    }
    if (j == n_creds && n_creds == MAX_CREDS)
        return CUBE_ETOOBIG;
    if (j == n_creds)
        n_creds++;
    C[j].prefix = i;
    snprintf(C[j].key, sizeof C[j].key, "%s", key);
    for (int b = 0; b < 64; b++)
        C[j].digest[b] = (char)(sha256_hex[b] >= 'A' && sha256_hex[b] <= 'F'
                                ? sha256_hex[b] + 32 : sha256_hex[b]);
    C[j].digest[64] = '\0';
    return CUBE_OK;
}

const char *cube_mock_proxy_credential(int i, const char *key)
{
    for (int j = 0; j < n_creds; j++)
        if (C[j].prefix == i && !strcmp(C[j].key, key))
            return C[j].digest;
    return NULL;
}

void mock_proxy_install(struct cube_host *h)
{
    h->proxy_wake = proxy_wake;
    h->proxy_stats = proxy_stats;
    h->proxy_credential_set = proxy_credential_set;
}

void mock_proxy_reset(void)
{
    for (int j = 0; j < P.n_parked; j++)
        free(P.parked[j].path);
    memset(&P, 0, sizeof P);
    n_creds = 0;
    relayed_tag = 0;
}
