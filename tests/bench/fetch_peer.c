/* fetch_peer.c — the peer of tests/bench/fetch.sh: n GETs of one URL with
 * libcurl's easy interface in a loop (one handle, so one kept-alive
 * connection, as cubed's network thread keeps), printing p50 and p99 of
 * each curl_easy_perform in microseconds: "p50_us=X p99_us=Y errors=E".
 * Usage: fetch_peer URL N */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <curl/curl.h>

static size_t sink(char *p, size_t s, size_t n, void *u)
{
    (void)p;
    (void)u;
    return s * n;
}

static int cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    long n = atol(argv[2]);
    uint64_t *lat = malloc((size_t)n * sizeof *lat);
    CURL *c = curl_easy_init();
    if (!lat || !c || n < 1)
        return 1;
    curl_easy_setopt(c, CURLOPT_URL, argv[1]);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, sink);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_PROXY, "");
    int errors = 0;
    for (long i = 0; i < n; i++) {
        struct timespec a, b;
        long code = 0;
        clock_gettime(CLOCK_MONOTONIC, &a);
        CURLcode rc = curl_easy_perform(c);
        clock_gettime(CLOCK_MONOTONIC, &b);
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
        errors += rc != CURLE_OK || code != 200;
        lat[i] = (uint64_t)(b.tv_sec - a.tv_sec) * 1000000000u + (uint64_t)(b.tv_nsec - a.tv_nsec);
    }
    qsort(lat, (size_t)n, sizeof *lat, cmp);
    printf("p50_us=%.1f p99_us=%.1f errors=%d\n", lat[n / 2] / 1e3, lat[(n * 99) / 100] / 1e3,
           errors);
    curl_easy_cleanup(c);
    free(lat);
    return 0;
}
