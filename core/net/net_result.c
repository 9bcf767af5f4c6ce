/* net_result.c — the end of one transfer, on the network thread: a
 * redirect re-checked against the allow-list and re-armed, or the outcome
 * turned into the result done receives. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/clock.h"
#include "base/log.h"
#include "ctx/ctx.h"
#include "net_priv.h"

/* The URL without its query and fragment, for the debug log (a query may
 * hold a token). */
static void url_for_log(const char *url, char *out, size_t n)
{
    size_t len = strcspn(url ? url : "", "?#");
    snprintf(out, n, "%.*s%s", (int)(len < 400 ? len : 400), url ? url : "",
             url && url[len] ? "?..." : "");
}

static int redirect(struct net_fetch *f, const char *loc, long code)
{
    char from[512];
    url_for_log(f->url, from, sizeof from);
    char *next = strdup(loc);
    if (!next) {
        cube_net_fetch_fail(f, CUBE_ENOMEM, "out of memory");
        return 0;
    }
    int bad = cube_net_fetch_retarget(f, next);
    free(next);
    if (bad) {
        cube_net_fetch_fail(f, CUBE_EIO, "%s redirected to a URL that is not http(s)", from);
        return 0;
    }
    if (f->refused[0]) {
        cube_net_fetch_fail(f, CUBE_EPERM, "%s (a redirect from %s)", f->refused, from);
        return 0;
    }
    uint64_t spent = (cube_now_ns() - f->start_ns) / 1000000u;
    if (spent >= f->timeout_ms) {
        cube_net_fetch_fail(f, CUBE_ETIMEDOUT, "no complete answer within %u ms", f->timeout_ms);
        return 0;
    }
    if (code == 303 || ((code == 301 || code == 302) && !strcmp(f->method, "POST"))) {
        strcpy(f->method, "GET");   /* "GET" is never longer than the method */
        f->body_len = 0;
    }
    if (cube_net_fetch_rearm(f, (long)(f->timeout_ms - spent))) {
        cube_net_fetch_fail(f, CUBE_ENOMEM, "out of memory");
        return 0;
    }
    return 1;
}

/* Fills a successful result from the handle. */
static void succeeded(struct net_fetch *f)
{
    long code = 0;
    char *url = NULL;
    curl_easy_getinfo(f->easy, CURLINFO_RESPONSE_CODE, &code);
    curl_easy_getinfo(f->easy, CURLINFO_EFFECTIVE_URL, &url);
    f->result = (struct cube_fetch_result){
        .size = sizeof f->result, .error = CUBE_OK, .message = "", .status = (int)code,
        .headers = f->resp_headers.p ? f->resp_headers.p : "",
        .body = f->resp_body.p ? f->resp_body.p : "", .body_len = f->resp_body.len,
        .url = url ? url : f->url};
}

int cube_net_fetch_finished(struct net_fetch *f, CURLcode rc)
{
    int stop = atomic_load(&f->stop_code);
    if (rc == CURLE_OK) {
        long code = 0;
        char *loc = NULL;
        curl_easy_getinfo(f->easy, CURLINFO_RESPONSE_CODE, &code);
        curl_easy_getinfo(f->easy, CURLINFO_REDIRECT_URL, &loc);
        if (f->follow && (code == 301 || code == 302 || code == 303 || code == 307 ||
                          code == 308) && loc) {
            if (f->redirects_left-- <= 0) {
                cube_net_fetch_fail(f, CUBE_EIO, "more redirects than max_redirects allows");
                return 0;
            }
            return redirect(f, loc, code);
        }
        succeeded(f);
    } else if (stop) {
        cube_net_fetch_fail(f, stop, "the chunk callback stopped the fetch (%d)", stop);
    } else if (f->too_big || rc == CURLE_FILESIZE_EXCEEDED) {
        cube_net_fetch_fail(f, CUBE_ETOOBIG, "the answer's body passed max_bytes (%llu)",
                            (unsigned long long)f->max_bytes);
    } else if (f->refused[0] && rc == CURLE_COULDNT_CONNECT) {
        cube_net_fetch_fail(f, CUBE_EPERM, "%s", f->refused);
    } else if (rc == CURLE_OPERATION_TIMEDOUT) {
        cube_net_fetch_fail(f, CUBE_ETIMEDOUT, "no complete answer within %u ms",
                            f->timeout_ms);
    } else {
        cube_net_fetch_fail(f, CUBE_EIO, "%s", f->errbuf[0] ? f->errbuf : curl_easy_strerror(rc));
    }
    if (cube_log_enabled(CUBE_LOG_DEBUG)) {
        char shown[512];
        url_for_log(f->url, shown, sizeof shown);
        cube_log(CUBE_LOG_DEBUG, f->owner->log_component, "fetch %llu %s %s: %d %s (%llu ms)",
                 (unsigned long long)f->id, f->method, shown, f->result.status,
                 f->result.message, (unsigned long long)((cube_now_ns() - f->start_ns) / 1000000u));
    }
    return 0;
}

void cube_net_fetch_release_transfer(struct net_fetch *f)
{
    if (f->easy)
        curl_easy_cleanup(f->easy);
    f->easy = NULL;
    curl_slist_free_all(f->hdrs);
    f->hdrs = NULL;
    for (size_t i = 0; i < f->n_req_headers; i++)
        free(f->req_headers[i]);
    free(f->req_headers);
    f->req_headers = NULL;
    f->n_req_headers = 0;
    free(f->method);
    free(f->body);
    f->method = f->body = NULL;
}
